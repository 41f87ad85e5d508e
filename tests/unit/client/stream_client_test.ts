import assert from "node:assert/strict";
import { closeIdleConnections, streamChat } from "../../../client/stream_client.ts";
import type { StreamOutcome } from "../../../contract/mod.ts";
import { type RawExchange, type RawServer, SSE_HEAD, startRawServer, within, writePieces } from "./_raw_server.ts";
import { chunked, chunkEvent, deltaEvent, LLAMA_STREAM, USAGE_EXTRA } from "./_streams.ts";

const BODY = { messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true };

async function withServer(
  script: (exchange: RawExchange) => void | Promise<void>,
  test: (server: RawServer) => Promise<void>,
): Promise<void> {
  const server = await startRawServer(script);
  try {
    await test(server);
  } finally {
    closeIdleConnections();
    await server.close();
  }
}

/** Answers with one chunked SSE response made of the given events. */
function sse(events: string[]) {
  return (ex: RawExchange) => writePieces(ex.socket, [SSE_HEAD, chunked(events)]);
}

function ask(server: RawServer, extra: Partial<Parameters<typeof streamChat>[0]> = {}): Promise<StreamOutcome> {
  return within(streamChat({ baseUrl: server.baseUrl, body: BODY, ...extra }), 5000, "the stream outcome");
}

Deno.test("a complete llama.cpp stream finishes with text, tool call, usage, timings and ordered offsets", async () => {
  await withServer(sse(LLAMA_STREAM.split(/(?<=\n\n)/)), async (server) => {
    const o = await ask(server);
    assert.equal(o.end, "finished");
    assert.equal(o.http_status, 200);
    assert.equal(o.finish_reason, "tool_calls");
    assert.equal(o.error_message, null);
    assert.equal(o.first_delta_kind, "reasoning");
    assert.equal(o.reasoning_text, "Let me think: caf\u00e9 \u65e5\u672c \u{1F642} done.");
    assert.equal(o.answer_text, "Hello \u00fcber");
    assert.deepEqual(o.tool_calls, [
      { index: 0, id: "call0", type: "function", name: "get_weather", arguments: '{"city":"Paris"}' },
    ]);
    assert.equal((o.usage as { prompt_tokens: number }).prompt_tokens, 237);
    assert.equal((o.timings as { predicted_n: number }).predicted_n, 35);
    assert.equal(o.events, 9);
    const { headers_s, first_byte_s, first_delta_s, first_answer_s, end_s } = o.offsets;
    assert.ok(headers_s !== null && first_byte_s !== null && first_delta_s !== null && first_answer_s !== null);
    assert.ok(0 <= first_byte_s && first_byte_s <= headers_s && headers_s <= first_delta_s);
    assert.ok(first_delta_s <= first_answer_s && first_answer_s <= end_s);
    // The request carried the body as JSON on the chat path.
    const request = server.requests[0]!;
    assert.match(request.head, /^POST \/v1\/chat\/completions HTTP\/1\.1\r\n/);
    assert.deepEqual(JSON.parse(request.body), BODY);
  });
});

Deno.test("a role-only first chunk, empty deltas and null content do not count as the first delta", async () => {
  await withServer(
    sse([
      deltaEvent(`{"role":"assistant","content":null}`),
      deltaEvent(`{}`),
      deltaEvent(`{"content":""}`),
      deltaEvent(`{"reasoning_content":""}`),
      deltaEvent(`{"tool_calls":[]}`),
      deltaEvent(`{"reasoning_content":"R"}`),
      deltaEvent(`{"content":"A"}`),
      deltaEvent(`{}`, "stop"),
      "data: [DONE]\n\n",
    ]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "finished");
      assert.equal(o.first_delta_kind, "reasoning");
      assert.equal(o.answer_text, "A");
      assert.equal(o.reasoning_text, "R");
      assert.equal(o.events, 9);
    },
  );
});

