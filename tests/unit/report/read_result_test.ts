import assert from "node:assert/strict";
import { join } from "node:path";
import type { Result } from "../../../contract/mod.ts";
import { readResultFolder, resentRequests } from "../../../report/read_result.ts";
import { loadBundle } from "../../../fixtures/mod.ts";

async function withFolder(files: Record<string, string>, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("report names the requests the client resent on a fresh connection, from the evidence lines", async () => {
  const lines = [
    { request_id: "warmup", resent_on_fresh_connection: false },
    { request_id: "performance-short-r1", resent_on_fresh_connection: true },
    { request_id: "sanity-T4", status: "skipped" },
  ].map((line) => `${JSON.stringify(line)}\n`).join("");
  await withFolder({ "outputs.jsonl": lines }, async (dir) => {
    const result = { artifacts: [{ kind: "outputs", path: "outputs.jsonl", sha256: "" }] } as unknown as Result;
    assert.deepEqual(await resentRequests(dir, result), ["performance-short-r1"]);
    assert.deepEqual(await resentRequests(dir, { artifacts: [] } as unknown as Result), []);
  });
});

Deno.test("a folder without results.json but with evidence is an interrupted run; an empty one is no result", async () => {
  const bundle = await loadBundle();
  await withFolder({ "outputs.jsonl": '{"request_id":"warmup","status":"skipped"}\n' }, async (dir) => {
    const read = await readResultFolder(dir, bundle);
    assert.equal(read.kind, "interrupted");
    assert.match(read.kind === "interrupted" ? read.message : "", /interrupted run: it has no results\.json/);
  });
  await withFolder({}, async (dir) => {
    const read = await readResultFolder(dir, bundle);
    assert.equal(read.kind, "unreadable");
  });
  await withFolder({ "results.json": '{"format":"other"}' }, async (dir) => {
    const read = await readResultFolder(dir, bundle);
    assert.ok(read.kind === "checked" && read.problems[0]?.pointer === "/format", JSON.stringify(read));
  });
});
