/**
 * A whole run whose last steps fail after the requests: the power sampler's stop throws and the engine log cannot
 * be read. The result is still written, valid by its own self-check, each loss a reason in extensions.
 */
import assert from "node:assert/strict";
import { runHostile } from "./_run.ts";

Deno.test("a sampler that throws on stop and an engine log that throws on read cost their facts, not the result", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-late-failures-" });
  try {
    const run = await runHostile(dir, {}, {
      engineLogSource: {
        source: "--engine-log server.log",
        attachAnyText: false,
        read: () => Promise.reject(new Error("EIO: input/output error")),
      },
    }, {
      startGpuPower: () => ({ ready: Promise.resolve(), stop: () => Promise.reject(new RangeError("bad sample")) }),
    });
    assert.deepEqual(run.report.validationProblems, []);
    assert.ok(run.result.requests.some((r) => r.status === "completed"), "the measured requests are in the result");
    assert.deepEqual(run.result.extensions?.["gpu_power"], {
      reason: "the GPU power sampler gave no trace: it failed (bad sample)",
    });
    const log = run.result.extensions?.["engine_log"] as Record<string, unknown>;
    assert.equal(log["attached"], false);
    assert.equal(log["reason"], "the engine log could not be read or checked: EIO: input/output error");
    assert.equal(run.result.artifacts.some((a) => a.kind === "engine_log"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
