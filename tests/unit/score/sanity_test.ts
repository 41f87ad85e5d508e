import assert from "node:assert/strict";
import { MAX_VERDICT_REASON_CHARS, scoreSanity, stripAsciiWhitespace } from "../../../score/sanity.ts";
import type { StreamOutcome } from "../../../contract/mod.ts";
import { answered, fixture, outcome, sanityFixture, toolCalled } from "./_helpers.ts";

function verdict(caseId: string, out: StreamOutcome, status: "completed" | "truncated" | "failed" = "completed") {
  return scoreSanity(sanityFixture(caseId), status, out);
}

function passes(caseId: string, out: StreamOutcome): void {
  const result = verdict(caseId, out);
  assert.equal(result.passed, true, result.reason);
  assert.ok(result.reason.startsWith(`${caseId}: `), result.reason);
}

function fails(caseId: string, out: StreamOutcome, reason: string | RegExp): void {
  const result = verdict(caseId, out);
  assert.equal(result.passed, false, `${caseId} passed: ${result.reason}`);
  if (typeof reason === "string") assert.equal(result.reason, reason);
  else assert.match(result.reason, reason);
}

Deno.test("sanity: every case passes with its exact expected answer", () => {
  passes("I1", answered('{"ok":true,"count":3}'));
  passes("I2", answered("[-4,1,2,9]"));
  passes("I3", answered('{"project":"Orion","build":17}'));
  passes("I4", answered("READY"));
  passes("R1", answered("ORBIT-731"));
  passes("R2", answered("CEDAR-284"));
  passes("R3", answered("DELTA-906"));
  passes("R4", answered('{"north":"N-124","south":"S-875"}'));
  passes("T1", toolCalled("lookup_record", '{"id":"A-17"}'));
  passes("T2", toolCalled("get_weather", '{"city":"Zagreb","unit":"celsius"}'));
  passes("T3", toolCalled("convert_units", '{"value":3,"from_unit":"km","to_unit":"m"}'));
  passes("T4", toolCalled("get_build_status", '{"project":"Orion","build":17}'));
});

Deno.test("sanity verdicts carry the case's category", () => {
  assert.equal(verdict("I2", answered("[]")).category, "instruction");
  assert.equal(verdict("R4", answered("{}")).category, "retrieval");
  assert.equal(verdict("T3", answered("")).category, "tool_call");
  const noCategory = { ...sanityFixture("R2"), category: null };
  assert.equal(scoreSanity(noCategory, "completed", answered("CEDAR-284")).category, "retrieval");
});

Deno.test("sanity I1 fails on 3.0 where 3 is required", () => {
  fails("I1", answered('{"ok":true,"count":3.0}'), "I1: count is 3.0 (number with a fraction), expected integer 3");
});

Deno.test("sanity I1 accepts any key order and surrounding JSON whitespace", () => {
  passes("I1", answered('\n  {"count": 3, "ok": true}\n'));
});

Deno.test("sanity I1 fails on an extra key, a string count, a duplicate key, a fence and prose", () => {
  fails("I1", answered('{"ok":true,"count":3,"note":"x"}'), 'I1: extra key "note"');
  fails("I1", answered('{"ok":"true","count":3}'), 'I1: ok is "true" (string), expected true');
  fails(
    "I1",
    answered('{"ok":true,"count":3,"count":3}'),
    /I1: answer is not one strict JSON value: duplicate key "count" \(offset 21\)/,
  );
  fails("I1", answered('```json\n{"ok":true,"count":3}\n```'), /Markdown code fence/);
  fails("I1", answered('Sure! {"ok":true,"count":3}'), /prose instead of a JSON value/);
  fails("I1", answered('{"ok":true,"count":3}.'), /extra text after the JSON value/);
  fails("I1", answered('{"ok":1,"count":3}'), "I1: ok is 1 (integer), expected true");
});

Deno.test("sanity I2 fails on unsorted, duplicated and stringified arrays", () => {
  fails("I2", answered("[9,2,-4,1]"), "I2: the answer is [9,2,-4,1], expected [-4,1,2,9]");
  fails("I2", answered("[-4,1,2,2,9]"), /I2: the answer is \[-4,1,2,2,9\] \(array of 5\), expected \[-4,1,2,9\]/);
  fails("I2", answered('"[-4,1,2,9]"'), /I2: the answer is "\[-4,1,2,9\]" \(string\), expected an array/);
  fails("I2", answered("[-4,1,2,9,]"), /trailing comma/);
});

