/**
 * The worst case of the chunk stamps one request keeps: a hostile engine fills the request's body bound
 * (MAX_STREAM_BODY_BYTES) with the smallest chunk that carries both reasoning and answer text, so each chunk is two
 * stamps (about 135,000). Unbounded, each such request added about 1.8 MB of ITL gaps to results.json, so nine of
 * the 22 passed report's 16 MiB cap and `report` refused the run's own result; bounded (MAX_CHUNK_STAMPS), the
 * result is written, `report`'s reader (with its caps) validates it, and each flooded record says why its reasoning
 * cadence is null. Two requests are flooded (parsing 4 MiB of tiny chunks takes seconds here); what the bound lets
 * 34 requests add to results.json is tests/unit/report/result_reader_caps_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_CHUNK_STAMPS, MAX_STREAM_BODY_BYTES, scheduleIds } from "../../contract/mod.ts";
import { readResultFolder } from "../../report/read_result.ts";
import { RESULT_FILE_CAPS } from "../../report/result_reader.ts";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import type { Wire } from "./_hostile_engine.ts";
import { runHostile, sharedBundle } from "./_run.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

/** The smallest event whose chunk carries nonempty reasoning and nonempty answer text (62 bytes). */
const TINY = 'data:{"choices":[{"delta":{"reasoning":"a","content":"b"}}]}\n\n';
const PER_WRITE = 256;
/** Room left for the finish, usage and [DONE] events and the HTTP chunk framing. */
const ENDING_BYTES = 8 * 1024;
const TINY_EVENTS = Math.floor((MAX_STREAM_BODY_BYTES - ENDING_BYTES) / TINY.length);

/** A finished stream of as many tiny chunks as the body bound allows, written a few kilobytes at a time. */
async function flood(wire: Wire): Promise<void> {
  await wire.head();
  const batch = TINY.repeat(PER_WRITE);
  for (let sent = 0; sent < TINY_EVENTS; sent += PER_WRITE) {
    if (!await wire.chunk(sent + PER_WRITE <= TINY_EVENTS ? batch : TINY.repeat(TINY_EVENTS - sent))) return;
  }
  await wire.delta({}, "stop");
  await wire.usage();
  await wire.done();
  await wire.terminator();
}

/** The warm-up and the last request: the bound holds at both ends of the run. */
const FLOODED = ["warmup", "sanity-T4"];

Deno.test("two requests flood their body bound with two-stamp chunks: each keeps the bound, and report validates the result", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-size-" });
  try {
    const run = await runHostile(dir, { streams: Object.fromEntries(FLOODED.map((id) => [id, flood])) }, {
      deadlineS: 120,
    });
    const ids = scheduleIds(false);
    assert.deepEqual(run.lines.map((line) => line["request_id"]), ids);
    const resultsBytes = (await Deno.stat(join(run.folder, "results.json"))).size;
    const outputsBytes = (await Deno.stat(join(run.folder, "outputs.jsonl"))).size;
    console.error(
      `${TINY_EVENTS} chunks x ${FLOODED.length} requests: results.json ${resultsBytes} bytes, ` +
        `outputs.jsonl ${outputsBytes} bytes`,
    );
    for (const line of run.lines) {
      const id = String(line["request_id"]);
      if (!FLOODED.includes(id)) {
        assert.equal(line["unstamped_chunks"], undefined, `${id}: a normal stream keeps every stamp`);
        continue;
      }
      assert.equal(line["end"], "finished", `${id}: the flood stays inside the body bound`);
      const kept = (line["chunk_offsets_us"] as unknown[]).length +
        (line["reasoning_chunk_offsets_us"] as unknown[]).length;
      assert.equal(kept, MAX_CHUNK_STAMPS, `${id}: stamps kept`);
      assert.equal(
        line["unstamped_chunks"],
        2 * TINY_EVENTS - MAX_CHUNK_STAMPS,
        `${id}: chunks counted past the bound`,
      );
      assert.equal(
        run.result.extensions?.reasoning_cadence?.[id],
        null,
        `${id}: no cadence from the first stamps only`,
      );
    }
    assert.equal(
      run.result.missing["/extensions/reasoning_cadence/sanity-T4"],
      `the stream carried ${2 * TINY_EVENTS} answer and reasoning chunks; the client stamped only the first ` +
        `${MAX_CHUNK_STAMPS} (a request's bound on kept stamps)`,
    );
    assert.ok(resultsBytes < RESULT_FILE_CAPS.results / 64, `results.json ${resultsBytes} bytes`);
    assert.ok(outputsBytes < RESULT_FILE_CAPS.outputs / 64, `outputs.jsonl ${outputsBytes} bytes`);
    assert.deepEqual(run.report.validationProblems, []);
    const { fixtures, corpusSha256 } = await sharedBundle();
    const read = await readResultFolder(run.folder, { fixtures, corpusSha256 });
    assert.equal(read.kind, "checked");
    assert.deepEqual(read.kind === "checked" ? read.problems : null, []);
    const site = await verifyFolder(folderReader(run.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, [], "the site's own rebuild agrees: no cadence past the bound");
    assert.equal(site.state, "verified");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
