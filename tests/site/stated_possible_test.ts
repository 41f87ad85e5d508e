/**
 * The site's own rule for stated values: a stated pass is taken only where the placeholder stands where its check
 * reads and the check, with what it expects in the placeholder's place, passes; a stated count only where a
 * placeholder in the engine's chunk, given that number, gives it.
 */
import assert from "node:assert/strict";
import { statedImpossible } from "../../site/web/stated_possible.js";
import { SANITY_CASES } from "../../site/web/protocol.js";

const caseOf = (id: string) => SANITY_CASES.find((c) => c.caseId === id)!;
const line = (answer: string, extra: Record<string, unknown> = {}) => ({
  request_id: "x",
  end: "finished",
  finish_reason: "stop",
  final_answer: answer,
  tool_calls: [],
  ...extra,
});
const pass = { "/evaluation/passed": true, "/evaluation/reason": "stated" };
const failed = { passed: false };

Deno.test("a stated pass the placeholders could have produced is taken", () => {
  assert.deepEqual(statedImpossible(line('{"project":"<host>","build":17}'), pass, caseOf("I3"), failed), []);
  assert.deepEqual(statedImpossible(line("  <host> "), pass, caseOf("R1"), failed), []);
  assert.deepEqual(statedImpossible(line("ORBIT-<serial>"), pass, caseOf("R1"), failed), []);
  const call = { name: "get_build_status", arguments: '{"project":"<host>","build":17}' };
  assert.deepEqual(statedImpossible(line("", { tool_calls: [call] }), pass, caseOf("T4"), failed), []);
});

Deno.test("a stated pass the placeholders could not have produced is refused, saying why", () => {
  const refused = (l: Record<string, unknown>, id: string, why: RegExp) => {
    const problems = statedImpossible(l, pass, caseOf(id), failed);
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.match(problems[0]!, why);
  };
  refused(line('{"ok":true,"count":"<host>"}'), "I1", /gives a failure with what it expects/);
  refused(line("ORBIT-7 <host>"), "R1", /cannot be exactly ORBIT-731/);
  refused(line("ORBIT-731 is it"), "R1", /holds no placeholder/);
  refused(line("[-4, 1, <serial>]"), "I2", /not JSON with its placeholders/);
  const call = { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' };
  refused(line("near <host>", { tool_calls: [call] }), "T2", /holds no placeholder/);
});

Deno.test("a stated count needs a placeholder in the engine's chunk that gives it", () => {
  const usage = (completion: string) => ({
    usage_chunk: `{"usage":{"prompt_tokens":80,"completion_tokens":${completion}}}`,
  });
  const stated = { "/tokens/output_tokens": 9 };
  assert.deepEqual(statedImpossible(line("a", usage("<serial>")), stated, undefined, null), []);
  assert.match(statedImpossible(line("a", usage("7")), stated, undefined, null)[0]!, /hold no placeholder/);
  const elsewhere = { usage_chunk: '{"usage":{"prompt_tokens":80,"completion_tokens":7},"x":"<host>"}' };
  assert.match(statedImpossible(line("a", elsewhere), stated, undefined, null)[0]!, /no number in place/);
});