Deno.test("the first delta is stamped with the read that carried it, and onFirstDelta reports that offset", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  let arrived!: () => void;
  const headSent = new Promise<void>((resolve) => arrived = resolve);
  const clock = { t: 1000 };
  let hookOffset: number | null = null;
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{"role":"assistant","content":null}`)]).slice(0, -5)]);
    arrived();
    await released;
    await writePieces(ex.socket, [chunked([deltaEvent(`{"reasoning_content":"r"}`), deltaEvent(`{}`, "stop")])]);
  }, async (server) => {
    const pending = ask(server, {
      now: () => clock.t,
      onFirstDelta: (offsetS) => hookOffset = offsetS,
    });
    // Dispatch happened at 1000; once the server has the request, move the clock and let the delta go.
    await within(headSent, 2000, "the request to reach the server");
    clock.t = 1250;
    release();
    const o = await pending;
    assert.equal(o.end, "finished");
    assert.equal(o.first_delta_kind, "reasoning");
    assert.equal(o.offsets.first_delta_s, 0.25);
    assert.equal(o.offsets.first_answer_s, null);
    assert.equal(hookOffset, 0.25);
  });
});

Deno.test("an onFirstDelta that throws ends only its own request, as malformed with the message", async () => {
  const stream = [deltaEvent(`{"content":"z"}`), deltaEvent(`{}`, "stop"), "data: [DONE]\n\n"];
  await withServer(sse(stream), async (server) => {
    const outcomes = await Promise.all([0, 1, 2, 3].map((i) =>
      ask(server, {
        onFirstDelta: () => {
          if (i === 1) throw new Error("load generator bug");
        },
      })
    ));
    assert.equal(outcomes[1]!.end, "malformed");
    assert.match(outcomes[1]!.error_message ?? "", /onFirstDelta threw: load generator bug/);
    assert.equal(outcomes[1]!.answer_text, "z");
    for (const i of [0, 2, 3]) assert.equal(outcomes[i]!.end, "finished", `request ${i}`);
    // The process went on: a later request on the same server still finishes.
    assert.equal((await ask(server)).end, "finished");
  });
});

Deno.test("tool-call fragments aggregate by index; a re-sent name replaces name and id", async () => {
  await withServer(
    sse([
      deltaEvent(
        `{"tool_calls":[{"index":0,"id":"a1","type":"function","function":{"name":"get_w","arguments":""}}]}`,
      ),
      deltaEvent(
        `{"tool_calls":[{"index":0,"id":"a2","type":"function","function":{"name":"get_weather","arguments":"{\\"x\\""}}]}`,
      ),
      deltaEvent(`{"tool_calls":[{"index":1,"id":"b1","type":"function","function":{"name":"lookup"}}]}`),
      deltaEvent(`{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}`),
      deltaEvent(`{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}`),
      deltaEvent(`{}`, "tool_calls"),
      "data: [DONE]\n\n",
    ]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "finished");
      assert.equal(o.first_delta_kind, "tool_call");
      assert.deepEqual(o.tool_calls, [
        { index: 0, id: "a2", type: "function", name: "get_weather", arguments: '{"x":1}' },
        { index: 1, id: "b1", type: "function", name: "lookup", arguments: "{}" },
      ]);
      assert.ok(o.offsets.first_answer_s !== null);
    },
  );
});

Deno.test("an error event after the first delta ends the stream as error_event with its message", async () => {
  await withServer(
    sse([
      deltaEvent(`{"reasoning_content":"thinking"}`),
      'data: {"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}\n\n',
    ]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "error_event");
      assert.equal(o.error_message, "Context size has been exceeded.");
      assert.equal(o.first_delta_kind, "reasoning");
      assert.equal(o.reasoning_text, "thinking");
    },
  );
});

Deno.test("HTTP 400 with a JSON error body is http_error with the server's message", async () => {
  const body = JSON.stringify({
    error: { code: 400, message: "the request exceeds the available context size", type: "exceed_context_size_error" },
  });
  await withServer(
    (ex) =>
      writePieces(ex.socket, [
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "http_error");
      assert.equal(o.http_status, 400);
      assert.equal(o.error_message, "the request exceeds the available context size");
      assert.equal(o.offsets.first_delta_s, null);
    },
  );
});

Deno.test("HTTP 500 with a chunked plain-text body is http_error with that text", async () => {
  await withServer(
    (ex) =>
      writePieces(ex.socket, [
        "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n",
        chunked(["engine ", "crashed"]),
      ]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "http_error");
      assert.equal(o.http_status, 500);
      assert.equal(o.error_message, "engine crashed");
    },
  );
});

Deno.test("a connection closed before any finish_reason is cut", async () => {
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{"content":"partial"}`)]).slice(0, -5)]);
    ex.socket.end();
  }, async (server) => {
    const o = await ask(server);
    assert.equal(o.end, "cut");
    assert.equal(o.answer_text, "partial");
    assert.equal(o.finish_reason, null);
    assert.match(o.error_message ?? "", /closed|reset/);
  });
});

