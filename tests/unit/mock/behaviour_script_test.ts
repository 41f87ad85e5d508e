import assert from "node:assert/strict";
import { parseMockScript } from "../../../mock/mod.ts";

Deno.test("parseMockScript accepts every answer and fault kind", () => {
  const script = {
    "*": { answer: { kind: "cap" } },
    "sanity-I1": { answer: { kind: "text", text: "x" }, reasoningTokens: 0, omitRoleChunk: true },
    "sanity-I2": { answer: { kind: "malformed_json" }, omitUsage: true, omitTimings: true },
    "sanity-I3": { answer: { kind: "duplicate_keys" }, predictedNOffset: -3 },
    "sanity-T1": { answer: { kind: "prose_tool_call" }, keepAliveEvery: 1, emptyDeltaEvery: 2 },
    "sanity-T2": { answer: { kind: "tool_call", name: "f", arguments: "{", fragments: 2, extraCalls: [] } },
    "performance-*": { answer: { kind: "early_eos", tokens: 5 }, fault: { kind: "stall", afterTokens: 2, ms: 10 } },
    "a": { fault: { kind: "http_error", status: 422, message: "m", type: "t" } },
    "b": { fault: { kind: "cut", afterTokens: 0 } },
    "c": { fault: { kind: "error_event", message: "m" } },
    "d": { fault: { kind: "die" } },
    "e": { answer: { kind: "right" }, tokensPerEvent: [1, 4] },
  };
  assert.deepEqual(parseMockScript(structuredClone(script)), script);
});

Deno.test("parseMockScript reports every problem at once with JSON Pointers", () => {
  const bad = {
    "sanity-I1": { answer: { kind: "wrong" }, colour: "red" },
    "a/b": { fault: { kind: "http_error", status: 200 }, reasoningTokens: -1 },
    "c": { answer: { kind: "tool_call", fragments: 0 } },
    "d": "not an object",
    "e": { tokensPerEvent: [] },
    "f": { tokensPerEvent: [2, 0] },
  };
  assert.throws(() => parseMockScript(bad), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    for (
      const pointer of [
        "/sanity-I1/answer/kind",
        "/sanity-I1/colour: unknown field",
        "/a~1b/fault/status",
        "/a~1b/reasoningTokens",
        "/c/answer/name",
        "/c/answer/arguments: required",
        "/c/answer/fragments",
        "/d: expected an object",
        "/e/tokensPerEvent",
        "/f/tokensPerEvent",
      ]
    ) {
      assert.ok(error.message.includes(pointer), `mentions ${pointer}:\n${error.message}`);
    }
    return true;
  });
});

Deno.test("parseMockScript refuses a non-object script", () => {
  assert.throws(() => parseMockScript([]), TypeError);
  assert.throws(() => parseMockScript(null), /Cannot read mock script/);
});
