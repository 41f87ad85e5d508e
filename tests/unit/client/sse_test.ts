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

Deno.test("invalid UTF-8 in an event is decoded to U+FFFD and its byte offsets are reported, at every split", () => {
  // data: {"a":"X<ff>Y<e2 82>Z"}  (a lone 0xFF, then a three-byte sequence cut after two bytes)
  const head = encoder.encode('data: {"a":"X');
  const tail = encoder.encode('Z"}\n\n');
  const bytes = new Uint8Array([...head, 0xff, ...encoder.encode("Y"), 0xe2, 0x82, ...tail]);
  const valuesStart = "data: ".length;
  for (let cut = 0; cut <= bytes.length; cut++) {
    const seen: { data: string; invalid: readonly number[] | undefined }[] = [];
    const parser = new SseParser({ onEvent: (data, invalid) => seen.push({ data, invalid }) });
    for (const part of splitAt(bytes, [cut])) parser.push(part);
    assert.equal(seen.length, 1, `split at ${cut}`);
    assert.equal(seen[0]!.data, '{"a":"X\uFFFDY\uFFFDZ"}', `split at ${cut}`);
    // Offsets count from the event's data: the 0xFF and the cut sequence's lead byte.
    const ff = head.length - valuesStart;
    assert.deepEqual(seen[0]!.invalid, [ff, ff + 2], `split at ${cut}`);
  }
});

Deno.test("valid UTF-8 events report no invalid offsets; offsets of a second data line count the first and its LF", () => {
  const seen: (readonly number[] | undefined)[] = [];
  const parser = new SseParser({ onEvent: (_data, invalid) => seen.push(invalid) });
  parser.push(encoder.encode("data: caf\u00e9 \u{1F642}\n\n"));
  parser.push(new Uint8Array([...encoder.encode("data: ab\ndata: c"), 0xc0, 0xaf, ...encoder.encode("\n\n")]));
  assert.deepEqual(seen, [undefined, [4, 5]]);
});

Deno.test("invalidUtf8Offsets marks each maximal invalid subpart once, as a decoder writes U+FFFD", async () => {
  const { invalidUtf8Offsets } = await import("../../../client/sse.ts");
  const cases: [number[], number[]][] = [
    [[0x41, 0x42], []],
    [[0xff], [0]],
    [[0xc3, 0xa9], []],
    [[0xc0, 0xaf], [0, 1]], // overlong lead C0 is never valid; AF alone is a stray continuation
    [[0xe2, 0x82, 0x41], [0]], // cut short by an ASCII byte, which then starts over
    [[0xed, 0xa0, 0x80], [0, 1, 2]], // a surrogate: ED may not be followed by A0
    [[0xf0, 0x9f, 0x99, 0x82], []],
    [[0xf4, 0x90, 0x80, 0x80], [0, 1, 2, 3]], // above U+10FFFF
    [[0xf0, 0x9f, 0x99], [0]], // cut off by the end
  ];
  for (const [bytes, offsets] of cases) {
    assert.deepEqual(invalidUtf8Offsets(new Uint8Array(bytes)), offsets, bytes.map((b) => b.toString(16)).join(" "));
    const replaced = [...new TextDecoder().decode(new Uint8Array(bytes))].filter((c) => c === "\uFFFD").length;
    assert.equal(replaced, offsets.length, "one offset per U+FFFD the decoder writes");
  }
});
