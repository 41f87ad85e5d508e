import assert from "node:assert/strict";
import {
  buildTinyQwen3,
  TINY_QWEN3_DEFAULTS,
  tinyQwen3FileName,
  type TinyQwen3Options,
  type TokenizerSource,
} from "../../../engine/tiny_qwen3.ts";
import { encodeGguf } from "../../../engine/gguf_writer.ts";
import { readGguf } from "../../../probe/gguf_reader.ts";

/** A five-token byte-level BPE vocabulary plus the added tokens the model needs, in tokenizer.json shape. */
function source(overrides: { addedThink?: boolean } = {}): TokenizerSource {
  const added = [
    { id: 5, content: "<|endoftext|>", special: true },
    { id: 6, content: "<|im_start|>", special: true },
    { id: 7, content: "<|im_end|>", special: true },
    ...(overrides.addedThink === false ? [] : [
      { id: 8, content: "<think>", special: false },
      { id: 9, content: "</think>", special: false },
    ]),
  ];
  return {
    tokenizer: {
      model: {
        type: "BPE",
        vocab: { "a": 0, "b": 1, "ab": 2, "\u010a": 3, "\u0120a": 4 },
        merges: [["a", "b"], "\u0120 a"],
      },
      added_tokens: added,
    },
    config: {
      chat_template: "{{ messages }}",
      eos_token: "<|im_end|>",
      pad_token: "<|endoftext|>",
      add_bos_token: false,
    },
    tokenizerSha256: "1".repeat(64),
    configSha256: "2".repeat(64),
  };
}

const small: TinyQwen3Options = {
  ...TINY_QWEN3_DEFAULTS,
  embeddingLength: 8,
  blockCount: 1,
  headCount: 2,
  headCountKv: 1,
  headDim: 4,
  feedForwardLength: 8,
};

function bytesOf(options: TinyQwen3Options, src = source()): Uint8Array {
  const chunks = encodeGguf(buildTinyQwen3(options, src));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function f16Row(file: ReturnType<typeof readGguf>, bytes: Uint8Array, name: string, row: number): number[] {
  const t = file.tensors.find((x) => x.name === name)!;
  const cols = t.dims[0]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset + t.start + row * cols * 2, cols * 2);
  return Array.from({ length: cols }, (_, i) => view.getUint16(i * 2, true));
}

Deno.test("the same seed gives the same bytes and another seed gives other weights and another file name", () => {
  assert.deepEqual(bytesOf(small), bytesOf(small));
  assert.notDeepEqual(bytesOf(small), bytesOf({ ...small, seed: 2 }));
  assert.notEqual(tinyQwen3FileName(small, source()), tinyQwen3FileName({ ...small, seed: 2 }, source()));
  assert.match(tinyQwen3FileName(small, source()), /^tiny-qwen3-[0-9a-f]{12}\.gguf$/);
});

Deno.test("metadata names the qwen3 architecture and carries the vocabulary the way llama.cpp reads it", () => {
  const file = readGguf(bytesOf(small));
  const value = (key: string) => {
    const v = file.metadata.get(key);
    assert.ok(v, key);
    return v.type === "array" ? v.values : v.value;
  };
  assert.equal(value("general.architecture"), "qwen3");
  assert.equal(value("qwen3.embedding_length"), 8);
  assert.equal(value("qwen3.attention.head_count_kv"), 1);
  assert.equal(value("tokenizer.ggml.model"), "gpt2");
  assert.equal(value("tokenizer.ggml.pre"), "qwen2");
  assert.deepEqual(value("tokenizer.ggml.tokens"), [
    "a",
    "b",
    "ab",
    "\u010a",
    "\u0120a",
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
  ]);
  assert.deepEqual(value("tokenizer.ggml.token_type"), [1, 1, 1, 1, 1, 3, 3, 3, 4, 4]);
  assert.deepEqual(value("tokenizer.ggml.merges"), ["a b", "\u0120 a"]);
  assert.equal(value("tokenizer.ggml.eos_token_id"), 7);
  assert.equal(value("tokenizer.ggml.padding_token_id"), 5);
  assert.equal(value("tokenizer.ggml.add_bos_token"), false);
  assert.equal(value("tokenizer.chat_template"), "{{ messages }}");
});

Deno.test("tensors have qwen3's names and shapes; layers never write the reserved channels", () => {
  const bytes = bytesOf(small);
  const file = readGguf(bytes);
  const shapes = Object.fromEntries(file.tensors.map((t) => [t.name, t.dims]));
  assert.deepEqual(shapes["token_embd.weight"], [8, 10]);
  assert.deepEqual(shapes["output.weight"], [8, 10]);
  assert.deepEqual(shapes["blk.0.attn_q.weight"], [8, 8]);
  assert.deepEqual(shapes["blk.0.attn_k.weight"], [8, 4]);
  assert.deepEqual(shapes["blk.0.attn_output.weight"], [8, 8]);
  assert.deepEqual(shapes["blk.0.attn_q_norm.weight"], [4]);
  assert.deepEqual(shapes["blk.0.ffn_down.weight"], [8, 8]);
  for (const row of [0, 1, 2]) {
    assert.deepEqual(f16Row(file, bytes, "blk.0.attn_output.weight", row), new Array(8).fill(0));
    assert.deepEqual(f16Row(file, bytes, "blk.0.ffn_down.weight", row), new Array(8).fill(0));
  }
  // channel 3 <- head 0, dimension 0 with weight 1 (half 0x3c00)
  assert.deepEqual(f16Row(file, bytes, "blk.0.attn_output.weight", 3), [0x3c00, 0, 0, 0, 0, 0, 0, 0]);
  // <think> (id 8) reads only the "\n" channel (+10) and the "reasoning ended" channel (-10)
  assert.deepEqual(f16Row(file, bytes, "output.weight", 8), [0x4900, 0, 0, 0xc900, 0, 0, 0, 0]);
  // the other special tokens can never be sampled
  assert.deepEqual(f16Row(file, bytes, "output.weight", 6), new Array(8).fill(0));
});

Deno.test("a tokenizer without <think> or a chat template is refused with the missing piece named", () => {
  assert.throws(() => buildTinyQwen3(small, source({ addedThink: false })), /no <think> token/);
  const noTemplate = { ...source(), config: { eos_token: "<|im_end|>", pad_token: "<|endoftext|>" } };
  assert.throws(() => buildTinyQwen3(small, noTemplate), /chat_template/);
  assert.throws(() => buildTinyQwen3({ ...small, headCount: 3, headCountKv: 2 }, source()), RangeError);
});
