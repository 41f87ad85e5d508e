/**
 * The site's rankings and result page in headless chromium at 1280 px: one ranking per protocol, track, model,
 * quantization, case and concurrency (two tracks and two quantizations here, never one rank sequence across them),
 * a draft-protocol result's numbers as labelled pilot data, nothing wider than the window, the headline on the
 * first screen, every fact results.json records on the result page, and a verdict remembered by the browser said
 * to be remembered, and bidirectional or invisible controls in a model name and track notes shown as escapes, never
 * obeyed. Screenshots go to $STRATA_CI_LOGS (or a temporary folder), whose path the test prints.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import assert from "node:assert/strict";
import { join } from "node:path";
import { manifestText } from "../../site/web/manifest.js";
import {
  copyFolder,
  demoFolder,
  DRAFT_ID,
  git,
  PROTOCOLS_JSON,
  relabel,
  reviewedNow,
  sha256File,
  TEST_ACTIVATED,
} from "../site/_fixture_repo.ts";
import { launchChromium } from "./_chromium.ts";
import { buildAndServe } from "./_served_site.ts";

const PAGE_DEADLINE_MS = 30_000;
/** Bidirectional and invisible controls a hostile model name or note carries: a page shows them, never obeys them. */
const HOSTILE = "\u202Egnp.exe\u200B\u2066x\u2069\uFEFF";
const HOSTILE_SHOWN = "<U+202E>gnp.exe<U+200B><U+2066>x<U+2069><U+FEFF>";
const RAW_CONTROL = /[\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/**
 * What a reader of the page sees: its text and the attributes shown as text (tooltips, labels). A filter's option
 * value or a data- attribute holds the raw name, as the page compares it, and is never shown.
 */
const SHOWN =
  "document.body.innerText + [...document.querySelectorAll('[title], [aria-label], [alt], [placeholder]')]" +
  ".map((e) => ['title', 'aria-label', 'alt', 'placeholder'].map((a) => e.getAttribute(a) ?? '').join(' ')).join(' ')";

/** Where a page shows a raw control, with the text around it; "" where none. */
function rawControl(shown: string): string {
  const at = shown.search(RAW_CONTROL);
  return at === -1 ? "" : JSON.stringify(shown.slice(Math.max(0, at - 120), at + 40));
}
const WIDTH = 1280;
const HEIGHT = 800;

/** name, protocol, track, quant, GPU: two tracks and two quantizations, and one draft-protocol pilot run. */
const RESULTS = [
  ["default-iq3-3060", TEST_ACTIVATED, "default", "IQ3_XXS", "NVIDIA GeForce RTX 3060"],
  ["default-iq3-a4000", TEST_ACTIVATED, "default", "IQ3_XXS", "NVIDIA RTX A4000"],
  ["custom-iq3-3060", TEST_ACTIVATED, "custom", "IQ3_XXS", "NVIDIA GeForce RTX 3060"],
  ["default-q4-3060", TEST_ACTIVATED, "default", "Q4_K_M", "NVIDIA GeForce RTX 3060"],
  ["custom-q4-a4000", TEST_ACTIVATED, "custom", "Q4_K_M", "NVIDIA RTX A4000"],
  ["pilot-draft", DRAFT_ID, "custom", "Q4_K_M", "NVIDIA RTX A4000"],
] as const;

async function repository(root: string) {
  const repo = join(root, "repo");
  await Deno.mkdir(join(repo, "bench/results"), { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  const made = await demoFolder(join(root, "made"), true);
  for (const [name, protocolId, track, quant, gpu] of RESULTS) {
    const folder = join(repo, "bench/results", name);
    await copyFolder(made, folder);
    await relabel(folder, {
      protocolId,
      status: "complete",
      runId: `run-${name}`,
      gpu,
      quant,
      // The pilot run's model name and one ranked run's notes carry hostile controls.
      model: name === "pilot-draft" ? `Qwen/Qwen3.8-Flash-Next${HOSTILE}` : "Qwen/Qwen3.8-Flash-Next",
      edit: (r) => {
        r.configuration.track = track;
        r.configuration.track_notes = `${track} track for the ranking test${
          name === "default-iq3-3060" ? HOSTILE : ""
        }`;
      },
    });
  }
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "results");
  const commit = (await git(repo, "rev-parse", "HEAD")).stdout.trim();
  const entries = [];
  for (const [name, protocolId] of RESULTS) {
    entries.push({
      run_id: `run-${name}`,
      protocol_id: protocolId,
      results_path: `bench/results/${name}/results.json`,
      results_sha256: await sha256File(join(repo, "bench/results", name, "results.json")),
      evidence_commit: commit,
      review_pr: "https://github.com/example/results/pull/1",
      reviewed_by: "maintainer-one",
      reviewed_at: reviewedNow(),
      verification: "evidence-reviewed",
      reproduction_run_ids: [],
    });
  }
  await Deno.writeTextFile(join(repo, "bench/approved.json"), manifestText(entries));
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "approve");
  return repo;
}

Deno.test({
  name: "one ranking per protocol, track, model, quant, case and concurrency; pilot data; every fact; 1280 px",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const root = await Deno.makeTempDir({ prefix: "strata-site-rankings-" });
    const shots = Deno.env.get("STRATA_CI_LOGS") ?? await Deno.makeTempDir({ prefix: "strata-site-screenshots-" });
    await Deno.mkdir(shots, { recursive: true });
    console.log(`site screenshots: ${shots}`);
    const repo = await repository(root);
    const server = await buildAndServe(root, repo, new TextEncoder().encode(PROTOCOLS_JSON));
    const { base, out } = server;
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const open = async (path: string) => {
        await page.goto(base + path);
        await page.waitForSelector('html[data-state="done"]', { timeout: PAGE_DEADLINE_MS });
      };
      const overflow = async () => Number(await page.evaluate("document.documentElement.scrollWidth - innerWidth"));
      const widest = () =>
        page.evaluate(
          "[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > innerWidth)" +
            ".slice(0, 3).map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + e.getBoundingClientRect().right).join(', ')",
        );
      await open("");

      await t.step("each ranking holds one protocol, track, model, quant, case and concurrency", async () => {
        assert.equal(
          await page.locator("#rejected li[data-kind]").count(),
          0,
          await page.locator("#rejected").innerText(),
        );
        const rankings = await page.locator("#standard .ranking").evaluateAll((divs) =>
          divs.map((d) => ({
            title: d.querySelector("h3")?.textContent ?? "",
            ranks: [...d.querySelectorAll("td.rank")].map((td) => td.textContent),
            runs: [...d.querySelectorAll("tr[data-run]")].map((tr) => tr.getAttribute("data-run")),
          }))
        );
        // 4 activated groups (2 tracks x 2 quants) x 4 cases (three prompts and the burst).
        assert.equal(rankings.length, 16, rankings.map((r) => r.title).join("\n"));
        for (const r of rankings) {
          assert.deepEqual(r.ranks, r.runs.map((_, i) => String(i + 1)), r.title);
          const track = /, (default|custom) track,/.exec(r.title)?.[1];
          const quant = /(IQ3_XXS|Q4_K_M)/.exec(r.title)?.[1];
          assert.ok(track !== undefined && quant !== undefined, r.title);
          for (const run of r.runs) {
            assert.match(run ?? "", new RegExp(`run-${track}-${quant === "IQ3_XXS" ? "iq3" : "q4"}-`));
          }
        }
        const pair = rankings.filter((r) => r.runs.length === 2);
        assert.equal(pair.length, 4, "only the two default-track IQ3_XXS results share rankings");
        assert.doesNotMatch(await page.locator("#standard").innerText(), /run-pilot-draft/);
      });

      await t.step("a ranking longer than a page is paged, its ranks running on across pages", async () => {
        // Read from the page, as drawn: one row a page (?rows=1), so each two-entry ranking has two pages.
        const drawn = () =>
          page.locator("#standard .ranking").evaluateAll((divs) =>
            divs.filter((d) => d.querySelector("p.pager") !== null).map((d) => ({
              key: d.getAttribute("data-ranking"),
              ranks: [...d.querySelectorAll("td.rank")].map((td) => td.textContent),
              runs: [...d.querySelectorAll("tr[data-run]")].map((tr) => tr.getAttribute("data-run")),
              pager: d.querySelector("p.pager")?.textContent ?? "",
            }))
          );
        const unpaged = await page.locator("#standard .ranking").evaluateAll((divs) =>
          divs.filter((d) => d.querySelectorAll("tbody tr").length === 2).map((d) => ({
            key: d.getAttribute("data-ranking"),
            runs: [...d.querySelectorAll("tr[data-run]")].map((tr) => tr.getAttribute("data-run")),
          }))
        );
        assert.equal(unpaged.length, 4);
        assert.equal(await page.locator("p.pager").count(), 0, "50 rows a page: nothing here is paged");
        await open("?rows=1");
        const first = await drawn();
        assert.deepEqual(first.map((r) => r.key), unpaged.map((r) => r.key), "exactly the two-entry rankings");
        for (const [i, r] of first.entries()) {
          assert.deepEqual([r.ranks, r.runs], [["1"], [unpaged[i]!.runs[0]]]);
          assert.match(r.pager, /^previous rows 1-1 of 2 \(page 1 of 2\) next$/);
        }
        const pagers = page.locator("#standard p.pager");
        await pagers.first().locator("button", { hasText: "next" }).click();
        const second = await drawn();
        assert.deepEqual([second[0]!.ranks, second[0]!.runs], [["2"], [unpaged[0]!.runs[1]]]);
        assert.match(second[0]!.pager, /rows 2-2 of 2 \(page 2 of 2\)/);
        assert.equal(await pagers.first().locator("button", { hasText: "next" }).isDisabled(), true);
        assert.deepEqual(second.slice(1).map((r) => r.ranks), first.slice(1).map((r) => r.ranks), "one ranking moved");
        await open("");
      });

      await t.step("a draft-protocol result shows its numbers as labelled pilot data", async () => {
        const pilot = page.locator("#pilot");
        assert.match(await pilot.locator("h2").innerText(), /Pilot data: draft-protocol results/);
        const rows = pilot.locator('tr[data-run="run-pilot-draft"]');
        assert.equal(await rows.count(), 4);
        assert.deepEqual(await rows.locator("td.rank").allInnerTexts(), ["pilot", "pilot", "pilot", "pilot"]);
        assert.match(await rows.first().innerText(), /\d+\.\d\s+\[\d/);
      });

      await t.step(
        "bidi and invisible controls in a model name are shown as escapes on the index, never obeyed",
        async () => {
          assert.ok((await page.locator("#pilot").innerText()).includes(`Qwen/Qwen3.8-Flash-Next${HOSTILE_SHOWN}`));
          assert.equal(rawControl(String(await page.evaluate(SHOWN))), "", "no raw control shown on the index");
        },
      );

      await t.step("the index fits 1280 px", async () => {
        assert.ok(
          await overflow() <= 0,
          `the index is ${await overflow()} px wider than the window: ${await widest()}`,
        );
      });
      await page.screenshot({ path: join(shots, "site-rankings-index.png"), fullPage: true });
      await page.screenshot({ path: join(shots, "site-rankings-first-screen.png") });

      await t.step("the result page: headline on the first screen, every fact, no overflow", async () => {
        await open("r/run-default-iq3-3060/");
        const box = await page.locator("#headline").boundingBox();
        assert.ok(box !== null && box.y + box.height <= HEIGHT, `the headline ends at ${box && box.y + box.height}`);
        assert.match(await page.locator("#headline").innerText(), /Headline numbers[\s\S]*Decode tok\/s[\s\S]*12\/12/);
        await page.screenshot({ path: join(shots, "site-result-first-screen.png") });
        assert.ok(
          await overflow() <= 0,
          `the result page is ${await overflow()} px wider than the window: ${await widest()}`,
        );
        const result = JSON.parse(await Deno.readTextFile(join(repo, "bench/results/default-iq3-3060/results.json")));
        const text = await page.locator("main").innerText();
        for (
          const fact of [
            "power_limit_w",
            "170",
            "GiB",
            "Background workloads",
            "Drivers",
            "Runtime",
            "Model files",
            result.model.files[0].path,
            result.protocol.corpus_sha256,
            "temperature",
            "reasoning_effort",
            "enable_thinking",
            "kv_cache",
            "expert_cache",
            "offloading",
            "prefill",
            "mtp",
            "calibration",
            "experimental_options",
            "Resolved configuration",
            "Queueing in the concurrency rounds",
            "server_defaults",
          ]
        ) assert.ok(text.includes(fact), `the result page shows ${fact}`);
        const missing = Object.entries(result.missing) as [string, string][];
        assert.equal(await page.locator("#missing tbody tr").count(), missing.length);
        for (const [pointer, reason] of missing) assert.ok(text.includes(pointer) && text.includes(reason), pointer);
        assert.equal(await page.locator("#queueing-rounds tbody tr").count(), 3);
        assert.equal(await page.locator("#request-records tbody tr").count(), result.requests.length);
        const excluded = result.summaries.flatMap((s: { excluded: unknown[] }) => s.excluded).length;
        assert.ok(excluded > 0);
        assert.equal(await page.locator("#exclusions li").count(), excluded);
        await page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })");
        assert.ok(
          await overflow() <= 0,
          `the result page with every detail open is ${await overflow()} px wider: ${await widest()}`,
        );
        await page.screenshot({ path: join(shots, "site-result-page.png"), fullPage: true });
        assert.ok(text.includes(`default track for the ranking test${HOSTILE_SHOWN}`), "the track notes, escaped");
        assert.equal(rawControl(String(await page.evaluate(SHOWN))), "", "no raw control shown on the result page");
        for (const part of ["provenance", "configuration", "limitations"]) {
          const y = (await page.locator(`#${part}`).boundingBox())?.y ?? 0;
          const clip = { x: 0, y: y - 8, width: WIDTH, height: 1200 };
          await page.screenshot({ path: join(shots, `site-result-${part}.png`), fullPage: true, clip });
        }
      });

      await t.step("a draft-protocol result's page heads its numbers as pilot data", async () => {
        await open("r/run-pilot-draft/");
        assert.match(await page.locator("#headline.pilot h2").innerText(), /Pilot data: draft protocol/);
        assert.match(await page.locator("#headline").innerText(), /\d+\.\d/);
        assert.ok((await page.locator("main").innerText()).includes(`Qwen3.8-Flash-Next${HOSTILE_SHOWN}`));
        assert.equal(rawControl(String(await page.evaluate(SHOWN))), "", "no raw control shown on the pilot's page");
      });

      await t.step("a returning reader's verdicts are remembered, and said to be", async () => {
        await open("");
        assert.match(await page.locator("p.built").innerText(), /6 of them remembered from an earlier check here/);
        assert.ok(await page.locator("#standard .remembered").count() > 0);
        await open("r/run-default-iq3-3060/");
        assert.match(await page.locator("#verdict").innerText(), /Verified in this browser earlier[\s\S]*remembered/);
        const fresh = await (await browser.newContext()).newPage();
        await fresh.goto(base);
        await fresh.waitForSelector('html[data-state="done"]', { timeout: PAGE_DEADLINE_MS });
        assert.doesNotMatch(await fresh.locator("p.built").innerText(), /remembered/);
      });
      await t.step(
        "consecutive entries share a pack; every file cut from it is hashed, and a changed byte fails only its entry",
        async () => {
          const site = JSON.parse(await Deno.readTextFile(join(out, "data/site.json")));
          const entry = site.entries.find((e: { run_id: string }) => e.run_id === "run-custom-q4-a4000");
          const locations = [entry.results, ...Object.values(entry.artifacts)];
          assert.deepEqual(Object.keys(entry.pack.files).sort(), [...new Set(locations)].sort());
          const sharers = site.entries.filter((e: { pack?: { location: string } }) =>
            e.pack?.location === entry.pack.location
          );
          assert.ok(sharers.length > 1, "consecutive entries share a pack");
          await open("");
          const failedBefore = await page.locator('#rejected li[data-kind="failed"]').count();
          // One byte of results.json changed inside the pack (the file under its own hash stays as built).
          assert.equal(entry.pack.encoding, "gzip");
          const packPath = join(out, entry.pack.location);
          const pack = gunzipSync(await Deno.readFile(packPath));
          const [offset] = entry.pack.files[entry.results];
          pack[offset + 10] = pack[offset + 10] === 0x20 ? 0x0a : 0x20;
          await Deno.writeFile(packPath, gzipSync(pack));
          const fresh = await (await browser.newContext()).newPage();
          await fresh.goto(base);
          await fresh.waitForSelector('html[data-state="done"]', { timeout: PAGE_DEADLINE_MS });
          const item = fresh.locator('#rejected li[data-run="run-custom-q4-a4000"][data-kind="failed"]');
          assert.match(await item.innerText(), /SHA-256/);
          assert.equal(await fresh.locator('#standard tr[data-run="run-custom-q4-a4000"]').count(), 0);
          assert.equal(
            await fresh.locator('#rejected li[data-kind="failed"]').count(),
            failedBefore + 1,
            "the pack's other entries still verify",
          );
        },
      );
      assert.deepEqual(errors, [], "the pages ran without script errors");
    } finally {
      await browser.close();
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
