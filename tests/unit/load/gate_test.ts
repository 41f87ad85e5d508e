import assert from "node:assert/strict";
import { compareLoad } from "../../../load/gate/gate.ts";
import { aggregateRuns } from "../../../load/aggregate.ts";
import { bootstrapRelativeDelta } from "../../../score/bootstrap.ts";
import { describeDistribution } from "../../../score/percentiles.ts";
import { type EndpointLoadSummary, summarizeStore } from "../../../load/summary.ts";
import { RowStore } from "../../../load/row_store.ts";

function summary(outTps: number | null, tpotP50: number | null, ttftP50 = 0.1, errorRate = 0): EndpointLoadSummary {
  const s = structuredClone(summarizeStore(RowStore.of([]), { mode: "closed", effectiveMaxConcurrency: 1 }).overall);
  s.output_tokens_per_s = outTps;
  s.distributions.tpot_s = { ...describeDistribution(tpotP50 === null ? [] : [tpotP50]) };
  s.distributions.ttft_s = describeDistribution([ttftP50]);
  s.requests_per_s = outTps === null ? null : outTps / 10;
  s.error_rate = errorRate;
  return s;
}

Deno.test("a candidate 10% slower fails the gate; one within 5% passes", () => {
  const base = [summary(100, 0.02), summary(100.5, 0.0201)];
  const slow = [summary(90, 0.022), summary(90.4, 0.0221)];
  const near = [summary(98, 0.0205), summary(99, 0.0204)];
  const fail = compareLoad([{ concurrency: 1, baseline: base, candidate: slow }], {
    seed: 1,
    expectedConcurrency: [1],
  });
  assert.equal(fail.pass, false);
  const tps = fail.points[0]!.metrics.find((m) => m.metric === "output_tokens_per_s")!;
  assert.ok(Math.abs((tps.delta_fraction as number) + 0.1) < 0.01);
  assert.equal(tps.pass, false);
  assert.ok(tps.delta_interval !== null && tps.delta_interval.upper < -0.05);
  const ok = compareLoad([{ concurrency: 1, baseline: base, candidate: near }], { seed: 1, expectedConcurrency: [1] });
  assert.equal(ok.pass, true);
});

Deno.test("TTFT is informational: a large TTFT difference alone does not fail", () => {
  const r = compareLoad(
    [{ concurrency: 8, baseline: [summary(100, 0.02, 0.1)], candidate: [summary(100, 0.02, 0.5)] }],
    {
      seed: 3,
      expectedConcurrency: [8],
    },
  );
  const ttft = r.points[0]!.metrics.find((m) => m.metric === "ttft_p50_s")!;
  assert.equal(ttft.pass, null);
  assert.ok(Math.abs((ttft.delta_fraction as number) - 4) < 1e-9);
  assert.equal(r.pass, true);
});

Deno.test("a missing point, or a point without a gated value, fails the gate", () => {
  const r = compareLoad([{ concurrency: 1, baseline: [summary(100, 0.02)], candidate: [summary(100, 0.02)] }], {
    seed: 1,
    expectedConcurrency: [1, 8],
  });
  assert.equal(r.pass, false);
  assert.equal(r.points[1]!.pass, false);
  assert.match(r.points[1]!.metrics[0]!.reason, /missing/);
  const noTpot = compareLoad([{ concurrency: 1, baseline: [summary(100, null)], candidate: [summary(100, 0.02)] }], {
    seed: 1,
    expectedConcurrency: [1],
  });
  assert.equal(noTpot.pass, false);
});

Deno.test("a wider noise floor widens the allowed delta", () => {
  const base = [summary(100, 0.02)], cand = [summary(93, 0.02)];
  const strict = compareLoad([{ concurrency: 1, baseline: base, candidate: cand }], {
    seed: 1,
    expectedConcurrency: [1],
  });
  assert.equal(strict.pass, false);
  const floor = compareLoad([{ concurrency: 1, baseline: base, candidate: cand }], {
    seed: 1,
    expectedConcurrency: [1],
    recordedNoiseFloor: { 1: 0.08 },
  });
  assert.equal(floor.pass, true);
  assert.equal(floor.points[0]!.metrics[0]!.allowed_fraction, 0.08);
  // A baseline whose own rounds differ by 20% records a noise floor near 10%.
  const noisy = compareLoad([{ concurrency: 1, baseline: [summary(90, 0.02), summary(110, 0.02)], candidate: cand }], {
    seed: 1,
    expectedConcurrency: [1],
  });
  assert.ok(Math.abs((noisy.points[0]!.metrics[0]!.noise_floor_fraction as number) - 0.1) < 1e-9);
  assert.equal(noisy.pass, true);
});