Deno.test("sanity I3 fails when build is a string or a float", () => {
  fails("I3", answered('{"project":"Orion","build":"17"}'), 'I3: build is "17" (string), expected integer 17');
  fails("I3", answered('{"project":"Orion","build":17.0}'), /build is 17.0 \(number with a fraction\)/);
  fails("I3", answered('{"project":"orion","build":17}'), 'I3: project is "orion" (string), expected string "Orion"');
});

Deno.test("sanity I4 strips only surrounding ASCII whitespace", () => {
  passes("I4", answered(" \t\r\n\v\fREADY\n\n"));
  fails("I4", answered("\u00a0READY"), /I4: answer "\u00a0READY" contains "READY" but has other text/);
  fails("I4", answered("\uFEFFREADY"), /contains "READY"/);
  fails("I4", answered("READY."), 'I4: answer "READY." contains "READY" but has other text around it');
  fails("I4", answered("Ready"), 'I4: answer is "Ready", expected exactly "READY" (case differs)');
  fails("I4", answered("**READY**"), /contains "READY"/);
  fails("I4", answered("OK"), 'I4: answer is "OK", expected "READY"');
  fails("I4", answered("RE ADY"), /expected "READY"/);
  assert.equal(stripAsciiWhitespace("\v x \f"), "x");
});

Deno.test("sanity R1-R3 fail on the wrong value, a sentence and quotes", () => {
  fails("R1", answered("ORBIT-713"), 'R1: answer is "ORBIT-713", expected "ORBIT-731"');
  fails("R2", answered("The storage_label is CEDAR-284."), /R2: answer .* contains "CEDAR-284" but has other text/);
  fails("R3", answered('"DELTA-906"'), /R3: answer .* contains "DELTA-906"/);
  fails("R3", answered("delta-906"), /case differs/);
});

Deno.test("sanity R4 fails on a missing key and a swapped value", () => {
  fails("R4", answered('{"north":"N-124"}'), 'R4: missing key "south"');
  fails(
    "R4",
    answered('{"north":"S-875","south":"N-124"}'),
    /R4: north is "S-875" \(string\), expected string "N-124"/,
  );
});

Deno.test("sanity text and JSON cases fail on an empty answer or a tool call instead of text", () => {
  fails("I4", answered(""), 'I4: empty answer text, expected "READY"');
  fails(
    "I1",
    toolCalled("lookup_record", "{}"),
    /I1: no answer text; the model made a tool call \(lookup_record\) instead/,
  );
});

