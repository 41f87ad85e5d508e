import assert from "node:assert/strict";
import { prBody, prTitle } from "../../../report/submission.ts";
import type { Result } from "../../../contract/mod.ts";
import { buildRealisticResult } from "./_realistic_result.ts";

async function realistic(): Promise<Result> {
  const built = await buildRealisticResult();
  await built.cleanup();
  return structuredClone(built.result);
}

Deno.test("the PR title is benchmark: GPU / model / quant / protocol id", async () => {
  const result = await realistic();
  assert.equal(
    prTitle(result),
    "benchmark: NVIDIA GeForce RTX 3060 / Qwen/Qwen3.8-Flash-Next / IQ3_XXS / strata-qwen38-thinking-v1-draft.1",
  );
  result.hardware.gpus = null;
  result.model.quantization = null;
  assert.match(prTitle(result), /^benchmark: GPU not measured \/ .* \/ quantization not measured \/ strata-/);
});

Deno.test("the PR body links the report, names the stages and lists every failed, skipped or missing measurement", async () => {
  const result = await realistic();
  const record = result.requests.find((r) => r.id === "performance-prompt-16k-r3")!;
  Object.assign(record, { status: "failed", error: { kind: "timeout", message: "no answer within 1800 s" } });
  result.extensions = { ...result.extensions, nonconforming_reasons: ["the server is not on loopback"] };
  const body = prBody(result, { folderName: "2026-11-29-standard-rtx-3060-x", readmeEdited: false });
  assert.match(
    body,
    /\[bench\/results\/2026-11-29-standard-rtx-3060-x\/README\.md\]\(bench\/results\/2026-11-29-standard-rtx-3060-x\/README\.md\)/,
  );
  assert.match(body, /Required .*\n- warm-up .*\n- performance \(short, 4K, 16K x 3\): 9 planned/);
  assert.match(body, /Optional, not selected: concurrency/);
  assert.match(body, /- nonconforming: the server is not on loopback/);
  assert.match(body, /- failed: performance-prompt-16k-r3 \(timeout: no answer within 1800 s\)/);
  assert.match(body, /- sanity check failed: R3 \(completed\): /);
  assert.match(body, /- not measured: .*\/hardware\/storage/);
  assert.match(body, /README\.md edited after the run: no/);
  assert.doesNotMatch(body, /Do not submit/);
  result.extensions.simulated_engine = true;
  assert.match(
    prBody(result, { folderName: "x", readmeEdited: null }),
    /^> \*\*Do not submit: this result is a simulation/,
  );
});
