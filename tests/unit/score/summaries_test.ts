import assert from "node:assert/strict";
import { median, summarizeRequests } from "../../../score/mod.ts";
import { orderStatistics } from "../../../score/stats.ts";
import type { RequestRecord, Summary } from "../../../contract/mod.ts";
import { rec } from "./_helpers.ts";

/** A whole required suite's performance records plus warm-up and sanity records that must not enter summaries. */
function suite(): RequestRecord[] {
  return [
    rec("warmup", "warmup", "short", "completed", { decodeTps: 999 }),
    rec("performance-short-r1", "performance", "short", "completed", { decodeTps: 50, firstAnswerS: 0.4 }),
    rec("performance-prompt-4k-r1", "performance", "prompt-4k", "failed"),
    rec("performance-prompt-16k-r1", "performance", "prompt-16k", "skipped", { skipReason: "the engine died" }),
    rec("performance-short-r2", "performance", "short", "truncated", { decodeTps: 40 }),
    rec("performance-prompt-4k-r2", "performance", "prompt-4k", "completed", { decodeTps: 30, cachedTokens: 4100 }),
    rec("performance-prompt-16k-r2", "performance", "prompt-16k", "skipped", { skipReason: "the engine died" }),
    rec("performance-short-r3", "performance", "short", "completed", { decodeTps: 45, firstAnswerS: 0.6 }),
    rec("performance-prompt-4k-r3", "performance", "prompt-4k", "completed", { decodeTps: 34 }),
    rec("performance-prompt-16k-r3", "performance", "prompt-16k", "skipped", { skipReason: "the engine died" }),
    rec("sanity-I1", "sanity", "I1", "completed", { decodeTps: 999 }),
  ];
}

const MAX_SHARED: Record<string, number> = new Proxy({}, {
  get: (_t, key) => (key === "performance-prompt-4k-r2" ? 14 : 236),
});

function find(summaries: Summary[], caseId: string, metric: string): Summary {
  const found = summaries.find((s) => s.case_id === caseId && s.metric === metric);
  assert.ok(found, `${caseId} ${metric}`);
  return found;
}

Deno.test("median is the middle value for odd n and the mean of the two middle values for even n", () => {
  assert.equal(median([50, 40, 45]), 45);
  assert.equal(median([30, 34]), 32);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.throws(() => median([]), RangeError);
  assert.throws(() => median([1, Number.NaN]), RangeError);
  assert.deepEqual(orderStatistics([3, 1, 2, 10]), { median: 2.5, min: 1, max: 10, n: 4 });
});

Deno.test("summaries come in contract order: cases x metrics, 15 without the optional stage", () => {
  const { summaries } = summarizeRequests(suite(), { maxSharedPrefixTokens: MAX_SHARED, optionalConcurrency: false });
  assert.equal(summaries.length, 15);
  assert.deepEqual(
    summaries.slice(0, 6).map((s) => `${s.case_id}/${s.metric}/${s.unit}`),
    [
      "short/prompt_tps/tokens/s",
      "short/decode_tps/tokens/s",
      "short/ttft_s/s",
      "short/first_answer_s/s",
      "short/total_s/s",
      "prompt-4k/prompt_tps/tokens/s",
    ],
  );
  assert.ok(summaries.every((s) => s.phase === "performance" && s.concurrency === 1));
  assert.deepEqual(Object.keys(summaries[0] as Summary), [
    "phase",
    "case_id",
    "concurrency",
    "metric",
    "unit",
    "median",
    "min",
    "max",
    "n",
    "included_request_ids",
    "excluded",
  ]);
});

Deno.test("summary of an odd sample: truncated requests stay in the speed summaries", () => {
  const { summaries } = summarizeRequests(suite(), { maxSharedPrefixTokens: MAX_SHARED, optionalConcurrency: false });
  const decode = find(summaries, "short", "decode_tps");
  assert.deepEqual([decode.median, decode.min, decode.max, decode.n], [45, 40, 50, 3]);
  assert.deepEqual(decode.included_request_ids, [
    "performance-short-r1",
    "performance-short-r2",
    "performance-short-r3",
  ]);
  assert.deepEqual(decode.excluded, []);
});

