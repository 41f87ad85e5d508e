/**
 * Tier 3 for the website: a result folder that the real llama-server (tiny model) produced is verified by the
 * site's independent check, then committed to a results repository, approved with `approved add`, built into the
 * static site, served on loopback and opened in headless chromium, where its page must say "verified" and show the
 * numbers the runner published. Nothing here is scripted: the answers, counts and timings are the engine's own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Result, Summary } from "../../contract/mod.ts";
import type { EngineHandle } from "../../engine/mod.ts";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { launchChromium } from "../browser/_chromium.ts";
import { publishOne } from "../site/_published_site.ts";
import { runAgainst, startTinyEngine, tempDir } from "./_engine.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

function summaryOf(result: Result, caseId: string, metric: Summary["metric"]): Summary {
  const found = result.summaries.find((s) => s.case_id === caseId && s.metric === metric && s.phase === "performance");
  if (found === undefined) throw new Error(`no ${metric} summary of ${caseId}`);
  return found;
}

Deno.test("real engine: the website verifies a llama-server result and shows its numbers", options, async (t) => {
  const dir = await tempDir();
  let engine: EngineHandle | null = null;
  try {
    engine = await startTinyEngine();
    const run = await runAgainst(engine, join(dir.path, "run"));
    await engine.stop();
    engine = null;
    assert.deepEqual(run.report.validationProblems, []);

    await t.step(
      "the site's own recomputation agrees with the runner on every record, verdict and summary",
      async () => {
        const outcome = await verifyFolder(folderReader(run.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
        assert.equal(outcome.state, "verified", outcome.reasons.join("\n"));
        assert.equal(outcome.facts?.status, run.result.run.status);
        assert.equal(outcome.facts?.quality.passed, run.result.quality.passed);
        assert.equal(outcome.facts?.simulated, false);
      },
    );

    const site = await publishOne(dir.path, run.folder, {
      name: "tiny-qwen3-cpu",
      message: "benchmark: tiny-qwen3 on the CPU",
    });
    assert.equal(site.entry.run_id, run.result.run.id);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${site.base}r/${run.result.run.id}/`);
      await page.waitForSelector('html[data-state="done"]', { timeout: 60_000 });

      await t.step("its page says verified and shows the runner's medians, ranges and n per case", async () => {
        assert.equal(await page.locator("#verdict.verdict-ok").count(), 1, await page.locator("main").innerText());
        const cases = await page.locator("#cases").innerText();
        for (const caseId of ["short", "prompt-4k", "prompt-16k"]) {
          const decode = summaryOf(run.result, caseId, "decode_tps");
          assert.ok(decode.median !== null && decode.min !== null && decode.max !== null, caseId);
          const text = `${decode.median.toFixed(1)} [${decode.min.toFixed(1)}-${decode.max.toFixed(1)}] n=${decode.n}`;
          assert.ok(cases.includes(text), `${caseId}: ${text} not in\n${cases}`);
        }
        assert.match(
          await page.locator("main").innerText(),
          new RegExp(`Sanity checks: ${run.result.quality.passed}/12`),
        );
      });
      assert.deepEqual(errors, [], "the page ran without script errors");
    } finally {
      await browser.close();
      await site.close();
    }
  } finally {
    await engine?.stop();
    await dir.remove();
  }
});