Deno.test("a close inside an event is cut even after a finish_reason", async () => {
  const usage = chunkEvent("[]", USAGE_EXTRA);
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{}`, "stop"), usage.slice(0, 40)]).slice(0, -5)]);
    ex.socket.end();
  }, async (server) => {
    const o = await ask(server);
    assert.equal(o.end, "cut");
    assert.equal(o.finish_reason, "stop");
  });
});

Deno.test("a clean close right after the finish and usage chunks, without [DONE], is finished", async () => {
  await withServer(async (ex) => {
    const events = [deltaEvent(`{"content":"x"}`), deltaEvent(`{}`, "stop"), chunkEvent("[]", USAGE_EXTRA)];
    await writePieces(ex.socket, [SSE_HEAD, chunked(events).slice(0, -5)]);
    ex.socket.end();
  }, async (server) => {
    const o = await ask(server);
    assert.equal(o.end, "finished");
    assert.ok(o.usage !== null);
  });
});

Deno.test("a close after finish_reason but before the usage chunk is cut, not finished", async () => {
  // The engine dies between its finish chunk and the usage chunk that include_usage asked for.
  await withServer(async (ex) => {
    await writePieces(ex.socket, [
      SSE_HEAD,
      chunked([deltaEvent(`{"content":"x"}`), deltaEvent(`{}`, "stop")]).slice(0, -5),
    ]);
    ex.socket.end();
  }, async (server) => {
    const o = await ask(server, { body: { ...BODY, stream_options: { include_usage: true } } });
    assert.equal(o.end, "cut");
    assert.equal(o.finish_reason, "stop");
    assert.equal(o.usage, null);
    assert.match(o.error_message ?? "", /closed/);
  });
});

Deno.test("a close after a finish chunk that carries no timings is cut even without include_usage", async () => {
  await withServer(async (ex) => {
    await writePieces(ex.socket, [
      SSE_HEAD,
      chunked([deltaEvent(`{"content":"x"}`), deltaEvent(`{}`, "stop")]).slice(0, -5),
    ]);
    ex.socket.end();
  }, async (server) => {
    assert.equal((await ask(server)).end, "cut");
  });
});

Deno.test("a close after a finish chunk carrying the timings is finished when no usage chunk was asked for", async () => {
  // Without include_usage llama-server puts timings on the finish chunk: that is its last chunk.
  const finish = chunkEvent(`[{"finish_reason":"stop","index":0,"delta":{}}]`, ',"timings":{"predicted_n":1}');
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{"content":"x"}`), finish]).slice(0, -5)]);
    ex.socket.end();
  }, async (server) => {
    const plain = await ask(server);
    assert.equal(plain.end, "finished");
    assert.equal(plain.usage, null);
    assert.ok(plain.timings !== null);
    // The same bytes when usage was asked for: the usage chunk is missing, so the stream was cut.
    const withUsage = await ask(server, { body: JSON.stringify({ ...BODY, stream_options: { include_usage: true } }) });
    assert.equal(withUsage.end, "cut");
  });
});

Deno.test("a reset after the usage chunk, without [DONE], is cut (a socket error is never a normal end)", async () => {
  await withServer(async (ex) => {
    const events = [deltaEvent(`{"content":"x"}`), deltaEvent(`{}`, "stop"), chunkEvent("[]", USAGE_EXTRA)];
    await writePieces(ex.socket, [SSE_HEAD, chunked(events).slice(0, -5)]);
    ex.socket.resetAndDestroy();
  }, async (server) => {
    const o = await ask(server);
    assert.equal(o.end, "cut");
    assert.ok(o.usage !== null);
    assert.match(o.error_message ?? "", /reset/);
  });
});

