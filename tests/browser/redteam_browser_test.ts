/**
 * The red-team corpus (tests/review/_forgeries.ts) forced into a manifest by hand, bypassing `approved add` and the
 * build's review: every forgery is shown "Verification failed" with none of its numbers in chromium. The browser
 * recomputes the measured digest from results.json and outputs.jsonl, holds the folder to the build's listing of it
 * at the evidence commit, and refuses a picture with active content; a result of a schema or protocol it does not
 * read fails too when its digest says it changed after the run. A genuine copy is shown verified. The forgeries only
 * the review can catch (a private string put back: the browser has no sanitizer) are left out.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { serveHttp } from "../../runtime/mod.ts";
import {
  buildSite,
  folderReader,
  GitRepo,
  gitRunner,
  knownProtocols,
  MANIFEST_PATH,
  openSiteOutput,
  outputFiles,
  readWebFile,
  siteRequestHandler,
  verifyFolder,
} from "../../site/mod.ts";
import { manifestText } from "../../site/web/manifest.js";
import { cleanup, runScripted } from "../scripted/_harness.ts";
import {
  copyFolder,
  git,
  PROTOCOLS_JSON,
  relabel,
  reviewedNow,
  sha256File,
  TEST_ACTIVATED,
} from "../site/_fixture_repo.ts";
import { forgeries } from "../review/_forgeries.ts";
import { launchChromium } from "./_chromium.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

Deno.test({
  name: "every forgery of the corpus is shown 'Verification failed' without numbers in chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const run = await runScripted();
    const repo = join(run.dir, "results-repo");
    try {
      await Deno.mkdir(join(repo, "bench/results"), { recursive: true });
      await git(repo, "init", "-q", "-b", "main");
      const protocols = knownProtocols(new TextEncoder().encode(PROTOCOLS_JSON));
      // A private string put back by hand is the review's to refuse (the browser has no sanitizer): left out here.
      const corpus = forgeries({ activated: TEST_ACTIVATED, unknown: "strata-other-v9" }).filter((f) => !f.reviewOnly);
      const shown: { runId: string; name: string; folder: string }[] = [];
      for (const [i, forgery] of [...corpus, { name: "genuine", make: () => Promise.resolve() }].entries()) {
        const folder = `bench/results/${forgery.name}`;
        // Each entry needs a run id of its own in one manifest: the genuine copy gets one with its digest recorded
        // again (as a run would), then the forgery is made on it.
        const runId = `${run.result.run.id}-f${i}`;
        await copyFolder(run.report.folder, join(repo, folder));
        await relabel(join(repo, folder), { runId });
        await forgery.make(join(repo, folder));
        // As the browser checks it, with the folder listed: the same code outside the browser.
        const outcome = await verifyFolder(folderReader(join(repo, folder)), { protocols, ...SITE_BUNDLE });
        const expected = forgery.name === "genuine" ? "verified" : "failed";
        assert.equal(outcome.state, expected, `${forgery.name}: ${outcome.reasons.join("; ")}`);
        shown.push({ runId, name: forgery.name, folder });
      }
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
        reviewed_at: reviewedNow(),
        verification: "evidence-reviewed",
        reproduction_run_ids: [],
      })));
      await Deno.writeTextFile(join(repo, MANIFEST_PATH), manifestText(entries));
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", "a manifest written by hand");
      const out = join(run.dir, "site");
      const writer = await openSiteOutput(outputFiles, out);
      const report = await buildSite(new GitRepo(gitRunner(repo)), writer, {
        protocols,
        ...SITE_BUNDLE,
        protocolDeclarations: new TextEncoder().encode(PROTOCOLS_JSON),
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
        const failed: string[] = [];
        for (const s of shown) {
          await page.goto(`http://127.0.0.1:${server.port}/r/${s.runId}/`);
          await page.waitForSelector('html[data-state="done"]', { timeout: 60_000 });
          const main = await page.locator("main").innerText();
          if (s.name === "genuine") {
            assert.match(await page.locator("#verdict.verdict-ok").innerText(), /Verified/, main);
            assert.match(main, /tok\/s/);
            continue;
          }
          const verdict = await page.locator("#verdict.verdict-bad").innerText().catch(() => "");
          assert.match(verdict, /Verification failed/, `${s.name}: ${main}`);
          assert.equal(await page.locator("#cases").count(), 0, s.name);
          assert.doesNotMatch(main, /tok\/s|Sanity checks/, s.name);
          failed.push(s.name);
        }
        assert.deepEqual(failed, corpus.map((f) => f.name));
        console.log(
          `${failed.length} of ${corpus.length} forged entries shown "Verification failed" in chromium; ` +
            "the genuine copy verified",
        );
      } finally {
        await browser.close();
        await server.close();
      }
    } finally {
      await cleanup(run);
    }
  },
});
