import assert from "node:assert/strict";
import {
  includedMetricValues,
  keptCadence,
  pooledItl,
  rangeOf,
  readCadence,
  readCase,
  readCases,
} from "../../../score/case_readout.ts";
import { buildRealisticResult } from "../report/_realistic_result.ts";

Deno.test("rangeOf gives median, min, max and n, and nulls with n 0 for an empty sample", () => {
  assert.deepEqual(rangeOf([5, 1, 3, 2]), { median: 2.5, min: 1, max: 5, n: 4 });
  assert.deepEqual(rangeOf([]), { median: null, min: null, max: null, n: 0 });
  assert.throws(() => rangeOf([1, Number.NaN]), RangeError);
});

Deno.test("a case readout counts capped, failed and skipped records and ranges the engine's token counts", async () => {
  const built = await buildRealisticResult({ optionalConcurrency: true });
  await built.cleanup();
  const { result, fixtures } = built;
  const short = readCase(result.requests, "performance", "short");
  assert.deepEqual([short.records, short.measured, short.capped, short.failed, short.skipped], [3, 3, 1, 0, 0]);
  const sixteen = readCase(result.requests, "performance", "prompt-16k");
  assert.equal(sixteen.capped, 3);
  const frozen = fixtures.filter((f) => f.id.startsWith("performance-prompt-16k")).map((f) => f.input_tokens);
  assert.equal(sixteen.inputTokens.min, Math.min(...frozen));
  assert.equal(sixteen.inputTokens.max, Math.max(...frozen));
  assert.equal(sixteen.inputTokens.n, 3);
  assert.equal(sixteen.outputTokens.max, 512, "capped requests generated exactly the cap");
  const cases = readCases(result);
  assert.deepEqual(cases.map((c) => `${c.caseId}@${c.concurrency}`), [
    "short@1",
    "prompt-4k@1",
    "prompt-16k@1",
    "short-burst@4",
  ]);
  assert.equal(cases[3]!.records, 12);

  const record = result.requests.find((r) => r.id === "performance-prompt-4k-r1")!;
  const failed = structuredClone(result.requests).map((r) =>
    r.id === record.id ? { ...r, status: "failed" as const, tokens: { ...r.tokens, input_tokens: null } } : r
  );
  const withFailure = readCase(failed, "performance", "prompt-4k");
  assert.deepEqual([withFailure.measured, withFailure.failed, withFailure.inputTokens.n], [2, 1, 2]);
});

Deno.test("includedMetricValues reads only the included requests of each run; runs pool by concatenation", async () => {
  const built = await buildRealisticResult({});
  await built.cleanup();
  const { result } = built;
  const summary = result.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "decode_tps")!;
  const pooledMetric = (runs: Parameters<typeof includedMetricValues>[0][], metric: "decode_tps" | "ttft_s") =>
    rangeOf(runs.flatMap((run) => includedMetricValues(run, metric)));
  const one = pooledMetric(
    [{ requests: result.requests, includedRequestIds: summary.included_request_ids }],
    "decode_tps",
  );
  assert.deepEqual(one, { median: summary.median, min: summary.min, max: summary.max, n: summary.n });
  const two = pooledMetric([
    { requests: result.requests, includedRequestIds: summary.included_request_ids },
    { requests: result.requests, includedRequestIds: summary.included_request_ids.slice(0, 1) },
  ], "decode_tps");
  assert.equal(two.n, summary.n + 1);
  assert.throws(
    () => pooledMetric([{ requests: [], includedRequestIds: ["performance-short-r1"] }], "ttft_s"),
    /no record/,
  );
});

Deno.test("a case's reasoning cadence: per-request values ranged, every ITL gap pooled, failed requests left out", async () => {
  const built = await buildRealisticResult({ optionalConcurrency: false });
  await built.cleanup();
  const requests = structuredClone(built.result.requests);
  const cadenceOf = structuredClone(built.result.extensions!.reasoning_cadence!);
  const short = requests.filter((r) => r.case_id === "short" && r.phase === "performance");
  const of = (i: number) => cadenceOf[short[i]!.id]!;
  short[2]!.status = "failed";
  // The gaps of each request as the stream gave them; pooled over the measured requests that reasoned.
  const gaps = new Map(short.map((r, i) => [r.id, {
    ...of(i),
    reasoning_itl_s: i === 0 ? [0.01, 0.5] : [0.02 * (i + 1)],
    answer_itl_s: [0.03],
  }]));
  const pooled = pooledItl(requests, (id) => gaps.get(id) ?? null);
  assert.deepEqual(pooled, [{
    phase: "performance",
    case_id: "short",
    reasoning_itl_s: rangeOf([0.01, 0.5, 0.04]),
    answer_itl_s: rangeOf([0.03, 0.03]),
  }]);
  assert.deepEqual(keptCadence(gaps.get(short[0]!.id)!), of(0));
  const extensions = { reasoning_cadence: cadenceOf, reasoning_itl: pooled };
  const cadence = readCadence({ requests, extensions }, "performance", "short")!;
  assert.deepEqual([cadence.reasoned, cadence.measured], [2, 2]);
  assert.deepEqual(cadence.reasoningItlS, rangeOf([0.01, 0.5, 0.04]));
  const thinking = [0, 1].flatMap((i) => of(i).thinking_s ?? []);
  assert.deepEqual(cadence.thinkingS, rangeOf(thinking));
  assert.equal(readCadence({ requests, extensions: {} }, "performance", "short"), null);
  for (const record of short) cadenceOf[record.id] = null;
  assert.equal(readCadence({ requests, extensions }, "performance", "short"), null);
});