Deno.test("a close-delimited body (no length, no chunking) closed after the usage chunk is finished", async () => {
  const events = [deltaEvent(`{"content":"x"}`), deltaEvent(`{}`, "stop"), chunkEvent("[]", USAGE_EXTRA)].join("");
  await withServer(async (ex) => {
    await writePieces(ex.socket, ["HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", events]);
    ex.socket.end();
  }, async (server) => {
    const o = await ask(server, { body: { ...BODY, stream_options: { include_usage: true } } });
    assert.equal(o.end, "finished");
    assert.ok(o.usage !== null);
  });
});

Deno.test("[DONE] without any finish_reason is no_finish", async () => {
  await withServer(sse([deltaEvent(`{"content":"x"}`), "data: [DONE]\n\n"]), async (server) => {
    const o = await ask(server);
    assert.equal(o.end, "no_finish");
    assert.equal(o.answer_text, "x");
  });
});

Deno.test("a chunk that is not JSON ends the stream as malformed", async () => {
  await withServer(
    sse([deltaEvent(`{"content":"x"}`), "data: {not json}\n\n", deltaEvent(`{}`, "stop")]),
    async (s) => {
      const o = await ask(s);
      assert.equal(o.end, "malformed");
      assert.match(o.error_message ?? "", /not json/);
    },
  );
});

Deno.test("a chunk whose choices is not an array is malformed", async () => {
  await withServer(sse(['data: {"choices":{"0":{}}}\n\n']), async (server) => {
    assert.equal((await ask(server)).end, "malformed");
  });
});

Deno.test("a 200 answer that is not an event stream is malformed", async () => {
  const body = '{"choices":[{"message":{"content":"hi"}}]}';
  await withServer(
    (ex) =>
      writePieces(ex.socket, [
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "malformed");
      assert.match(o.error_message ?? "", /application\/json/);
    },
  );
});

Deno.test("the deadline closes the connection and reports timeout", async () => {
  let exchange: RawExchange | null = null;
  await withServer(async (ex) => {
    exchange = ex;
    await writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{"content":"x"}`)]).slice(0, -5)]);
  }, async (server) => {
    const o = await ask(server, { deadlineS: 0.2 });
    assert.equal(o.end, "timeout");
    assert.equal(o.answer_text, "x");
    assert.ok(o.offsets.end_s >= 0.2);
    await within(exchange!.closed, 2000, "the client to close the connection");
  });
});

Deno.test("aborting the signal cancels the stream and closes the connection", async () => {
  let exchange: RawExchange | null = null;
  const controller = new AbortController();
  await withServer(async (ex) => {
    exchange = ex;
    await writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{"reasoning_content":"r"}`)]).slice(0, -5)]);
  }, async (server) => {
    const o = await ask(server, { signal: controller.signal, onFirstDelta: () => controller.abort() });
    assert.equal(o.end, "cancelled");
    assert.equal(o.reasoning_text, "r");
    await within(exchange!.closed, 2000, "the client to close the connection");
  });
});

Deno.test("one signal shared by many requests: aborting it cancels those in flight, not those already ended", async () => {
  const controller = new AbortController();
  let answered = 0;
  await withServer(async (ex) => {
    // The first two requests are answered in full; the rest get a head and one delta, then nothing.
    if (answered++ < 2) return sse(LLAMA_STREAM.split(/(?<=\n\n)/))(ex);
    await writePieces(ex.socket, [SSE_HEAD, chunked([deltaEvent(`{"content":"x"}`)]).slice(0, -5)]);
  }, async (server) => {
    const first = await ask(server, { signal: controller.signal });
    const second = await ask(server, { signal: controller.signal });
    let started = 0;
    const allStarted = Promise.withResolvers<void>();
    const open = Array.from({ length: 3 }, () =>
      ask(server, {
        signal: controller.signal,
        onFirstDelta: () => {
          if (++started === 3) allStarted.resolve();
        },
      }));
    await within(allStarted.promise, 5000, "three streams to start");
    controller.abort();
    const ends = await Promise.all(open);
    assert.deepEqual(ends.map((o) => o.end), ["cancelled", "cancelled", "cancelled"]);
    assert.deepEqual(ends.map((o) => o.answer_text), ["x", "x", "x"]);
    assert.equal(first.end, "finished");
    assert.equal(second.end, "finished");
    const late = await ask(server, { signal: controller.signal });
    assert.equal(late.end, "cancelled");
    assert.equal(server.requests.length, 5);
  });
});

