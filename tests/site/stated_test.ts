/**
 * Values an evidence line states instead of letting the site recompute them (record_overrides): taken for their
 * field only, refused when they are no value of that field, and required to be listed in results.json.
 */
import assert from "node:assert/strict";
import { checkStatedListed, statedOf, withStated } from "../../site/web/stated.js";
import type { RebuiltRequest } from "../../site/web/evidence.js";

const rebuilt: RebuiltRequest = {
  id: "sanity-I3",
  status: "completed",
  finishReason: "stop",
  httpStatus: 200,
  errorKind: null,
  firstDeltaKind: "content",
  finalAnswer: '{"project":"<host>","build":17}',
  toolCalls: [],
  tokens: { input_tokens: 80, cached_tokens: 0, read_tokens: 80, output_tokens: 9, decode_tokens: 9 },
  timings: { prompt_s: 0.1, decode_s: 0.2, ttft_s: 0.15, first_answer_s: 0.15, total_s: 0.4 },
  metrics: { prompt_tps: 800, decode_tps: 45 },
  cadence: null,
  dispatchedAtEpochMs: 1,
  dispatchOffsetS: 0,
  body: {},
  slotParams: null,
  concurrency: 1,
};
const verdict = { passed: false, reason: "differs", category: "instruction", caseId: "I3" };

Deno.test("a stated verdict replaces the site's for that field only", () => {
  const problems: string[] = [];
  const out = withStated(rebuilt, verdict, { "/evaluation/passed": true, "/evaluation/reason": "equal" }, problems);
  assert.deepEqual(problems, []);
  assert.equal(out.verdict?.passed, true);
  assert.equal(out.verdict?.reason, "equal");
  assert.equal(out.verdict?.category, "instruction", "the category stays the protocol's");
  assert.deepEqual(out.rebuilt.tokens, rebuilt.tokens, "nothing else changes");
});

Deno.test("a stated value of the wrong type is a problem and changes nothing", () => {
  for (const stated of [{ "/tokens/output_tokens": "9" }, { "/tokens/output_tokens": 9.5 }, { "/status": "great" }]) {
    const problems: string[] = [];
    const out = withStated(rebuilt, verdict, stated, problems);
    assert.equal(problems.length, 1, JSON.stringify(stated));
    assert.match(problems[0]!, /which is no value of that field/);
    assert.deepEqual(out.rebuilt, rebuilt);
  }
});

Deno.test("record_overrides must be an object of JSON Pointers", () => {
  const problems: string[] = [];
  assert.deepEqual(statedOf({}, "x", problems), {});
  assert.equal(statedOf({ record_overrides: [1] }, "x", problems), null);
  assert.equal(statedOf({ record_overrides: { "evaluation/passed": true } }, "x", problems), null);
  assert.equal(problems.length, 2);
});

Deno.test("results.json must list exactly the stated pointers, by request id", () => {
  const stated = [{ id: "sanity-I3", pointers: ["/evaluation/passed", "/evaluation/reason"] }];
  const listed = (value: unknown) => {
    const problems: string[] = [];
    checkStatedListed({ record_overrides: value }, stated, problems);
    return problems;
  };
  assert.deepEqual(listed({ "sanity-I3": ["/evaluation/reason", "/evaluation/passed"] }), []);
  assert.equal(listed({ "sanity-I3": ["/evaluation/passed"] }).length, 1, "one pointer not listed");
  assert.equal(listed({ "sanity-I3": stated[0]!.pointers, "sanity-I4": ["/status"] }).length, 1, "one too many");
  assert.equal(listed(undefined).length, 1, "not listed at all");
  const none: string[] = [];
  checkStatedListed({}, [], none);
  assert.deepEqual(none, [], "nothing stated, nothing listed");
});

Deno.test("a stated pointer through __proto__ or an inherited member reaches no prototype", () => {
  for (const pointer of ["/__proto__/polluted", "/tokens/__proto__/polluted", "/constructor/prototype/polluted"]) {
    const problems: string[] = [];
    const out = withStated(rebuilt, verdict, { [pointer]: "yes" }, problems);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, pointer);
    assert.deepEqual(out.rebuilt.tokens, rebuilt.tokens, pointer);
  }
});
