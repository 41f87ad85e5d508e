import assert from "node:assert/strict";
import { buildRequestRecord, decideRunStatus, nonconformingReasonsOf, scoreQuality } from "../../../score/mod.ts";
import type { RequestRecord } from "../../../contract/mod.ts";
import { answered, fixture, outcome, rec, sanityFixture, toolCalled } from "./_helpers.ts";

const SANITY = ["I1", "I2", "I3", "I4", "R1", "R2", "R3", "R4", "T1", "T2", "T3", "T4"];

function complete(): RequestRecord[] {
  return [
    rec("warmup", "warmup", "short", "completed"),
    rec("performance-short-r1", "performance", "short", "failed"),
    ...SANITY.map((id) => rec(`sanity-${id}`, "sanity", id, "completed")),
  ];
}

Deno.test("quality counts passed verdicts out of 12 and 4 per category", () => {
  const records = [
    buildRequestRecord(sanityFixture("I4"), { kind: "outcome", outcome: answered("READY"), concurrency: 1 }).record,
    buildRequestRecord(sanityFixture("I1"), {
      kind: "outcome",
      outcome: answered('{"ok":true,"count":3.0}'),
      concurrency: 1,
    }).record,
    buildRequestRecord(sanityFixture("R1"), { kind: "outcome", outcome: answered("ORBIT-731"), concurrency: 1 }).record,
    buildRequestRecord(sanityFixture("T2"), {
      kind: "outcome",
      outcome: toolCalled("get_weather", '{"city":"Zagreb","unit":"celsius"}'),
      concurrency: 1,
    }).record,
    buildRequestRecord(sanityFixture("T3"), { kind: "skipped", reason: "cancelled", concurrency: 1 }).record,
    rec("performance-short-r1", "performance", "short", "completed"),
  ];
  assert.deepEqual(scoreQuality(records), {
    passed: 3,
    total: 12,
    categories: {
      instruction: { passed: 1, total: 4 },
      retrieval: { passed: 1, total: 4 },
      tool_call: { passed: 1, total: 4 },
    },
  });
  assert.deepEqual(scoreQuality([]).categories.retrieval, { passed: 0, total: 4 });
});

Deno.test("a run with failures but nothing skipped is complete", () => {
  assert.deepEqual(decideRunStatus({ nonconformingReasons: [], requests: complete() }), {
    status: "complete",
    reasons: [],
  });
});

Deno.test("a skipped required request makes the run partial; skipped optional work does not", () => {
  const partial = [
    ...complete().slice(0, 13),
    rec("sanity-T4", "sanity", "T4", "skipped", { skipReason: "run cancelled" }),
  ];
  const result = decideRunStatus({ nonconformingReasons: [], requests: partial });
  assert.equal(result.status, "partial");
  assert.deepEqual(result.reasons, ["1 required request(s) skipped: sanity-T4 (first skip: run cancelled)"]);
  const optional = [...complete(), rec("concurrency-r1-c1", "concurrency", "short-burst", "skipped", { round: 1 })];
  assert.equal(decideRunStatus({ nonconformingReasons: [], requests: optional }).status, "complete");
});

Deno.test("nonconforming takes precedence over partial", () => {
  const partial = [...complete(), rec("performance-short-r2", "performance", "short", "skipped")];
  const result = decideRunStatus({ nonconformingReasons: ["the server is not on loopback"], requests: partial });
  assert.deepEqual(result, { status: "nonconforming", reasons: ["the server is not on loopback"] });
});

Deno.test("unexpected reuse on a performance request makes the run nonconforming; on sanity it does not", () => {
  const reused = [
    ...complete(),
    rec("performance-short-r2", "performance", "short", "completed", { cachedTokens: 90 }),
  ];
  const facts = { "performance-short-r2": 12, "sanity-I1": 12 };
  const result = decideRunStatus({ nonconformingReasons: [], requests: reused, maxSharedPrefixTokens: facts });
  assert.equal(result.status, "nonconforming");
  assert.deepEqual(result.reasons, [
    "performance-short-r2: unexpected cache reuse: cached_tokens 90 > max_shared_prefix_tokens 12 + 8; the user " +
    "payload came from the cache (restart the engine between runs)",
  ]);
  const sanityReuse = complete().map((r) =>
    r.id === "sanity-I1" ? { ...r, tokens: { ...r.tokens, cached_tokens: 90 } } : r
  );
  assert.equal(
    decideRunStatus({ nonconformingReasons: [], requests: sanityReuse, maxSharedPrefixTokens: facts }).status,
    "complete",
  );
});

Deno.test("record flags become nonconforming reasons that decideRunStatus does not repeat", () => {
  const fix = fixture({ id: "performance-prompt-4k-r1", case_id: "prompt-4k", max_shared_prefix_tokens: 14 });
  const built = buildRequestRecord(fix, {
    kind: "outcome",
    outcome: outcome({
      usage: { prompt_tokens: 5000, completion_tokens: 35, prompt_tokens_details: { cached_tokens: 4000 } },
    }),
    concurrency: 1,
  });
  const reasons = nonconformingReasonsOf(built, 14);
  assert.equal(reasons.length, 2);
  assert.match(reasons[0] ?? "", /input_tokens 5000 is more than 2% off 4096/);
  assert.match(reasons[1] ?? "", /cached_tokens 4000 > max_shared_prefix_tokens 14 \+ 8/);
  const result = decideRunStatus({
    nonconformingReasons: reasons,
    requests: [built.record],
    maxSharedPrefixTokens: { "performance-prompt-4k-r1": 14 },
  });
  assert.deepEqual(result.reasons, reasons);
  const refused = buildRequestRecord(fixture(), {
    kind: "outcome",
    outcome: outcome({
      end: "http_error",
      http_status: 400,
      finish_reason: null,
      error_message: "bad reasoning_effort",
    }),
    concurrency: 1,
  });
  assert.match(nonconformingReasonsOf(refused, 12)[0] ?? "", /refused the request .*HTTP 400.*bad reasoning_effort/);
});
