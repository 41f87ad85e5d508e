/**
 * GGUF version 3 encoder (the file format llama.cpp loads): a header, typed key/value metadata (arrays
 * included), tensor descriptions, and the tensor data, each tensor's bytes starting at a multiple of the
 * alignment counted from the start of the data section. All integers are little-endian.
 *
 * Layout: "GGUF" | u32 version | u64 tensor count | u64 metadata count | metadata | tensor infos | padding |
 * data. A string is u64 byte length + UTF-8 bytes. A tensor info is name, u32 dimension count, u64 per
 * dimension (innermost first, ggml's ne order), u32 ggml type, u64 offset into the data section.
 */
import { GGUF_VALUE_TYPES, type GgufScalarType, type GgufValue } from "../probe/mod.ts";

export type { GgufValue };

/** ggml tensor types the writer supports, with their type codes and bytes per element. */
export const GGML_TYPES = {
  f32: { code: 0, bytes: 4 },
  f16: { code: 1, bytes: 2 },
} as const;

/** One tensor: name, shape in ggml order (innermost dimension first), type and raw little-endian bytes. */
export interface GgufTensor {
  name: string;
  dims: readonly number[];
  type: keyof typeof GGML_TYPES;
  data: Uint8Array;
}

/** Everything one GGUF file holds. Metadata keys keep the given order. */
export interface GgufContent {
  metadata: readonly (readonly [string, GgufValue])[];
  tensors: readonly GgufTensor[];
  /** Data alignment in bytes (default 32, llama.cpp's default); written as general.alignment when not 32. */
  alignment?: number;
}

/** The GGUF magic "GGUF" and the version this writer produces. */
export const GGUF_MAGIC = "GGUF";
export const GGUF_VERSION = 3;
const DEFAULT_ALIGNMENT = 32;

const encoder = new TextEncoder();

/** Growable little-endian byte sink. */
class ByteSink {
  #buffer = new Uint8Array(1 << 16);
  #view = new DataView(this.#buffer.buffer);
  length = 0;

  #reserve(extra: number): void {
    if (this.length + extra <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buffer.subarray(0, this.length));
    this.#buffer = next;
    this.#view = new DataView(next.buffer);
  }
  bytes(bytes: Uint8Array): void {
    this.#reserve(bytes.length);
    this.#buffer.set(bytes, this.length);
    this.length += bytes.length;
  }
  u8(v: number): void {
    this.#reserve(1);
    this.#view.setUint8(this.length, v);
    this.length += 1;
  }
  scalar(type: GgufScalarType, value: number | bigint | boolean | string, where: string): void {
    if (type === "string") {
      if (typeof value !== "string") throw new TypeError(`Cannot encode ${where}: expected a string`);
      const utf8 = encoder.encode(value);
      this.scalar("uint64", utf8.length, where);
      this.bytes(utf8);
      return;
    }
    if (type === "bool") {
      if (typeof value !== "boolean") throw new TypeError(`Cannot encode ${where}: expected a boolean`);
      this.u8(value ? 1 : 0);
      return;
    }
    if (typeof value !== "number" && typeof value !== "bigint") {
      throw new TypeError(`Cannot encode ${where}: expected a number for ${type}`);
    }
    const size =
      { uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, float32: 4, uint64: 8, int64: 8, float64: 8 }[
        type
      ];
    this.#reserve(size);
    const at = this.length;
    const v = this.#view;
    if (type === "float32") v.setFloat32(at, Number(value), true);
    else if (type === "float64") v.setFloat64(at, Number(value), true);
    else if (type === "uint64" || type === "int64") {
      const big = BigInt(value);
      const ok = type === "uint64" ? big >= 0n && big < 1n << 64n : big >= -(1n << 63n) && big < 1n << 63n;
      if (!ok) throw new RangeError(`Cannot encode ${where}: ${big} does not fit ${type}`);
      if (type === "uint64") v.setBigUint64(at, big, true);
      else v.setBigInt64(at, big, true);
    } else {
      const n = Number(value);
      const bits = size * 8;
      const signed = type.startsWith("int");
      const min = signed ? -(2 ** (bits - 1)) : 0;
      const max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
      if (!Number.isInteger(n) || n < min || n > max) {
        throw new RangeError(`Cannot encode ${where}: ${n} is not an integer in ${type}'s range`);
      }
      if (type === "uint8") v.setUint8(at, n);
      else if (type === "int8") v.setInt8(at, n);
      else if (type === "uint16") v.setUint16(at, n, true);
      else if (type === "int16") v.setInt16(at, n, true);
      else if (type === "uint32") v.setUint32(at, n, true);
      else v.setInt32(at, n, true);
    }
    this.length += size;
  }
  pad(alignment: number): void {
    while (this.length % alignment !== 0) this.u8(0);
  }
  result(): Uint8Array {
    return this.#buffer.slice(0, this.length);
  }
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/**
 * Encodes a GGUF v3 file. The header and metadata are built in memory; the result is a list of byte chunks
 * (header, then each tensor's data and padding) so a large model is never copied into one buffer.
 * @throws {TypeError} on a value of the wrong type, a duplicate key or tensor name, or data of the wrong size.
 * @throws {RangeError} on an integer outside its type's range or a bad alignment.
 */
