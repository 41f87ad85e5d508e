import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { corpusFilePath, corpusManifestSha256, realTextProfile } from "../../../load/real_text.ts";
import manifest from "../../../load/corpus/sotu-v1.json" with { type: "json" };

Deno.test("the pinned corpus manifest matches every text file of the installed package, byte for byte", async () => {
  const dir = corpusFilePath("");
  const names = (await readdir(dir)).filter((n) => n.endsWith(".txt")).sort();
  assert.deepEqual(names, manifest.files.map(([n]) => n));
  for (const [name, sha, chars] of manifest.files as [string, string, number][]) {
    const text = await readFile(`${dir}/${name}`, "utf8");
    assert.equal(createHash("sha256").update(text).digest("hex"), sha, name);
    assert.equal(text.length, chars, name);
  }
  assert.match(corpusManifestSha256(), /^[0-9a-f]{64}$/);
});

Deno.test("a corpus file that differs from its pin, and an ISL no address can hold, are refused", async () => {
  await assert.rejects(
    realTextProfile("chat-short", { isl: 256, osl: 64 }, { seed: 1, count: 2 }, () => Promise.resolve("tampered")),
    /differs from its pinned SHA-256/,
  );
  await assert.rejects(
    realTextProfile("summarize-long", { isl: 80_000, osl: 64 }, { seed: 1, count: 2 }, (p) => readFile(p, "utf8")),
    RangeError,
  );
});
