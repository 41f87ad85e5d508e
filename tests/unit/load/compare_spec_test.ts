import assert from "node:assert/strict";
import { parseCompareSpec, SPEC_DEFAULTS } from "../../../load/gate/compare_spec.ts";

const SHA = "a".repeat(64);
const base = {
  format: "strata-compare-spec",
  version: 1,
  name: "q38",
  serving_stack: { image: "registry/llama-server:b7000", model: "qwen", model_revision: "abc" },
  workloads: { W1: { prompts: "W1.jsonl", sha256: SHA }, W2: { profile: "rag-medium", sha256: SHA } },
};

Deno.test("a spec gets the methodology's defaults: points 1, 8, 32, 30 s warm-up and 180 s measured issuance", () => {
  const spec = parseCompareSpec(`// pinned gate\n${JSON.stringify(base)}`, "/specs", "f".repeat(64));
  assert.deepEqual(spec.points, [1, 8, 32]);
  assert.equal(spec.durations.warmupS, 30);
  assert.equal(spec.durations.measureS, 180);
  assert.equal(spec.durations.drainS, SPEC_DEFAULTS.drainS);
  assert.deepEqual(spec.workloads.map((w) => w.label), ["W1", "W2"]);
  assert.deepEqual(spec.workloads[0]!.source, { kind: "jsonl", path: "/specs/W1.jsonl" });
  assert.deepEqual(spec.workloads[1]!.source, { kind: "profile", name: "rag-medium" });
  assert.equal(spec.servingStack.image, "registry/llama-server:b7000");
});

Deno.test("unknown keys, bad pins and bad values are all refused at once, by JSON Pointer", () => {
  const bad = {
    ...base,
    colour: "red",
    workloads: { W1: { prompts: "W1.jsonl", sha256: "xyz", extra: 1 }, W2: { profile: "nope", sha256: SHA } },
    points: [1, 1],
    request: { max_tokens: 0, min_tokens: 5, speed: "fast" },
    durations: { warmup_s: -1 },
    gate: { tolerance: 2 },
  };
  let message = "";
  try {
    parseCompareSpec(JSON.stringify(bad), ".", SHA);
  } catch (error) {
    assert.ok(error instanceof SyntaxError);
    message = error.message;
  }
  for (
    const pointer of [
      "/colour: unknown key",
      "/workloads/W1/extra: unknown key",
      "/workloads/W1/sha256",
      "/workloads/W2/profile",
      "/points: a point repeats",
      "/request/max_tokens",
      "/request/speed: unknown key",
      "/durations/warmup_s",
      "/gate/tolerance",
    ]
  ) assert.ok(message.includes(pointer), `${pointer} in ${message}`);
  assert.throws(() => parseCompareSpec("{ nope", ".", SHA), SyntaxError);
  assert.throws(
    () => parseCompareSpec(JSON.stringify({ ...base, serving_stack: undefined }), ".", SHA),
    /serving_stack/,
  );
});
