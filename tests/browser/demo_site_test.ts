/**
 * `demo --site DIR`, as a newcomer without a GPU runs it: the scripted engine's result as a throwaway site, served
 * on loopback, opened in headless chromium. Every page says SIMULATED, the numbers show as pilot data of the draft
 * protocol, and the result is never approvable (`approved add` refuses it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { addApproved, ApprovedAddError, GitRepo, gitRunner, KNOWN_PROTOCOLS, MANIFEST_PATH } from "../../site/mod.ts";
import { DENO, MOD, REPO_ROOT } from "../site/_fixture_repo.ts";
import { launchChromium } from "./_chromium.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

const PAGE_DEADLINE_MS = 30_000;

/** Reads the child's stdout until a line is the site's URL. */
async function urlFrom(stdout: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(text)?.[1];
    if (url !== undefined) {
      reader.releaseLock();
      return url;
    }
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`demo --site ended before serving:\n${text}`);
    text += chunk.value;
  }
}

Deno.test({
  name: "demo --site builds a SIMULATED throwaway site of the demo's result and serves it, never approvable",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const root = await Deno.makeTempDir({ prefix: "strata-demo-site-" });
    const dir = join(root, "demo-site");
    const child = new Deno.Command(DENO, {
      args: [
        "run",
        "-q",
        "-P=run",
        "--allow-run=nvidia-smi,rocm-smi,amd-smi,sysctl,sw_vers,lsblk,git",
        `--allow-write=${root}`,
        "--no-prompt",
        MOD,
        "demo",
        "--site",
        dir,
        "--port",
        "0",
        "--time-scale",
        "0",
        "--optional-concurrency",
        "--quiet",
      ],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const browser = await launchChromium();
    try {
      const base = await urlFrom(child.stdout);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const open = async (path: string) => {
        await page.goto(base + path);
        await page.waitForSelector('html[data-state="done"]', { timeout: PAGE_DEADLINE_MS });
      };
      let runId = "";
      await t.step("the index says SIMULATED and shows the demo's numbers as pilot data", async () => {
        await open("");
        assert.match(await page.title(), /^SIMULATED: /);
        assert.match(await page.locator(".simulated-site").innerText(), /SIMULATED.*never be approved/s);
        assert.equal(await page.locator("h1").innerText(), "SIMULATED demo site");
        const rows = page.locator("#pilot tbody tr");
        assert.equal(await rows.count(), 4);
        assert.match(await rows.first().innerText(), /SIMULATED ENGINE/);
        assert.match(await rows.first().innerText(), /\d+\.\d\s+\[\d/);
        assert.equal(await page.locator("#standard .ranking").count(), 0, "a simulation is never ranked");
        assert.equal(await page.locator("#rejected li[data-kind]").count(), 0);
        runId = await rows.first().getAttribute("data-run") ?? "";
        const shots = Deno.env.get("STRATA_CI_LOGS");
        if (shots !== undefined) await page.screenshot({ path: join(shots, "demo-site-index.png") });
      });
      await t.step("the result page says SIMULATED too", async () => {
        await open(`r/${runId}/`);
        assert.match(await page.title(), /^SIMULATED: Result /);
        assert.equal(await page.locator(".simulated-site").count(), 1);
        assert.match(await page.locator("#headline.pilot").innerText(), /Pilot data: draft protocol/);
        assert.match(await page.locator("main").innerText(), /SIMULATED ENGINE/);
      });
      assert.deepEqual(errors, []);
      await t.step("approved add refuses the demo's result", async () => {
        const repo = join(dir, "repo");
        const folder = (await Array.fromAsync(Deno.readDir(join(repo, "bench/results"))))[0]?.name;
        await assert.rejects(
          addApproved(new GitRepo(gitRunner(repo)), {
            readManifest: () => Deno.readTextFile(join(repo, MANIFEST_PATH)),
            writeManifest: () => Promise.reject(new Error("a refused add writes nothing")),
          }, {
            folder: `bench/results/${folder}`,
            reviewPr: "https://github.com/example/results/pull/1",
            reviewedBy: "maintainer-one",
            now: new Date(),
            reproduces: [],
            replace: false,
            protocols: KNOWN_PROTOCOLS,
            ...SITE_BUNDLE,
          }),
          ApprovedAddError,
        );
      });
    } finally {
      await browser.close();
      child.kill("SIGINT");
      const status = await child.status;
      const text = await stderr;
      await Deno.remove(root, { recursive: true });
      assert.equal(status.code, 0, text);
    }
  },
});
