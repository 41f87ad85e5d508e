/**
 * A server whose POST /apply-template never answers: the run's template check honours a cancel (SIGTERM, Ctrl-C)
 * at once and the run still writes its result, every request skipped as cancelled; without a cancel the check
 * costs one deadline, not one per request. (The deadline is the runner's 30 s; this test cancels after 300 ms.)
 */
import assert from "node:assert/strict";
import { runHostile } from "./_run.ts";

Deno.test("a silent template endpoint does not hold a cancelled run: the result is written, nothing measured lost", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-silent-template-" });
  try {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort("SIGTERM"), 300);
    const started = performance.now();
    const run = await runHostile(dir, { silentTemplate: true }, { signal: stop.signal });
    clearTimeout(timer);
    console.error(`cancelled run ended ${Math.round(performance.now() - started)} ms after it started`);
    assert.equal(run.result.run.status, "partial");
    assert.equal(run.result.request_counts.sanity.skipped, 12);
    const check = run.result.extensions?.template_check as Record<string, unknown>;
    assert.equal(check.unchecked, 22, JSON.stringify(check));
    assert.deepEqual(run.report.validationProblems, [], "the run accepts its own result");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
