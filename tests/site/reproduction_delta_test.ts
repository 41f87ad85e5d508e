/**
 * The site's comparison of an entry with its reproductions keeps `report A B`'s rules with its own code: a delta
 * with a seeded bootstrap interval, "not resolved" where the data cannot tell, each reproduction on its own.
 */
import assert from "node:assert/strict";
import { DELTA_SEED, relativeDelta, reproductionDeltas } from "../../site/web/reproduction_delta.js";
import { caseDelta, sampleMetric } from "../../report/comparison/delta.ts";
import type { ResultFacts } from "../../site/web/facts.js";

Deno.test("a delta is resolved only when its interval excludes 0; for latencies lower is better", () => {
  const faster = relativeDelta([50, 51, 52], [60, 61, 62], false);
  assert.equal(faster.verdict, "better");
  assert.ok(Math.abs(faster.delta!.estimate - (61 / 51 - 1)) < 1e-12);
  assert.ok(faster.delta!.lower > 0 && faster.delta!.upper >= faster.delta!.lower, JSON.stringify(faster));
  assert.equal(relativeDelta([0.5, 0.51, 0.52], [0.6, 0.61, 0.62], true).verdict, "worse", "a slower TTFT");
  const overlap = relativeDelta([50, 55, 60], [52, 56, 58], false);
  assert.deepEqual([overlap.verdict, overlap.why], ["not resolved", "the interval includes 0"]);
  assert.ok(overlap.delta !== null, "the delta is shown with its interval");
  assert.deepEqual(relativeDelta([50], [60, 61], false), {
    delta: null,
    verdict: "not resolved",
    why: "fewer than 2 values on a side",
  });
  assert.equal(relativeDelta([0, 0, 0], [1, 2, 3], false).why, "the entry's median is 0");
  assert.deepEqual(relativeDelta([50, 55, 60], [52, 56, 58], false), overlap, `seeded (${DELTA_SEED}): the same`);
});

Deno.test("the site's verdicts are the report's on the same values (independent code, the same rules)", () => {
  const pairs: [number[], number[], "decode_tps" | "ttft_s"][] = [
    [[50, 51, 52], [60, 61, 62], "decode_tps"],
    [[50, 55, 60], [52, 56, 58], "decode_tps"],
    [[0.5, 0.51, 0.52], [0.6, 0.61, 0.62], "ttft_s"],
    [[0.5, 0.51, 0.52], [0.4, 0.41, 0.42], "ttft_s"],
    [[40, 41, 42, 43, 44, 45], [44, 45, 46, 47, 48, 49], "decode_tps"],
  ];
  for (const [a, b, metric] of pairs) {
    const report = caseDelta(
      { caseId: "short", concurrency: 1, metric },
      { label: "A", sample: sampleMetric([a]) },
      { label: "B", sample: sampleMetric([b]) },
    );
    const site = relativeDelta(a, b, metric === "ttft_s");
    assert.equal(site.verdict, report.verdict, `${metric} ${a} -> ${b}`);
    assert.equal(site.delta?.estimate, report.delta?.estimate);
  }
});

function facts(decode: number[], optional: boolean): ResultFacts {
  const stat = (values: number[]) => ({ median: values[1]!, min: values[0]!, max: values.at(-1)!, n: 3, values });
  const cases = ["short", "prompt-4k"].map((caseId) => ({
    phase: "performance",
    caseId,
    concurrency: 1,
    metrics: { decode_tps: stat(decode), prompt_tps: stat([900, 910, 920]), ttft_s: stat([0.1, 0.11, 0.12]) },
    aggregateTps: null,
  }));
  if (optional) {
    cases.push({
      phase: "concurrency",
      caseId: "short-burst",
      concurrency: 4,
      metrics: { decode_tps: stat(decode), prompt_tps: stat([900, 910, 920]), ttft_s: stat([0.1, 0.11, 0.12]) },
      aggregateTps: stat([150, 160, 170]) as unknown as null,
    });
  }
  return { cases } as unknown as ResultFacts;
}

Deno.test("per case the entry meets one reproduction: the cases both ran, each metric read out, the rounds", () => {
  const rows = reproductionDeltas(facts([50, 51, 52], true), facts([60, 61, 62], true));
  assert.deepEqual(rows.map((r) => `${r.caseId} ${r.metric} ${r.verdict}`), [
    "short Decode tok/s better",
    "short TTFT s not resolved",
    "prompt-4k Decode tok/s better",
    "prompt-4k Prompt tok/s not resolved",
    "prompt-4k TTFT s not resolved",
    "short-burst Decode tok/s better",
    "short-burst TTFT s not resolved",
    "short-burst Aggregate tok/s not resolved",
  ]);
  assert.deepEqual([rows[0]!.entry, rows[0]!.reproduction], [51, 61], "each side's own median, never pooled");
  assert.ok(!rows.some((r) => r.caseId.startsWith("short") && r.metric === "Prompt tok/s"), "the readout's rule");
  assert.equal(reproductionDeltas(facts([50, 51, 52], true), facts([60, 61, 62], false)).length, 5, "shared cases");
});
