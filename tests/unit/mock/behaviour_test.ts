import assert from "node:assert/strict";
import { type MockScript, startMockEngine } from "../../../mock/mod.ts";
import { chatBody, deltaOf, finishReasonOf, joined, postChat, type SseResult, toolCallsOf } from "./_client.ts";

/** Starts an instant engine with `script`, sends one request for `id`, closes the engine. */
async function answer(script: MockScript, id: string, extra: Record<string, unknown> = {}): Promise<SseResult> {
  const engine = await startMockEngine({ timeScale: 0, script });
  try {
    return await postChat(engine.url, chatBody(id, { max_tokens: 2048, ...extra }));
  } finally {
    await engine.close();
  }
}

function usageOf(result: SseResult): { completion_tokens: number; prompt_tokens: number } {
  return result.events.at(-1)!.usage as { completion_tokens: number; prompt_tokens: number };
}

function timingsOf(result: SseResult): Record<string, number> {
  return result.events.at(-1)!.timings as Record<string, number>;
}

Deno.test("a scripted wrong answer is sent as the final content and finishes with stop", async () => {
  const result = await answer(
    { "sanity-I2": { answer: { kind: "text", text: "[9,2,1]" }, reasoningTokens: 3 } },
    "sanity-I2",
  );
  assert.equal(joined(result.events, "content"), "[9,2,1]");
  assert.equal(joined(result.events, "reasoning_content"), "Let me think");
  assert.equal(finishReasonOf(result.events), "stop");
});

Deno.test("early EOS generates exactly n tokens counting EOS, all reasoning, and stops", async () => {
  const result = await answer(
    { "performance-short-r2": { answer: { kind: "early_eos", tokens: 7 } } },
    "performance-short-r2",
    {
      max_tokens: 512,
    },
  );
  assert.equal(finishReasonOf(result.events), "stop");
  assert.equal(usageOf(result).completion_tokens, 7);
  assert.equal(timingsOf(result).predicted_n, 7);
  assert.equal(result.events.filter((event) => deltaOf(event)?.reasoning_content !== undefined).length, 6);
  assert.equal(joined(result.events, "content"), "");
});

Deno.test("a performance request scripted with a short answer stops early with that text", async () => {
  const result = await answer(
    { "performance-*": { answer: { kind: "text", text: "Done." }, reasoningTokens: 10 } },
    "performance-short-r1",
    {
      max_tokens: 512,
    },
  );
  assert.equal(joined(result.events, "content"), "Done.");
  assert.equal(finishReasonOf(result.events), "stop");
  assert.ok(usageOf(result).completion_tokens < 20);
});

Deno.test("cap on a sanity case reasons until max_tokens and finishes with length", async () => {
  const result = await answer({ "sanity-R3": { answer: { kind: "cap" } } }, "sanity-R3", { max_tokens: 50 });
  assert.equal(finishReasonOf(result.events), "length");
  assert.equal(usageOf(result).completion_tokens, 50);
  assert.equal(joined(result.events, "content"), "");
});

Deno.test("an answer longer than the cap is cut at the cap with length", async () => {
  const result = await answer({ "sanity-I1": { reasoningTokens: 10 } }, "sanity-I1", { max_tokens: 12 });
  assert.equal(finishReasonOf(result.events), "length");
  assert.equal(joined(result.events, "content"), '{"');
  assert.equal(usageOf(result).completion_tokens, 12);
});

Deno.test("malformed JSON answer is the right answer missing its last character", async () => {
  const result = await answer({ "sanity-I3": { answer: { kind: "malformed_json" } } }, "sanity-I3");
  assert.equal(joined(result.events, "content"), '{"project":"Orion","build":17');
  assert.throws(() => JSON.parse(joined(result.events, "content")), SyntaxError);
});

Deno.test("duplicate keys answer repeats the first key of the right object", async () => {
  const result = await answer({ "sanity-I1": { answer: { kind: "duplicate_keys" } } }, "sanity-I1");
  assert.equal(joined(result.events, "content"), '{"ok":true,"ok":true,"count":3}');
});

Deno.test("prose instead of a tool call describes the call in content and makes no tool call", async () => {
  const result = await answer({ "sanity-T2": { answer: { kind: "prose_tool_call" } } }, "sanity-T2");
  assert.equal(toolCallsOf(result.events).length, 0);
  assert.match(joined(result.events, "content"), /get_weather.*Zagreb/);
  assert.equal(finishReasonOf(result.events), "stop");
});

Deno.test("a scripted tool call is sent in the given number of argument fragments", async () => {
  const result = await answer({
    "sanity-T4": {
      answer: {
        kind: "tool_call",
        name: "get_build_status",
        arguments: { project: "Orion", build: "17" },
        fragments: 4,
      },
    },
  }, "sanity-T4");
  const calls = toolCallsOf(result.events);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.fragments, 4);
  assert.deepEqual(JSON.parse(calls[0]!.arguments), { project: "Orion", build: "17" });
  const deltas = result.events.flatMap((event) => (deltaOf(event)?.tool_calls as unknown[] | undefined) ?? []);
  assert.deepEqual(Object.keys(deltas[1] as object), ["index", "function"], "later fragments carry index + arguments");
  assert.equal(finishReasonOf(result.events), "tool_calls");
});