Deno.test("sanity T2: no structured tool call; answer text describes a call", () => {
  fails(
    "T2",
    answered('get_weather({"city":"Zagreb","unit":"celsius"})'),
    /^T2: no structured tool call; answer text describes a call: "get_weather/,
  );
  fails("T2", answered('<tool_call>{"name":"get_weather","arguments":{}}</tool_call>'), /describes a call/);
  fails("T2", answered("It is 12 degrees in Zagreb."), /T2: no structured tool call; answer text is "It is 12/);
  fails("T2", answered(""), /T2: no structured tool call and no answer text, expected get_weather\(/);
});

Deno.test("sanity T2 ignores text next to the one structured call", () => {
  passes("T2", toolCalled("get_weather", '{"unit":"celsius","city":"Zagreb"}', { answer_text: "Let me check." }));
});

Deno.test("sanity T2 fails on two calls, a wrong name, wrong case and an extra argument", () => {
  const call = {
    index: 0,
    id: "a",
    type: "function",
    name: "get_weather",
    arguments: '{"city":"Zagreb","unit":"celsius"}',
  };
  fails(
    "T2",
    outcome({ tool_calls: [call, { ...call, index: 1 }] }),
    "T2: 2 structured tool calls (get_weather, get_weather), expected exactly one",
  );
  fails(
    "T2",
    toolCalled("weather", '{"city":"Zagreb","unit":"celsius"}'),
    'T2: called "weather", expected "get_weather"',
  );
  fails(
    "T2",
    toolCalled("get_weather", '{"city":"Zagreb","unit":"Celsius"}'),
    /unit is "Celsius" \(string\), expected string "celsius"/,
  );
  fails(
    "T2",
    toolCalled("get_weather", '{"city":"Zagreb","unit":"celsius","country":"HR"}'),
    'T2: arguments of get_weather: extra key "country"',
  );
  fails("T2", toolCalled("get_weather", '{"city":"Zagreb"}'), 'T2: arguments of get_weather: missing key "unit"');
});

Deno.test("sanity tool arguments with a duplicate key or broken JSON fail", () => {
  fails(
    "T1",
    toolCalled("lookup_record", '{"id":"A-17","id":"A-17"}'),
    /T1: arguments of lookup_record are not strict JSON: duplicate key "id"/,
  );
  fails("T1", toolCalled("lookup_record", '{"id":"A-17"'), /not strict JSON: input ended/);
  fails("T1", toolCalled("lookup_record", ""), /called with empty arguments/);
  fails("T1", toolCalled("lookup_record", '"A-17"'), /the arguments is "A-17" \(string\), expected an object/);
});

Deno.test('sanity T3 fails on 3.0 and on "3" where the integer 3 is expected', () => {
  fails(
    "T3",
    toolCalled("convert_units", '{"value":3.0,"from_unit":"km","to_unit":"m"}'),
    /value is 3.0 \(number with a fraction\), expected integer 3/,
  );
  fails("T3", toolCalled("convert_units", '{"value":"3","from_unit":"km","to_unit":"m"}'), /value is "3" \(string\)/);
  fails(
    "T3",
    toolCalled("convert_units", '{"value":3,"from_unit":"kilometers","to_unit":"m"}'),
    /from_unit is "kilometers"/,
  );
});

Deno.test("sanity T4 fails when build is a string", () => {
  fails(
    "T4",
    toolCalled("get_build_status", '{"project":"Orion","build":"17"}'),
    /build is "17" \(string\), expected integer 17/,
  );
});

Deno.test("sanity: a correct answer cut at the cap still fails as truncated", () => {
  const result = verdict("I4", answered("READY", { finish_reason: "length" }), "truncated");
  assert.equal(result.passed, false);
  assert.equal(result.reason, 'I4: truncated at the 2048-token cap (finish_reason "length"); partial answer "READY"');
  const reasoningOnly = verdict("R3", answered("", { finish_reason: "length" }), "truncated");
  assert.match(reasoningOnly.reason, /no answer text \(the cap was spent on reasoning\)/);
});

Deno.test("sanity: failed and skipped requests fail with the failure named", () => {
  const timedOut = verdict(
    "T1",
    outcome({ end: "timeout", finish_reason: null, error_message: "no data for 1800 s" }),
    "failed",
  );
  assert.equal(timedOut.passed, false);
  assert.match(timedOut.reason, /^T1: request failed \(timeout\): .*no data for 1800 s/);
  const skipped = scoreSanity(sanityFixture("R2"), "skipped", null);
  assert.deepEqual(skipped, { category: "retrieval", passed: false, reason: "R2: request was skipped, no answer" });
});

Deno.test("sanity scoring refuses a non-sanity fixture and a completed request without outcome", () => {
  assert.throws(() => scoreSanity(fixture(), "completed", answered("x")), TypeError);
  assert.throws(() => scoreSanity(sanityFixture("I1"), "completed", null), TypeError);
});

Deno.test("sanity: a verdict quoting what a hostile engine sent stays short, whatever the engine sent", () => {
  const long = "n".repeat(1024 * 1024);
  const replaced = "\uFFFD".repeat(200_000);
  const verdicts = [
    // the names of tool calls where text was expected, and of several calls where one was
    verdict("I4", toolCalled(long, "{}")),
    verdict(
      "T1",
      outcome({ tool_calls: [0, 1].map((index) => ({ index, id: null, type: null, name: long, arguments: "" })) }),
    ),
    // a key the answer should not have, and a key written twice
    verdict("I1", answered(`{"ok":true,"count":3,"${long}":1}`)),
    verdict("I1", answered(`{"${long}":1,"${long}":2}`)),
    // every byte offset of an answer event that was not UTF-8
    verdict(
      "I4",
      answered(replaced, {
        invalid_utf8: [{
          event: 3,
          byte_offsets: Array.from({ length: 200_000 }, (_, i) => 40 + i),
          delta_kinds: ["answer"],
        }],
      }),
    ),
  ];
  for (const { passed, reason } of verdicts) {
    assert.equal(passed, false);
    assert.ok(reason.length <= MAX_VERDICT_REASON_CHARS + 40, `${reason.length} characters: ${reason.slice(0, 120)}`);
  }
  assert.match(verdicts[0]!.reason, /\.\.\. \(\d+ more characters\)$/);
  assert.match(
    verdicts[4]!.reason,
    /^I4: the answer held bytes that are not UTF-8 \(event 3 at byte 40, 41, .* and 199992 more\)/,
  );
});
