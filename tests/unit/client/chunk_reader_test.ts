import assert from "node:assert/strict";
import { ChunkReader, predictedNOf } from "../../../client/_chunk_reader.ts";
import { MAX_USAGE_CHUNK_CHARS } from "../../../contract/mod.ts";
import { deltaEvent, eventsOf, LLAMA_STREAM } from "./_streams.ts";

function data(event: string): string {
  return eventsOf(event)[0]!;
}

Deno.test("role-only, empty, null and empty-string deltas never count as the first delta", () => {
  const reader = new ChunkReader();
  for (
    const delta of [
      `{"role":"assistant","content":null}`,
      `{}`,
      `{"content":""}`,
      `{"reasoning_content":null}`,
      `{"reasoning_content":""}`,
      `{"tool_calls":[]}`,
      `{"tool_calls":[{"index":0,"function":{"arguments":""}}]}`,
    ]
  ) {
    assert.equal(reader.read(data(deltaEvent(delta))), "continue");
    assert.equal(reader.sawFirstDelta, false, delta);
    assert.equal(reader.firstDeltaKind, null);
  }
  assert.equal(reader.read(data(deltaEvent(`{"content":"x"}`))), "continue");
  assert.equal(reader.sawFirstDelta, true);
  assert.equal(reader.sawFirstAnswer, true);
  assert.equal(reader.firstDeltaKind, "answer");
});

Deno.test("reasoning alone is a first delta but not a first answer", () => {
  const reader = new ChunkReader();
  reader.read(data(deltaEvent(`{"reasoning_content":"hmm"}`)));
  assert.equal(reader.firstDeltaKind, "reasoning");
  assert.equal(reader.sawFirstAnswer, false);
});