Deno.test("an already aborted signal is cancelled without sending", async () => {
  await withServer(sse([]), async (server) => {
    const o = await ask(server, { signal: AbortSignal.abort() });
    assert.equal(o.end, "cancelled");
    assert.equal(server.requests.length, 0);
  });
});

Deno.test("a refused connection is connect_error", async () => {
  const server = await startRawServer(() => {});
  const url = server.baseUrl;
  await server.close();
  const o = await within(streamChat({ baseUrl: url, body: BODY }), 5000, "the outcome");
  assert.equal(o.end, "connect_error");
  assert.match(o.error_message ?? "", /refused/);
  assert.equal(o.http_status, null);
  assert.equal("connect_s" in o, false, "nothing was dispatched, so there is no connect time");
});

Deno.test("chunked framing split at odd places (inside sizes, CRLFs and JSON) still reads the whole stream", async () => {
  const bytes = new TextEncoder().encode(SSE_HEAD + chunked(LLAMA_STREAM.split(/(?<=\n\n)/)));
  const cuts = [10, 60, 85, 86, 87, 120, 121, 300, 301, 302, 700, 1100, bytes.length - 3, bytes.length - 1];
  await withServer(async (ex) => {
    let from = 0;
    for (const cut of cuts) {
      await writePieces(ex.socket, [bytes.slice(from, cut)]);
      from = cut;
    }
    await writePieces(ex.socket, [bytes.slice(from)]);
  }, async (server) => {
    const o = await ask(server);
    assert.equal(o.end, "finished");
    assert.equal(o.events, 9);
    assert.equal(o.tool_calls[0]?.arguments, '{"city":"Paris"}');
  });
});

Deno.test("a Content-Length event stream and keep-alive comments are read", async () => {
  const text = `:\n\n${deltaEvent(`{"content":"y"}`)}: ping\n\n${deltaEvent(`{}`, "length")}data: [DONE]\n\n`;
  const length = new TextEncoder().encode(text).length;
  await withServer(
    (ex) =>
      writePieces(ex.socket, [
        `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: ${length}\r\n\r\n`,
        text,
      ]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "finished");
      assert.equal(o.finish_reason, "length");
      assert.equal(o.keepalives, 2);
    },
  );
});

Deno.test("keep-alive connections are reused, and a pooled connection the server closed is replaced", async () => {
  const stream = [deltaEvent(`{"content":"z"}`), deltaEvent(`{}`, "stop"), "data: [DONE]\n\n"];
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD, chunked(stream)]);
  }, async (server) => {
    assert.equal((await ask(server)).end, "finished");
    assert.equal((await ask(server)).end, "finished");
    const first = server.requests[0]!.socket;
    assert.equal(server.requests[1]!.socket, first);
    // The server drops the idle connection; the next request still succeeds on a fresh one.
    first.destroy();
    await within(server.requests[0]!.closed, 2000, "the server-side close");
    assert.equal((await ask(server)).end, "finished");
    assert.notEqual(server.requests[2]!.socket, first);
  });
});

Deno.test("a pooled connection closed at once without an answer is resent once on a fresh one, and says so", async () => {
  const stream = [deltaEvent(`{"content":"z"}`), deltaEvent(`{}`, "stop"), "data: [DONE]\n\n"];
  let server!: RawServer;
  await withServer((ex) => {
    // The second request meets a connection the server closes with no byte: the idle-close race.
    if (server.requests.length === 2) return void ex.socket.destroy();
    return writePieces(ex.socket, [SSE_HEAD, chunked(stream)]);
  }, async (s) => {
    server = s;
    const first = await ask(server);
    assert.equal(first.resent_on_fresh_connection, false);
    const o = await ask(server);
    assert.equal(o.end, "finished");
    assert.equal(o.resent_on_fresh_connection, true);
    assert.equal(server.requests.length, 3);
    assert.notEqual(server.requests[2]!.socket, server.requests[1]!.socket);
  });
});

