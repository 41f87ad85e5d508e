import assert from "node:assert/strict";
import { describeDistribution, isPercentileUnreliable, percentileType7 } from "../../../score/percentiles.ts";

// Hand-computed: h = (n - 1) p, value = x[floor h] + frac(h) * (x[floor h + 1] - x[floor h]).
const TABLE: { values: number[]; p: number; expected: number }[] = [
  { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p: 0.5, expected: 5.5 }, // h 4.5
  { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p: 0.9, expected: 9.1 }, // h 8.1
  { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p: 0.95, expected: 9.55 }, // h 8.55
  { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p: 0.99, expected: 9.91 }, // h 8.91
  { values: [15, 20, 35, 40, 50], p: 0.5, expected: 35 }, // h 2
  { values: [15, 20, 35, 40, 50], p: 0.9, expected: 46 }, // h 3.6
  { values: [15, 20, 35, 40, 50], p: 0.95, expected: 48 }, // h 3.8
  { values: [15, 20, 35, 40, 50], p: 0.99, expected: 49.6 }, // h 3.96
  { values: [1, 3, 7, 15], p: 0.9, expected: 12.6 }, // h 2.7
  { values: [1, 3, 7, 15], p: 0, expected: 1 },
  { values: [1, 3, 7, 15], p: 1, expected: 15 },
  { values: [42], p: 0.99, expected: 42 },
];

Deno.test("type 7 percentiles match the hand-computed table", () => {
  for (const row of TABLE) {
    const got = percentileType7(row.values, row.p);
    assert.ok(Math.abs(got - row.expected) < 1e-9, `p${row.p} of ${row.values}: got ${got}, want ${row.expected}`);
  }
});

Deno.test("percentile of an empty list or p outside [0, 1] is a RangeError", () => {
  assert.throws(() => percentileType7([], 0.5), RangeError);
  assert.throws(() => percentileType7([1], 1.5), RangeError);
  assert.throws(() => percentileType7([1], Number.NaN), RangeError);
});

Deno.test("describeDistribution sorts its input and reports mean, sample sd and unscaled MAD", () => {
  const d = describeDistribution([9, 2, 4, 4, 5, 7, 4, 5]);
  assert.equal(d.n, 8);
  assert.equal(d.min, 2);
  assert.equal(d.max, 9);
  assert.equal(d.mean, 5);
  // sum of squared deviations 32, n - 1 = 7
  assert.ok(Math.abs((d.sd as number) - Math.sqrt(32 / 7)) < 1e-12);
  assert.equal(d.p50, 4.5);
  // |x - 4.5| = 4.5 2.5 .5 .5 .5 2.5 .5 .5 -> sorted median .5
  assert.equal(d.mad, 0.5);
  assert.equal(d.percentile_method, "hyndman-fan-7");
  const outlier = describeDistribution([1, 2, 3, 4, 100]);
  assert.equal(outlier.mad, 1); // deviations 0 1 1 2 97
});

Deno.test("an empty distribution is all nulls, a single sample has no sd", () => {
  const empty = describeDistribution([]);
  assert.equal(empty.n, 0);
  assert.equal(empty.p50, null);
  assert.equal(empty.mean, null);
  const one = describeDistribution([7]);
  assert.equal(one.sd, null);
  assert.equal(one.mad, 0);
  assert.equal(one.p99, 7);
});

Deno.test("p99 is unreliable under 100 samples, p95 under 20, p90 under 10", () => {
  assert.equal(isPercentileUnreliable(99, 0.99), true);
  assert.equal(isPercentileUnreliable(100, 0.99), false);
  assert.equal(isPercentileUnreliable(19, 0.95), true);
  assert.equal(isPercentileUnreliable(20, 0.95), false);
  assert.equal(isPercentileUnreliable(9, 0.9), true);
  assert.equal(isPercentileUnreliable(10, 0.9), false);
  const d = describeDistribution(Array.from({ length: 50 }, (_, i) => i));
  assert.deepEqual(d.unreliable, { p90: false, p95: false, p99: true });
});

Deno.test("a non-finite value is refused rather than sorted", () => {
  assert.throws(() => describeDistribution([1, Number.NaN]), RangeError);
  assert.throws(() => describeDistribution([1, Infinity]), RangeError);
});

Deno.test("the summary of sorted runs equals the summary of all their values together, ties and empty runs included", async () => {
  const { describeSortedRuns } = await import("../../../score/percentiles.ts");
  const { createPrng } = await import("../../../contract/mod.ts");
  const random = createPrng(11);
  for (let trial = 0; trial < 40; trial++) {
    const runs: number[][] = Array.from(
      { length: 1 + random.nextInt(6) },
      () => Array.from({ length: random.nextInt(40) }, () => Math.round(random.next() * 50) / 10),
    );
    const all = runs.flat();
    const sortedRuns = runs.map((r) => Float64Array.from(r).sort());
    assert.deepEqual(describeSortedRuns(sortedRuns), describeDistribution(all), JSON.stringify(runs));
  }
});

Deno.test("a run-length run (distinct values with counts) summarizes like its values written out", async () => {
  const { describeSortedRuns } = await import("../../../score/percentiles.ts");
  const rle = { values: [0.001, 0.002, 0.005, 1.25], counts: [3, 0, 7, 2] };
  const plain = [0.0015, 0.004, 0.004, 2];
  const expanded = rle.values.flatMap((v, i) => Array.from({ length: rle.counts[i]! }, () => v));
  assert.deepEqual(describeSortedRuns([rle, plain]), describeDistribution([...expanded, ...plain]));
  assert.deepEqual(describeSortedRuns([rle]), describeDistribution(expanded));
});
