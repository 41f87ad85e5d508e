/**
 * GGUF v3 decoder: metadata with its types, tensor descriptions, and where each tensor's bytes are. It reads a
 * whole file held in memory (the writer's checks) or only a file's leading bytes (a model's header, for its
 * facts). Every count and length in the file is checked against the bytes present before it is used, so a
 * truncated or hostile header throws a SyntaxError instead of allocating or looping on a claimed size.
 */

/** Scalar metadata types with their GGUF type codes. */
export const GGUF_VALUE_TYPES = {
  uint8: 0,
  int8: 1,
  uint16: 2,
  int16: 3,
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
  uint64: 10,
  int64: 11,
  float64: 12,
} as const;

/** Name of a metadata element type that an array may hold. */
export type GgufScalarType = Exclude<keyof typeof GGUF_VALUE_TYPES, "array">;

/** One typed metadata value. 64-bit integers may be given as bigint. */
export type GgufValue =
  | { type: Exclude<GgufScalarType, "bool" | "string">; value: number | bigint }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "array"; itemType: GgufScalarType; values: readonly (number | bigint | boolean | string)[] };

/**
 * ggml tensor type names by type code (ggml's `ggml_type` numbering; retired codes are absent), with the bytes
 * per element of the unquantized types (quantized types store blocks; their sizes are not needed here).
 */
export const GGML_TYPE_NAMES: Readonly<Record<number, string>> = {
  0: "F32",
  1: "F16",
  2: "Q4_0",
  3: "Q4_1",
  6: "Q5_0",
  7: "Q5_1",
  8: "Q8_0",
  9: "Q8_1",
  10: "Q2_K",
  11: "Q3_K",
  12: "Q4_K",
  13: "Q5_K",
  14: "Q6_K",
  15: "Q8_K",
  16: "IQ2_XXS",
  17: "IQ2_XS",
  18: "IQ3_XXS",
  19: "IQ1_S",
  20: "IQ4_NL",
  21: "IQ3_S",
  22: "IQ2_S",
  23: "IQ4_XS",
  24: "I8",
  25: "I16",
  26: "I32",
  27: "I64",
  28: "F64",
  29: "IQ1_M",
  30: "BF16",
  34: "TQ1_0",
  35: "TQ2_0",
  39: "MXFP4",
};
const ELEMENT_BYTES: Readonly<Record<string, number>> = {
  F32: 4,
  F16: 2,
  BF16: 2,
  F64: 8,
  I8: 1,
  I16: 2,
  I32: 4,
  I64: 8,
};

/** One tensor description as stored, with its absolute byte range in the file. */
export interface GgufTensorInfo {
  name: string;
  dims: number[];
  /** ggml type name (F32, F16, Q4_K, ...), or `type <code>` for a code this reader does not name. */
  type: string;
  /** Offset relative to the data section, as stored. */
  offset: number;
  /** Absolute position of the first byte in the file. */
  start: number;
  /** Bytes of the tensor's data for an unquantized type; null for block-quantized and unnamed types. */
  byteLength: number | null;
}

/** A decoded GGUF file. */
export interface GgufFile {
  version: number;
  metadata: Map<string, GgufValue>;
  /** Arrays read past without keeping their values (`keepArrays: false`): key -> element type and length. */
  skippedArrays: Map<string, { itemType: GgufScalarType; length: number }>;
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Absolute position of the data section. */
  dataStart: number;
}

/** How much of a file readGguf is given, and what it keeps. */
export interface ReadGgufOptions {
  /** The bytes are the whole file (default): each tensor's data must lie inside them. */
  wholeFile?: boolean;
  /** Keep array values (default true); false skips them (a tokenizer's vocabulary), recording only their length. */
  keepArrays?: boolean;
}

