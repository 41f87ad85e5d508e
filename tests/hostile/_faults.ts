/**
 * The hostile engine's fault kinds: what each sends, byte for byte, and what the protocol says must come of it
 * (the request's status and error kind, and whether the run goes on). Faults are named after what a reviewer or an
 * attacker would try; `stops` marks those after which the run must skip the rest.
 */
import { chunkOf, timingsOf, usageOf, type Wire } from "./_hostile_engine.ts";

/** What must come of one fault. */
export interface FaultExpectation {
  status: "completed" | "truncated" | "failed";
  /** error.kind of the record (null for completed and truncated). */
  kind: string | null;
  /** The run stops after it: every later request is skipped. */
  stops?: boolean;
  /** A fact of the record beyond status and kind, checked by the suite. */
  record?: "output_tokens null" | "decode_tps null" | "nonconforming";
}

export interface Fault {
  send(wire: Wire): Promise<void>;
  expect: FaultExpectation;
}

const FAILED = (kind: string): FaultExpectation => ({ status: "failed", kind });
const COMPLETED: FaultExpectation = { status: "completed", kind: null };
const encoder = new TextEncoder();

/** Stalls until the client leaves (its deadline closes the connection). */
const stall = (wire: Wire) => wire.untilClientLeaves();

async function httpError(wire: Wire, status: number, body: string, type = "application/json"): Promise<void> {
  const bytes = encoder.encode(body);
  await wire.raw(
    `HTTP/1.1 ${status} Error\r\nContent-Type: ${type}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
  );
  await wire.raw(bytes);
}

const llamaError = (code: number, message: string, type: string) => JSON.stringify({ error: { code, message, type } });
const HTML = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>\n";

/** Normal answer's SSE text (events only), for framings other than chunked. */
function sseText(wire: Wire, lineEnd = "\n"): string {
  const events = [
    chunkOf([{ index: 0, delta: { role: "assistant", content: null }, finish_reason: null }]),
    chunkOf([{ index: 0, delta: { reasoning_content: "Let me think." }, finish_reason: null }]),
    chunkOf([{ index: 0, delta: { content: "READY" }, finish_reason: null }]),
    chunkOf([{ index: 0, delta: {}, finish_reason: "stop" }]),
    { ...chunkOf([]), usage: usageOf(wire.promptTokens, 12), timings: timingsOf(wire.promptTokens, 12) },
  ];
  return [...events.map((e) => `data: ${JSON.stringify(e)}`), "data: [DONE]"].map((l) => `${l}${lineEnd}${lineEnd}`)
    .join("");
}

const FAULT_TABLE = {
  // HTTP errors before the stream.
  "http 500 with a llama.cpp error body": {
    send: (w) => httpError(w, 500, llamaError(500, "Internal error", "server_error")),
    expect: FAILED("http_error"),
  },
  "http 400 (a refused setting)": {
    send: (w) => httpError(w, 400, llamaError(400, "invalid value", "invalid_request_error")),
    expect: { ...FAILED("http_error"), record: "nonconforming" },
  },
  "http 422": { send: (w) => httpError(w, 422, '{"detail":"unprocessable"}'), expect: FAILED("http_error") },
  "http 503 loading model": {
    send: (w) => httpError(w, 503, llamaError(503, "Loading model", "unavailable_error")),
    expect: FAILED("http_error"),
  },
  "http 404 with an HTML page": { send: (w) => httpError(w, 404, HTML, "text/html"), expect: FAILED("http_error") },
  "http 500 with an empty body": { send: (w) => httpError(w, 500, ""), expect: FAILED("http_error") },
  "http 500 with a 1 MiB body": {
    send: (w) => httpError(w, 500, "x".repeat(1024 * 1024)),
    expect: FAILED("http_error"),
  },
  "http 500 whose message holds terminal escapes": {
    send: (w) => httpError(w, 500, llamaError(500, "\x1b]0;pwned\x07\x1b[2K\rcompleted 999 tok/s", "server_error")),
    expect: FAILED("http_error"),
  },
  // Answers that are not an event stream.
  "200 with an HTML body and no Content-Type": {
    send: async (w) => {
      await w.raw(`HTTP/1.1 200 OK\r\nContent-Length: ${HTML.length}\r\nConnection: close\r\n\r\n${HTML}`);
    },
    expect: FAILED("malformed"),
  },
  "200 with an HTML body under text/event-stream": {
    send: async (w) => {
      await w.head();
      await w.chunk(HTML);
      await w.terminator();
    },
    expect: FAILED("malformed"),
  },
  "200 with a non-streamed JSON completion": {
    send: async (w) => {
      const body = JSON.stringify({ choices: [{ message: { content: "READY" }, finish_reason: "stop" }] });
      await w.raw(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    },
    expect: FAILED("malformed"),
  },
  "200 with a gzip-encoded stream": {
    send: async (w) => {
      await w.head(200, { "Content-Encoding": "gzip" });
      await w.chunk(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]));
      await w.terminator();
    },
    expect: FAILED("malformed"),
  },
  "an SSH banner instead of HTTP, then close": {
    send: (w) => w.raw("SSH-2.0-OpenSSH_9.6p1 Debian-3\r\n").then(() => undefined),
    expect: FAILED("malformed"),
  },
  "binary bytes instead of HTTP": {
    send: (w) => w.raw(new Uint8Array([0, 1, 2, 255, 254, 10, 10, 13, 10, 13, 10])).then(() => undefined),
    expect: FAILED("malformed"),
  },
  "an HTTP/2 status line": {
    send: (w) => w.raw("HTTP/2 200\r\n\r\n").then(() => undefined),
    expect: FAILED("malformed"),
  },
  "headers longer than 64 KiB": {
    send: async (w) => {
      await w.raw(`HTTP/1.1 200 OK\r\nX-Pad: ${"a".repeat(70 * 1024)}\r\n\r\n`);
    },
    expect: FAILED("malformed"),
  },
  "a header line without a colon": {
    send: (w) => w.raw("HTTP/1.1 200 OK\r\nContent-Type text/event-stream\r\n\r\n").then(() => undefined),
    expect: FAILED("malformed"),
  },
  "a Content-Length that is not a number": {
    send: (w) =>
      w.raw("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: lots\r\n\r\n").then(() => {}),
    expect: FAILED("malformed"),
  },
  "a chunk size that is not hex": {
    send: async (w) => {
      await w.head();
      await w.raw("zz\r\ndata: x\r\n");
    },
    expect: FAILED("malformed"),
  },
  "chunk data not followed by CRLF": {
    send: async (w) => {
      await w.head();
      await w.raw("5\r\ndata:XX");
    },
    expect: FAILED("malformed"),
  },
  // Connections that end early.
  "the connection closes without an answer": { send: () => Promise.resolve(), expect: FAILED("cut") },
  "the connection closes after the headers": { send: (w) => w.head().then(() => undefined), expect: FAILED("cut") },
  "the connection closes in the middle of a data line": {
    send: async (w) => {
      await w.head();
      await w.delta({ role: "assistant", content: null });
      await w.chunk('data: {"choices":[{"index":0,"delta":{"content":"REA');
    },
    expect: FAILED("cut"),
  },
  "the connection closes after the first delta": {
    send: async (w) => {
      await w.head();
      await w.delta({ reasoning_content: "Let me" });
    },
    expect: FAILED("cut"),
  },
  "the connection closes between the finish chunk and the usage chunk": {
    send: async (w) => {
      await w.head();
      await w.delta({ content: "READY" });
      await w.delta({}, "stop");
    },
    expect: FAILED("cut"),
  },
  "a clean close right after the usage chunk, without [DONE]": {
    send: async (w) => {
      await w.head();
      await w.body();
    },
    expect: COMPLETED,
  },
  "the chunked terminator after the usage chunk, without [DONE]": {
    send: async (w) => {
      await w.head();
      await w.body();
      await w.terminator();
    },
    expect: COMPLETED,
  },
  // Stream ends and error events.
  "[DONE] without any finish_reason": {
    send: async (w) => {
      await w.head();
      await w.delta({ content: "READY" });
      await w.usage();
      await w.done();
      await w.terminator();
    },
    expect: FAILED("no_finish"),
  },
  'finish_reason "content_filter"': { send: (w) => w.normal("content_filter"), expect: FAILED("finish_reason") },
  'finish_reason "length" (the cap)': { send: (w) => w.normal("length"), expect: { status: "truncated", kind: null } },
  "an error event as the first event": {
    send: async (w) => {
      await w.head();
      await w.event({ error: { code: 500, message: "Context size has been exceeded.", type: "server_error" } });
    },
    expect: FAILED("error_event"),
  },
  "an error event after deltas": {
    send: async (w) => {
      await w.head();
      await w.delta({ role: "assistant", content: null });
      await w.delta({ content: "REA" });
      await w.event({ error: { code: 500, message: "slot failed", type: "server_error" } });
    },
    expect: FAILED("error_event"),
  },
  "an error event whose error is a string": {
    send: async (w) => {
      await w.head();
      await w.event({ error: "boom" });
      await w.done();
      await w.terminator();
    },
    expect: FAILED("error_event"),
  },
  // Malformed chunks.
  "a chunk that is not JSON": {
    send: async (w) => {
      await w.head();
      await w.chunk("data: {not json\n\n");
    },
    expect: FAILED("malformed"),
  },
  "a chunk that is a JSON array": {
    send: async (w) => {
      await w.head();
      await w.chunk("data: [1,2,3]\n\n");
    },
    expect: FAILED("malformed"),
  },
  "choices that is not an array": {
    send: async (w) => {
      await w.head();
      await w.event({ choices: { index: 0 } });
    },
    expect: FAILED("malformed"),
  },
  "a delta that is a string": {
    send: async (w) => {
      await w.head();
      await w.event(chunkOf([{ index: 0, delta: "READY" }]));
    },
    expect: FAILED("malformed"),
  },
  "tool_calls that is not an array": {
    send: async (w) => {
      await w.head();
      await w.delta({ tool_calls: { name: "x" } });
    },
    expect: FAILED("malformed"),
  },
  "a NUL byte inside a chunk": {
    send: async (w) => {
      await w.head();
      await w.chunk('data: {"choices":[{"index":0,"delta":{"content":"a\u0000b"}}]}\n\n');
    },
    expect: FAILED("malformed"),
  },
  "one data line of 5 MiB": {
    send: async (w) => {
      await w.head();
      await w.chunk(`data: {"choices":[{"index":0,"delta":{"content":"${"x".repeat(5 * 1024 * 1024)}`);
    },
    expect: FAILED("malformed"),
  },
  "deltas that never end (a server that ignores max_tokens)": {
    send: async (w) => {
      await w.head();
      const event = `data: ${JSON.stringify(chunkOf([{ index: 0, delta: { content: "x".repeat(4000) } }]))}\n\n`;
      for (let i = 0; i < 4000 && !w.closed; i++) await w.chunk(event);
    },
    expect: FAILED("malformed"),
  },
  // Time.
  "no answer at all (stall before the headers)": { send: stall, expect: FAILED("timeout") },
  "headers, then silence": {
    send: async (w) => {
      await w.head();
      await stall(w);
    },
    expect: FAILED("timeout"),
  },
  "keep-alive comments forever, never a token": {
    send: async (w) => {
      await w.head();
      for (let i = 0; i < 400 && !w.closed; i++) {
        await w.chunk(":\n\n");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    expect: FAILED("timeout"),
  },
  "one byte at a time, forever (slowloris)": {
    send: async (w) => {
      await w.head();
      for (let i = 0; i < 400 && !w.closed; i++) {
        await w.chunk(":");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    expect: FAILED("timeout"),
  },
  // Odd but valid: the request completes.
  "a byte order mark before the first event": {
    send: async (w) => {
      await w.head();
      await w.chunk(new Uint8Array([0xef, 0xbb, 0xbf]));
      await w.body();
      await w.done();
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "CR line endings": {
    send: async (w) => {
      await w.head();
      await w.chunk(sseText(w, "\r"));
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "CRLF line endings": {
    send: async (w) => {
      await w.head();
      await w.chunk(sseText(w, "\r\n"));
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "every byte its own HTTP chunk": {
    send: async (w) => {
      await w.head();
      for (const byte of encoder.encode(sseText(w))) await w.chunk(new Uint8Array([byte]));
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "a Content-Length body instead of chunks": {
    send: async (w) => {
      const text = encoder.encode(sseText(w));
      await w.head(200, { "Transfer-Encoding": "", "Content-Length": String(text.length) });
      await w.raw(text);
    },
    expect: COMPLETED,
  },
  "a body that ends with the connection (no length, no chunks)": {
    send: async (w) => {
      await w.head(200, { "Transfer-Encoding": "" });
      await w.raw(sseText(w));
    },
    expect: COMPLETED,
  },
  "a 100 Continue before the answer": {
    send: async (w) => {
      await w.raw("HTTP/1.1 100 Continue\r\n\r\n");
      await w.normal();
    },
    expect: COMPLETED,
  },
  "trailers after the last chunk": {
    send: async (w) => {
      await w.head();
      await w.body();
      await w.done();
      await w.raw("0\r\nX-Trailer: 1\r\n\r\n");
    },
    expect: COMPLETED,
  },
  "event, id and retry fields and comments between events": {
    send: async (w) => {
      await w.head();
      await w.chunk("retry: 1000\nid: 1\nevent: message\n: comment\n\n");
      await w.body();
      await w.chunk(": bye\n\n");
      await w.done();
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "empty deltas between the tokens": {
    send: async (w) => {
      await w.head();
      await w.delta({});
      await w.delta({ content: "" });
      await w.body();
      await w.done();
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "invalid UTF-8 inside the answer text": {
    send: async (w) => {
      await w.head();
      await w.delta({ role: "assistant", content: null });
      await w.chunk(
        new Uint8Array([
          ...encoder.encode('data: {"choices":[{"index":0,"delta":{"content":"R'),
          0xff,
          0xfe,
          ...encoder.encode('"}}]}\n\n'),
        ]),
      );
      await w.delta({}, "stop");
      await w.usage();
      await w.done();
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "terminal escapes in the answer and the reasoning": {
    send: async (w) => {
      await w.head();
      await w.delta({ reasoning_content: "\x1b]0;title\x07\u202e" });
      await w.delta({ content: "\x1b[2K\rcompleted 999 tok/s" });
      await w.delta({}, "stop");
      await w.usage();
      await w.done();
      await w.terminator();
    },
    expect: COMPLETED,
  },
  "usage counts sent as strings": {
    send: async (w) => {
      await w.head();
      await w.delta({ content: "READY" });
      await w.delta({}, "stop");
      await w.event({ ...chunkOf([]), usage: { prompt_tokens: "100", completion_tokens: "12" } });
      await w.done();
      await w.terminator();
    },
    expect: { ...COMPLETED, record: "output_tokens null" },
  },
  "no timings at all": {
    send: async (w) => {
      await w.head();
      await w.delta({ content: "READY" });
      await w.delta({}, "stop");
      await w.event({ ...chunkOf([]), usage: usageOf(w.promptTokens, 12) });
      await w.done();
      await w.terminator();
    },
    expect: { ...COMPLETED, record: "decode_tps null" },
  },
  // Faults after which the run must stop.
  "the engine dies in the middle of a stream": {
    send: async (w) => {
      await w.head();
      await w.delta({ reasoning_content: "Let me" });
      w.killEngine();
    },
    expect: { ...FAILED("cut"), stops: true },
  },
  "an error, and then /health fails": {
    send: async (w) => {
      w.failHealth();
      await httpError(w, 500, llamaError(500, "CUDA error: out of memory", "server_error"));
    },
    expect: { ...FAILED("http_error"), stops: true },
  },
} satisfies Record<string, Fault>;

export type FaultName = keyof typeof FAULT_TABLE;
/** Every fault kind by name. */
export const FAULTS: Readonly<Record<FaultName, Fault>> = FAULT_TABLE;
