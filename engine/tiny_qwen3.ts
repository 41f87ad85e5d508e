/**
 * A tiny qwen3-architecture model with seeded random weights and a real Qwen3 tokenizer and chat template, so
 * llama-server can load and serve it: prompt processing, decoding, caching, slots, queueing and the HTTP API are
 * real, the text is gibberish. Same options and tokenizer -> same bytes.
 *
 * Four hidden channels are reserved so the random model behaves like a thinking model whose output llama.cpp's
 * Qwen3 parser accepts (`<think>` reasoning `</think>` answer, end of turn):
 * - channel 0 is nonzero only in the embedding of "\n", which ends every generation prompt of the template
 *   ("<|im_start|>assistant\n"); the `<think>` output row reads it, so the first generated token is `<think>`.
 * - channel 1 is a constant in every embedding; the end-of-turn row reads it negatively, so a turn cannot end
 *   while reasoning is open (an unclosed `<think>` at the end of a turn is a parse error in llama-server).
 * - channel 2 is nonzero only in the embedding of `</think>`.
 * - channel 3 says "reasoning has ended": layer 0's first attention head has a query that only matches keys
 *   carrying channel 2 (on the head's last dimension, which RoPE rotates slowest, so it ignores distance) and
 *   copies channel 2 into channel 3. After `</think>` the end-of-turn row turns positive and `<think>` and
 *   `</think>` are suppressed, so a short answer follows and the turn ends.
 * `thinkEndScale` widens the `</think>` row's random part (larger: shorter reasoning); `eosAfterThink` sets how
 * quickly the answer ends. No other weight writes channels 0-3 (those rows of attn_output and ffn_down are zero).
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
  /** Width of the `</think>` output row's random part relative to the others (larger: shorter reasoning). */
  thinkEndScale: number;
  /** Weight of the end-of-turn row on the "reasoning has ended" channel (larger: shorter answers). */
  eosAfterThink: number;
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
  thinkEndScale: 2.4,
  eosAfterThink: 2.4,
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
export const TINY_QWEN3_GENERATOR_VERSION = 3;

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

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** Float32 -> IEEE half bits, round to nearest even (subnormals, overflow to infinity, NaN kept). */
export function float16Bits(value: number): number {
  f32Scratch[0] = value;
  const x = u32Scratch[0]!;
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

/** GPT-2 byte-level alphabet: the character each byte is written as in a byte-level BPE vocabulary. */
function byteLevelDecoder(): Map<number, number> {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const map = new Map<number, number>();
  let next = 256;
  for (let b = 0; b < 256; b++) map.set(printable(b) ? b : next++, b);
  return map;
}

/** Whether a byte-level token's bytes are complete UTF-8 on their own (no split multibyte character). */
function isWholeUtf8(token: string, alphabet: Map<number, number>): boolean {
  const bytes: number[] = [];
  for (const ch of token) {
    const b = alphabet.get(ch.codePointAt(0)!);
    if (b === undefined) return true;
    bytes.push(b);
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
    return true;
  } catch {
    return false;
  }
}

const ones = () => 1;
/** Reserved hidden channels (see the module comment). */
const TRIGGER = 0;
const CONSTANT = 1;
const END_MARK = 2;
const ENDED = 3;
const RESERVED = 4;

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
  const thinkEnd = idOf("</think>", "</think>");
  const n = o.embeddingLength;
  const nVocab = vocab.tokens.length;
  const outStd = 1 / Math.sqrt(n - RESERVED);
  // Rows that must never win a sampling step: every added token except <think>, </think> and end of turn, text
  // tokens that llama.cpp treats as control or end-of-generation because of how they look, and tokens holding
  // part of a multibyte character (random sequences of those are invalid UTF-8, which llama-server's output
  // parser rejects mid-stream; a trained model practically never produces them).
  const silent = new Set<number>();
  const alphabet = byteLevelDecoder();
  for (const [id, text] of vocab.tokens.entries()) {
    if (id === eos || id === think || id === thinkEnd) continue;
    const added = vocab.types[id] !== TOKEN_TYPE.normal;
    if (added || /^<\/?s>$|^<\|.*\|>$/.test(text) || !isWholeUtf8(text, alphabet)) silent.add(id);
  }

  const tensors: GgufTensor[] = [
    matrix("token_embd.weight", n, nVocab, "f16", o.seed, (row, col, random) => {
      const r = uniform(random, 1);
      if (col === TRIGGER) return row === newline ? 8 : 0;
      if (col === CONSTANT) return 1;
      if (col === END_MARK) return row === thinkEnd ? 8 : 0;
      if (col === ENDED) return 0;
      return r;
    }),
    matrix("output_norm.weight", n, 1, "f32", o.seed, ones),
    matrix("output.weight", n, nVocab, "f16", o.seed, (row, col, random) => {
      const r = uniform(random, outStd);
      if (silent.has(row)) return 0;
      if (row === think) return col === TRIGGER ? 10 : col === ENDED ? -10 : 0;
      if (row === thinkEnd) return col === ENDED ? -10 : col < RESERVED ? 0 : r * o.thinkEndScale;
      if (row === eos) return col === CONSTANT ? -8 : col === ENDED ? o.eosAfterThink : col < RESERVED ? 0 : r;
      return col < RESERVED ? 0 : r;
    }),
  ];
  for (let layer = 0; layer < o.blockCount; layer++) tensors.push(...blockTensors(o, layer));

  return {
    metadata: metadataOf(o, source, vocab, { eos, pad, addBos: config.add_bos_token === true, template }),
    tensors,
  };
}