Deno.test("string tool arguments are sent verbatim and extra calls get their own index", async () => {
  const result = await answer({
    "sanity-T1": {
      answer: {
        kind: "tool_call",
        name: "lookup_record",
        arguments: '{"id":"A-17","id":"B"}',
        extraCalls: [{ name: "lookup_record", arguments: { id: "C-1" } }],
      },
    },
  }, "sanity-T1");
  const calls = toolCallsOf(result.events);
  assert.deepEqual(calls.map((call) => [call.name, call.arguments]), [
    ["lookup_record", '{"id":"A-17","id":"B"}'],
    ["lookup_record", '{"id":"C-1"}'],
  ]);
  assert.notEqual(calls[0]!.id, calls[1]!.id);
});

Deno.test("omitUsage sends no usage chunk even with include_usage; timings stay on the last chunk", async () => {
  const result = await answer({ "*": { omitUsage: true } }, "sanity-I4");
  assert.ok(result.events.every((event) => event.usage === undefined));
  assert.equal(finishReasonOf([result.events.at(-1)!]), "stop");
  assert.equal(typeof timingsOf(result).predicted_n, "number");
  assert.equal(result.done, true);
});

Deno.test("omitTimings sends usage without any timings", async () => {
  const result = await answer({ "*": { omitTimings: true } }, "sanity-I4");
  assert.ok(result.events.every((event) => event.timings === undefined));
  assert.equal(typeof usageOf(result).completion_tokens, "number");
});

Deno.test("predictedNOffset makes timings.predicted_n disagree with the rate by k while usage keeps the true count", async () => {
  const result = await answer({ "performance-short-r1": { predictedNOffset: 40 } }, "performance-short-r1", {
    max_tokens: 101,
  });
  const timings = timingsOf(result);
  assert.equal(usageOf(result).completion_tokens, 101);
  assert.equal(timings.predicted_n, 141);
  const implied = (timings.predicted_per_second! * timings.predicted_ms!) / 1000;
  assert.equal(Math.round(implied), 100, "the rate still implies n - 1 intervals of the true count");
});

Deno.test("keep-alive comments and empty deltas are interleaved without changing the answer", async () => {
  const result = await answer(
    { "sanity-I4": { keepAliveEvery: 2, emptyDeltaEvery: 3, reasoningTokens: 6 } },
    "sanity-I4",
  );
  assert.ok(result.comments >= 3, `comments: ${result.comments}`);
  const empty = result.events.filter((event) => {
    const delta = deltaOf(event);
    const choices = event.choices as Array<{ finish_reason: string | null }>;
    return delta !== null && choices[0]!.finish_reason === null &&
      (Object.keys(delta).length === 0 || delta.content === "");
  });
  assert.ok(empty.length >= 2);
  assert.ok(empty.some((event) => Object.keys(deltaOf(event)!).length === 0));
  assert.ok(empty.some((event) => deltaOf(event)!.content === ""));
  assert.equal(joined(result.events, "content"), "READY");
  assert.equal(usageOf(result).completion_tokens, 6 + 1 + 1);
});

Deno.test("omitRoleChunk starts the stream with the first reasoning delta", async () => {
  const result = await answer({ "sanity-I4": { omitRoleChunk: true } }, "sanity-I4");
  assert.ok(result.events.every((event) => deltaOf(event)?.role === undefined));
  assert.equal(typeof deltaOf(result.events[0]!)!.reasoning_content, "string");
});

Deno.test("script precedence: exact id, then the longest prefix, then *", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    script: {
      "*": { answer: { kind: "text", text: "star" } },
      "sanity-*": { answer: { kind: "text", text: "sanity" } },
      "sanity-I*": { answer: { kind: "text", text: "instruction" } },
      "sanity-I4": { answer: { kind: "text", text: "exact" } },
    },
  });
  try {
    const texts: string[] = [];
    for (const id of ["sanity-I4", "sanity-I1", "sanity-R1", "warmup"]) {
      texts.push(joined((await postChat(engine.url, chatBody(id))).events, "content"));
    }
    assert.deepEqual(texts, ["exact", "instruction", "sanity", "star"]);
  } finally {
    await engine.close();
  }
});

Deno.test("a reasoning budget ends thinking like llama-server: 0 at once, n after n tokens, -1 never", async () => {
  const reasoningCount = (result: SseResult) =>
    result.events.filter((event) => deltaOf(event)?.reasoning_content !== undefined).length;
  const zero = await answer({}, "performance-short-r1", { max_tokens: 20, reasoning_budget_tokens: 0 });
  assert.equal(reasoningCount(zero), 0);
  assert.equal(joined(zero.events, "content").split(" ").length, 20, "the cap is spent on answer text");
  assert.equal(finishReasonOf(zero.events), "length");
  const five = await answer({}, "performance-short-r1", { max_tokens: 20, reasoning_budget_tokens: 5 });
  assert.equal(reasoningCount(five), 5);
  const unlimited = await answer({}, "performance-short-r1", { max_tokens: 20, reasoning_budget_tokens: -1 });
  assert.equal(reasoningCount(unlimited), 20);
});

Deno.test("thinking switched off (enable_thinking false or reasoning_effort none) sends no reasoning", async () => {
  for (const extra of [{ chat_template_kwargs: { enable_thinking: false } }, { reasoning_effort: "none" }]) {
    const result = await answer({}, "sanity-I3", extra);
    assert.equal(joined(result.events, "reasoning_content"), "");
    assert.equal(joined(result.events, "content"), '{"project":"Orion","build":17}');
  }
});
