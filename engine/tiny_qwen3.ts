/**
 * A tiny qwen3-architecture model with seeded random weights and a real Qwen3 tokenizer and chat template, so
 * llama-server can load and serve it: prompt processing, decoding, caching, slots, queueing and the HTTP API are
 * real, the text is gibberish. Same options and tokenizer -> same bytes.
 *
 * Two hidden channels are reserved so the random model behaves like a thinking model:
 * - channel 0 is nonzero only in the embedding of the "\n" token, which ends every generation prompt of the
 *   template ("<|im_start|>assistant\n"); the output row of `<think>` reads only that channel, so the first
 *   generated token is `<think>` and the rest of the answer is reasoning.
 * - channel 1 is a constant in every embedding; the end-of-turn row reads it (`eosBias`) and has a wider random
 *   part (`eosScale`), which sets how soon a generation ends on its own.
 * No layer writes channels 0 and 1 (those rows of attn_output and ffn_down are zero), so they reach the output
 * unchanged.
 */
import { createHash } from "node:crypto";
import type { GgufContent, GgufTensor, GgufValue } from "./gguf_writer.ts";

/** Shape and behaviour of the tiny model. */
export interface TinyQwen3Options {
  seed: number;
  embeddingLength: number;
  blockCount: number;
  headCount: number;
  headCountKv: number;
  headDim: number;
  feedForwardLength: number;
  contextLength: number;
  /** Width of the end-of-turn output row relative to the others (larger: earlier natural stops). */
  eosScale: number;
  /** Weight of the end-of-turn row on the constant channel. */
  eosBias: number;
}

/** The defaults `engine:model` writes: 2 layers, width 64, 4 query heads of 16, about 45 MB. */
export const TINY_QWEN3_DEFAULTS: Readonly<TinyQwen3Options> = {
  seed: 1,
  embeddingLength: 64,
  blockCount: 2,
  headCount: 4,
  headCountKv: 2,
  headDim: 16,
  feedForwardLength: 128,
  contextLength: 40960,
  eosScale: 2.2,
  eosBias: 0,
};

/** The tokenizer files the model takes its vocabulary and template from, parsed, with their SHA-256s. */
export interface TokenizerSource {
  /** Parsed tokenizer.json (Hugging Face tokenizers format, BPE model). */
  tokenizer: unknown;
  /** Parsed tokenizer_config.json (holds chat_template, eos_token, pad_token, add_bos_token). */
  config: unknown;
  tokenizerSha256: string;
  configSha256: string;
}

/** Version of this generator; part of the file name so a changed generator never reuses an old file. */
export const TINY_QWEN3_GENERATOR_VERSION = 1;

/** File name of the model for these options and tokenizer: `tiny-qwen3-<12 hex>.gguf`. */
export function tinyQwen3FileName(
  options: TinyQwen3Options,
  source: Pick<TokenizerSource, "tokenizerSha256" | "configSha256">,
): string {
  const identity = JSON.stringify({
    generator: TINY_QWEN3_GENERATOR_VERSION,
    options: Object.fromEntries(Object.entries(options).sort(([a], [b]) => a.localeCompare(b))),
    tokenizer: source.tokenizerSha256,
    config: source.configSha256,
  });
  return `tiny-qwen3-${createHash("sha256").update(identity).digest("hex").slice(0, 12)}.gguf`;
}

interface Vocabulary {
  tokens: string[];
  types: number[];
  merges: string[];
  ids: Map<string, number>;
}

