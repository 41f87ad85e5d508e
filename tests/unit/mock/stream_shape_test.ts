import assert from "node:assert/strict";
import { startMockEngine } from "../../../mock/mod.ts";
import { KNOWN_ANSWERS } from "../../../mock/_plan.ts";
import { chatBody, deltaOf, finishReasonOf, joined, postChat, toolCallsOf } from "./_client.ts";

type Timings = Record<string, number>;

Deno.test("a streamed sanity answer has llama-server's chunk sequence: role, reasoning, content, finish, usage, [DONE]", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    decodeTps: 40,
    promptTps: 800,
    tokenCounts: { "sanity-I1": 37 },
  });
  try {
    const result = await postChat(engine.url, chatBody("sanity-I1", { max_tokens: 2048 }));
    assert.equal(result.status, 200);
    assert.equal(result.contentType, "text/event-stream");
    assert.equal(result.done, true);
    assert.equal(result.partial, "");
    const { events } = result;
    assert.deepEqual(deltaOf(events[0]!), { role: "assistant", content: null });
    const kinds = events.slice(1, -2).map((event) => Object.keys(deltaOf(event)!).join(","));
    const firstContent = kinds.indexOf("content");
    assert.ok(firstContent > 0, "reasoning comes before the answer");
    assert.ok(kinds.slice(0, firstContent).every((kind) => kind === "reasoning_content"));
    assert.ok(kinds.slice(firstContent).every((kind) => kind === "content"));
    assert.equal(joined(events, "content"), '{"ok":true,"count":3}');
    assert.match(joined(events, "reasoning_content"), /^Let me think/);
    const finish = events.at(-2)!;
    assert.deepEqual(finish.choices, [{ finish_reason: "stop", index: 0, delta: {} }]);
    assert.equal(finish.timings, undefined, "timings ride on the last chunk only");
    const last = events.at(-1)!;
    assert.deepEqual(last.choices, []);
    const usage = last.usage as Record<string, unknown>;
    const timings = last.timings as Timings;
    const generated = events.length - 3 + 1; // one token per delta chunk, plus the EOS token
    assert.deepEqual(usage, {
      completion_tokens: generated,
      prompt_tokens: 37,
      total_tokens: 37 + generated,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    assert.equal(timings.cache_n, 0);
    assert.equal(timings.prompt_n, 37);
    assert.equal(timings.prompt_ms, (37 / 800) * 1000);
    assert.equal(timings.prompt_per_second, 800);
    assert.equal(timings.predicted_n, generated);
    assert.equal(timings.predicted_ms, ((generated - 1) / 40) * 1000);
    assert.equal(timings.predicted_per_second, ((generated - 1) / timings.predicted_ms!) * 1000);
    assert.equal(timings.predicted_per_token_ms, timings.predicted_ms! / generated);
    for (const event of events) {
      assert.equal(event.object, "chat.completion.chunk");
      assert.equal(event.id, events[0]!.id);
      assert.equal(event.model, "qwen3-mock");
      assert.equal(event.system_fingerprint, "b7000-80fb11a");
      assert.equal(typeof event.created, "number");
    }
    assert.match(String(events[0]!.id), /^chatcmpl-[A-Za-z0-9]{32}$/);
    assert.equal(engine.requests[0]!.outcome, "finished");
    assert.equal(engine.requests[0]!.completionTokens, generated);
  } finally {
    await engine.close();
  }
});

Deno.test("without include_usage there is no usage chunk and timings ride on the finish chunk", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const result = await postChat(engine.url, chatBody("sanity-I4", { stream_options: undefined }));
    assert.equal(result.done, true);
    const last = result.events.at(-1)!;
    assert.equal(finishReasonOf([last]), "stop");
    assert.equal(typeof (last.timings as Timings).predicted_n, "number");
    assert.ok(result.events.every((event) => event.usage === undefined));
    assert.equal(joined(result.events, "content"), "READY");
  } finally {
    await engine.close();
  }
});

Deno.test("every sanity case gets its correct answer by default", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    for (const [caseId, known] of Object.entries(KNOWN_ANSWERS)) {
      const result = await postChat(engine.url, chatBody(`sanity-${caseId}`, { max_tokens: 2048 }));
      if ("text" in known) {
        assert.equal(joined(result.events, "content"), known.text, caseId);
        assert.equal(finishReasonOf(result.events), "stop", caseId);
      } else {
        const calls = toolCallsOf(result.events);
        assert.equal(calls.length, 1, caseId);
        assert.equal(calls[0]!.name, known.call.name, caseId);
        assert.equal(calls[0]!.type, "function");
        assert.match(calls[0]!.id, /^[A-Za-z0-9]{32}$/);
        assert.ok(calls[0]!.fragments >= 2, `${caseId}: arguments arrive in several fragments`);
        assert.deepEqual(JSON.parse(calls[0]!.arguments), known.call.arguments, caseId);
        assert.equal(joined(result.events, "content"), "", caseId);
        assert.equal(finishReasonOf(result.events), "tool_calls", caseId);
      }
    }
    assert.equal(engine.requests.length, 12);
  } finally {
    await engine.close();
  }
});

Deno.test("performance, warm-up and unmarked requests reason until the cap and finish with length", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    for (const id of ["performance-prompt-4k-r2", "warmup", "concurrency-r1-c3", null]) {
      const body = id === null
        ? { ...chatBody("x", { max_tokens: 33 }), messages: [{ role: "user", content: "no marker here" }] }
        : chatBody(id, { max_tokens: 33 });
      const result = await postChat(engine.url, body);
      assert.equal(finishReasonOf(result.events), "length", String(id));
      assert.equal(joined(result.events, "content"), "");
      const usage = result.events.at(-1)!.usage as { completion_tokens: number };
      assert.equal(usage.completion_tokens, 33);
      assert.equal(result.events.filter((event) => deltaOf(event)?.reasoning_content !== undefined).length, 33);
    }
    assert.equal(engine.requests[3]!.requestId, null);
  } finally {
    await engine.close();
  }
});