Deno.test("the relative delta interval is reproducible from its seed", () => {
  const a = bootstrapRelativeDelta([10, 11, 12], [13, 12, 14], { seed: 5 });
  assert.deepEqual(a, bootstrapRelativeDelta([10, 11, 12], [13, 12, 14], { seed: 5 }));
  assert.ok(Math.abs(a.estimate - (13 / 11 - 1)) < 1e-12);
  assert.ok(a.lower <= a.estimate && a.estimate <= a.upper);
});

Deno.test("repeated runs aggregate to mean, sample sd and a seeded bootstrap interval", () => {
  const runs = [summary(100, 0.02), summary(110, 0.021), summary(105, 0.019)];
  const agg = aggregateRuns(runs, { seed: 42 });
  assert.deepEqual(agg, aggregateRuns(runs, { seed: 42 }));
  const tps = agg.metrics.find((m) => m.metric === "output_tokens_per_s")!;
  assert.deepEqual(tps.values, [100, 110, 105]);
  assert.equal(tps.mean, 105);
  assert.equal(tps.sd, 5);
  assert.ok(tps.interval !== null && tps.interval.lower >= 100 && tps.interval.upper <= 110);
  const single = aggregateRuns([summary(1, 1)], { seed: 1 });
  assert.equal(single.metrics[0]!.interval, null);
  assert.match(single.metrics[0]!.missing as string, /two runs/);
});

Deno.test("the candidate's own round-to-round spread never widens its tolerance; the baseline's does", () => {
  const noisyCandidate = compareLoad([{
    concurrency: 1,
    baseline: [summary(100, 0.02), summary(100, 0.02)],
    candidate: [summary(100, 0.02), summary(100, 0.02), summary(82, 0.02)],
  }], { seed: 1, expectedConcurrency: [1] });
  const tps = noisyCandidate.points[0]!.metrics[0]!;
  // The baseline's rounds agree exactly: its floor is 0, so the allowed delta is the 5% tolerance.
  assert.equal(tps.noise_floor_fraction, 0);
  assert.equal(tps.noise_floor_source, "baseline-rounds");
  assert.ok(Math.abs((tps.delta_fraction as number) + 0.06) < 1e-9);
  assert.equal(tps.allowed_fraction, 0.05);
  assert.equal(tps.pass, false);
  // Rounds 82, 100, 100 on the baseline side: resampled means 82, 88, 94, 100 (p 1/27, 6/27, 12/27, 8/27), so the
  // 95% interval is [82, 100] and the floor (100 - 82) / 2 / 94 = 9.57%, which admits a -6% candidate.
  const noisyBaseline = compareLoad([{
    concurrency: 1,
    baseline: [summary(100, 0.02), summary(100, 0.02), summary(82, 0.02)],
    candidate: [summary(88.36, 0.02), summary(88.36, 0.02)],
  }], { seed: 1, expectedConcurrency: [1] });
  const b = noisyBaseline.points[0]!.metrics[0]!;
  assert.ok(Math.abs((b.noise_floor_fraction as number) - 9 / 94) < 1e-9, String(b.noise_floor_fraction));
  assert.equal(b.pass, true);
  assert.ok(Math.abs(noisyBaseline.noise_floor["W1@1:output_tokens_per_s"]! - 9 / 94) < 1e-9);
});

