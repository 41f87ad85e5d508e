import assert from "node:assert/strict";
import { encodeGguf, type GgufContent } from "../../../engine/gguf_writer.ts";
import { float16Bits } from "../../../engine/tiny_qwen3.ts";
import { readGguf } from "../../../probe/gguf_reader.ts";

function join(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function f32Bytes(values: number[]): Uint8Array {
  return new Uint8Array(new Float32Array(values).buffer);
}

Deno.test("a one-key, one-tensor file has exactly the GGUF v3 bytes worked out by hand", () => {
  const bytes = join(encodeGguf({
    metadata: [["a", { type: "uint32", value: 7 }]],
    tensors: [{ name: "t", dims: [2], type: "f32", data: f32Bytes([1, 2]) }],
  }));
  const expectedHead = [
    ...[0x47, 0x47, 0x55, 0x46], // "GGUF"
    ...[3, 0, 0, 0], // version 3
    ...[1, 0, 0, 0, 0, 0, 0, 0], // one tensor
    ...[1, 0, 0, 0, 0, 0, 0, 0], // one key
    ...[1, 0, 0, 0, 0, 0, 0, 0, 0x61], // key "a"
    ...[4, 0, 0, 0], // uint32
    ...[7, 0, 0, 0], // 7
    ...[1, 0, 0, 0, 0, 0, 0, 0, 0x74], // tensor "t"
    ...[1, 0, 0, 0], // one dimension
    ...[2, 0, 0, 0, 0, 0, 0, 0], // of 2
    ...[0, 0, 0, 0], // f32
    ...[0, 0, 0, 0, 0, 0, 0, 0], // offset 0
  ];
  // 74 header bytes, padded to 96 (alignment 32), then 8 data bytes padded to 32.
  assert.equal(expectedHead.length, 74);
  assert.deepEqual([...bytes.subarray(0, 74)], expectedHead);
  assert.deepEqual([...bytes.subarray(74, 96)], new Array(22).fill(0));
  assert.deepEqual([...bytes.subarray(96, 104)], [...f32Bytes([1, 2])]);
  assert.equal(bytes.length, 128);
});

Deno.test("every metadata type and array kind reads back with its type and value", () => {
  const content: GgufContent = {
    metadata: [
      ["u8", { type: "uint8", value: 255 }],
      ["i8", { type: "int8", value: -128 }],
      ["u16", { type: "uint16", value: 65535 }],
      ["i16", { type: "int16", value: -32768 }],
      ["u32", { type: "uint32", value: 4294967295 }],
      ["i32", { type: "int32", value: -2147483648 }],
      ["f32", { type: "float32", value: 0.5 }],
      ["b", { type: "bool", value: true }],
      ["s", { type: "string", value: "qwen3 ☃ <think>" }],
      ["u64", { type: "uint64", value: 2n ** 64n - 1n }],
      ["i64", { type: "int64", value: -(2n ** 63n) }],
      ["f64", { type: "float64", value: 1e-300 }],
      ["tokens", { type: "array", itemType: "string", values: ["Ġ", "Ċ", ""] }],
      ["types", { type: "array", itemType: "int32", values: [1, 3, 4] }],
      ["flags", { type: "array", itemType: "bool", values: [false, true] }],
      ["empty", { type: "array", itemType: "uint32", values: [] }],
    ],
    tensors: [],
  };
  const file = readGguf(join(encodeGguf(content)));
  assert.equal(file.version, 3);
  assert.deepEqual([...file.metadata.keys()], content.metadata.map(([k]) => k));
  for (const [key, value] of content.metadata) {
    const read = file.metadata.get(key)!;
    if (value.type === "uint64" || value.type === "int64") {
      assert.equal(read.type === value.type && read.value, value.value);
    } else assert.deepEqual(read, value, key);
  }
});

Deno.test("tensor data starts aligned and each tensor's offset is a multiple of the alignment", () => {
  for (const alignment of [32, 64]) {
    const file = readGguf(join(encodeGguf({
      metadata: [["general.architecture", { type: "string", value: "x" }]],
      alignment,
      tensors: [
        { name: "a", dims: [3], type: "f32", data: f32Bytes([1, 2, 3]) },
        { name: "b", dims: [5, 2], type: "f16", data: new Uint8Array(20).fill(1) },
        { name: "c", dims: [1], type: "f32", data: f32Bytes([9]) },
      ],
    })));
    assert.equal(file.alignment, alignment);
    assert.equal(file.dataStart % alignment, 0);
    assert.deepEqual(file.tensors.map((t) => t.offset), [0, alignment, 2 * alignment]);
    assert.deepEqual(file.tensors.map((t) => t.dims), [[3], [5, 2], [1]]);
    assert.equal(file.metadata.has("general.alignment"), alignment !== 32);
  }
});

Deno.test("bad input is refused: duplicate keys or tensors, wrong data size, out-of-range integers, bad alignment", () => {
  const t = { name: "t", dims: [2], type: "f32" as const, data: f32Bytes([1, 2]) };
  assert.throws(
    () =>
      encodeGguf({
        metadata: [["k", { type: "bool", value: true }], ["k", { type: "bool", value: false }]],
        tensors: [],
      }),
    TypeError,
  );
  assert.throws(() => encodeGguf({ metadata: [], tensors: [t, t] }), TypeError);
  assert.throws(() => encodeGguf({ metadata: [], tensors: [{ ...t, dims: [3] }] }), /12 expected/);
  assert.throws(() => encodeGguf({ metadata: [["k", { type: "uint8", value: 256 }]], tensors: [] }), RangeError);
  assert.throws(() => encodeGguf({ metadata: [["k", { type: "int32", value: 1.5 }]], tensors: [] }), RangeError);
  assert.throws(() => encodeGguf({ metadata: [["k", { type: "uint64", value: -1n }]], tensors: [] }), RangeError);
  assert.throws(() => encodeGguf({ metadata: [], tensors: [], alignment: 24 }), RangeError);
});

Deno.test("the reader refuses a bad magic, another version, and a truncated file", () => {
  const good = join(encodeGguf({ metadata: [["k", { type: "string", value: "v" }]], tensors: [] }));
  const badMagic = good.slice();
  badMagic[0] = 0x58;
  assert.throws(() => readGguf(badMagic), /bad magic/);
  const v2 = good.slice();
  v2[4] = 2;
  assert.throws(() => readGguf(v2), /version 2/);
  assert.throws(() => readGguf(good.subarray(0, 30)), /truncated/);
});

Deno.test("float16Bits rounds to nearest even and covers zero, subnormals, overflow and NaN", () => {
  assert.equal(float16Bits(1), 0x3c00);
  assert.equal(float16Bits(-2), 0xc000);
  assert.equal(float16Bits(0.1), 0x2e66);
  assert.equal(float16Bits(65504), 0x7bff);
  assert.equal(float16Bits(65520), 0x7c00); // rounds up past the largest half: infinity
  assert.equal(float16Bits(1 + 2 ** -11), 0x3c00); // tie between 1 and 1+2^-10 goes to even
  assert.equal(float16Bits(1 + 3 * 2 ** -11), 0x3c02); // tie goes up to even
  assert.equal(float16Bits(2 ** -24), 0x0001); // smallest subnormal
  assert.equal(float16Bits(2 ** -26), 0x0000);
  assert.equal(float16Bits(-0), 0x8000);
  assert.equal(float16Bits(Infinity), 0x7c00);
  assert.equal(float16Bits(NaN) & 0x7c00, 0x7c00);
  assert.notEqual(float16Bits(NaN) & 0x3ff, 0);
});