export function encodeGguf(content: GgufContent): Uint8Array[] {
  const alignment = content.alignment ?? DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment < 1 || (alignment & (alignment - 1)) !== 0) {
    throw new RangeError(`Cannot encode GGUF: alignment ${alignment} is not a power of two`);
  }
  const metadata = [...content.metadata];
  if (alignment !== DEFAULT_ALIGNMENT && !metadata.some(([key]) => key === "general.alignment")) {
    metadata.push(["general.alignment", { type: "uint32", value: alignment }]);
  }
  const keys = new Set<string>();
  for (const [key] of metadata) {
    if (keys.has(key)) throw new TypeError(`Cannot encode GGUF: metadata key "${key}" appears twice`);
    keys.add(key);
  }
  const head = new ByteSink();
  head.bytes(encoder.encode(GGUF_MAGIC));
  head.scalar("uint32", GGUF_VERSION, "version");
  head.scalar("uint64", content.tensors.length, "tensor count");
  head.scalar("uint64", metadata.length, "metadata count");
  for (const [key, value] of metadata) {
    head.scalar("string", key, "a metadata key");
    head.scalar("uint32", GGUF_VALUE_TYPES[value.type], key);
    if (value.type === "array") {
      head.scalar("uint32", GGUF_VALUE_TYPES[value.itemType], key);
      head.scalar("uint64", value.values.length, key);
      for (const item of value.values) head.scalar(value.itemType, item, key);
    } else {
      head.scalar(value.type, value.value, key);
    }
  }
  const names = new Set<string>();
  let offset = 0;
  const body: Uint8Array[] = [];
  for (const tensor of content.tensors) {
    if (names.has(tensor.name)) throw new TypeError(`Cannot encode GGUF: tensor "${tensor.name}" appears twice`);
    names.add(tensor.name);
    const elements = tensor.dims.reduce((a, b) => a * b, 1);
    const expected = elements * GGML_TYPES[tensor.type].bytes;
    if (tensor.data.length !== expected) {
      throw new TypeError(
        `Cannot encode tensor "${tensor.name}": ${tensor.data.length} bytes given, ${expected} expected for ` +
          `${tensor.type} [${tensor.dims.join(", ")}]`,
      );
    }
    head.scalar("string", tensor.name, "a tensor name");
    head.scalar("uint32", tensor.dims.length, tensor.name);
    for (const dim of tensor.dims) head.scalar("uint64", dim, tensor.name);
    head.scalar("uint32", GGML_TYPES[tensor.type].code, tensor.name);
    head.scalar("uint64", offset, tensor.name);
    body.push(tensor.data);
    const padded = alignUp(tensor.data.length, alignment);
    if (padded > tensor.data.length) body.push(new Uint8Array(padded - tensor.data.length));
    offset += padded;
  }
  head.pad(alignment);
  return [head.result(), ...body];
}