Deno.test("a recorded noise floor replaces the measured one and says so", () => {
  const base = [summary(90, 0.02), summary(110, 0.02)], cand = [summary(93, 0.02)];
  const r = compareLoad([{ concurrency: 8, baseline: base, candidate: cand }], {
    seed: 1,
    expectedConcurrency: [8],
    recordedNoiseFloor: { "W1@8:output_tokens_per_s": 0.01 },
  });
  const tps = r.points[0]!.metrics[0]!;
  assert.equal(tps.noise_floor_source, "recorded");
  assert.equal(tps.noise_floor_fraction, 0.01);
  assert.equal(tps.allowed_fraction, 0.05);
  assert.equal(tps.pass, false); // -7% is outside 5%, though this run's own baseline noise was about 10%
  assert.ok((tps.baseline_noise_fraction as number) > 0.05);
});

Deno.test("a candidate that fails half its requests fails the gate whatever its speed", () => {
  const r = compareLoad([{
    concurrency: 1,
    baseline: [summary(100, 0.02, 0.1, 0), summary(100, 0.02, 0.1, 0)],
    candidate: [summary(120, 0.018, 0.1, 0.5), summary(120, 0.018, 0.1, 0.5)],
  }], { seed: 1, expectedConcurrency: [1] });
  const rate = r.points[0]!.metrics.find((m) => m.metric === "error_rate")!;
  assert.equal(rate.pass, false);
  assert.equal(rate.candidate, 0.5);
  assert.match(rate.reason, /50\.0% vs 0\.0%/);
  assert.equal(r.pass, false);
});

Deno.test("points are keyed by workload and concurrency; a workload missing at a point fails", () => {
  const ok = [summary(100, 0.02), summary(100, 0.02)];
  const r = compareLoad([
    { workload: "W1", concurrency: 1, baseline: ok, candidate: ok },
    { workload: "W2", concurrency: 1, baseline: ok, candidate: ok },
    { workload: "W1", concurrency: 8, baseline: ok, candidate: ok },
  ], { seed: 1, expectedConcurrency: [1, 8], workloads: ["W1", "W2"] });
  assert.deepEqual(r.points.map((p) => [p.key, p.pass]), [
    ["W1@1", true],
    ["W1@8", true],
    ["W2@1", true],
    ["W2@8", false],
  ]);
});

Deno.test("a cross-run p99 from fewer than 100 samples in any run carries an unreliability flag", () => {
  const small = summary(100, 0.02); // one TTFT sample
  const agg = aggregateRuns([small, small], { seed: 1 });
  const p99 = agg.metrics.find((m) => m.metric === "ttft_p99_s")!;
  assert.match(p99.unreliable as string, /fewer than 100 samples in run\(s\) 1, 2/);
  const p50 = agg.metrics.find((m) => m.metric === "ttft_p50_s")!;
  assert.equal(p50.unreliable, null);
  assert.equal(agg.version, 3);
});

Deno.test("TTFT's informational row carries the cohort and issuance caveat", () => {
  const r = compareLoad(
    [{ concurrency: 8, baseline: [summary(100, 0.02, 0.1)], candidate: [summary(100, 0.02, 0.2)] }],
    {
      seed: 3,
      expectedConcurrency: [8],
    },
  );
  const ttft = r.points[0]!.metrics.find((m) => m.metric === "ttft_p50_s")!;
  assert.match(ttft.reason, /cohort and issuance/);
});

Deno.test("the reasoning cadence is an informational row only where a side streamed reasoning", () => {
  const plain = summary(100, 0.02, 0.1);
  const reasoning = structuredClone(plain);
  reasoning.distributions.thinking_s = { ...plain.distributions.ttft_s, n: 1, p50: 0.4 };
  const without = compareLoad([{ concurrency: 8, baseline: [plain], candidate: [plain] }], {
    seed: 3,
    expectedConcurrency: [8],
  });
  assert.equal(without.points[0]!.metrics.some((m) => m.metric === "thinking_p50_s"), false);
  const withIt = compareLoad([{ concurrency: 8, baseline: [reasoning], candidate: [reasoning] }], {
    seed: 3,
    expectedConcurrency: [8],
  });
  const thinking = withIt.points[0]!.metrics.find((m) => m.metric === "thinking_p50_s")!;
  assert.deepEqual([thinking.pass, thinking.baseline, thinking.gated], [null, 0.4, false]);
  assert.equal(withIt.pass, true);
});
