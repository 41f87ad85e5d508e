/**
 * Engine-sent strings a request's record copies into results.json: a hostile engine puts its whole body bound
 * (MAX_STREAM_BODY_BYTES) into one finish_reason. Unbounded, the record held it twice (finish_reason and the
 * error's message) and a sanity request's verdict a third time, so two such requests made results.json 25.2 MB,
 * past report's 16 MiB cap, and `report` refused the run's own result (the run's self-check did not notice).
 * Bounded (MAX_FINISH_REASON_CHARS), the line keeps the first characters and counts the rest. The same for the
 * chunk that carried usage and timings (MAX_USAGE_CHUNK_CHARS): padded to the body bound with backslashes, the
 * line kept it twice with each backslash escaped again (20.9 MB) and the sanitizer, quadratic on the run, never
 * finished the run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_FINISH_REASON_CHARS, MAX_STREAM_BODY_BYTES, MAX_USAGE_CHUNK_CHARS } from "../../contract/mod.ts";
import { readResultFolder } from "../../report/read_result.ts";
import { RESULT_FILE_CAPS } from "../../report/result_reader.ts";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { chunkOf, timingsOf, usageOf, type Wire } from "./_hostile_engine.ts";
import { runHostile, sharedBundle } from "./_run.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

/** Room left for the answer, usage and [DONE] events and the HTTP chunk framing. */
const ENDING_BYTES = 8 * 1024;
const FINISH_CHARS = MAX_STREAM_BODY_BYTES - ENDING_BYTES;

/** A finished answer whose finish_reason fills the body bound. */
async function longFinish(wire: Wire): Promise<void> {
  await wire.head();
  await wire.delta({ content: "READY" });
  await wire.delta({}, "x".repeat(FINISH_CHARS));
  await wire.usage();
  await wire.done();
  await wire.terminator();
}

