/** The site's sanity verdicts, case by case, by the rules of "Twelve sanity checks". */
import assert from "node:assert/strict";
import { SANITY_CASES } from "../../site/web/protocol.js";
import { judgeSanity } from "../../site/web/sanity.js";

const byId = (id: string) => SANITY_CASES.find((c) => c.caseId === id)!;
const text = (finalAnswer: string, status = "completed") => ({ status, finalAnswer, toolCalls: [] });
const call = (name: unknown, args: unknown, more: { name: unknown; arguments: unknown }[] = []) => ({
  status: "completed",
  finalAnswer: "",
  toolCalls: [{ name, arguments: args }, ...more],
});

const cases: [string, ReturnType<typeof text>, boolean, RegExp][] = [
  ["I1", text('{"ok":true,"count":3}'), true, /equals/],
  ["I1", text(' \n{"count":3, "ok":true}\t'), true, /equals/],
  ["I1", text('{"ok":true,"count":3.0}'), false, /differs/],
  ["I1", text('{"ok":true,"count":3e0}'), false, /differs/],
  ["I1", text('{"ok":1,"count":3}'), false, /differs/],
  ["I1", text('{"ok":true,"count":3,"extra":null}'), false, /differs/],
  ["I1", text('{"ok":true,"count":3,"ok":true}'), false, /duplicate key/],
  ["I1", text('```json\n{"ok":true,"count":3}\n```'), false, /not one strict JSON value/],
  ["I1", text('Here: {"ok":true,"count":3}'), false, /not one strict JSON value/],
  ["I2", text("[-4,1,2,9]"), true, /equals/],
  ["I2", text("[-4,1,2,2,9]"), false, /differs/],
  ["I2", text("[9,2,1,-4]"), false, /differs/],
  ["I3", text('{"build":17,"project":"Orion"}'), true, /equals/],
  ["I3", text('{"project":"Orion","build":"17"}'), false, /differs/],
  ["I3", text('{"project":"\\u004frion","build":17}'), true, /equals/],
  ["I4", text("READY"), true, /exactly READY/],
  ["I4", text("\r\n READY \t"), true, /exactly READY/],
  ["I4", text("\u00a0READY"), false, /not exactly READY/],
  ["I4", text("ready"), false, /not exactly/],
  ["I4", text("READY."), false, /not exactly/],
  ["I4", text("READY", "truncated"), false, /only a completed response passes/],
  ["R1", text("ORBIT-731"), true, /exactly/],
  ["R1", text('"ORBIT-731"'), false, /not exactly/],
  ["R3", text("DELTA-906\n"), true, /exactly/],
  ["R4", text('{"south":"S-875","north":"N-124"}'), true, /equals/],
  ["R4", text('{"north":"N-124"}'), false, /differs/],
  ["R2", text("CEDAR-284", "failed"), false, /failed; only a completed/],
  ["R2", text("", "skipped"), false, /skipped/],
];
for (const [id, evidence, passed, reason] of cases) {
  Deno.test(`sanity ${id} ${passed ? "passes" : "fails"} on ${JSON.stringify(evidence.finalAnswer)} (${evidence.status})`, () => {
    const verdict = judgeSanity(byId(id), evidence);
    assert.equal(verdict.passed, passed, verdict.reason);
    assert.match(verdict.reason, reason);
  });
}

const tools: [string, ReturnType<typeof call>, boolean, RegExp][] = [
  ["T1", call("lookup_record", '{"id":"A-17"}'), true, /one call lookup_record/],
  ["T1", call("lookup_record", ' {"id": "A-17"} '), true, /one call/],
  [
    "T1",
    { status: "completed", finalAnswer: 'lookup_record({"id":"A-17"})', toolCalls: [] },
    false,
    /0 structured tool calls/,
  ],
  ["T1", call("lookup_record", '{"id":"A-17","extra":1}'), false, /differ/],
  ["T1", call("lookup", '{"id":"A-17"}'), false, /called "lookup"/],
  [
    "T2",
    call("get_weather", '{"city":"Zagreb","unit":"celsius"}', [{ name: "get_weather", arguments: "{}" }]),
    false,
    /2 structured tool calls/,
  ],
  ["T2", call("get_weather", '{"unit":"celsius","city":"Zagreb"}'), true, /one call/],
  ["T3", call("convert_units", '{"value":3,"from_unit":"km","to_unit":"m"}'), true, /one call/],
  ["T3", call("convert_units", '{"value":3.0,"from_unit":"km","to_unit":"m"}'), false, /differ/],
  ["T3", call("convert_units", '{"value":"3","from_unit":"km","to_unit":"m"}'), false, /differ/],
  ["T4", call("get_build_status", '{"project":"Orion","build":17,"build":17}'), false, /duplicate key/],
  ["T4", call("get_build_status", '{"project":"Orion","build":17'), false, /not strict JSON/],
  ["T4", call("get_build_status", { project: "Orion", build: 17 }), false, /not text/],
];
for (const [id, evidence, passed, reason] of tools) {
  Deno.test(`sanity ${id} ${passed ? "passes" : "fails"} on ${JSON.stringify(evidence.toolCalls).slice(0, 70)}`, () => {
    const verdict = judgeSanity(byId(id), evidence);
    assert.equal(verdict.passed, passed, verdict.reason);
    assert.match(verdict.reason, reason);
  });
}

Deno.test("the site's table has the twelve cases, four per category", () => {
  assert.deepEqual(SANITY_CASES.map((c) => c.caseId), [
    "I1",
    "I2",
    "I3",
    "I4",
    "R1",
    "R2",
    "R3",
    "R4",
    "T1",
    "T2",
    "T3",
    "T4",
  ]);
  for (const category of ["instruction", "retrieval", "tool_call"]) {
    assert.equal(SANITY_CASES.filter((c) => c.category === category).length, 4);
  }
});