/** One transformer block's tensors: random weights, with the wiring that lets layer 0 see `</think>`. */
function blockTensors(o: TinyQwen3Options, layer: number): GgufTensor[] {
  const n = o.embeddingLength;
  const d = o.headDim;
  const qWidth = o.headCount * d;
  const kvWidth = o.headCountKv * d;
  const ff = o.feedForwardLength;
  /** The head dimension RoPE rotates slowest under both pairings (NEOX pairs i with i+d/2, NORM pairs 2i, 2i+1). */
  const slow = d - 1;
  const p = `blk.${layer}.`;
  const first = layer === 0;
  const random = (
    name: string,
    cols: number,
    rows: number,
    std: number,
    rule: (row: number, col: number) => number | null,
  ) =>
    matrix(p + name, cols, rows, "f16", o.seed, (row, col, rnd) => {
      const v = uniform(rnd, std);
      return rule(row, col) ?? v;
    });
  const normWithSlow = (name: string) =>
    matrix(p + name, d, 1, "f32", o.seed, (_row, col) => (first && col === slow ? 8 : 1));
  return [
    matrix(`${p}attn_norm.weight`, n, 1, "f32", o.seed, ones),
    // Query of head 0 (layer 0): only the slow dimension, from the constant channel. No other head uses it.
    random("attn_q.weight", n, qWidth, 1 / Math.sqrt(n), (row, col) => {
      if (!first) return null;
      if (row < d) return row === slow && col === CONSTANT ? 1 : 0;
      return row % d === slow ? 0 : null;
    }),
    // Keys: the slow dimension carries only the `</think>` mark.
    random("attn_k.weight", n, kvWidth, 1 / Math.sqrt(n), (row, col) => {
      if (!first || row % d !== slow) return null;
      return col === END_MARK ? 1 : 0;
    }),
    // Values of kv head 0, dimension 0: the `</think>` mark.
    random("attn_v.weight", n, kvWidth, 1 / Math.sqrt(n), (row, col) => {
      if (!first || row !== 0) return null;
      return col === END_MARK ? 1 : 0;
    }),
    // Output: channels 0-3 stay untouched except "reasoning has ended" <- head 0, dimension 0 (layer 0).
    random("attn_output.weight", qWidth, n, 0.5 / Math.sqrt(qWidth), (row, col) => {
      if (first && row === ENDED) return col === 0 ? 1 : 0;
      return row < RESERVED ? 0 : null;
    }),
    normWithSlow("attn_q_norm.weight"),
    normWithSlow("attn_k_norm.weight"),
    matrix(`${p}ffn_norm.weight`, n, 1, "f32", o.seed, ones),
    random("ffn_gate.weight", n, ff, 1 / Math.sqrt(n), () => null),
    random("ffn_up.weight", n, ff, 1 / Math.sqrt(n), () => null),
    random("ffn_down.weight", ff, n, 0.5 / Math.sqrt(ff), (row) => (row < RESERVED ? 0 : null)),
  ];
}

/** The file's metadata: Qwen3's shape, the tokenizer (vocabulary, merges, special ids, template), the generator's stamp. */
function metadataOf(
  o: TinyQwen3Options,
  source: TokenizerSource,
  vocab: Vocabulary,
  { eos, pad, addBos, template }: { eos: number; pad: number; addBos: boolean; template: string },
): [string, GgufValue][] {
  const u32 = (value: number): GgufValue => ({ type: "uint32", value });
  const f32 = (value: number): GgufValue => ({ type: "float32", value });
  const str = (value: string): GgufValue => ({ type: "string", value });
  return [
    ["general.architecture", str("qwen3")],
    ["general.type", str("model")],
    ["general.name", str("strata-bench tiny qwen3 (random weights)")],
    ["general.file_type", u32(1)],
    ["qwen3.context_length", u32(o.contextLength)],
    ["qwen3.embedding_length", u32(o.embeddingLength)],
    ["qwen3.block_count", u32(o.blockCount)],
    ["qwen3.feed_forward_length", u32(o.feedForwardLength)],
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
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: addBos }],
    ["tokenizer.chat_template", str(template)],
    ["strata_bench.generator_version", u32(TINY_QWEN3_GENERATOR_VERSION)],
    ["strata_bench.seed", u32(o.seed)],
    ["strata_bench.tokenizer_sha256", str(source.tokenizerSha256)],
    ["strata_bench.tokenizer_config_sha256", str(source.configSha256)],
  ];
}
