/**
 * A model file whose name holds control characters (an escape sequence, a bell) or starts with "~": the engine
 * reports it as /props model_path, and the run must still accept its own result, recording the name
 * percent-encoded (the contract's relative-path format allows no control character and no leading "~").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { packRelativeName } from "../../probe/model_files.ts";
import { runHostile } from "./_run.ts";

Deno.test("packRelativeName percent-encodes control characters and a leading ~, and leaves other names alone", () => {
  assert.equal(packRelativeName("/m/bad\u0007name\u001b[31m.gguf", null), "bad%07name%1B[31m.gguf");
  assert.equal(packRelativeName("/m/~tilde.gguf", null), "%7Etilde.gguf");
  assert.equal(packRelativeName("/p/flash/a\u007f/b.gguf", "/p/flash"), "a%7F/b.gguf");
  assert.equal(packRelativeName("/m/Qwen3-8B~v2-Q4_K_M.gguf", null), "Qwen3-8B~v2-Q4_K_M.gguf");
});

Deno.test("a run against a model file named with control characters accepts its own result", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-model-name-" });
  try {
    const model = join(dir, "bad\u0007name\u001b[31m-Q4_K_M.gguf");
    await Deno.writeFile(model, new TextEncoder().encode("GGUF control-character model"));
    const run = await runHostile(dir, { props: { model_path: model } });
    assert.deepEqual(run.report.validationProblems, []);
    assert.equal(run.result.model.files?.[0]?.path, "bad%07name%1B[31m-Q4_K_M.gguf");
    assert.match(run.result.model.files?.[0]?.sha256 ?? "", /^[0-9a-f]{64}$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