/** Dimensions a tensor may have: ggml has at most 4; a larger count is a hostile or broken header. */
const MAX_DIMS = 8;
const TYPE_NAMES = new Map<number, keyof typeof GGUF_VALUE_TYPES>(
  Object.entries(GGUF_VALUE_TYPES).map(([name, code]) => [code, name as keyof typeof GGUF_VALUE_TYPES]),
);
/** Fewest bytes one element of each type takes (a string: its u64 length), to refuse a claimed count early. */
const MIN_BYTES: Readonly<Record<GgufScalarType, number>> = {
  uint8: 1,
  int8: 1,
  bool: 1,
  uint16: 2,
  int16: 2,
  uint32: 4,
  int32: 4,
  float32: 4,
  uint64: 8,
  int64: 8,
  float64: 8,
  string: 8,
};
const decoder = new TextDecoder("utf-8", { fatal: true });

/** How each fixed-size scalar is read at a byte offset (little-endian); its size is MIN_BYTES's. */
const SCALAR_READERS: Record<Exclude<GgufScalarType, "string">, (view: DataView, at: number) => GgufScalar> = {
  uint8: (view, at) => view.getUint8(at),
  int8: (view, at) => view.getInt8(at),
  bool: (view, at) => view.getUint8(at) !== 0,
  uint16: (view, at) => view.getUint16(at, true),
  int16: (view, at) => view.getInt16(at, true),
  uint32: (view, at) => view.getUint32(at, true),
  int32: (view, at) => view.getInt32(at, true),
  float32: (view, at) => view.getFloat32(at, true),
  uint64: (view, at) => view.getBigUint64(at, true),
  int64: (view, at) => view.getBigInt64(at, true),
  float64: (view, at) => view.getFloat64(at, true),
};

type GgufScalar = number | bigint | boolean | string;

/**
 * Decodes a GGUF file, or its leading bytes with `wholeFile: false`.
 * @throws {SyntaxError} when the bytes are not a GGUF v3 file this reader understands (bad magic, unknown value
 * type, a string that is not UTF-8, a count larger than the bytes left, truncated data, tensor data past the end).
 */
export function readGguf(bytes: Uint8Array, options: ReadGgufOptions = {}): GgufFile {
  const read = ggufCursor(bytes);
  read.need(4);
  if (decoder.decode(bytes.subarray(0, 4)) !== "GGUF") throw new SyntaxError("Cannot read GGUF: bad magic");
  read.skip("uint32");
  const version = read.u32();
  if (version !== 3) throw new SyntaxError(`Cannot read GGUF: version ${version}, only 3 is supported`);
  const tensorCount = read.u64();
  const metadataCount = read.u64();
  // A metadata entry takes at least 8 (key length) + 4 (type) + 1 bytes; a tensor info at least 8 + 4 + 4 + 8.
  read.fits(metadataCount, 13, "the metadata count");
  const { metadata, skippedArrays } = readMetadata(read, metadataCount, options.keepArrays ?? true);
  const alignmentValue = metadata.get("general.alignment");
  const alignment = alignmentValue && alignmentValue.type === "uint32" ? Number(alignmentValue.value) : 32;
  if (alignment < 1 || alignment > 1 << 20) throw new SyntaxError(`Cannot read GGUF: alignment ${alignment}`);
  read.fits(tensorCount, 24, "the tensor count");
  const infos = readTensorInfos(read, tensorCount);
  const dataStart = Math.ceil(read.at() / alignment) * alignment;
  const wholeFile = options.wholeFile ?? true;
  const tensors = infos.map((info) => {
    const start = dataStart + info.offset;
    if (info.offset % alignment !== 0) {
      throw new SyntaxError(`Cannot read GGUF: tensor "${info.name}" offset ${info.offset} is not aligned`);
    }
    if (wholeFile && (info.byteLength === null || start + info.byteLength > bytes.length)) {
      throw new SyntaxError(
        info.byteLength === null
          ? `Cannot read GGUF: tensor "${info.name}" has type ${info.type}, whose size this reader does not check`
          : `Cannot read GGUF: tensor "${info.name}" runs past the end of the file`,
      );
    }
    return { ...info, start };
  });
  return { version, metadata, skippedArrays, tensors, alignment, dataStart };
}

