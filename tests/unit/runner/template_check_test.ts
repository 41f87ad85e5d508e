import assert from "node:assert/strict";
import type { Fixture } from "../../../contract/mod.ts";
import { compareTemplateProbe } from "../../../runner/mod.ts";

function fixture(id: string, caseId: string, inputTokens: number, maxShared: number): Fixture {
  return { id, case_id: caseId, input_tokens: inputTokens, max_shared_prefix_tokens: maxShared } as Fixture;
}
const ids = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i);

Deno.test("counts within 2% and prefixes up to the frozen one + 8 match; beyond either is a mismatch", () => {
  const fixtures = [fixture("a", "short", 100, 10), fixture("b", "short", 100, 10), fixture("c", "short", 100, 10)];
  const shared = ids(19, 0);
  const check = compareTemplateProbe(fixtures, {
    supported: true,
    reason: null,
    requests: [
      { id: "a", tokens: [...shared, ...ids(81, 1000)], reason: null },
      { id: "b", tokens: [...shared, ...ids(83, 2000)], reason: null },
      { id: "c", tokens: [...ids(5, 0), ...ids(97, 3000)], reason: null },
    ],
  });
  assert.deepEqual(check.rows.map((r) => [r.id, r.server_tokens, r.server_max_shared_prefix_tokens, r.verdict]), [
    ["a", 100, 19, "mismatch"],
    ["b", 102, 19, "mismatch"],
    ["c", 102, 5, "match"],
  ]);
  assert.match(check.rows[0]!.reason ?? "", /shares 19 tokens with another request, above the frozen 10 \+ 8/);
  assert.equal(check.mismatches, 2);
});

Deno.test("a 4K case within 2% of its frozen count but not of 4,096 is a mismatch, a null count is unchecked, an unsupported server runs no rows", () => {
  const fixtures = [fixture("p", "prompt-4k", 4089, 12), fixture("q", "short", 30, 5)];
  const check = compareTemplateProbe(fixtures, {
    supported: true,
    reason: null,
    requests: [
      { id: "p", tokens: ids(4010, 0), reason: null },
      { id: "q", tokens: null, reason: "POST /tokenize answered no list of token ids" },
    ],
  });
  assert.deepEqual(check.rows.map((r) => r.verdict), ["mismatch", "unchecked"]);
  assert.match(check.rows[0]!.reason ?? "", /more than 2% off the case's target length/);
  assert.equal(check.rows[1]!.reason, "POST /tokenize answered no list of token ids");
  const none = compareTemplateProbe(fixtures, { supported: false, reason: "no endpoint", requests: [] });
  assert.deepEqual([none.rows.length, none.reason], [0, "no endpoint"]);
});

Deno.test("a tool case must count exactly its frozen tokens: one token off is a mismatch, within 2% or not", () => {
  const tool = { ...fixture("sanity-T1", "T1", 174, 51), category: "tool_call" } as Fixture;
  const instruction = { ...fixture("sanity-I1", "I1", 174, 51), category: "instruction" } as Fixture;
  const check = compareTemplateProbe([tool, instruction], {
    supported: true,
    reason: null,
    requests: [
      { id: "sanity-T1", tokens: ids(175, 0), reason: null },
      { id: "sanity-I1", tokens: ids(175, 5000), reason: null },
    ],
  });
  assert.deepEqual(check.rows.map((r) => r.verdict), ["mismatch", "match"]);
  assert.match(check.rows[0]!.reason ?? "", /^175 tokens, 1 off the frozen 174 \(a tool case must match exactly/);
});
