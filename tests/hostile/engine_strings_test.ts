/**
 * Engine-sent strings a request's record copies into results.json, and how both judges read them.
 */
import assert from "node:assert/strict";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { runHostile } from "./_run.ts";

Deno.test("a finished stream with a short unknown finish_reason fails its request, and the site's rebuild agrees", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-strings-" });
  try {
    const run = await runHostile(dir, { streams: { "sanity-I1": (wire) => wire.normal("content_filter") } });
    const record = run.byId.get("sanity-I1");
    assert.equal(record?.status, "failed");
    assert.equal(record?.error?.kind, "finish_reason");
    assert.deepEqual(run.report.validationProblems, []);
    const site = await verifyFolder(folderReader(run.folder), { protocols: KNOWN_PROTOCOLS });
    assert.deepEqual(site.reasons, [], "the site reads the same error kind from the line's finish_reason");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