Deno.test("a tool-call delta with only a name counts as first delta and first answer", () => {
  const reader = new ChunkReader();
  reader.read(data(deltaEvent(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f"}}]}`)));
  assert.equal(reader.firstDeltaKind, "tool_call");
  assert.equal(reader.sawFirstAnswer, true);
});

Deno.test("the whole llama.cpp stream reads to done with the final usage and timings kept raw", () => {
  const reader = new ChunkReader();
  const verdicts = eventsOf(LLAMA_STREAM).map((d) => reader.read(d));
  assert.deepEqual(verdicts.slice(0, -1).every((v) => v === "continue"), true);
  assert.equal(verdicts.at(-1), "done");
  assert.equal(reader.finishReason, "tool_calls");
  assert.deepEqual((reader.usage as { prompt_tokens_details: unknown }).prompt_tokens_details, { cached_tokens: 236 });
  assert.equal((reader.timings as { predicted_ms: number }).predicted_ms, 661);
});

Deno.test("timings on the finish chunk are kept when the usage chunk has none", () => {
  const reader = new ChunkReader();
  reader.read('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"timings":{"predicted_n":3}}');
  reader.read('{"choices":[],"usage":{"completion_tokens":3}}');
  assert.deepEqual(reader.timings, { predicted_n: 3 });
  assert.deepEqual(reader.usage, { completion_tokens: 3 });
});

Deno.test("malformed chunks are named: not JSON, not an object, bad choices, bad delta, bad tool_calls", () => {
  for (
    const bad of [
      "{oops",
      "[1,2]",
      '"text"',
      '{"choices":"x"}',
      '{"choices":[1]}',
      '{"choices":[{"delta":"x"}]}',
      '{"choices":[{"delta":{"tool_calls":{"index":0}}}]}',
      '{"id":"x"}',
    ]
  ) {
    const reader = new ChunkReader();
    assert.equal(reader.read(bad), "malformed", bad);
    assert.ok(reader.errorMessage !== null && reader.errorMessage.startsWith("Cannot"), bad);
  }
});

Deno.test("an error object is an error event; its message, a plain string, or the JSON is kept", () => {
  const cases: [string, string][] = [
    ['{"error":{"code":500,"message":"boom","type":"server_error"}}', "boom"],
    ['{"error":"plain"}', "plain"],
    ['{"error":{"code":7}}', '{"code":7}'],
  ];
  for (const [text, message] of cases) {
    const reader = new ChunkReader();
    assert.equal(reader.read(text), "error_event");
    assert.equal(reader.errorMessage, message);
  }
});

Deno.test("visibleInEvent is set by each event with answer text or tool-call bytes, and cleared by the next", () => {
  const reader = new ChunkReader();
  const visibility = eventsOf(LLAMA_STREAM).map((event) => {
    reader.read(event);
    return reader.visibleInEvent;
  });
  // role, reasoning, reasoning, answer, tool fragment, tool fragment, finish, usage, [DONE]
  assert.deepEqual(visibility, [false, false, false, true, true, true, false, false, false]);
  reader.read(data(deltaEvent(`{"content":""}`)));
  assert.equal(reader.visibleInEvent, false);
  reader.read(data(deltaEvent(`{"reasoning_content":"r","content":"a"}`)));
  assert.equal(reader.visibleInEvent, true);
  reader.read(data(deltaEvent(`{"tool_calls":[{"index":0,"function":{"arguments":""}}]}`)));
  assert.equal(reader.visibleInEvent, false);
});

Deno.test("answer and reasoning text of hundreds of deltas come back whole, in order, also when read midway", () => {
  const reader = new ChunkReader();
  let answer = "";
  let reasoning = "";
  for (let i = 0; i < 300; i++) {
    const piece = `t${i}é `;
    answer += piece;
    reasoning += `r${i}`;
    reader.read(data(deltaEvent(JSON.stringify({ reasoning_content: `r${i}`, content: piece }))));
    if (i === 70 || i === 200) {
      // Reading the text joins what is pending; later deltas still append after it.
      assert.equal(reader.answerText, answer);
      assert.equal(reader.reasoningText, reasoning);
    }
  }
  assert.equal(reader.answerText, answer);
  assert.equal(reader.reasoningText, reasoning);
  assert.equal(new ChunkReader().answerText, "");
});

Deno.test("only choice index 0 is measured: deltas and finish reasons of other choices are counted, not merged", () => {
  const reader = new ChunkReader();
  const chunk = (choices: string) => `{"choices":[${choices}]}`;
  reader.read(chunk(`{"index":1,"delta":{"content":"other"}}`));
  assert.equal(reader.sawFirstDelta, false);
  reader.read(chunk(`{"index":0,"delta":{"content":"mine"}},{"index":1,"delta":{"content":" also other"}}`));
  reader.read(chunk(`{"index":1,"delta":{},"finish_reason":"length"}`));
  assert.equal(reader.finishReason, null);
  reader.read(chunk(`{"index":0,"delta":{},"finish_reason":"stop"}`));
  assert.equal(reader.answerText, "mine");
  assert.equal(reader.finishReason, "stop");
  assert.equal(reader.otherChoiceEvents, 3);
});

Deno.test("the first reasoning delta is noted even when visible output came first", () => {
  const reader = new ChunkReader();
  reader.read(data(deltaEvent(`{"content":"answer first"}`)));
  assert.equal(reader.firstDeltaKind, "answer");
  assert.equal(reader.sawFirstReasoning, false);
  reader.read(data(deltaEvent(`{"reasoning_content":"then thinking"}`)));
  assert.equal(reader.sawFirstReasoning, true);
});

Deno.test("the exact text of the chunks that carried usage and timings is kept, numbers as written", () => {
  const reader = new ChunkReader();
  const finish =
    `{"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"timings":{"predicted_n":3,"prompt_ms":1.50}}`;
  const last = `{"choices":[],"usage":{"completion_tokens":12.0,"prompt_tokens":1e3},"timings":{"predicted_n":3}}`;
  reader.read(finish);
  assert.equal(reader.timingsChunk, finish);
  assert.equal(reader.usageChunk, null);
  reader.read(last);
  assert.equal(reader.usageChunk, last);
  assert.equal(reader.timingsChunk, last);
  assert.deepEqual(
    reader.usage,
    { completion_tokens: 12, prompt_tokens: 1000 },
    "JSON.parse's reading loses the lexemes",
  );
  reader.read(`{"choices":[],"usage":null}`);
  assert.equal(reader.usageChunk, last, "a null usage does not replace the one that was sent");
});

Deno.test("an event with invalid UTF-8 is recorded with its number, byte offsets and delta kinds", () => {
  const reader = new ChunkReader();
  reader.read(data(deltaEvent(`{"reasoning_content":"ok"}`)));
  reader.read(data(deltaEvent(`{"content":"RE\uFFFDDY"}`)), [24]);
  reader.read(data(deltaEvent(`{"content":"fine"}`)));
  assert.deepEqual(reader.invalidUtf8, [{ event: 2, byte_offsets: [24], delta_kinds: ["answer"] }]);
  assert.equal(reader.answerText, "RE\uFFFDDYfine");
});

Deno.test("a usage and timings chunk keeps its first MAX_USAGE_CHUNK_CHARS characters and counts the rest", () => {
  const head = `{"choices":[],"usage":{"prompt_tokens":1},"timings":{"prompt_n":1},"pad":"`;
  const whole = `${head}${"\\".repeat(MAX_USAGE_CHUNK_CHARS)}"}`;
  const reader = new ChunkReader();
  assert.equal(reader.read(whole), "continue");
  assert.equal(reader.usageChunk, whole.slice(0, MAX_USAGE_CHUNK_CHARS));
  assert.equal(reader.usageChunkCutChars, whole.length - MAX_USAGE_CHUNK_CHARS);
  assert.equal(reader.timingsChunk, reader.usageChunk);
  assert.equal(reader.timingsChunkCutChars, reader.usageChunkCutChars);
  assert.deepEqual(reader.usage, { prompt_tokens: 1 }, "the chunk itself is read whole");
  // A later chunk within the bound is kept whole, and its count says nothing was cut.
  assert.equal(reader.read(`{"choices":[],"usage":{"prompt_tokens":2}}`), "continue");
  assert.equal(reader.usageChunk, `{"choices":[],"usage":{"prompt_tokens":2}}`);
  assert.equal(reader.usageChunkCutChars, 0);
  assert.equal(reader.timingsChunkCutChars, whole.length - MAX_USAGE_CHUNK_CHARS);
});

Deno.test("a cut usage chunk never ends with half of a surrogate pair", () => {
  const head = `{"choices":[],"usage":{"prompt_tokens":1},"pad":"`;
  const whole = `${head}${"x".repeat(MAX_USAGE_CHUNK_CHARS - head.length - 1)}${"\u{1F600}".repeat(4)}"}`;
  assert.equal(whole.charCodeAt(MAX_USAGE_CHUNK_CHARS - 1), 0xd83d, "the bound falls inside a pair");
  const reader = new ChunkReader();
  assert.equal(reader.read(whole), "continue");
  assert.equal(reader.usageChunk, whole.slice(0, MAX_USAGE_CHUNK_CHARS - 1));
  assert.equal(reader.usageChunkCutChars, whole.length - MAX_USAGE_CHUNK_CHARS + 1);
  assert.ok(reader.usageChunk?.isWellFormed());
});

Deno.test("an event's predicted_n is read from its text: an exact safe integer written as one, the key once", () => {
  const timed = (n: string, extra = "") =>
    `{"choices":[{"index":0,"delta":{"content":"a"}}],"timings":{"prompt_n":3,"predicted_n":${n}${extra}}}`;
  const cases: [string, number | null][] = [
    [timed("7"), 7],
    [timed("0"), 0],
    [timed(" \n 12"), 12],
    [timed(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER],
    [timed("12.0"), null],
    [timed("1e1"), null],
    [timed("1E1"), null],
    [timed("-3"), null],
    [timed("9007199254740993"), null],
    [timed('"7"'), null],
    [timed("7", ',"predicted_n":8'), null], // repeated: which one is meant is not for the client to guess
    // The one plain key is usage's; timings spells its key with an escape and says another number.
    [`{"choices":[],"usage":{"predicted_n":7},"timings":{"predicted\\u005fn":8}}`, null],
    [`{"choices":[],"timings":{"predicted_n":7}}`, 7],
  ];
  for (const [data, expected] of cases) {
    assert.equal(predictedNOf(data, JSON.parse(data).timings), expected, data);
  }
  assert.equal(predictedNOf(`{"timings":{}}`, {}), null);
  assert.equal(predictedNOf(`{"timings":null}`, null), null);
});

Deno.test("predictedNInEvent is set by each event that carries timings and cleared by the next", () => {
  const reader = new ChunkReader();
  reader.read(data(deltaEvent(`{"content":"a"}`).replace(/}\n\n$/, `,"timings":{"predicted_n":2}}\n\n`)));
  assert.equal(reader.predictedNInEvent, 2);
  reader.read(data(deltaEvent(`{"content":"b"}`)));
  assert.equal(reader.predictedNInEvent, null);
});
