/**
 * The red-team corpus (tests/review/_forgeries.ts) forced into a manifest by hand, bypassing `approved add`: every
 * forgery the site's own check catches from the listed files is shown "Verification failed" with none of its numbers
 * in chromium. (The forgeries only report's validator catches, through the measured digest, and the unlisted files,
 * which a browser cannot list, are refused by `approved add` and `approved verify`; tests/review/redteam_test.ts
 * counts them.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { serveHttp } from "../../runtime/mod.ts";
import {
  buildSite,
  folderReader,
  GitRepo,
  gitRunner,
  KNOWN_PROTOCOLS,
  MANIFEST_PATH,
  openSiteOutput,
  outputFiles,
  readWebFile,
  siteRequestHandler,
  verifyFolder,
} from "../../site/mod.ts";
import { manifestText } from "../../site/web/mod.js";
import { cleanup, runScripted } from "../scripted/_harness.ts";
import { git, sha256File, TEST_ACTIVATED } from "../site/_fixture_repo.ts";
import { forge, forgeries } from "../review/_forgeries.ts";
import { launchChromium } from "./_chromium.ts";

Deno.test({
  name: "every forgery the site's check catches is shown 'Verification failed' without numbers in chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const run = await runScripted();
    const repo = join(run.dir, "results-repo");
    try {
      await Deno.mkdir(join(repo, "bench/results"), { recursive: true });
      await git(repo, "init", "-q", "-b", "main");
      const shown: { runId: string; name: string; folder: string }[] = [];
      for (const [i, forgery] of forgeries({ activated: TEST_ACTIVATED, unknown: "strata-other-v9" }).entries()) {
        const folder = `bench/results/${forgery.name}`;
        await forge(run.report.folder, join(repo, folder), forgery);
        // Each entry needs a run id of its own in one manifest; the site's check does not read the measured digest.
        const path = join(repo, folder, "results.json");
        const result = JSON.parse(await Deno.readTextFile(path));
        if (typeof result.run?.id !== "string") continue;
        result.run.id = `${result.run.id}-f${i}`;
        await Deno.writeTextFile(path, `${JSON.stringify(result, null, 2)}\n`);
        // As the browser checks it: from the files results.json lists (a browser cannot list the folder; the folder
        // rule runs in approved add, approved verify and site verify).
        const read = folderReader(join(repo, folder));
        const outcome = await verifyFolder((path) => read(path), { protocols: KNOWN_PROTOCOLS });
        if (outcome.state === "failed") shown.push({ runId: result.run.id, name: forgery.name, folder });
      }
      assert.ok(shown.length >= 35, `${shown.length} forgeries fail the site's check`);
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", "forged results");
      const commit = (await git(repo, "rev-parse", "HEAD")).stdout.trim();
      const entries = await Promise.all(shown.map(async (s) => ({
        run_id: s.runId,
        protocol_id: run.result.protocol.id,
        results_path: `${s.folder}/results.json`,
        results_sha256: await sha256File(join(repo, s.folder, "results.json")),
        evidence_commit: commit,
        review_pr: "https://github.com/example/results/pull/1",
        reviewed_by: "maintainer-one",
        reviewed_at: "2026-06-01T12:00:00Z",
        verification: "evidence-reviewed",
        reproduction_run_ids: [],
      })));
      await Deno.writeTextFile(join(repo, MANIFEST_PATH), manifestText(entries));
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", "a manifest written by hand");
      const out = join(run.dir, "site");
      const writer = await openSiteOutput(outputFiles, out);
      const report = await buildSite(new GitRepo(gitRunner(repo)), writer, {
        protocols: KNOWN_PROTOCOLS,
        protocolDeclarations: null,
        readWebFile,
      });
      await writer.finish(report.files);
      const server = await serveHttp({
        hostname: "127.0.0.1",
        port: 0,
        onRequest: siteRequestHandler(folderReader(out)),
      });
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        for (const s of shown) {
          await page.goto(`http://127.0.0.1:${server.port}/r/${s.runId}/`);
          await page.waitForSelector('html[data-state="done"]', { timeout: 60_000 });
          const verdict = await page.locator("#verdict.verdict-bad").innerText().catch(() => "");
          assert.match(verdict, /Verification failed/, `${s.name}: ${await page.locator("main").innerText()}`);
          assert.equal(await page.locator("#cases").count(), 0, s.name);
          assert.doesNotMatch(await page.locator("main").innerText(), /tok\/s|Sanity checks/, s.name);
        }
        console.log(`${shown.length} forged entries shown "Verification failed" in chromium`);
      } finally {
        await browser.close();
        await server.close();
      }
    } finally {
      await cleanup(run);
    }
  },
});