Deno.test("a pooled connection closed without an answer long after the request is cut, and the request is not sent again", async () => {
  // The request goes out on a kept-alive connection; the engine works on it (the clock moves 5 s) and then closes
  // without a byte. A live server must see the request once, not twice.
  const clock = { t: 1000 };
  const stream = [deltaEvent(`{"content":"z"}`), deltaEvent(`{}`, "stop"), "data: [DONE]\n\n"];
  let server!: RawServer;
  await withServer((ex) => {
    if (server.requests.length === 1) return writePieces(ex.socket, [SSE_HEAD, chunked(stream)]);
    clock.t += 5000;
    ex.socket.destroy();
  }, async (s) => {
    server = s;
    assert.equal((await ask(server, { now: () => clock.t })).end, "finished");
    const o = await ask(server, { now: () => clock.t });
    assert.equal(o.end, "cut");
    assert.match(o.error_message ?? "", /closed/);
    assert.equal(server.requests.length, 2, "the request was sent once");
    assert.equal(server.requests[1]!.socket, server.requests[0]!.socket);
  });
});

Deno.test("a server that dies during a long prefill on a pooled connection is cut, not connect_error", async () => {
  const clock = { t: 1000 };
  const stream = [deltaEvent(`{"content":"z"}`), deltaEvent(`{}`, "stop"), "data: [DONE]\n\n"];
  let server!: RawServer;
  await withServer(async (ex) => {
    if (server.requests.length === 1) return writePieces(ex.socket, [SSE_HEAD, chunked(stream)]);
    clock.t += 5000;
    await server.close(); // stops listening and drops the connection: the engine is gone
  }, async (s) => {
    server = s;
    assert.equal((await ask(s, { now: () => clock.t })).end, "finished");
    const o = await ask(s, { now: () => clock.t });
    assert.equal(o.end, "cut");
    assert.equal(o.http_status, null);
    assert.equal(s.requests.length, 2);
  });
});

Deno.test("chunk offsets: each answer or tool-call event is stamped with the read that carried it, in order", async () => {
  // The server writes one piece, waits until the client has stamped its read, then moves the clock and goes on.
  const clock = { t: 1000, expectRead: null as (() => void) | null };
  const now = () => {
    const seen = clock.expectRead;
    clock.expectRead = null;
    seen?.();
    return clock.t;
  };
  const pieces: [number, string[]][] = [
    [1050, [deltaEvent(`{"role":"assistant","content":null}`), deltaEvent(`{"reasoning_content":"r"}`)]],
    [1100, [deltaEvent(`{"content":"A"}`), deltaEvent(`{"content":"B"}`)]],
    [1200, [deltaEvent(`{"content":""}`), deltaEvent(`{}`)]],
    [1300, [
      deltaEvent(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":""}}]}`),
    ]],
    [1400, [deltaEvent(`{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`), deltaEvent(`{}`, "stop")]],
    [1500, [chunkEvent("[]", USAGE_EXTRA), "data: [DONE]\n\n"]],
  ];
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD]);
    for (const [t, events] of pieces) {
      const read = new Promise<void>((resolve) => clock.expectRead = resolve);
      clock.t = t;
      await writePieces(ex.socket, [chunked(events).slice(0, -5)]); // no terminator until the end
      await within(read, 2000, `the client's read of the piece at ${t}`);
    }
    await writePieces(ex.socket, ["0\r\n\r\n"]);
  }, async (server) => {
    const o = await ask(server, { now, recordChunkOffsets: true });
    assert.equal(o.end, "finished");
    // Dispatch at 1000; reasoning, role, empty and finish-only events are not visible output.
    assert.deepEqual(o.chunk_offsets_s, [0.1, 0.1, 0.3, 0.4]);
    assert.equal(o.offsets.first_answer_s, o.chunk_offsets_s![0]);
    assert.equal(o.offsets.first_delta_s, 0.05);
  });
});