/** A read position over `bytes` and the reads of GGUF's values from it, each refusing what runs past the end. */
function ggufCursor(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new SyntaxError(`Cannot read GGUF: truncated at byte ${at}`);
  };
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
    try {
      return decoder.decode(bytes.subarray(at - n, at));
    } catch {
      throw new SyntaxError(`Cannot read GGUF: the string at byte ${at - n} is not UTF-8`);
    }
  };
  const scalar = (type: GgufScalarType): GgufScalar => {
    if (type === "string") return str();
    need(MIN_BYTES[type]);
    at += MIN_BYTES[type];
    return SCALAR_READERS[type](view, at - MIN_BYTES[type]);
  };
  return {
    at: () => at,
    need,
    u64,
    str,
    scalar,
    u32: () => scalar("uint32") as number,
    skip: (type: GgufScalarType) => {
      if (type !== "string") return (need(MIN_BYTES[type]), at += MIN_BYTES[type]);
      const n = u64();
      need(n);
      at += n;
    },
    typeName: (code: number) => {
      const name = TYPE_NAMES.get(code);
      if (name === undefined) throw new SyntaxError(`Cannot read GGUF: unknown value type ${code} at byte ${at - 4}`);
      return name;
    },
    /** A claimed count of items of at least `minBytes` each must fit in the bytes left. */
    fits: (count: number, minBytes: number, what: string) => {
      if (count * minBytes > bytes.length - at) {
        throw new SyntaxError(
          `Cannot read GGUF: truncated: ${what} claims ${count} items, more than the bytes left at ${at}`,
        );
      }
    },
  };
}

/** The metadata's `count` entries; arrays kept whole, or (without `keepArrays`) skipped with their type and length. */
function readMetadata(read: ReturnType<typeof ggufCursor>, count: number, keepArrays: boolean) {
  const metadata = new Map<string, GgufValue>();
  const skippedArrays = new Map<string, { itemType: GgufScalarType; length: number }>();
  for (let i = 0; i < count; i++) {
    const key = read.str();
    const type = read.typeName(read.u32());
    if (type === "array") {
      const itemType = read.typeName(read.u32());
      if (itemType === "array") throw new SyntaxError(`Cannot read GGUF: nested array at "${key}"`);
      const n = read.u64();
      read.fits(n, MIN_BYTES[itemType], `the array "${key}"`);
      if (!keepArrays) {
        for (let j = 0; j < n; j++) read.skip(itemType);
        skippedArrays.set(key, { itemType, length: n });
        continue;
      }
      const values: GgufScalar[] = [];
      for (let j = 0; j < n; j++) values.push(read.scalar(itemType));
      metadata.set(key, { type: "array", itemType, values });
    } else {
      metadata.set(key, { type, value: read.scalar(type) } as GgufValue);
    }
  }
  return { metadata, skippedArrays };
}

/** The `count` tensor descriptions: name, dimensions, type, data offset, and bytes where the type's size is known. */
function readTensorInfos(read: ReturnType<typeof ggufCursor>, count: number): Omit<GgufTensorInfo, "start">[] {
  const infos: Omit<GgufTensorInfo, "start">[] = [];
  for (let i = 0; i < count; i++) {
    const name = read.str();
    const nDims = read.u32();
    if (nDims > MAX_DIMS) throw new SyntaxError(`Cannot read GGUF: tensor "${name}" claims ${nDims} dimensions`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(read.u64());
    const code = read.u32();
    const type = GGML_TYPE_NAMES[code] ?? `type ${code}`;
    const offset = read.u64();
    const elementBytes = ELEMENT_BYTES[type];
    const byteLength = elementBytes === undefined ? null : dims.reduce((a, b) => a * b, 1) * elementBytes;
    infos.push({ name, dims, type, offset, byteLength });
  }
  return infos;
}