Deno.test("prompt tokens come from tokenCounts by request id, else ceil(chars/4), and the log names the source", async () => {
  const engine = await startMockEngine({ timeScale: 0, tokenCounts: { "performance-prompt-16k-r1": 16384 } });
  try {
    const known = await postChat(engine.url, chatBody("performance-prompt-16k-r1", { max_tokens: 2 }));
    assert.equal((known.events.at(-1)!.usage as { prompt_tokens: number }).prompt_tokens, 16384);
    const unknown = await postChat(engine.url, chatBody("other", { max_tokens: 2 }));
    const promptTokens = (unknown.events.at(-1)!.usage as { prompt_tokens: number }).prompt_tokens;
    assert.ok(promptTokens > 5 && promptTokens < 40, `about a quarter of the rendered characters: ${promptTokens}`);
    assert.deepEqual(engine.requests.map((r) => [r.promptTokens, r.promptTokensSource]), [
      [16384, "token_counts"],
      [promptTokens, "chars_div_4"],
    ]);
  } finally {
    await engine.close();
  }
});

Deno.test("the request log keeps the parsed body, slot, queue time and send stamps in epoch microseconds", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const body = chatBody("sanity-I2", { temperature: 1, top_k: 20, seed: 1 });
    const before = Date.now() * 1000;
    await postChat(engine.url, body);
    const after = Date.now() * 1000;
    const log = engine.requests[0]!;
    assert.deepEqual(log.body, body);
    assert.equal(log.requestId, "sanity-I2");
    assert.equal(log.slot, 0);
    assert.ok(log.queuedMs !== null && log.queuedMs >= 0);
    assert.equal(log.httpStatus, 200);
    const stamps = [log.arrivedAtEpochUs, log.startedAtEpochUs!, log.firstDeltaSentAtEpochUs!, log.endedAtEpochUs!];
    assert.ok(stamps.every((stamp, i) => i === 0 || stamp >= stamps[i - 1]!), "stamps are ordered");
    assert.ok(stamps[0]! >= before - 1000 && stamps[3]! <= after + 1000, "stamps are epoch microseconds");
  } finally {
    await engine.close();
  }
});

Deno.test("a non-streaming request gets one chat.completion body with message, usage and timings", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const response = await fetch(`${engine.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(chatBody("sanity-T3", { stream: false, max_tokens: 2048 })),
    });
    const body = await response.json();
    assert.equal(body.object, "chat.completion");
    assert.equal(body.choices[0].finish_reason, "tool_calls");
    const call = body.choices[0].message.tool_calls[0];
    assert.equal(call.function.name, "convert_units");
    assert.deepEqual(JSON.parse(call.function.arguments), { value: 3, from_unit: "km", to_unit: "m" });
    assert.equal(body.usage.completion_tokens, body.timings.predicted_n);
  } finally {
    await engine.close();
  }
});

Deno.test("real pacing: with timeScale 1 the decode takes at least the time the configured speed implies", async () => {
  const engine = await startMockEngine({ decodeTps: 400, promptTps: 100000 });
  try {
    const result = await postChat(engine.url, chatBody("performance-short-r1", { max_tokens: 21 }));
    const timings = result.events.at(-1)!.timings as Timings;
    assert.equal(timings.predicted_ms, 50);
    const log = engine.requests[0]!;
    // 20 intervals of 2.5 ms between the first and the last token; timers may fire up to 1 ms early.
    assert.ok(log.lastDeltaSentAtEpochUs! - log.firstDeltaSentAtEpochUs! >= 49_000);
  } finally {
    await engine.close();
  }
});

Deno.test("timings_per_token: every token's chunk carries running timings; tokensPerEvent joins tokens of one kind", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    script: {
      "*": { reasoningTokens: 7, answer: { kind: "text", text: "one two three four" }, tokensPerEvent: [1, 3] },
    },
  });
  try {
    const result = await postChat(engine.url, chatBody("load-0", { timings_per_token: true }));
    assert.equal(result.status, 200);
    const deltas = result.events.filter((e) => {
      const d = deltaOf(e);
      return d !== null && (typeof d.content === "string" || typeof d.reasoning_content === "string");
    });
    // Reasoning 7 tokens as 1, 3, 1, 2 (the run ends at the change of kind); content 4 tokens as 1, 3.
    const counts = deltas.map((e) => (e.timings as Timings).predicted_n);
    assert.deepEqual(counts, [1, 4, 5, 7, 8, 11]);
    assert.deepEqual(deltas.map((e) => Object.keys(deltaOf(e)!)[0]), [
      ...Array(4).fill("reasoning_content"),
      ...Array(2).fill("content"),
    ]);
    assert.equal(joined(result.events, "content"), "one two three four");
    assert.match(joined(result.events, "reasoning_content"), /^Let me think about what is asked$/);
    // The last chunk's timings are the final ones: 11 shown tokens and the EOS.
    assert.equal((result.events.at(-1)!.timings as Timings).predicted_n, 12);
    // Not asked: no timings before the last chunk, whatever the grouping.
    const plain = await postChat(engine.url, chatBody("load-1"));
    assert.equal(plain.events.slice(0, -1).filter((e) => e.timings !== undefined).length, 0);
  } finally {
    await engine.close();
  }
});
