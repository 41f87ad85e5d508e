import assert from "node:assert/strict";
import { startMockEngine } from "../../../mock/mod.ts";
import { chatBody, deltaOf, joined, postChat, readSse } from "./_client.ts";

Deno.test("scripted HTTP 400, 422 and 500 answer before any stream with llama.cpp's error body", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    script: {
      "a": { fault: { kind: "http_error", status: 400, message: "bad field" } },
      "b": { fault: { kind: "http_error", status: 422 } },
      "c": { fault: { kind: "http_error", status: 500, type: "custom_error" } },
    },
  });
  try {
    const seen = [];
    for (const id of ["a", "b", "c"]) {
      const response = await fetch(`${engine.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify(chatBody(id)),
      });
      seen.push([response.status, response.headers.get("content-type")?.split(";")[0], await response.json()]);
    }
    assert.deepEqual(seen[0], [400, "application/json", {
      error: { code: 400, message: "bad field", type: "invalid_request_error" },
    }]);
    assert.equal(seen[1]![0], 422);
    assert.deepEqual(Object.keys((seen[1]![2] as { error: object }).error), ["code", "message", "type"]);
    assert.deepEqual((seen[2]![2] as { error: { type: string; code: number } }).error.type, "custom_error");
    assert.deepEqual(engine.requests.map((r) => [r.outcome, r.httpStatus, r.slot]), [
      ["http_error", 400, null],
      ["http_error", 422, null],
      ["http_error", 500, null],
    ]);
  } finally {
    await engine.close();
  }
});

Deno.test("invalid JSON is a 500 and a string enable_thinking is a 400, as on llama-server", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const broken = await fetch(`${engine.url}/v1/chat/completions`, { method: "POST", body: "{not json" });
    assert.equal(broken.status, 500);
    assert.equal((await broken.json()).error.type, "server_error");
    const wrongType = await postChat(engine.url, chatBody("x", { chat_template_kwargs: { enable_thinking: "true" } }));
    assert.equal(wrongType.status, 400);
    assert.equal(JSON.parse(wrongType.text).error.type, "invalid_request_error");
    const noMessages = await postChat(engine.url, { stream: true });
    assert.equal(noMessages.status, 400);
  } finally {
    await engine.close();
  }
});

Deno.test("a prompt longer than the context is a 400 exceed_context_size_error with the counts", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    nCtx: 4096,
    tokenCounts: { "performance-prompt-16k-r1": 16384 },
  });
  try {
    const result = await postChat(engine.url, chatBody("performance-prompt-16k-r1"));
    assert.equal(result.status, 400);
    const { error } = JSON.parse(result.text);
    assert.equal(error.type, "exceed_context_size_error");
    assert.equal(error.n_prompt_tokens, 16384);
    assert.equal(error.n_ctx, 4096);
  } finally {
    await engine.close();
  }
});

Deno.test("an error event after the first delta ends the stream without [DONE]", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    script: { "*": { fault: { kind: "error_event", message: "boom" } } },
  });
  try {
    const result = await postChat(engine.url, chatBody("sanity-I1"));
    assert.equal(result.status, 200);
    assert.equal(result.readError, null, "the stream closes cleanly");
    assert.equal(result.done, false);
    assert.equal(result.events.length, 3, "role, one reasoning delta, error");
    assert.equal(typeof deltaOf(result.events[1]!)!.reasoning_content, "string");
    assert.deepEqual(result.events[2], { error: { code: 500, message: "boom", type: "server_error" } });
    assert.equal(engine.requests[0]!.outcome, "error_event");
  } finally {
    await engine.close();
  }
});

Deno.test("a cut closes the socket in the middle of a data line", async () => {
  const engine = await startMockEngine({ timeScale: 0, script: { "*": { fault: { kind: "cut", afterTokens: 3 } } } });
  try {
    const result = await postChat(engine.url, chatBody("sanity-I1"));
    assert.notEqual(result.readError, null, "the body read fails");
    assert.equal(result.events.length, 4, "role + 3 reasoning deltas arrived whole");
    assert.match(result.partial, /^data: \{"choices"/);
    assert.ok(!result.partial.endsWith("\n"));
    assert.equal(result.done, false);
    await engine.waitFor((e) => e.requests[0]!.outcome === "cut");
  } finally {
    await engine.close();
  }
});

Deno.test("a timed stall pauses after n tokens and then the stream completes", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    script: { "*": { fault: { kind: "stall", afterTokens: 2, ms: 30 } } },
  });
  try {
    const result = await postChat(engine.url, chatBody("sanity-I4"));
    assert.equal(result.done, true);
    assert.equal(joined(result.events, "content"), "READY");
    assert.equal(engine.requests[0]!.outcome, "finished");
  } finally {
    await engine.close();
  }
});

Deno.test("a stall without ms holds the stream until the client disconnects, then frees the slot", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    slots: 1,
    script: { "stuck": { fault: { kind: "stall", afterTokens: 1 } } },
  });
  try {
    const controller = new AbortController();
    const response = await fetch(`${engine.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(chatBody("stuck")),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /reasoning_content/);
    await engine.waitFor((e) => e.requests[0]!.completionTokens === 1);
    controller.abort();
    await reader.read().catch(() => {});
    await engine.waitFor((e) => e.requests[0]!.outcome === "client_disconnected");
    assert.equal(engine.stats().processing, 0);
    const next = await postChat(engine.url, chatBody("sanity-I4"));
    assert.equal(next.done, true, "the freed slot serves the next request");
  } finally {
    await engine.close();
  }
});

Deno.test("die on arrival kills the engine: the request and later connections are refused", async () => {
  const engine = await startMockEngine({ timeScale: 0, script: { "sanity-R2": { fault: { kind: "die" } } } });
  try {
    await assert.rejects(postChat(engine.url, chatBody("sanity-R2")));
    assert.equal(engine.stats().killed, true);
    assert.equal(engine.requests[0]!.outcome, "killed");
    await assert.rejects(fetch(`${engine.url}/health`));
  } finally {
    await engine.close();
  }
});

Deno.test("die after n tokens cuts the stream and kills the engine", async () => {
  const engine = await startMockEngine({ timeScale: 0, script: { "*": { fault: { kind: "die", afterTokens: 2 } } } });
  try {
    const result = await postChat(engine.url, chatBody("performance-short-r1"));
    assert.equal(result.done, false);
    assert.ok(result.readError !== null || result.events.length === 3);
    assert.equal(result.events.length, 3, "role + 2 reasoning deltas");
    await engine.waitFor((e) => e.stats().killed && e.requests[0]!.outcome === "killed");
    await assert.rejects(fetch(`${engine.url}/health`));
  } finally {
    await engine.close();
  }
});

Deno.test("kill drops open streams and queued requests like a dead process", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    slots: 1,
    script: { "*": { fault: { kind: "stall", afterTokens: 1 } } },
  });
  try {
    const streaming = await fetch(`${engine.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(chatBody("one")),
    });
    const queued = postChat(engine.url, chatBody("two")).then(() => "answered", () => "refused");
    await engine.waitFor((e) => e.stats().deferred === 1 && e.requests[0]!.completionTokens === 1);
    await engine.kill();
    const streamed = await readSse(streaming);
    assert.notEqual(streamed.readError, null, "the open stream breaks");
    assert.equal(streamed.done, false);
    assert.equal(await queued, "refused", "the queued request never gets headers");
    assert.deepEqual(engine.requests.map((r) => r.outcome), ["killed", "killed"]);
    await assert.rejects(fetch(`${engine.url}/health`));
  } finally {
    await engine.close();
  }
});
