import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { BUNDLE_DIR } from "../../../fixtures/mod.ts";
import { encodeBundleFiles, memoryBundleSource } from "../../../release/embedded_bundle.ts";

async function committedBundle(): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const name of await readdir(BUNDLE_DIR)) files.set(name, new Uint8Array(await readFile(join(BUNDLE_DIR, name))));
  return files;
}

Deno.test("the embedded bundle gives back every committed file byte for byte, in name order", async () => {
  const files = await committedBundle();
  const source = memoryBundleSource(encodeBundleFiles(files));
  const listed = await source.list();
  assert.deepEqual(listed.map((e) => e.name), [...files.keys()].sort());
  assert.ok(listed.every((e) => e.isFile));
  for (const [name, bytes] of files) assert.deepEqual(await source.read(name), bytes);
});

Deno.test("the embedded bundle answers null for a file it does not hold, including object keys", async () => {
  const source = memoryBundleSource({ "a.json": btoa("{}") });
  assert.equal(await source.read("b.json"), null);
  assert.equal(await source.read("toString"), null);
  assert.equal(await source.read("__proto__"), null);
});

Deno.test("encoding is deterministic: the same files in any order give the same text, and bytes survive exactly", () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0x0d, 0x0a]);
  const one = encodeBundleFiles(new Map([["b", bom], ["a", new Uint8Array([0xff, 0x00])]]));
  const two = encodeBundleFiles(new Map([["a", new Uint8Array([0xff, 0x00])], ["b", bom]]));
  assert.equal(JSON.stringify(one), JSON.stringify(two));
  assert.deepEqual(Object.keys(one), ["a", "b"]);
  assert.equal(one.b, "77u/e30NCg==");
});
