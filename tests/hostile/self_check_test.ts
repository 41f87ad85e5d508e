/**
 * The run's self-check reads results.json as `report` does, under report's cap (RESULT_FILE_CAPS): a result that
 * `report` would refuse for its size is one the run says it cannot stand behind, never one it calls valid. Here
 * the size comes from the run's own track notes, which results.json copies whole: what matters is that the
 * self-check and `report` read the same file under the same cap, whatever made it large.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readResultFolder } from "../../report/read_result.ts";
import { RESULT_FILE_CAPS } from "../../report/result_reader.ts";
import { runHostile, sharedBundle } from "./_run.ts";

const TRACK_NOTES = "n".repeat(RESULT_FILE_CAPS.results);

Deno.test("a results.json past report's cap fails the run's own self-check, as report refuses it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-self-check-" });
  try {
    const run = await runHostile(dir, {}, { trackNotes: TRACK_NOTES });
    const resultsBytes = (await Deno.stat(join(run.folder, "results.json"))).size;
    assert.ok(resultsBytes > RESULT_FILE_CAPS.results, `results.json ${resultsBytes} bytes`);
    const { fixtures, corpusSha256 } = await sharedBundle();
    const read = await readResultFolder(run.folder, { fixtures, corpusSha256 });
    const refused = read.kind === "checked" ? read.problems.map((p) => p.message) : [];
    assert.equal(refused.length, 1);
    assert.deepEqual(run.report.validationProblems.map((p) => p.message), refused);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
