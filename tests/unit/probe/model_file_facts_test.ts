import assert from "node:assert/strict";
import { encodeGguf, type GgufValue } from "../../../engine/gguf_writer.ts";
import { sha256Hex } from "../../../contract/mod.ts";
import { readModelFileFacts } from "../../../probe/model_file_facts.ts";
import { fakeDeps } from "./_fake.ts";

function gguf(metadata: [string, GgufValue][], tensors: { name: string; dims: number[] }[]): Uint8Array {
  const parts = encodeGguf({
    metadata,
    tensors: tensors.map((t) => ({
      ...t,
      type: "f16" as const,
      data: new Uint8Array(t.dims.reduce((a, b) => a * b) * 2),
    })),
  });
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.length);
  return out;
}

const TEMPLATE = "{% for m in messages %}<|im_start|>{{ m.role }}{% endfor %}";
const str = (value: string): GgufValue => ({ type: "string", value });
const u32 = (value: number): GgufValue => ({ type: "uint32", value });
const model = gguf([
  ["general.architecture", str("qwen3")],
  ["general.name", str("Qwen3 8B")],
  ["general.basename", str("Qwen3")],
  ["general.file_type", u32(15)],
  ["qwen3.context_length", u32(40960)],
  ["tokenizer.chat_template", str(TEMPLATE)],
], [{ name: "a", dims: [4, 8] }, { name: "b", dims: [16] }]);

Deno.test("the GGUF header gives architecture, file type, tensor types, context, parameters and template hash", async () => {
  const deps = fakeDeps({ binaries: { "/pack/m/Qwen3-8B-Q4_K_M.gguf": model } });
  const read = await readModelFileFacts({
    paths: ["/pack/m/Qwen3-8B-Q4_K_M.gguf"],
    packDir: "/pack",
    declaredQuantization: "Q4_K_M",
    declaredModelId: "Qwen/Qwen3-8B-GGUF",
    effectiveTemplateSha256: sha256Hex(TEMPLATE),
  }, deps);
  assert.equal(read.reason, null);
  assert.deepEqual(read.facts, {
    source: "GGUF header of m/Qwen3-8B-Q4_K_M.gguf",
    files: ["m/Qwen3-8B-Q4_K_M.gguf"],
    architecture: "qwen3",
    file_type: "Q4_K_M",
    tensor_types: { F16: 2 },
    context_length: 40960,
    parameter_count: 48,
    chat_template_sha256: sha256Hex(TEMPLATE),
    effective_template_matches: true,
    warnings: [],
  });
  assert.equal(read.templateText, TEMPLATE);
});

Deno.test("a declaration the file contradicts and another effective template are warnings", async () => {
  const deps = fakeDeps({ binaries: { "/m.gguf": model } });
  const read = await readModelFileFacts({
    paths: ["/m.gguf"],
    declaredQuantization: "Q8_0",
    declaredModelId: "meta-llama/Llama-3.1-8B",
    effectiveTemplateSha256: sha256Hex("another"),
  }, deps);
  assert.equal(read.facts?.effective_template_matches, false);
  assert.equal(read.facts?.warnings.length, 3);
  assert.match(
    read.facts?.warnings[0] ?? "",
    /--quantization "Q8_0" contradicts the file, whose general.file_type is Q4_K_M/,
  );
  assert.match(read.facts?.warnings[1] ?? "", /--model-id "meta-llama\/Llama-3.1-8B" does not name the file's model/);
  assert.match(read.facts?.warnings[2] ?? "", /effective chat template/);
});

Deno.test("the declared quantization must name the file type exactly, case and separators aside", async () => {
  const deps = fakeDeps({ binaries: { "/m.gguf": model } });
  const warningsOf = async (declaredQuantization: string) =>
    (await readModelFileFacts({ paths: ["/m.gguf"], declaredQuantization }, deps)).facts?.warnings;
  // A name that merely contains the file type's (IQ4_K_M holds Q4_K_M, as BF16 holds F16) is another type.
  for (const declared of ["IQ4_K_M", "Q4_K_M_BF16", "Q4_K"]) {
    assert.match((await warningsOf(declared))?.[0] ?? "", /contradicts the file, whose general.file_type is Q4_K_M/);
  }
  for (const declared of ["Q4_K_M", "q4_k_m", "Q4-K-M"]) assert.deepEqual(await warningsOf(declared), []);
});

Deno.test("a split model sums tensors and parameters over its shards; metadata comes from the first", async () => {
  const second = gguf([["split.no", { type: "uint16", value: 1 }]], [{ name: "c", dims: [100] }]);
  const deps = fakeDeps({ binaries: { "/x-00001-of-00002.gguf": model, "/x-00002-of-00002.gguf": second } });
  const read = await readModelFileFacts({ paths: ["/x-00001-of-00002.gguf", "/x-00002-of-00002.gguf"] }, deps);
  assert.deepEqual(read.facts?.tensor_types, { F16: 3 });
  assert.equal(read.facts?.parameter_count, 148);
  assert.deepEqual(read.facts?.files, ["x-00001-of-00002.gguf", "x-00002-of-00002.gguf"]);
  assert.match(read.missing["/effective_template_matches"] ?? "", /no effective chat template/);
});

Deno.test("a truncated, hostile, missing or absent model file gives null facts with a reason, never a throw", async () => {
  const hostile = model.slice();
  new DataView(hostile.buffer).setBigUint64(16, 2n ** 50n, true);
  const deps = fakeDeps({
    binaries: { "/cut.gguf": model.subarray(0, 40), "/bad.gguf": hostile, "/txt.gguf": new Uint8Array(8) },
  });
  for (
    const [path, why] of [
      ["/cut.gguf", /cut.gguf cannot be read: Cannot read GGUF: truncated/],
      ["/bad.gguf", /metadata count claims/],
      ["/txt.gguf", /bad magic/],
      ["/none.gguf", /not found/],
    ] as const
  ) {
    const read = await readModelFileFacts({ paths: [path] }, deps);
    assert.equal(read.facts, null, path);
    assert.match(read.reason ?? "", why);
  }
  assert.match((await readModelFileFacts({ paths: [] }, deps)).reason ?? "", /no model file is known/);
});
