import assert from "node:assert/strict";
import { empiricalCdf, levelOverTime } from "../../../score/timeline.ts";

Deno.test("empiricalCdf: one point per distinct value with the fraction at or below it", () => {
  assert.deepEqual(empiricalCdf([3, 1, 2, 2]), [
    { value: 1, fraction: 0.25 },
    { value: 2, fraction: 0.75 },
    { value: 3, fraction: 1 },
  ]);
  assert.deepEqual(empiricalCdf([]), []);
  assert.throws(() => empiricalCdf([1, Infinity]), RangeError);
});

Deno.test("empiricalCdf thins a large sample by rank and keeps the minimum and the maximum", () => {
  const values = Array.from({ length: 10_000 }, (_, i) => i);
  const cdf = empiricalCdf(values, 101);
  assert.equal(cdf.length, 101);
  assert.deepEqual(cdf[0], { value: 0, fraction: 1 / 10_000 });
  assert.deepEqual(cdf[100], { value: 9_999, fraction: 1 });
  assert.deepEqual(cdf[50], { value: 5_000, fraction: 5_001 / 10_000 });
});

Deno.test("levelOverTime steps up and down, closing an interval before one that starts at the same instant", () => {
  assert.deepEqual(levelOverTime([{ startS: 0, endS: 2 }, { startS: 1, endS: 3 }, { startS: 2, endS: 4 }]), [
    { startS: 0, level: 1 },
    { startS: 1, level: 2 },
    { startS: 3, level: 1 },
    { startS: 4, level: 0 },
  ]);
  assert.deepEqual(levelOverTime([]), []);
  assert.throws(() => levelOverTime([{ startS: 2, endS: 1 }]), RangeError);
});
