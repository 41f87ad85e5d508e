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
import code from "../../../load/corpus/code-v1.json" with { type: "json" };

Deno.test("each pinned corpus manifest matches every file of its installed package, byte for byte", async () => {
  for (const [corpus, ending] of [[manifest, ".txt"], [code, ".js"]] as const) {
    const dir = corpusFilePath("", corpus);
    const names = (await readdir(dir)).filter((n) => n.endsWith(ending)).sort();
    assert.deepEqual(names, corpus.files.map(([n]) => n));
    for (const [name, sha, chars] of corpus.files as [string, string, number][]) {
      const text = await readFile(`${dir}/${name}`, "utf8");
      assert.equal(createHash("sha256").update(text).digest("hex"), sha, name);
      assert.equal(text.length, chars, name);
    }
    assert.match(corpusManifestSha256(corpus), /^[0-9a-f]{64}$/);
  }
  assert.notEqual(corpusManifestSha256(code), corpusManifestSha256());
  assert.equal(code.package_license, "MIT");
});

Deno.test("code-medium is whole lines of the pinned source code, indentation kept, after its instruction", async () => {
  const built = await realTextProfile(
    "code-medium",
    { isl: 1024, osl: 512 },
    { seed: 5, count: 8 },
    (p) => readFile(p, "utf8"),
  );
  assert.equal(built.provenance.corpus, "code-v1");
  assert.equal(built.provenance.package, "jsonc-parser");
  const sources = new Map(
    await Promise.all(
      code.files.map(async ([n]) => [n, await readFile(corpusFilePath(n as string, code), "utf8")] as const),
    ),
  );
  for (const entry of built.entries) {
    const [instruction, body] = entry.messages[0]!.content.split(/\n\n([\s\S]*)/);
    assert.match(instruction!, /^Review the JavaScript below/);
    // The body is a run of whole lines of one pinned file, exactly as it is there.
    const file = [...sources.values()].find((text) => text.includes(`\n${body}\n`) || text.startsWith(`${body}\n`));
    assert.ok(file !== undefined, body!.slice(0, 120));
    assert.ok(Math.abs(body!.length - 4000) < 400, `${body!.length} characters`);
  }
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
