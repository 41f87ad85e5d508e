/**
 * runner/gpu_power.ts: the power record never costs the result: a sampler whose stop throws or never ends, after
 * the requests, becomes the extension's reason instead of an exception.
 */
import assert from "node:assert/strict";
import { recordGpuPower } from "../../../runner/gpu_power.ts";
import type { GpuPowerSampler } from "../../../probe/mod.ts";

const clock = () => performance.now();

Deno.test("recordGpuPower: a sampler whose stop throws gives the reason, not the exception", async () => {
  const sampler: GpuPowerSampler = {
    ready: Promise.resolve(),
    stop: () => Promise.reject(new TypeError("nvidia-smi said:\nsomething odd")),
  };
  const power = recordGpuPower(sampler, clock);
  power.requestStarted("a");
  power.requestEnded("a");
  assert.deepEqual(await power.finish([]), {
    reason: "the GPU power sampler gave no trace: it failed (nvidia-smi said:)",
  });
});

Deno.test("recordGpuPower: a sampler whose stop never ends is given up at the bound", async () => {
  const sampler: GpuPowerSampler = { ready: Promise.resolve(), stop: () => new Promise(() => {}) };
  const startedMs = performance.now();
  const extension = await recordGpuPower(sampler, clock, 50).finish([]);
  assert.deepEqual(extension, { reason: "the GPU power sampler gave no trace: it did not stop within 50 ms" });
  assert.ok(performance.now() - startedMs < 5_000, "finish returned at its bound");
});
