/**
 * GGUF v3 decoder for the tests to check what engine/'s writer produced: metadata with its types, tensor
 * descriptions, and where each tensor's bytes are. Reads a whole file held in memory.
 */
import { GGML_TYPES, GGUF_VALUE_TYPES, type GgufScalarType, type GgufValue } from "../../../engine/gguf_writer.ts";

/** One tensor description as stored, with its absolute byte range in the file. */
export interface GgufTensorInfo {
  name: string;
  dims: number[];
  type: keyof typeof GGML_TYPES;
  /** Offset relative to the data section, as stored. */
  offset: number;
  /** Absolute position of the first byte in the file. */
  start: number;
  byteLength: number;
}

/** A decoded GGUF file. */
export interface GgufFile {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Absolute position of the data section. */
  dataStart: number;
}

const TYPE_NAMES = new Map<number, keyof typeof GGUF_VALUE_TYPES>(
  Object.entries(GGUF_VALUE_TYPES).map(([name, code]) => [code, name as keyof typeof GGUF_VALUE_TYPES]),
);
const GGML_NAMES = new Map<number, keyof typeof GGML_TYPES>(
  Object.entries(GGML_TYPES).map(([name, t]) => [t.code, name as keyof typeof GGML_TYPES]),
);
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes a GGUF file.
 * @throws {SyntaxError} when the bytes are not a GGUF v3 file this reader understands (bad magic, unknown type,
 * truncated data, tensor data past the end).
 */
export function readGguf(bytes: Uint8Array): GgufFile {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new SyntaxError(`Cannot read GGUF: truncated at byte ${at}`);
  };
  const u32 = () => (need(4), at += 4, view.getUint32(at - 4, true));
  const u64 = () => {
    need(8);
    at += 8;
    const big = view.getBigUint64(at - 8, true);
    if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new SyntaxError(`Cannot read GGUF: ${big} is too large`);
    return Number(big);
  };
  const str = () => {
    const n = u64();
    need(n);
    at += n;
    return decoder.decode(bytes.subarray(at - n, at));
  };
  const scalar = (type: GgufScalarType): number | bigint | boolean | string => {
    switch (type) {
      case "uint8":
        return (need(1), at += 1, view.getUint8(at - 1));
      case "int8":
        return (need(1), at += 1, view.getInt8(at - 1));
      case "uint16":
        return (need(2), at += 2, view.getUint16(at - 2, true));
      case "int16":
        return (need(2), at += 2, view.getInt16(at - 2, true));
      case "uint32":
        return u32();
      case "int32":
        return (need(4), at += 4, view.getInt32(at - 4, true));
      case "float32":
        return (need(4), at += 4, view.getFloat32(at - 4, true));
      case "float64":
        return (need(8), at += 8, view.getFloat64(at - 8, true));
      case "uint64":
        return (need(8), at += 8, view.getBigUint64(at - 8, true));
      case "int64":
        return (need(8), at += 8, view.getBigInt64(at - 8, true));
      case "bool":
        return (need(1), at += 1, view.getUint8(at - 1) !== 0);
      case "string":
        return str();
    }
  };
  const typeName = (code: number) => {
    const name = TYPE_NAMES.get(code);
    if (name === undefined) throw new SyntaxError(`Cannot read GGUF: unknown value type ${code} at byte ${at - 4}`);
    return name;
  };

  need(4);
  if (decoder.decode(bytes.subarray(0, 4)) !== "GGUF") throw new SyntaxError("Cannot read GGUF: bad magic");
  at = 4;
  const version = u32();
  if (version !== 3) throw new SyntaxError(`Cannot read GGUF: version ${version}, only 3 is supported`);
  const tensorCount = u64();
  const metadataCount = u64();
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < metadataCount; i++) {
    const key = str();
    const type = typeName(u32());
    if (type === "array") {
      const itemType = typeName(u32());
      if (itemType === "array") throw new SyntaxError(`Cannot read GGUF: nested array at "${key}"`);
      const n = u64();
      const values: (number | bigint | boolean | string)[] = [];
      for (let j = 0; j < n; j++) values.push(scalar(itemType));
      metadata.set(key, { type: "array", itemType, values });
    } else {
      metadata.set(key, { type, value: scalar(type) } as GgufValue);
    }
  }
  const alignmentValue = metadata.get("general.alignment");
  const alignment = alignmentValue && alignmentValue.type === "uint32" ? Number(alignmentValue.value) : 32;
  const infos: Omit<GgufTensorInfo, "start">[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = str();
    const nDims = u32();
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(u64());
    const code = u32();
    const type = GGML_NAMES.get(code);
    if (type === undefined) throw new SyntaxError(`Cannot read GGUF: tensor "${name}" has unsupported type ${code}`);
    const offset = u64();
    const byteLength = dims.reduce((a, b) => a * b, 1) * GGML_TYPES[type].bytes;
    infos.push({ name, dims, type, offset, byteLength });
  }
  const dataStart = Math.ceil(at / alignment) * alignment;
  const tensors = infos.map((info) => {
    const start = dataStart + info.offset;
    if (info.offset % alignment !== 0) {
      throw new SyntaxError(`Cannot read GGUF: tensor "${info.name}" offset ${info.offset} is not aligned`);
    }
    if (start + info.byteLength > bytes.length) {
      throw new SyntaxError(`Cannot read GGUF: tensor "${info.name}" runs past the end of the file`);
    }
    return { ...info, start };
  });
  return { version, metadata, tensors, alignment, dataStart };
}
