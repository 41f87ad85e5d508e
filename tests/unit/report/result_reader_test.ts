import assert from "node:assert/strict";
import { FolderFileError } from "../../../runtime/mod.ts";
import { artifactReaderOf, capOf, interruptedEvidence, RESULT_FILE_CAPS } from "../../../report/result_reader.ts";

Deno.test("each file of a result folder has its cap: results.json, outputs.jsonl, anything else", () => {
  assert.equal(capOf("results.json"), RESULT_FILE_CAPS.results);
  assert.equal(capOf("outputs.jsonl"), RESULT_FILE_CAPS.outputs);
  assert.equal(capOf("template.jinja"), RESULT_FILE_CAPS.other);
});

Deno.test("the artifact reader gives null for an absent file and throws every other refusal", async () => {
  const reader = artifactReaderOf({
    read: (path, maxBytes) => {
      if (path === "absent") return Promise.reject(new FolderFileError(path, "not_found", "absent"));
      if (path === "link") return Promise.reject(new FolderFileError(path, "symlink", "a link"));
      assert.equal(maxBytes, capOf(path));
      return Promise.resolve(new Uint8Array([1]));
    },
  });
  assert.equal(await reader("absent"), null);
  await assert.rejects(reader("link"), /a link/);
  assert.deepEqual(await reader("outputs.jsonl"), new Uint8Array([1]));
});

Deno.test("an interrupted run's evidence is counted by request, its cut last line and junk lines apart", () => {
  const lines = [
    '{"request_id":"warmup","status":"completed"}',
    '{"request_id":"performance-short-r1","status":"failed"}',
    "not json at all",
    '{"request_id":"warmup","status":"completed"}',
    '{"request_id":"sanity-I1","status":"skipped"}',
  ];
  const held = interruptedEvidence(new TextEncoder().encode(`${lines.join("\n")}\n{"request_id":"perf`));
  assert.deepEqual(held, { requests: 3, sent: 2, unreadableLines: 3, lastLineCut: true });
  assert.deepEqual(interruptedEvidence(new Uint8Array()), {
    requests: 0,
    sent: 0,
    unreadableLines: 0,
    lastLineCut: false,
  });
});
