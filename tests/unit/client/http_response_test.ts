import assert from "node:assert/strict";
import { HttpFramingError, ResponseDecoder, type ResponseHead } from "../../../client/_http_response.ts";
import { chunked, LLAMA_STREAM, prng, randomCuts, splitAt } from "./_streams.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function decode(parts: Uint8Array[]) {
  let head: ResponseHead | null = null;
  const body: number[] = [];
  let calls = 0;
  const d = new ResponseDecoder({ head: (h) => head = h, body: (b) => (calls++, body.push(...b)) });
  for (const part of parts) d.feed(part);
  return { head: head as ResponseHead | null, body: decoder.decode(new Uint8Array(body)), done: d.done, d, calls };
}

const HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
const PIECES = LLAMA_STREAM.split(/(?<=\n\n)/);
const RESPONSE = encoder.encode(HEAD + chunked(PIECES));

Deno.test("a chunked response decodes to the same body at every two-way byte split", () => {
  for (let cut = 0; cut <= RESPONSE.length; cut++) {
    const r = decode(splitAt(RESPONSE, [cut]));
    assert.equal(r.body, LLAMA_STREAM, `split at ${cut}`);
    assert.equal(r.done, true);
    assert.equal(r.head?.status, 200);
    assert.equal(r.d.reusable, true);
  }
});

Deno.test("a chunked response decodes the same under 200 seeded random multi-splits", () => {
  const random = prng(77);
  for (let run = 0; run < 200; run++) {
    const cuts = randomCuts(random, RESPONSE.length, 1 + Math.floor(random() * 80));
    assert.equal(decode(splitAt(RESPONSE, cuts)).body, LLAMA_STREAM, `cuts ${cuts.join(",")}`);
  }
});

Deno.test("all the HTTP chunks of one read reach the consumer in one call", () => {
  const r = decode([RESPONSE]);
  assert.equal(r.calls, 1);
});

Deno.test("chunk extensions, upper-case hex sizes and trailers are accepted", () => {
  const text =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA;name=v\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n";
  const r = decode([encoder.encode(text)]);
  assert.equal(r.body, "0123456789");
  assert.equal(r.done, true);
});

Deno.test("Content-Length bodies end at the length; bytes after it make the connection not reusable", () => {
  const ok = decode([encoder.encode("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")]);
  assert.equal(ok.body, "hello");
  assert.equal(ok.done, true);
  assert.equal(ok.d.reusable, true);
  const extra = decode([encoder.encode("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhello")]);
  assert.equal(extra.body, "he");
  assert.equal(extra.d.reusable, false);
});

Deno.test("a body with neither length nor chunking runs to the close and is not reusable", () => {
  const r = decode([encoder.encode("HTTP/1.1 200 OK\r\n\r\nabc"), encoder.encode("def")]);
  assert.equal(r.body, "abcdef");
  assert.equal(r.done, false);
  assert.equal(r.d.closeDelimited, true);
  assert.equal(r.d.reusable, false);
});

Deno.test("Connection: close and HTTP/1.0 responses are not reusable", () => {
  assert.equal(
    decode([encoder.encode("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")]).d.reusable,
    false,
  );
  assert.equal(decode([encoder.encode("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")]).d.reusable, false);
});

Deno.test("an interim 100 Continue is skipped before the real head", () => {
  const r = decode([
    encoder.encode("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno"),
  ]);
  assert.equal(r.head?.status, 404);
  assert.equal(r.body, "no");
});

Deno.test("repeated headers join, names are lower case", () => {
  const r = decode([encoder.encode("HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n")]);
  assert.equal(r.head?.headers.get("x-a"), "1, 2");
});

Deno.test("bytes that are not HTTP, a bad chunk size and a missing chunk CRLF are framing errors", () => {
  for (
    const text of [
      "SSH-2.0-OpenSSH\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    ]
  ) {
    assert.throws(() => decode([encoder.encode(text)]), HttpFramingError, JSON.stringify(text));
  }
});

Deno.test("a head larger than 64 KiB is refused", () => {
  const text = `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(70_000)}`;
  assert.throws(() => decode([encoder.encode(text)]), HttpFramingError);
});