/** llama.cpp token types: normal text, control (special), user-defined (added, not special). */
const TOKEN_TYPE = { normal: 1, control: 3, userDefined: 4 } as const;

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`Cannot build the tiny model: ${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

/** Token list (by id), token types and merges from a tokenizer.json with a BPE model. */
function readVocabulary(tokenizer: unknown): Vocabulary {
  const root = record(tokenizer, "tokenizer.json");
  const model = record(root.model, "tokenizer.json model");
  if (model.type !== "BPE") {
    throw new TypeError(`Cannot build the tiny model: tokenizer model is ${String(model.type)}, not BPE`);
  }
  const vocab = record(model.vocab, "tokenizer.json model.vocab");
  const byId = new Map<number, { text: string; type: number }>();
  for (const [text, id] of Object.entries(vocab)) {
    if (typeof id !== "number") throw new TypeError(`Cannot build the tiny model: token "${text}" has no numeric id`);
    byId.set(id, { text, type: TOKEN_TYPE.normal });
  }
  const added = Array.isArray(root.added_tokens) ? root.added_tokens : [];
  for (const entry of added) {
    const token = record(entry, "an added token");
    if (typeof token.id !== "number" || typeof token.content !== "string") {
      throw new TypeError("Cannot build the tiny model: an added token lacks id or content");
    }
    byId.set(token.id, {
      text: token.content,
      type: token.special === true ? TOKEN_TYPE.control : TOKEN_TYPE.userDefined,
    });
  }
  const tokens: string[] = [];
  const types: number[] = [];
  const ids = new Map<string, number>();
  for (let id = 0; id < byId.size; id++) {
    const token = byId.get(id);
    if (token === undefined) throw new TypeError(`Cannot build the tiny model: the vocabulary has no token ${id}`);
    tokens.push(token.text);
    types.push(token.type);
    ids.set(token.text, id);
  }
  const rawMerges = Array.isArray(model.merges) ? model.merges : [];
  const merges = rawMerges.map((m) => {
    if (typeof m === "string") return m;
    if (Array.isArray(m) && m.length === 2 && m.every((p) => typeof p === "string")) return `${m[0]} ${m[1]}`;
    throw new TypeError('Cannot build the tiny model: a merge is neither "a b" nor [a, b]');
  });
  return { tokens, types, merges, ids };
}

/** mulberry32: a small, fast 32-bit generator; one stream per tensor, seeded from the model seed and the name. */
function generator(seed: number, name: string): () => number {
  let state = createHash("sha256").update(`${seed}:${name}`).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Float32 -> IEEE half bits, round to nearest even (finite inputs of moderate size). */
export function float16Bits(value: number): number {
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  let e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let m = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    if (rest > half || (rest === half && (m & 1))) m++;
    return sign | m;
  }
  let m = mantissa >>> 13;
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (m & 1))) {
    m++;
    if (m === 0x400) {
      m = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | m;
}

/** A matrix of `rows` rows of `cols` values, filled row by row by `fill(row, col, random)`. */
function matrix(
  name: string,
  cols: number,
  rows: number,
  type: "f16" | "f32",
  seed: number,
  fill: (row: number, col: number, random: () => number) => number,
): GgufTensor {
  const random = generator(seed, name);
  const count = cols * rows;
  const data = new Uint8Array(count * (type === "f16" ? 2 : 4));
  const view = new DataView(data.buffer);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = fill(r, c, random);
      const i = r * cols + c;
      if (type === "f16") view.setUint16(i * 2, float16Bits(v), true);
      else view.setFloat32(i * 4, v, true);
    }
  }
  return { name, dims: rows === 1 ? [cols] : [cols, rows], type, data };
}

/** Uniform in [-a, a] with standard deviation `std`. */
function uniform(random: () => number, std: number): number {
  return (random() * 2 - 1) * std * Math.sqrt(3);
}

const ones = () => 1;
const TRIGGER = 0;
const CONSTANT = 1;

/**
 * Builds the GGUF content (metadata and tensors) of the tiny model.
 * @throws {TypeError} when the tokenizer files lack what the model needs (BPE model, contiguous ids, template,
 * the "\n", `<think>` and end-of-turn tokens).
 * @throws {RangeError} when the shape is inconsistent (width too small, heads not dividing).
 */
export function buildTinyQwen3(options: TinyQwen3Options, source: TokenizerSource): GgufContent {
  const o = options;
  if (o.embeddingLength < 8 || o.headCount % o.headCountKv !== 0 || o.headDim % 2 !== 0) {
    throw new RangeError("Cannot build the tiny model: width >= 8, headCount divisible by headCountKv, even headDim");
  }
  const vocab = readVocabulary(source.tokenizer);
  const config = record(source.config, "tokenizer_config.json");
  const template = config.chat_template;
  if (typeof template !== "string") {
    throw new TypeError("Cannot build the tiny model: tokenizer_config has no chat_template");
  }
  const idOf = (text: unknown, what: string): number => {
    const id = typeof text === "string" ? vocab.ids.get(text) : undefined;
    if (id === undefined) throw new TypeError(`Cannot build the tiny model: the vocabulary has no ${what} token`);
    return id;
  };
  const eos = idOf(config.eos_token, "end-of-turn (eos_token)");
  const pad = idOf(config.pad_token, "padding (pad_token)");
  const newline = idOf("\u010a", 'newline ("\\u010a")');
  const think = idOf("<think>", "<think>");
  const n = o.embeddingLength;
  const nVocab = vocab.tokens.length;
  const qWidth = o.headCount * o.headDim;
  const kvWidth = o.headCountKv * o.headDim;
  const ff = o.feedForwardLength;
  const free = (row: number) => row === TRIGGER || row === CONSTANT;
  const outStd = 1 / Math.sqrt(n - 2);
  const controlIds = new Set(vocab.types.flatMap((t, id) => (t === TOKEN_TYPE.control && id !== eos ? [id] : [])));

  const tensors: GgufTensor[] = [
    matrix("token_embd.weight", n, nVocab, "f16", o.seed, (row, col, random) => {
      if (col === TRIGGER) return row === newline ? 8 : 0;
      if (col === CONSTANT) return 1;
      return uniform(random, 1);
    }),
    matrix("output_norm.weight", n, 1, "f32", o.seed, ones),
    matrix("output.weight", n, nVocab, "f16", o.seed, (row, col, random) => {
      const r = uniform(random, outStd);
      if (row === think) return col === TRIGGER ? 10 : 0;
      if (controlIds.has(row)) return 0;
      if (col === TRIGGER) return 0;
      if (row === eos) return col === CONSTANT ? o.eosBias : r * o.eosScale;
      return col === CONSTANT ? 0 : r;
    }),
  ];
  for (let layer = 0; layer < o.blockCount; layer++) {
    const p = `blk.${layer}.`;
    const dense = (name: string, cols: number, rows: number, std: number, keepFree = false) =>
      matrix(p + name, cols, rows, "f16", o.seed, (row, _col, random) => {
        const v = uniform(random, std);
        return keepFree && free(row) ? 0 : v;
      });
    tensors.push(
      matrix(`${p}attn_norm.weight`, n, 1, "f32", o.seed, ones),
      dense("attn_q.weight", n, qWidth, 1 / Math.sqrt(n)),
      dense("attn_k.weight", n, kvWidth, 1 / Math.sqrt(n)),
      dense("attn_v.weight", n, kvWidth, 1 / Math.sqrt(n)),
      dense("attn_output.weight", qWidth, n, 0.5 / Math.sqrt(qWidth), true),
      matrix(`${p}attn_q_norm.weight`, o.headDim, 1, "f32", o.seed, ones),
      matrix(`${p}attn_k_norm.weight`, o.headDim, 1, "f32", o.seed, ones),
      matrix(`${p}ffn_norm.weight`, n, 1, "f32", o.seed, ones),
      dense("ffn_gate.weight", n, ff, 1 / Math.sqrt(n)),
      dense("ffn_up.weight", n, ff, 1 / Math.sqrt(n)),
      dense("ffn_down.weight", ff, n, 0.5 / Math.sqrt(ff), true),
    );
  }

  const u32 = (value: number): GgufValue => ({ type: "uint32", value });
  const f32 = (value: number): GgufValue => ({ type: "float32", value });
  const str = (value: string): GgufValue => ({ type: "string", value });
  const metadata: [string, GgufValue][] = [
    ["general.architecture", str("qwen3")],
    ["general.type", str("model")],
    ["general.name", str("strata-bench tiny qwen3 (random weights)")],
    ["general.file_type", u32(1)],
    ["qwen3.context_length", u32(o.contextLength)],
    ["qwen3.embedding_length", u32(n)],
    ["qwen3.block_count", u32(o.blockCount)],
    ["qwen3.feed_forward_length", u32(ff)],
    ["qwen3.attention.head_count", u32(o.headCount)],
    ["qwen3.attention.head_count_kv", u32(o.headCountKv)],
    ["qwen3.attention.key_length", u32(o.headDim)],
    ["qwen3.attention.value_length", u32(o.headDim)],
    ["qwen3.rope.freq_base", f32(1_000_000)],
    ["qwen3.attention.layer_norm_rms_epsilon", f32(1e-6)],
    ["tokenizer.ggml.model", str("gpt2")],
    ["tokenizer.ggml.pre", str("qwen2")],
    ["tokenizer.ggml.tokens", { type: "array", itemType: "string", values: vocab.tokens }],
    ["tokenizer.ggml.token_type", { type: "array", itemType: "int32", values: vocab.types }],
    ["tokenizer.ggml.merges", { type: "array", itemType: "string", values: vocab.merges }],
    ["tokenizer.ggml.eos_token_id", u32(eos)],
    ["tokenizer.ggml.padding_token_id", u32(pad)],
    ["tokenizer.ggml.bos_token_id", u32(pad)],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: config.add_bos_token === true }],
    ["tokenizer.chat_template", str(template)],
    ["strata_bench.generator_version", u32(TINY_QWEN3_GENERATOR_VERSION)],
    ["strata_bench.seed", u32(o.seed)],
    ["strata_bench.tokenizer_sha256", str(source.tokenizerSha256)],
    ["strata_bench.tokenizer_config_sha256", str(source.configSha256)],
  ];
  return { metadata, tensors };
}