Deno.test("summary of an even sample uses the mean of the middle two and lists the null exclusion", () => {
  const { summaries } = summarizeRequests(suite(), { maxSharedPrefixTokens: MAX_SHARED, optionalConcurrency: false });
  const firstAnswer = find(summaries, "short", "first_answer_s");
  assert.equal(firstAnswer.n, 2);
  assert.ok(Math.abs((firstAnswer.median as number) - 0.5) < 1e-12);
  assert.deepEqual(firstAnswer.excluded, [{
    request_id: "performance-short-r2",
    reason: "first_answer_s null: no answer text or tool call arrived: the request reached its 512-token cap " +
      "while reasoning",
  }]);
});

Deno.test("failed and reused requests are excluded with their specific reasons", () => {
  const { summaries } = summarizeRequests(suite(), { maxSharedPrefixTokens: MAX_SHARED, optionalConcurrency: false });
  const decode = find(summaries, "prompt-4k", "decode_tps");
  assert.deepEqual([decode.median, decode.min, decode.max, decode.n], [34, 34, 34, 1]);
  assert.deepEqual(decode.excluded, [
    { request_id: "performance-prompt-4k-r1", reason: "failed: timeout" },
    {
      request_id: "performance-prompt-4k-r2",
      reason: "unexpected cache reuse: cached_tokens 4100 > max_shared_prefix_tokens 14 + 8",
    },
  ]);
});

Deno.test("a case with no valid samples has n 0, null statistics and absolute missing pointers", () => {
  const { summaries, missing } = summarizeRequests(suite(), {
    maxSharedPrefixTokens: MAX_SHARED,
    optionalConcurrency: false,
  });
  const index = summaries.findIndex((s) => s.case_id === "prompt-16k" && s.metric === "ttft_s");
  assert.equal(index, 12);
  const summary = summaries[index] as Summary;
  assert.deepEqual([summary.median, summary.min, summary.max, summary.n], [null, null, null, 0]);
  assert.deepEqual(summary.excluded.map((e) => e.reason), Array(3).fill("skipped: the engine died"));
  assert.equal(
    missing["/summaries/12/median"],
    "no valid samples: all 3 requests of case prompt-16k were excluded (see excluded)",
  );
  assert.equal(missing["/summaries/12/min"], missing["/summaries/12/median"]);
  assert.equal(missing["/summaries/12/max"], missing["/summaries/12/median"]);
  const nullPointers = summaries.flatMap((
    s,
    i,
  ) => (s.n === 0 ? ["median", "min", "max"].map((k) => `/summaries/${i}/${k}`) : []));
  assert.deepEqual(Object.keys(missing).sort(), nullPointers.sort());
});

Deno.test("the optional stage adds five short-burst summaries at concurrency 4", () => {
  const records = [
    ...suite(),
    rec("concurrency-r1-c1", "concurrency", "short-burst", "completed", { round: 1, decodeTps: 20 }),
    rec("concurrency-r1-c2", "concurrency", "short-burst", "completed", { round: 1, decodeTps: 24 }),
  ];
  const { summaries, missing } = summarizeRequests(records, {
    maxSharedPrefixTokens: MAX_SHARED,
    optionalConcurrency: true,
  });
  assert.equal(summaries.length, 20);
  const burst = summaries.slice(15);
  assert.ok(burst.every((s) => s.phase === "concurrency" && s.case_id === "short-burst" && s.concurrency === 4));
  assert.deepEqual([burst[1]?.metric, burst[1]?.median, burst[1]?.n], ["decode_tps", 22, 2]);
  assert.equal(missing["/summaries/15/median"], undefined);
  const empty = summarizeRequests(suite(), { maxSharedPrefixTokens: MAX_SHARED, optionalConcurrency: true });
  assert.equal(empty.missing["/summaries/16/median"], "no concurrency request of case short-burst was recorded");
});

Deno.test("summaries refuse a request without its max_shared_prefix_tokens", () => {
  assert.throws(
    () => summarizeRequests(suite(), { maxSharedPrefixTokens: {}, optionalConcurrency: false }),
    TypeError,
  );
});
