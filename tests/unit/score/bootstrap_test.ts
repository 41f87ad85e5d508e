import assert from "node:assert/strict";
import { bootstrapInterval } from "../../../score/bootstrap.ts";
import { createPrng, xoshiro128ss } from "../../../contract/mod.ts";

Deno.test("xoshiro128** from state 1,2,3,4 gives the hand-stepped first outputs", () => {
  // Stepped by hand: out = rotl(s1 * 5, 7) * 9, then the xor/shift/rotate state update.
  const prng = xoshiro128ss([1, 2, 3, 4]);
  assert.deepEqual([prng.nextUint32(), prng.nextUint32(), prng.nextUint32()], [11520, 0, 5927040]);
});

Deno.test("the seeded PRNG repeats its sequence for a seed and differs across seeds", () => {
  const a = createPrng(7), b = createPrng(7), c = createPrng(8);
  const seqA = Array.from({ length: 5 }, () => a.nextUint32());
  const seqB = Array.from({ length: 5 }, () => b.nextUint32());
  const seqC = Array.from({ length: 5 }, () => c.nextUint32());
  assert.deepEqual(seqA, seqB);
  assert.notDeepEqual(seqA, seqC);
  const r = createPrng(1);
  for (let i = 0; i < 1000; i++) {
    const x = r.next();
    assert.ok(x >= 0 && x < 1);
    const k = r.nextInt(6);
    assert.ok(Number.isInteger(k) && k >= 0 && k < 6);
  }
  assert.throws(() => createPrng(-1), RangeError);
  assert.throws(() => createPrng(1.5), RangeError);
});

Deno.test("bootstrap interval is reproducible from its seed", () => {
  const values = [101.2, 98.7, 103.5, 99.9, 100.4, 97.8, 102.1];
  const one = bootstrapInterval(values, { seed: 2024 });
  const two = bootstrapInterval(values, { seed: 2024 });
  const other = bootstrapInterval(values, { seed: 2025 });
  assert.deepEqual(one, two);
  assert.equal(one.resamples, 10_000);
  assert.equal(one.confidence, 0.95);
  assert.notDeepEqual([one.lower, one.upper], [other.lower, other.upper]);
  assert.ok(one.lower <= one.estimate && one.estimate <= one.upper);
  assert.ok(one.lower >= 97.8 && one.upper <= 103.5);
});

Deno.test("bootstrap of the mean of {0, 1} spans [0, 1]: resample means are 0, .5, 1 with p 1/4, 1/2, 1/4", () => {
  const iv = bootstrapInterval([0, 1], { seed: 1 });
  assert.equal(iv.estimate, 0.5);
  assert.equal(iv.lower, 0);
  assert.equal(iv.upper, 1);
});

Deno.test("bootstrap of identical values is a zero-width interval; empty input is a RangeError", () => {
  const iv = bootstrapInterval([3, 3, 3], { seed: 9, resamples: 200 });
  assert.deepEqual([iv.lower, iv.estimate, iv.upper], [3, 3, 3]);
  assert.throws(() => bootstrapInterval([], { seed: 1 }), RangeError);
  assert.throws(() => bootstrapInterval([1], { seed: 1, confidence: 1 }), RangeError);
});
