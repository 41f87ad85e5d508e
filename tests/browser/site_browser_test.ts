/**
 * The approved-results site in a real browser: Debian's chromium, driven headless by playwright-core (which
 * launches the installed browser and never downloads one). The site is built from a results repository of the
 * tool's own result folders (tests/site/_results_repo.ts) and served on loopback; every scenario must be shown as
 * the protocol requires. Screenshots of the index and of result pages go to $STRATA_CI_LOGS (or a temporary
 * folder), whose path the test prints.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { addApproved, GitRepo, gitRunner, KNOWN_PROTOCOLS, MANIFEST_PATH, withdrawApproved } from "../../site/mod.ts";
import { buildResultsRepository } from "../site/_results_repo.ts";
import { copyFolder, git, PROTOCOLS_JSON, relabel } from "../site/_fixture_repo.ts";
import { cleanup, runScripted } from "../scripted/_harness.ts";
import { buildAndServe } from "./_served_site.ts";
import { launchChromium } from "./_chromium.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";
const PAGE_DEADLINE_MS = 20_000;

Deno.test({
  name:
    "the site shows clean, partial, nonconforming, draft, tampered, unverifiable and withdrawn entries as the spec requires",
  // The browser's pipes belong to playwright; it closes them in browser.close() below.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const root = await Deno.makeTempDir({ prefix: "strata-site-browser-" });
    const shots = Deno.env.get("STRATA_CI_LOGS") ?? await Deno.makeTempDir({ prefix: "strata-site-screenshots-" });
    await Deno.mkdir(shots, { recursive: true });
    console.log(`site screenshots: ${shots}`);
    const fixture = await buildResultsRepository(root);
    const server = await buildAndServe(root, fixture.repo, await Deno.readFile(fixture.protocolsFile));
    const base = server.base;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      const open = async (path: string) => {
        await page.goto(base + path);
        await page.waitForSelector('html[data-state="done"]', { timeout: PAGE_DEADLINE_MS });
      };
      await open("");

      await t.step("every scenario is in its section, with its label and reason", async () => {
        for (const s of fixture.scenarios) {
          const where = `[data-run="${s.runId}"]`;
          if (s.expected === "absent") {
            assert.equal(await page.locator(where).count(), 0, `${s.name} must not be listed`);
            continue;
          }
          if (s.expected === "ranked") {
            const ranks = await page.locator(`#standard tr${where} td.rank`).allInnerTexts();
            assert.ok(ranks.length >= 3 && ranks.every((r) => /^\d+$/.test(r)), `${s.name}: ranks ${ranks}`);
          } else if (s.expected === "partial") {
            const ranks = await page.locator(`#partial tr${where} td.rank`).allInnerTexts();
            assert.deepEqual(ranks, ["not ranked", "not ranked", "not ranked"], s.name);
            assert.equal(
              await page.locator(`#standard ${where}`).count(),
              0,
              "a partial run is never in the ranked table",
            );
          } else if (s.expected === "outside") {
            assert.equal(await page.locator(`#outside li${where}`).count(), 1, s.name);
            assert.equal(await page.locator(`#standard ${where}, #partial ${where}`).count(), 0);
          } else {
            const item = page.locator(`#rejected li${where}[data-kind="${s.expected}"]`);
            assert.equal(await item.count(), 1, `${s.name} should be ${s.expected}`);
            const text = await item.innerText();
            assert.match(text, s.reason ?? /./, `${s.name}: ${text}`);
            assert.doesNotMatch(text, /tok\/s|\d+\/12/, `${s.name}: no numbers of an entry that did not verify`);
          }
        }
        assert.match(await page.locator("#outside").innerText(), /nonconforming[\s\S]*SIMULATED ENGINE/);
        assert.match(await page.locator("#outside").innerText(), /draft protocol/);
      });

      await t.step("ranks are per case and concurrency, and the filters narrow the table", async () => {
        const clean = fixture.byName("clean-3060").runId;
        const rows = await page.locator(`#standard tr[data-case="prompt-16k"]`).evaluateAll((trs) =>
          trs.map((tr) => [tr.getAttribute("data-run"), tr.querySelector("td.rank")?.textContent])
        );
        assert.equal(rows.length, 2);
        assert.deepEqual(rows.map((r) => r[1]).sort(), ["1", "2"]);
        assert.ok(rows.some((r) => r[0] === clean));
        assert.equal(await page.locator('#standard tr[data-case="short-burst"] td.rank').innerText(), "1");
        await page.selectOption("#filter-gpu", "NVIDIA RTX A4000");
        const gpus = await page.locator("#standard tbody tr td:nth-child(2)").allInnerTexts();
        assert.ok(gpus.length === 4 && gpus.every((g) => g === "NVIDIA RTX A4000"), gpus.join());
        assert.equal(await page.locator("#partial tbody tr").count(), 0, "the partial run is on another GPU");
        await page.selectOption("#filter-gpu", "");
        await page.selectOption("#filter-case", "short");
        assert.equal(await page.locator("#standard tbody tr").count(), 2);
        await page.selectOption("#filter-case", "");
      });
      await page.screenshot({ path: join(shots, "site-index.png"), fullPage: true });

      await t.step("a clean result's page shows its verified numbers, sanity, reproduction and evidence", async () => {
        const clean = fixture.byName("clean-3060").runId;
        await open(`r/${clean}/`);
        assert.equal(await page.locator("#verdict.verdict-ok").count(), 1);
        assert.match(
          await page.locator("#verdict").innerText(),
          /results\.json SHA-256 [0-9a-f]{64} equals the manifest's reviewed hash/,
        );
        assert.equal(await page.locator("#cases tbody tr").count(), 3);
        assert.match(await page.locator("#cases").innerText(), /50\.1 \[50\.1-50\.1\] n=3/);
        assert.match(await page.locator("main").innerText(), /Sanity checks: 12\/12/);
        assert.match(await page.locator("main").innerText(), /independently-reproduced/);
        assert.match(await page.locator("#reproductions").innerText(), /NVIDIA RTX A4000/);
        // The entry against its reproduction, per case, with report A B's rules: the same scripted engine on both
        // machines, so the rates are equal (their interval holds 0: not resolved, never "better"); TTFT is measured
        // and moves with the machine's load, so its verdict must only agree with its own interval.
        const delta = page.locator("table.reproduction-delta");
        assert.equal(await delta.count(), 1);
        assert.match(await delta.locator("thead").innerText(), /Delta\s+95% interval\s+Verdict/);
        const rows = (await delta.locator("tbody tr").allInnerTexts()).map((row) =>
          row.split("\t").map((c) => c.trim())
        );
        assert.ok(rows.length >= 6, rows.join("; "));
        for (const row of rows) {
          const verdict = row.at(-1) ?? "";
          const interval = /([+-]\d+\.\d)% to ([+-]\d+\.\d)%/.exec(row.at(-2) ?? "");
          assert.ok(interval, row.join(" | "));
          const [lower, upper] = [Number(interval[1]), Number(interval[2])];
          if (/tok\/s/.test(row.join(" "))) assert.ok(lower <= 0 && upper >= 0, `equal rates: ${row.join(" | ")}`);
          if (verdict === "not resolved: the interval includes 0") assert.ok(lower <= 0 && upper >= 0, row.join(" | "));
          else {
            assert.match(verdict, /^reproduction (better|worse)$/, row.join(" | "));
            assert.ok(!(lower < 0 && upper > 0), `a resolved verdict's interval leaves out 0: ${row.join(" | ")}`);
          }
        }
        assert.doesNotMatch(await delta.innerText(), /-0\.0%/, "a rounding error around 0 is +0.0%");
        assert.match(
          await delta.innerText(),
          /short @ 1\s+Decode tok\/s\s+(50\.\d+)\s+\1\s+\+0\.0%\s+\+0\.0% to \+0\.0%\s/,
        );
        const files = await page.locator("#evidence a").allInnerTexts();
        assert.deepEqual(files, [
          "results.json",
          "outputs.jsonl",
          "config.json",
          "template_check.json",
          "template.jinja",
          "rates.svg",
          "latency.svg",
          "caps.svg",
        ]);
        assert.equal(await page.locator("figure.chart svg").count(), 3);
        // The runner's own pictures are shown apart from the verified part, labelled as not recomputed.
        assert.equal(await page.locator("#verdict img").count(), 0);
        const drawings = page.locator("#runner-drawings");
        assert.match(await drawings.locator("h2").innerText(), /The runner's drawings \(not recomputed here\)/);
        assert.equal(await drawings.locator("img.picture").count(), 3);
        await page.screenshot({ path: join(shots, "site-result-clean.png"), fullPage: true });
      });

      await t.step(
        "a tampered result's page says verification failed, why, and shows none of its numbers",
        async () => {
          const forged = fixture.byName("false-verdict").runId;
          await open(`r/${forged}/`);
          const verdict = await page.locator("#verdict.verdict-bad").innerText();
          assert.match(verdict, /Verification failed/);
          assert.match(verdict, /sanity-I2: results\.json says passed, the saved output fails/);
          assert.equal(await page.locator("#cases").count(), 0);
          assert.doesNotMatch(await page.locator("main").innerText(), /tok\/s|Sanity checks/);
          await page.screenshot({ path: join(shots, "site-result-failed.png"), fullPage: true });
        },
      );

      await t.step("a withdrawn entry has no page", async () => {
        const response = await fetch(`${base}r/${fixture.byName("withdrawn").runId}/`);
        await response.body?.cancel();
        assert.equal(response.status, 404);
      });
      assert.deepEqual(errors, [], "the pages ran without script errors");
    } finally {
      await browser.close();
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "a replaced record is not ranked and names its replacement; the index lists withdrawn runs with their reason",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const run = await runScripted();
    const repo = join(run.dir, "results-repo");
    const pr = (n: number) => `https://github.com/example/results/pull/${n}`;
    try {
      await Deno.mkdir(join(repo, "bench/results"), { recursive: true });
      await git(repo, "init", "-q", "-b", "main");
      for (const name of ["genuine", "genuine-again", "other"]) {
        await copyFolder(run.report.folder, join(repo, "bench/results", name));
      }
      const otherId = `${run.result.run.id}-other`;
      await relabel(join(repo, "bench/results/other"), { runId: otherId });
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", "results");
      const manifestPath = join(repo, MANIFEST_PATH);
      const files = {
        readManifest: () => Deno.readTextFile(manifestPath).catch(() => null),
        writeManifest: (text: string) => Deno.writeTextFile(manifestPath, text),
      };
      await Deno.mkdir(join(repo, "bench"), { recursive: true });
      for (
        const [name, n, replace] of [["genuine", 1, false], ["other", 3, false], ["genuine-again", 2, true]] as const
      ) {
        await addApproved(new GitRepo(gitRunner(repo)), files, {
          folder: `bench/results/${name}`,
          reviewPr: pr(n),
          reviewedBy: "maintainer-one",
          now: new Date(),
          reproduces: [],
          replace,
          protocols: KNOWN_PROTOCOLS,
          ...SITE_BUNDLE,
        });
      }
      await withdrawApproved(files, {
        runId: otherId,
        reason: "the GPU was throttling",
        reviewPr: pr(4),
        now: new Date(),
      });
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", "approve, replace and withdraw");
      const server = await buildAndServe(run.dir, repo, new TextEncoder().encode(PROTOCOLS_JSON));
      const site = JSON.parse(await Deno.readTextFile(join(server.out, "data/site.json")));
      const [oldSlug, newSlug] = site.entries.map((e: { slug: string }) => e.slug);
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const open = async (path: string) => {
          await page.goto(server.base + path);
          await page.waitForSelector('html[data-state="done"]', { timeout: PAGE_DEADLINE_MS });
        };
        await open("");
        const old = `a[href$="r/${oldSlug}/"]`;
        assert.equal(await page.locator(`#pilot ${old}, #standard ${old}, #outside ${old}`).count(), 0, "ranked");
        assert.ok(await page.locator(`#pilot a[href$="r/${newSlug}/"]`).count() > 0, "the replacement is listed");
        const superseded = page.locator(`#history li[data-kind="superseded"]`);
        assert.equal(await superseded.locator(old).count(), 1);
        assert.equal(await superseded.locator("a[href]").nth(1).getAttribute("href"), pr(2));
        const withdrawn = await page.locator(`#withdrawn li[data-run="${otherId}"]`).innerText();
        assert.match(withdrawn, new RegExp(`${otherId} withdrawn at .*: the GPU was throttling review`));
        assert.equal(await page.locator(`[data-run="${otherId}"]`).count(), 1, "listed once, in the withdrawn list");
        assert.doesNotMatch(await page.locator("#history").innerText(), /tok\/s|\d+\/12/);

        await open(`r/${oldSlug}/`);
        const note = page.locator("#superseded");
        assert.match(await note.innerText(), /replaced after a new review .*by the new entry of run/);
        assert.equal(await note.locator(`a[href$="r/${newSlug}/"]`).count(), 1);
        assert.equal(await note.locator(`a[href="${pr(2)}"]`).count(), 1);
        await open(`r/${newSlug}/`);
        const replaces = page.locator("#replaces");
        assert.match(
          await replaces.innerText(),
          /This entry replaced the record of run .* which stays in the manifest/,
        );
        assert.equal(await replaces.locator(`a[href$="r/${oldSlug}/"]`).count(), 1);
        assert.equal(await replaces.locator(`a[href="${pr(1)}"]`).count(), 1);
      } finally {
        await browser.close();
        await server.close();
      }
    } finally {
      await cleanup(run);
    }
  },
});
