import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { ensureTinyQwen3 } from "../../engine/mod.ts";
import { loadTokenizerSource, tinyQwen3Bytes } from "../../engine/tiny_model_file.ts";
import { TINY_QWEN3_DEFAULTS } from "../../engine/tiny_qwen3.ts";

Deno.test("the full tiny model is byte-for-byte reproducible from its seed and matches the cached file", async () => {
  const source = await loadTokenizerSource();
  const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const once = sha(tinyQwen3Bytes(TINY_QWEN3_DEFAULTS, source));
  const twice = sha(tinyQwen3Bytes(TINY_QWEN3_DEFAULTS, source));
  assert.equal(once, twice);
  const file = await ensureTinyQwen3();
  assert.equal(sha(await readFile(file.path)), once);
  assert.ok(file.sizeBytes > 10e6 && file.sizeBytes < 100e6, `${file.sizeBytes} bytes`);
});