/** The run's self-check, `report`'s reader with its caps, and the site's check all accept the run's own result. */
async function assertJudgesAccept(run: { folder: string; report: { validationProblems: unknown[] } }): Promise<void> {
  assert.deepEqual(run.report.validationProblems, []);
  const { fixtures, corpusSha256 } = await sharedBundle();
  const read = await readResultFolder(run.folder, { fixtures, corpusSha256 });
  assert.equal(read.kind, "checked", read.kind === "checked" ? "" : JSON.stringify(read).slice(0, 400));
  assert.deepEqual(read.kind === "checked" ? read.problems : null, []);
  const site = await verifyFolder(folderReader(run.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
  assert.deepEqual(site.reasons, []);
}

const FLOODED = ["sanity-I1", "sanity-T4"];

Deno.test("two requests end with a finish_reason as long as the body bound: report validates the run's result", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-strings-" });
  try {
    const run = await runHostile(dir, { streams: Object.fromEntries(FLOODED.map((id) => [id, longFinish])) }, {
      deadlineS: 120,
    });
    const resultsBytes = (await Deno.stat(join(run.folder, "results.json"))).size;
    console.error(
      `finish_reason of ${FINISH_CHARS} characters x ${FLOODED.length}: results.json ${resultsBytes} bytes`,
    );
    for (const line of run.lines) {
      const id = String(line["request_id"]);
      if (!FLOODED.includes(id)) {
        assert.equal(line["finish_reason_cut_chars"], undefined, `${id}: a normal finish_reason is kept whole`);
        continue;
      }
      assert.equal(line["finish_reason"], "x".repeat(MAX_FINISH_REASON_CHARS), `${id}: the first characters kept`);
      assert.equal(line["finish_reason_cut_chars"], FINISH_CHARS - MAX_FINISH_REASON_CHARS, `${id}: the rest counted`);
      const record = run.byId.get(id);
      assert.equal(record?.status, "failed", `${id}: an unknown finish_reason fails the request`);
      assert.equal(record?.finish_reason, line["finish_reason"]);
      assert.match(
        record?.error?.message ?? "",
        new RegExp(`its first ${MAX_FINISH_REASON_CHARS} characters; ${FINISH_CHARS - MAX_FINISH_REASON_CHARS} more`),
      );
    }
    assert.ok(resultsBytes < RESULT_FILE_CAPS.results / 16, `results.json ${resultsBytes} bytes`);
    await assertJudgesAccept(run);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a finish_reason cut at its bound keeps no half of a surrogate pair: the run's self-check and report accept it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-strings-" });
  // The bound falls between the two halves of U+1F600.
  const finish = `${"x".repeat(MAX_FINISH_REASON_CHARS - 1)}\u{1F600}${"y".repeat(10)}`;
  try {
    const run = await runHostile(dir, {
      streams: {
        "sanity-I1": async (wire) => {
          await wire.head();
          await wire.delta({ content: "READY" });
          await wire.delta({}, finish);
          await wire.usage();
          await wire.done();
          await wire.terminator();
        },
      },
    });
    const line = run.lines.find((l) => l["request_id"] === "sanity-I1");
    assert.equal(line?.["finish_reason"], "x".repeat(MAX_FINISH_REASON_CHARS - 1));
    assert.equal(line?.["finish_reason_cut_chars"], finish.length - (MAX_FINISH_REASON_CHARS - 1));
    assert.equal(run.byId.get("sanity-I1")?.status, "failed");
    await assertJudgesAccept(run);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a finished stream with a short unknown finish_reason fails its request, and the site's rebuild agrees", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-strings-" });
  try {
    const run = await runHostile(dir, { streams: { "sanity-I1": (wire) => wire.normal("content_filter") } });
    const record = run.byId.get("sanity-I1");
    assert.equal(record?.status, "failed");
    assert.equal(record?.error?.kind, "finish_reason");
    assert.deepEqual(run.report.validationProblems, []);
    const site = await verifyFolder(folderReader(run.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, [], "the site reads the same error kind from the line's finish_reason");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A JS string of backslashes that fills the body bound once JSON doubles each one (2 MiB less room for the rest). */
const PAD = "\\".repeat(2 * 1024 * 1024 - ENDING_BYTES);
const PADDED_CHUNK = { ...chunkOf([]), usage: usageOf(100, 12), timings: timingsOf(100, 12), pad: PAD };
const PADDED_CHARS = JSON.stringify(PADDED_CHUNK).length;

/** A finished answer whose last chunk carries usage and timings and is padded to the body bound with backslashes. */
async function paddedUsage(wire: Wire): Promise<void> {
  await wire.head();
  await wire.delta({ content: "READY" });
  await wire.delta({}, "stop");
  await wire.event(PADDED_CHUNK);
  await wire.done();
  await wire.terminator();
}

Deno.test("a usage and timings chunk padded with 2 MiB of backslashes: the run ends, keeps the bound, and report validates", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-strings-" });
  try {
    const started = performance.now();
    const run = await runHostile(dir, { streams: { "sanity-I4": paddedUsage } }, { deadlineS: 120 });
    const outputsBytes = (await Deno.stat(join(run.folder, "outputs.jsonl"))).size;
    console.error(
      `usage chunk of ${PADDED_CHARS} characters: run ${((performance.now() - started) / 1000).toFixed(1)} s, ` +
        `outputs.jsonl ${outputsBytes} bytes`,
    );
    for (const line of run.lines) {
      const id = String(line["request_id"]);
      if (id !== "sanity-I4") {
        assert.equal(line["usage_chunk_cut_chars"], undefined, `${id}: a normal usage chunk is kept whole`);
        assert.equal(line["timings_chunk_cut_chars"], undefined, `${id}: a normal timings chunk is kept whole`);
        continue;
      }
      const kept = JSON.stringify(PADDED_CHUNK).slice(0, MAX_USAGE_CHUNK_CHARS);
      assert.equal(line["usage_chunk"], kept, "the first characters kept");
      // The same chunk carried both: written once (timings_in_usage_chunk).
      assert.equal(line["timings_in_usage_chunk"], true);
      assert.equal(line["usage_chunk_cut_chars"], PADDED_CHARS - MAX_USAGE_CHUNK_CHARS, "the rest counted");
      assert.equal(line["timings_chunk_cut_chars"], PADDED_CHARS - MAX_USAGE_CHUNK_CHARS, "the rest counted");
    }
    const index = run.result.requests.findIndex((r) => r.id === "sanity-I4");
    const record = run.result.requests[index];
    assert.equal(record?.tokens.input_tokens, null, "the counts of a cut chunk are not read");
    assert.match(
      run.result.missing[`/requests/${index}/tokens/input_tokens`] ?? "",
      new RegExp(`was ${PADDED_CHARS} characters; the client kept its first ${MAX_USAGE_CHUNK_CHARS}`),
    );
    assert.ok(outputsBytes < RESULT_FILE_CAPS.outputs / 128, `outputs.jsonl ${outputsBytes} bytes`);
    await assertJudgesAccept(run);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
