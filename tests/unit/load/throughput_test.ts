import assert from "node:assert/strict";
import { completionBins } from "../../../load/throughput.ts";

Deno.test("completion bins cover the whole window in equal bins, none shorter than a typical request", () => {
  // A closed loop at concurrency 1: 13 requests of 2 s each, one after another, in a 26 s window.
  const ends = Array.from({ length: 13 }, (_, i) => 2 * (i + 1) - 0.1);
  const { width_s, bins } = completionBins(ends, ends.map(() => 40), 26, 2, 1);
  assert.equal(width_s, 2);
  assert.equal(bins.length, 13, "to the end of the window, not to the last send");
  assert.equal(bins.at(-1)!.mid_s, 25);
  // Every bin holds one completion: no 0/1 saw-tooth, and every completion is counted once.
  assert.deepEqual(bins.map((b) => b.completed), Array(13).fill(1));
  assert.deepEqual([...new Set(bins.map((b) => b.requests_per_s))], [0.5]);
  assert.deepEqual([...new Set(bins.map((b) => b.output_tokens_per_s))], [20]);
});

Deno.test("the bin width is rounded up to 1, 2 or 5 x 10^k, then stretched so whole bins fill the window", () => {
  assert.equal(completionBins([], [], 10, 0.004, 1).width_s, 1, "short requests keep the minimum width");
  assert.equal(completionBins([], [], 10, 3.1, 1).width_s, 5, "3.1 s requests get 5 s bins");
  const stretched = completionBins([0.5, 10.4], [1, 1], 10.5, 0.2, 1);
  assert.equal(stretched.bins.length, 10);
  assert.equal(stretched.width_s, 1.05, "no trailing partial bin to spike");
  assert.equal(stretched.bins.reduce((n, b) => n + b.completed, 0), 2);
  assert.deepEqual(completionBins([1], [1], 0, 1, 1).bins, [], "an empty window has no bins");
});

Deno.test("a bin with a success whose output tokens were not counted has no token rate", () => {
  const { bins } = completionBins([0.5, 1.5], [10, Number.NaN], 2, null, 1);
  assert.deepEqual(bins.map((b) => b.output_tokens_per_s), [10, null]);
  assert.deepEqual(bins.map((b) => b.requests_per_s), [1, 1]);
});
