import assert from "node:assert/strict";
import type { Dialect, Fixture } from "../../../contract/mod.ts";
import { buildChatBody } from "../../../runner/request_body.ts";

function fixture(overrides: Partial<Fixture> = {}): Fixture {
  return {
    id: "performance-short-r1",
    phase: "performance",
    case_id: "short",
    repetition: 1,
    round: null,
    seed: 11,
    max_output_tokens: 512,
    messages: [{ role: "user", content: "Summarize." }],
    tools: null,
    tool_choice: null,
    category: null,
    expected: null,
    input_tokens: 80,
    max_shared_prefix_tokens: 12,
    ...overrides,
  };
}

Deno.test("the body carries messages, every profile setting, seed, cap, stream and usage", () => {
  const { body } = buildChatBody(fixture(), "strata");
  assert.deepEqual(body, {
    messages: [{ role: "user", content: "Summarize." }],
    temperature: 1.0,
    top_p: 0.95,
    top_k: 20,
    min_p: 0.0,
    presence_penalty: 0.0,
    repetition_penalty: 1.0,
    repeat_penalty: 1.0,
    reasoning_effort: "xhigh",
    chat_template_kwargs: { enable_thinking: true, preserve_thinking: true },
    reasoning_budget_tokens: 0,
    seed: 11,
    max_tokens: 512,
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal("model" in body, false);
  assert.equal("tools" in body, false);
  assert.equal("max_completion_tokens" in body, false);
});

Deno.test("the reasoning budget is spelled per dialect: strata 0, llama.cpp -1, unknown 0 with a reason", () => {
  const expected: [Dialect, number, RegExp][] = [
    ["strata", 0, /no budget/],
    ["llama.cpp", -1, /--reasoning-budget/],
    ["unknown", 0, /unknown/],
  ];
  for (const [dialect, value, why] of expected) {
    const { body, settings } = buildChatBody(fixture(), dialect);
    assert.equal(body.reasoning_budget_tokens, value, dialect);
    assert.equal(settings.reasoning_budget_tokens, value);
    assert.match(settings.why, why);
  }
});

Deno.test("tools and tool_choice are sent only for fixtures that have them", () => {
  const tools: Fixture["tools"] = [{
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather for a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
    },
  }];
  const { body } = buildChatBody(fixture({ tools, tool_choice: "auto" }), "llama.cpp");
  assert.deepEqual(body.tools, tools);
  assert.equal(body.tool_choice, "auto");
});

Deno.test("the JSON sent keeps booleans as booleans and the body does not share the fixture's arrays", () => {
  const f = fixture();
  const { body } = buildChatBody(f, "strata");
  assert.match(JSON.stringify(body), /"enable_thinking":true,"preserve_thinking":true/);
  (body.messages as { content: string }[])[0]!.content = "changed";
  assert.equal(f.messages[0]!.content, "Summarize.");
});

Deno.test("an unknown dialect is refused", () => {
  assert.throws(() => buildChatBody(fixture(), "vllm" as Dialect), TypeError);
});
