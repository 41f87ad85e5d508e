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
  const body = prBody(result, { folderName: "2026-11-29-standard-rtx-3060-x", readme: "as-written" });
  assert.match(
    body,
    /\[bench\/results\/2026-11-29-standard-rtx-3060-x\/README\.md\]\(bench\/results\/2026-11-29-standard-rtx-3060-x\/README\.md\)/,
  );
  assert.match(body, /Required .*\n- warm-up .*\n- performance \(short, 4K, 16K x 3\): 9 planned/);
  assert.match(body, /Optional, not selected: concurrency/);
  assert.match(body, /- nonconforming: the server is not on loopback/);
  assert.match(body, /- failed: performance-prompt-16k-r3 \(timeout: no answer within 1800 s\)/);
  assert.match(body, /- sanity check failed: R3 \(completed\): /);
  assert.match(body, /- not measurable here \(.*\/hardware\/storage/);
  assert.match(body, /- README\.md: as the run wrote it/);
  assert.doesNotMatch(body, /Do not submit/);
  result.extensions.simulated_engine = true;
  assert.match(
    prBody(result, { folderName: "x", readme: "unrecorded" }),
    /^> \*\*Do not submit: this result is a simulation/,
  );
});

Deno.test("the PR body says the folder was sealed only when results.json records a seal", async () => {
  const result = await realistic();
  const plain = prBody(result, { folderName: "x", readme: "as-written" });
  assert.match(
    plain,
    /results\.json records no seal, so by its own record no file was re-hashed after the run; every file results\.json lists \([^)]*config\.json[^)]*\) matched its recorded SHA-256/,
  );
  assert.doesNotMatch(plain, /re-hashed them/);
  result.extensions = {
    ...result.extensions,
    sealed: [{ sealed_at: "2026-12-01T10:00:00.000Z", rehashed: [{ path: "engine.log" }], rederived: [] }],
  };
  const sealed = prBody(result, { folderName: "x", readme: "as-written" });
  // Only what the tool knows: which files differed from the run's digests, and that a person re-hashed them.
  assert.match(
    sealed,
    /these files differed from the run's own digests and a person re-hashed them .*\(2026-12-01T10:00:00\.000Z: re-hashed engine\.log\)/,
  );
  assert.doesNotMatch(sealed, /redacted by hand|read for private data and/);
});

Deno.test("a hostile seal record or folder name puts no Markdown or HTML into the PR body", async () => {
  const result = await realistic();
  result.extensions = {
    ...result.extensions,
    sealed: [{
      sealed_at: "<script>alert(1)</script>",
      rehashed: [{ path: "[x](javascript:alert(1))" }],
      rederived: [],
    }],
  };
  const body = prBody(result, {
    folderName: "a](javascript:alert(1))<img src=x onerror=alert(1)>",
    readme: "as-written",
  });
  // Every "<", "[" and "]" of the hostile text is backslash-escaped, so none of it opens a tag or a link.
  assert.doesNotMatch(body, /(?<!\\)<(?:script|img)|(?<!\\)\]\(javascript:/);
  assert.match(body, /\\<script\\>/);
  assert.match(
    body,
    /\(bench\/results\/a%5D%28javascript%3Aalert%281%29%29%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E\/README\.md\)/,
  );
});

Deno.test("a missing README.md is named as missing, and the body links the folder instead", async () => {
  const { readmeState } = await import("../../../report/submission.ts");
  const r = await buildRealisticResult({ asWritten: true });
  try {
    const readme = await r.readArtifact("README.md");
    assert.equal(readmeState(r.result, readme), "as-written");
    assert.equal(readmeState(r.result, new TextEncoder().encode("edited")), "edited");
    assert.equal(readmeState(r.result, null), "missing");
    const body = prBody(r.result, { folderName: "f", readme: "missing" });
    assert.match(body, /- Report: README\.md is missing from \[bench\/results\/f\/\]\(bench\/results\/f\/\)/);
    assert.match(body, /- README\.md: missing from the folder: restore it before you submit/);
    assert.doesNotMatch(body, /\(bench\/results\/f\/README\.md\)|no hash recorded/);
  } finally {
    await r.cleanup();
  }
});

Deno.test("a partial run's status names partial once, in the README, the console and the PR body", async () => {
  const { renderConsoleSummary, renderReadme } = await import("../../../report/render.ts");
  const r = await buildRealisticResult({ faults: true });
  try {
    assert.equal(r.result.run.status, "partial");
    const texts = [
      renderReadme(r.result),
      renderConsoleSummary(r.result),
      prBody(r.result, { folderName: "f", readme: "as-written" }),
    ];
    for (const text of texts) {
      assert.match(text, /partial: 2 of 22 required requests were skipped/);
      assert.doesNotMatch(text, /partial: partial:/);
    }
  } finally {
    await r.cleanup();
  }
});