Deno.test("chunk offsets are absent unless the caller asks for them", async () => {
  await withServer(sse(LLAMA_STREAM.split(/(?<=\n\n)/)), async (server) => {
    const plain = await ask(server);
    assert.equal(plain.end, "finished");
    assert.equal("chunk_offsets_s" in plain, false);
    const recorded = await ask(server, { recordChunkOffsets: true });
    // LLAMA_STREAM: one answer event and two tool-call fragments are visible; ordered, within the stream.
    assert.equal(recorded.chunk_offsets_s?.length, 3);
    const offsets = recorded.chunk_offsets_s!;
    for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i - 1]! <= offsets[i]!);
    // A stamp is kept to the whole microsecond below its read (the first delta's offset is not cut).
    assert.ok(offsets[0]! >= Math.floor((recorded.offsets.first_delta_s as number) * 1e6) / 1e6);
    for (const s of offsets) assert.equal(Math.round(s * 1e6) / 1e6, s);
    assert.ok(offsets[offsets.length - 1]! <= recorded.offsets.end_s);
  });
});

Deno.test("engine counts: each stamp's predicted_n beside it, null where its chunk carried none, bounded alike", async () => {
  const timed = (delta: string, n: string) =>
    deltaEvent(delta).replace(/}\n\n$/, `,"timings":{"prompt_n":3,"predicted_n":${n}}}\n\n`);
  const stream = [
    deltaEvent(`{"reasoning_content":"r"}`), // before any count: backfilled with null when counts begin
    timed(`{"reasoning_content":"s"}`, "3"),
    timed(`{"content":"A"}`, "5"),
    timed(`{"content":"B"}`, "6.0"), // not an exact count as written
    timed(`{"reasoning_content":"t","content":"C"}`, "9"), // both lists, one count
    deltaEvent(`{}`, "stop"),
    chunkEvent("[]", USAGE_EXTRA),
    "data: [DONE]\n\n",
  ];
  await withServer(sse(stream), async (server) => {
    const o = await ask(server, { recordChunkOffsets: true, recordEngineCounts: true });
    assert.equal(o.end, "finished");
    assert.deepEqual(o.reasoning_chunk_predicted_n, [null, 3, 9]);
    assert.deepEqual(o.chunk_predicted_n, [5, null, 9]);
    assert.equal(o.reasoning_chunk_offsets_s?.length, 3);
    assert.equal(o.chunk_offsets_s?.length, 3);
    const bounded = await ask(server, { recordChunkOffsets: true, recordEngineCounts: true, maxChunkOffsets: 3 });
    assert.deepEqual(bounded.reasoning_chunk_predicted_n, [null, 3]);
    assert.deepEqual(bounded.chunk_predicted_n, [5]);
    assert.equal(bounded.unstamped_chunks, 3);
    const unasked = await ask(server, { recordChunkOffsets: true });
    assert.equal("chunk_predicted_n" in unasked, false);
    assert.equal("reasoning_chunk_predicted_n" in unasked, false);
  });
  // No stamped chunk carried a count (llama.cpp's default: timings on the last chunk only): no lists.
  await withServer(sse(LLAMA_STREAM.split(/(?<=\n\n)/)), async (server) => {
    const o = await ask(server, { recordChunkOffsets: true, recordEngineCounts: true });
    assert.equal(o.end, "finished");
    assert.equal("chunk_predicted_n" in o, false);
  });
});

Deno.test("connect_s is the connection setup on a fresh connection and 0 on a pooled one", async () => {
  const stream = [deltaEvent(`{"content":"z"}`), deltaEvent(`{}`, "stop"), "data: [DONE]\n\n"];
  // A clock that moves on every reading, so that any time between exchange start and dispatch shows.
  let ticks = 0;
  const now = () => ++ticks;
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD, chunked(stream)]);
  }, async (server) => {
    const fresh = await ask(server, { now });
    const pooled = await ask(server, { now });
    assert.equal(fresh.end, "finished");
    assert.equal(pooled.end, "finished");
    assert.equal(server.requests[1]!.socket, server.requests[0]!.socket);
    assert.ok((fresh.connect_s as number) > 0, `fresh connect_s ${fresh.connect_s}`);
    assert.equal(pooled.connect_s, 0);
    // A pooled connection the server had closed is replaced by a fresh one: that setup counts again.
    server.requests[0]!.socket.destroy();
    await within(server.requests[0]!.closed, 2000, "the server-side close");
    const replaced = await ask(server, { now });
    assert.equal(replaced.end, "finished");
    assert.ok((replaced.connect_s as number) > 0, `replaced connect_s ${replaced.connect_s}`);
  });
});

