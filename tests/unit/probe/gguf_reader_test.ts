import assert from "node:assert/strict";
import { encodeGguf, type GgufContent } from "../../../engine/gguf_writer.ts";
import { readGguf } from "../../../probe/gguf_reader.ts";

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.length);
  return out;
}

const content: GgufContent = {
  metadata: [
    ["general.architecture", { type: "string", value: "qwen3" }],
    ["tokenizer.ggml.tokens", { type: "array", itemType: "string", values: ["a", "b", "c"] }],
  ],
  tensors: [{ name: "w", dims: [4, 2], type: "f16", data: new Uint8Array(16) }],
};
const file = join(encodeGguf(content));

/** Position of an ASCII text in the bytes (a key or tensor name, just after its u64 length). */
function indexOf(bytes: Uint8Array, text: string): number {
  const needle = new TextEncoder().encode(text);
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    if (needle.every((b, j) => bytes[i + j] === b)) return i;
  }
  throw new RangeError(`no ${text}`);
}
/** End of the tensor infos: the one tensor "w" (u64 length, name, u32 dims, 2 u64, u32 type, u64 offset). */
const infosEnd = indexOf(file, "\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000w") + 9 + 4 + 16 + 4 + 8;

/** Writes a little-endian u64 at `at`. */
function setU64(bytes: Uint8Array, at: number, value: bigint): Uint8Array {
  const copy = bytes.slice();
  new DataView(copy.buffer).setBigUint64(at, value, true);
  return copy;
}

Deno.test("a header read from leading bytes skips arrays but records their length, and names tensor types", () => {
  const header = readGguf(file.subarray(0, infosEnd), { wholeFile: false, keepArrays: false });
  assert.equal(header.metadata.has("tokenizer.ggml.tokens"), false);
  assert.deepEqual(header.skippedArrays.get("tokenizer.ggml.tokens"), { itemType: "string", length: 3 });
  assert.deepEqual(header.tensors.map((t) => [t.name, t.type, t.dims, t.byteLength]), [["w", "F16", [4, 2], 16]]);
  assert.throws(() => readGguf(file.subarray(0, infosEnd)), /runs past the end/);
});

Deno.test("every truncation of a header is a SyntaxError, never another error or a result", () => {
  for (let n = 0; n < infosEnd; n++) {
    assert.throws(() => readGguf(file.subarray(0, n), { wholeFile: false }), SyntaxError, `at ${n} bytes`);
  }
});

Deno.test("hostile counts are refused before anything is allocated: metadata, tensors, arrays, strings, dims", () => {
  // Header: magic (4) version (4) tensor count (8 at 8) metadata count (8 at 16); first key length at 24.
  assert.throws(() => readGguf(setU64(file, 16, 2n ** 52n)), /metadata count claims/);
  assert.throws(() => readGguf(setU64(file, 8, 2n ** 52n)), /tensor count claims/);
  assert.throws(() => readGguf(setU64(file, 24, 2n ** 50n)), /truncated/);
  assert.throws(() => readGguf(setU64(file, 24, 2n ** 63n)), /too large/);
  const arrayCountAt = indexOf(file, "tokenizer.ggml.tokens") + 21 + 4 + 4;
  assert.throws(() => readGguf(setU64(file, arrayCountAt, 2n ** 40n)), /array "tokenizer.ggml.tokens" claims/);
  const badUtf8 = file.slice();
  badUtf8[24 + 8] = 0xff;
  assert.throws(() => readGguf(badUtf8), /not UTF-8/);
  const manyDims = join(
    encodeGguf({ metadata: [], tensors: [{ name: "t", dims: [1], type: "f32", data: new Uint8Array(4) }] }),
  );
  // Tensor info starts at 24: name length 8, "t", then the dimension count.
  new DataView(manyDims.buffer).setUint32(24 + 8 + 1, 1_000_000, true);
  assert.throws(() => readGguf(manyDims), /claims 1000000 dimensions/);
});
