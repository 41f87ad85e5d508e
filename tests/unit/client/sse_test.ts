import assert from "node:assert/strict";
import { SseParser } from "../../../client/sse.ts";
import { eventsOf, LLAMA_STREAM, prng, randomCuts, splitAt } from "./_streams.ts";

const encoder = new TextEncoder();

function parse(parts: Uint8Array[], maxLineBytes?: number) {
  const events: string[] = [];
  let comments = 0;
  const parser = new SseParser({
    onEvent: (data) => events.push(data),
    onComment: () => comments++,
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  for (const part of parts) parser.push(part);
  return { events, comments, pending: parser.pending };
}

const STREAM_BYTES = encoder.encode(LLAMA_STREAM);
const EXPECTED = eventsOf(LLAMA_STREAM);

Deno.test("a llama.cpp stream parses to the same events at every two-way byte split", () => {
  assert.equal(EXPECTED.length, 9);
  for (let cut = 0; cut <= STREAM_BYTES.length; cut++) {
    const result = parse(splitAt(STREAM_BYTES, [cut]));
    assert.deepEqual(result.events, EXPECTED, `split at byte ${cut}`);
    assert.equal(result.pending, false);
  }
});

Deno.test("a llama.cpp stream parses to the same events under 300 seeded random multi-splits", () => {
  const random = prng(20240601);
  for (let run = 0; run < 300; run++) {
    const cuts = randomCuts(random, STREAM_BYTES.length, 1 + Math.floor(random() * 60));
    assert.deepEqual(parse(splitAt(STREAM_BYTES, cuts)).events, EXPECTED, `cuts ${cuts.join(",")}`);
  }
});

Deno.test("a stream fed one byte at a time parses to the same events", () => {
  const parts = [...STREAM_BYTES].map((b) => Uint8Array.of(b));
  assert.deepEqual(parse(parts).events, EXPECTED);
});

Deno.test("CRLF and CR line ends give the same events as LF, at every split", () => {
  for (const eol of ["\r\n", "\r"]) {
    const bytes = encoder.encode(LLAMA_STREAM.replaceAll("\n", eol));
    for (let cut = 0; cut <= bytes.length; cut++) {
      assert.deepEqual(parse(splitAt(bytes, [cut])).events, EXPECTED, `${JSON.stringify(eol)} split at ${cut}`);
    }
  }
});

Deno.test("mixed line ends in one stream are each one line end", () => {
  const text = 'data: {"a":1}\r\n\rdata: {"b":2}\n\r\ndata: {"c":3}\r\r';
  assert.deepEqual(parse([encoder.encode(text)]).events, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

Deno.test("a CR at the end of one read and LF at the start of the next make one line end", () => {
  const parts = [encoder.encode('data: {"a":1}\r'), encoder.encode("\n\r"), encoder.encode("\ndata: x\r\n\r\n")];
  assert.deepEqual(parse(parts).events, ['{"a":1}', "x"]);
});

Deno.test("a 4-byte UTF-8 character split across reads at each byte decodes whole", () => {
  const bytes = encoder.encode('data: {"content":"a\u{1F642}b\u00e9"}\n\n');
  const emoji = bytes.indexOf(0xf0);
  for (let cut = emoji; cut <= emoji + 4; cut++) {
    assert.deepEqual(parse(splitAt(bytes, [cut])).events, ['{"content":"a\u{1F642}b\u00e9"}']);
  }
});

Deno.test("a leading BOM is skipped, also when split across reads", () => {
  const bytes = encoder.encode(`\uFEFF${LLAMA_STREAM}`);
  assert.equal(bytes[0], 0xef);
  for (const cuts of [[], [1], [2], [1, 2], [3]]) {
    assert.deepEqual(parse(splitAt(bytes, cuts)).events, EXPECTED, `cuts ${cuts}`);
  }
});

Deno.test("bytes that only start like a BOM are kept as data", () => {
  // EF BB followed by "A" is not a BOM: the line is an unknown field and the next event still parses.
  const bytes = new Uint8Array([0xef, 0xbb, 0x41, 10, ...encoder.encode("data: ok\n\n")]);
  for (const cuts of [[], [1], [2], [1, 2]]) {
    assert.deepEqual(parse(splitAt(bytes, cuts)).events, ["ok"]);
  }
});

Deno.test("a BOM that is not at the stream start is data, not skipped", () => {
  const bytes = encoder.encode("data: \uFEFFx\n\n");
  assert.deepEqual(parse([bytes]).events, ["\uFEFFx"]);
});

Deno.test("keep-alive comments are counted and never become events", () => {
  const firstEvent = LLAMA_STREAM.indexOf("\n\n") + 2;
  const all = `:\n\n: ping\n\n${LLAMA_STREAM.slice(0, firstEvent)}:\n\n${LLAMA_STREAM.slice(firstEvent)}`;
  const result = parse([encoder.encode(all)]);
  assert.deepEqual(result.events, EXPECTED);
  assert.equal(result.comments, 3);
});

Deno.test("data with and without the space after the colon, and a bare data line", () => {
  const text = 'data:{"a":1}\n\ndata: {"b":2}\n\ndata:  two spaces\n\ndata\ndata: x\n\n';
  assert.deepEqual(parse([encoder.encode(text)]).events, ['{"a":1}', '{"b":2}', " two spaces", "\nx"]);
});

Deno.test("several data lines of one event join with a newline", () => {
  assert.deepEqual(parse([encoder.encode("data: a\ndata: b\ndata: c\n\n")]).events, ["a\nb\nc"]);
});

Deno.test("event, id, retry and unknown fields are ignored; a field named like data is not data", () => {
  const text = "event: message\nid: 7\nretry: 10\ndatum: no\ndatax: no\ndata: yes\n\n";
  assert.deepEqual(parse([encoder.encode(text)]).events, ["yes"]);
});

Deno.test("a blank line with no data dispatches nothing", () => {
  assert.deepEqual(parse([encoder.encode("\n\n\nid: 1\n\ndata: x\n\n")]).events, ["x"]);
});

Deno.test("many events in one read, and one event spanning many reads", () => {
  const many = encoder.encode("data: 1\n\n".repeat(500));
  assert.equal(parse([many]).events.length, 500);
  const big = `data: ${"y".repeat(100_000)}\n\n`;
  const bytes = encoder.encode(big);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 1000) parts.push(bytes.slice(i, i + 1000));
  assert.deepEqual(parse(parts).events, ["y".repeat(100_000)]);
});

Deno.test("a line longer than the limit fails as malformed, also when it arrives in pieces", () => {
  const long = encoder.encode(`data: ${"z".repeat(5000)}`);
  assert.throws(
    () => parse([long], 4096),
    (e: Error) => e instanceof RangeError && /longer than 4096 bytes/.test(e.message),
  );
  const parts: Uint8Array[] = [];
  for (let i = 0; i < long.length; i += 100) parts.push(long.slice(i, i + 100));
  assert.throws(() => parse(parts, 4096), RangeError);
  // A line just under the limit is fine.
  assert.deepEqual(parse([encoder.encode(`data: ${"z".repeat(4000)}\n\n`)], 4096).events, ["z".repeat(4000)]);
});

Deno.test("an event whose data lines together exceed the limit fails as malformed", () => {
  const lines = encoder.encode(`${"data: 0123456789\n".repeat(400)}\n`);
  assert.throws(() => parse([lines], 4096), (e: Error) => e instanceof RangeError && /event is larger/.test(e.message));
});

Deno.test("a stream cut mid-event leaves it pending and undelivered", () => {
  const cutInLine = STREAM_BYTES.indexOf(0x7b, 300); // inside a JSON object
  const result = parse([STREAM_BYTES.slice(0, cutInLine)]);
  assert.equal(result.pending, true);
  const cutAfterLine = LLAMA_STREAM.indexOf("\n\n") + 1; // line done, blank line missing
  const partial = parse([encoder.encode(LLAMA_STREAM.slice(0, cutAfterLine))]);
  assert.deepEqual(partial.events, []);
  assert.equal(partial.pending, true);
  const whole = parse([encoder.encode(LLAMA_STREAM.slice(0, cutAfterLine + 1))]);
  assert.equal(whole.events.length, 1);
  assert.equal(whole.pending, false);
});

Deno.test("a non-positive line limit is refused", () => {
  assert.throws(() => new SseParser({ onEvent: () => {}, maxLineBytes: 0 }), RangeError);
});
