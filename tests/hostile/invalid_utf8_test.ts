/**
 * Bytes that are not UTF-8 in a streamed answer: each one becomes U+FFFD in the text (3 bytes of outputs.jsonl)
 * and a byte offset in the line's invalid_utf8 (about 8 bytes), so a hostile engine filling a request's body bound
 * (MAX_STREAM_BODY_BYTES) with them wrote a line of 32.0 MB for 4.1 MB of bad bytes, and eight such requests passed
 * report's 256 MiB cap on outputs.jsonl. Bounded (MAX_INVALID_UTF8_SEQUENCES), the event that passes the bound is
 * not read, the request ends as malformed saying why, and its line stays far within a request's share.
 */
import assert from "node:assert/strict";
import { MAX_INVALID_UTF8_SEQUENCES, MAX_STREAM_BODY_BYTES } from "../../contract/mod.ts";
import { RESULT_FILE_CAPS } from "../../report/result_reader.ts";
import type { Wire } from "./_hostile_engine.ts";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { runHostile } from "./_run.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

const HEAD = new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"');
const TAIL = new TextEncoder().encode('"}}]}\n\n');
const BAD_PER_EVENT = 4096;
/** Events of bad bytes that fit the body bound with room for the ending. */
const EVENTS = Math.floor((MAX_STREAM_BODY_BYTES - 8 * 1024) / (HEAD.length + BAD_PER_EVENT + TAIL.length + 16));

/** Answer events whose content is nothing but 0xFF bytes, then a normal finish. */
async function badBytes(wire: Wire): Promise<void> {
  await wire.head();
  const event = new Uint8Array(HEAD.length + BAD_PER_EVENT + TAIL.length).fill(0xff);
  event.set(HEAD);
  event.set(TAIL, HEAD.length + BAD_PER_EVENT);
  for (let i = 0; i < EVENTS; i++) if (!await wire.chunk(event)) return;
  await wire.delta({}, "stop");
  await wire.usage();
  await wire.done();
  await wire.terminator();
}

/** The most bytes one request's line may take for a full run's 34 lines to stay under report's cap. */
const LINE_SHARE_BYTES = Math.floor(RESULT_FILE_CAPS.outputs / 34);

Deno.test("an answer of bytes that are not UTF-8 fills no more of outputs.jsonl than a request's share", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-utf8-" });
  try {
    const run = await runHostile(dir, { streams: { "sanity-I4": badBytes } }, { deadlineS: 120 });
    const line = run.lines.find((l) => l["request_id"] === "sanity-I4")!;
    const lineBytes = new TextEncoder().encode(JSON.stringify(line)).length;
    console.error(`${EVENTS * BAD_PER_EVENT} bad bytes: the request's line is ${lineBytes} bytes`);
    assert.ok(lineBytes < LINE_SHARE_BYTES, `${lineBytes} bytes, share ${LINE_SHARE_BYTES}`);
    const kept = (line["invalid_utf8"] as { byte_offsets: unknown[] }[]).reduce((n, e) => n + e.byte_offsets.length, 0);
    assert.equal(kept, MAX_INVALID_UTF8_SEQUENCES, "the offsets of every event read");
    assert.equal(line["end"], "malformed");
    const record = run.byId.get("sanity-I4");
    assert.equal(record?.status, "failed");
    assert.match(
      record?.error?.message ?? "",
      /passed 16384 byte sequences that are not UTF-8 \(event \d+ was not read\)/,
    );
    assert.deepEqual(run.report.validationProblems, []);
    const site = await verifyFolder(folderReader(run.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