Deno.test("connect_s on the real clock: a time on a new connection, 0 on a pooled one, absent when cancelled before sending", async () => {
  const stream = [deltaEvent(`{"content":"z"}`), deltaEvent(`{}`, "stop"), "data: [DONE]\n\n"];
  await withServer(async (ex) => {
    await writePieces(ex.socket, [SSE_HEAD, chunked(stream)]);
  }, async (server) => {
    const fresh = await ask(server);
    assert.equal(fresh.end, "finished");
    assert.ok(Number.isFinite(fresh.connect_s) && (fresh.connect_s as number) >= 0, `connect_s ${fresh.connect_s}`);
    assert.equal((await ask(server)).connect_s, 0);
  });
  const controller = new AbortController();
  controller.abort();
  const cancelled = await streamChat({ baseUrl: "http://127.0.0.1:1", body: BODY, signal: controller.signal });
  assert.equal(cancelled.end, "cancelled");
  assert.equal("connect_s" in cancelled, false);
});

Deno.test("a stream with a byte that is not UTF-8 keeps U+FFFD in the text and records where the byte was", async () => {
  const encoder = new TextEncoder();
  const event = deltaEvent(`{"content":"READY"}`);
  const at = event.indexOf("READY") + 2;
  // "RE" 0xFF "ADY": one byte that cannot be UTF-8 inside the answer text.
  const garbled = new Uint8Array([...encoder.encode(event.slice(0, at)), 0xff, ...encoder.encode(event.slice(at))]);
  const finish = encoder.encode(
    chunkEvent(`[{"finish_reason":"stop","index":0,"delta":{}}]`, USAGE_EXTRA) + "data: [DONE]\n\n",
  );
  const frame = (bytes: Uint8Array) => [`${bytes.length.toString(16)}\r\n`, bytes, "\r\n"];
  await withServer(
    (ex) => writePieces(ex.socket, [SSE_HEAD, ...frame(garbled), ...frame(finish), "0\r\n\r\n"]),
    async (server) => {
      const o = await ask(server);
      assert.equal(o.end, "finished");
      assert.equal(o.answer_text, "RE\uFFFDADY");
      assert.deepEqual(o.invalid_utf8, [{ event: 1, byte_offsets: [at - "data: ".length], delta_kinds: ["answer"] }]);
      assert.equal(typeof o.usage_chunk, "string");
      assert.equal(o.usage_chunk, o.timings_chunk);
      assert.match(o.usage_chunk!, /"usage":\{"completion_tokens":35/);
    },
  );
});

Deno.test("past maxInvalidUtf8 byte sequences that are not UTF-8, the event is not read and the stream is malformed", async () => {
  const encoder = new TextEncoder();
  const event = deltaEvent(`{"content":"AB"}`);
  const at = event.indexOf("AB") + 1;
  // "A" 0xFF 0xFF "B": two bad bytes an event, so the second event passes a bound of three.
  const garbled = new Uint8Array([
    ...encoder.encode(event.slice(0, at)),
    0xff,
    0xff,
    ...encoder.encode(event.slice(at)),
  ]);
  const finish = encoder.encode(
    chunkEvent(`[{"finish_reason":"stop","index":0,"delta":{}}]`, USAGE_EXTRA) + "data: [DONE]\n\n",
  );
  const frame = (bytes: Uint8Array) => [`${bytes.length.toString(16)}\r\n`, bytes, "\r\n"];
  await withServer(
    (ex) => writePieces(ex.socket, [SSE_HEAD, ...frame(garbled), ...frame(garbled), ...frame(finish), "0\r\n\r\n"]),
    async (server) => {
      const o = await ask(server, { maxInvalidUtf8: 3 });
      assert.equal(o.end, "malformed");
      assert.equal(o.answer_text, "A\uFFFD\uFFFDB", "only the first event was read");
      assert.equal(o.invalid_utf8?.length, 1);
      assert.equal(
        o.error_message,
        "the stream passed 3 byte sequences that are not UTF-8 (event 2 was not read); a chat stream is text",
      );
      const unbounded = await ask(server);
      assert.equal(unbounded.end, "finished");
      assert.equal(unbounded.invalid_utf8?.length, 2);
    },
  );
});
