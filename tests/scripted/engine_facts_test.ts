/** The facts of a server the runner did not start: the template check, a declared command line, the fix list. */
import assert from "node:assert/strict";
import { startMockEngine } from "../../mock/mod.ts";
import { conformingFixes, TemplateMismatchError } from "../../runner/mod.ts";
import { RunRefusedError } from "../../runner/run_errors.ts";
import { cleanup, runScripted, type ScriptedRun, sharedBundle } from "./_harness.ts";

Deno.test("a server that counts one request 10% off the frozen bundle stops the run before anything is measured", async () => {
  const { fixtures } = await sharedBundle();
  const counts = Object.fromEntries(fixtures.map((f) => [f.id, f.input_tokens]));
  counts["performance-prompt-4k-r2"] = Math.round(counts["performance-prompt-4k-r2"]! * 1.1);
  const engine = await startMockEngine({ timeScale: 0, announceScripted: false, tokenCounts: counts });
  const dir = await Deno.makeTempDir({ prefix: "strata-run-" });
  try {
    const refusal = await runScripted({ engine, dir }).then(() => null, (error: unknown) => error);
    assert.ok(refusal instanceof TemplateMismatchError, String(refusal));
    assert.ok(refusal instanceof RunRefusedError && refusal.code === "template");
    assert.match(refusal.message, /renders 1 of 22 requests otherwise .*performance-prompt-4k-r2: 4\d{3} tokens/);
    const row = refusal.check.rows.find((r) => r.id === "performance-prompt-4k-r2")!;
    assert.equal(row.verdict, "mismatch");
    assert.equal(row.frozen_tokens, fixtures.find((f) => f.id === row.id)!.input_tokens);
    assert.equal(refusal.check.rows.filter((r) => r.verdict === "match").length, 21);
    assert.equal(engine.requests.length, 0, "no chat request was sent");
  } finally {
    await engine.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--no-check-template runs anyway and the 2% rule then makes the run nonconforming at the end", async () => {
  const { fixtures } = await sharedBundle();
  const counts = Object.fromEntries(fixtures.map((f) => [f.id, f.input_tokens]));
  counts["performance-prompt-4k-r2"] = 4500;
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { tokenCounts: counts }, run: { checkTemplate: false } });
    assert.equal(run.result.run.status, "nonconforming");
    assert.deepEqual(run.result.extensions?.template_check, { ran: false, reason: "turned off (--no-check-template)" });
    assert.ok(!run.result.artifacts.some((a) => a.path === "template_check.json"));
  } finally {
    await cleanup(run);
  }
});

Deno.test("a /tokenize that answers garbage leaves every row unchecked with the reason, and the run goes on", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { templateEndpoints: "garbage" } });
    assert.equal(run.result.run.status, "complete");
    const summary = run.result.extensions?.template_check as Record<string, unknown>;
    assert.deepEqual([summary.ran, summary.matched, summary.unchecked], [true, 0, 22]);
    const table = JSON.parse(await Deno.readTextFile(`${run.report.folder}/template_check.json`));
    assert.equal(table.rows[0].server_tokens, null);
    assert.equal(table.rows[0].reason, "POST /tokenize answered no list of token ids");
  } finally {
    await cleanup(run);
  }
});

Deno.test("a server without the template endpoints is recorded as such and measured", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { templateEndpoints: "absent" } });
    const summary = run.result.extensions?.template_check as Record<string, unknown>;
    assert.equal(summary.ran, false);
    assert.match(String(summary.reason), /no template endpoint \(POST \/apply-template answered HTTP 404\)/);
    assert.equal(run.result.requests.length, 22);
  } finally {
    await cleanup(run);
  }
});

Deno.test("--engine-args declares the seven configuration objects where the process cannot be read", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      run: {
        declared: {
          modelId: null,
          modelRevision: null,
          sourceRevision: "src1",
          tokenizerRevision: "tok1",
          quantization: "Q4_K_M",
          customPack: null,
          background: [],
          buildOptions: null,
          engineCommit: null,
          engineCommandLine: "llama-server -m m.gguf -c 32768 -ctk q8_0 -ngl 99 -fa on -b 2048 --draft-max 4",
        },
      },
    });
    const c = run.result.configuration;
    // The scripted engine runs in this test's own process, which is not llama-server: observing fails, so the
    // declaration is used.
    assert.deepEqual(run.result.extensions?.engine_command_line, {
      provenance: "declared",
      source: "--engine-args (declared by the operator)",
    });
    assert.deepEqual(c.kv_cache, { "cache-type-k": "q8_0" });
    assert.deepEqual(c.offloading, { "gpu-layers": 99 });
    assert.deepEqual(c.prefill, { "flash-attn": "on", "batch-size": 2048 });
    assert.deepEqual(c.mtp, { "draft-max": 4 });
    assert.deepEqual([c.expert_cache, c.calibration, c.experimental_options], [{}, {}, {}]);
    assert.equal(run.result.run.status, "nonconforming");
    const fixes = conformingFixes(run.result).map((f) => f.fix);
    assert.ok(fixes.includes("--model-id ORG/REPO"), fixes.join("\n"));
    assert.ok(fixes.includes("--model-revision REV"));
    assert.ok(fixes.some((f) => f.startsWith("--engine-source DIR (a llama.cpp checkout holding 80fb11a)")));
    assert.ok(!fixes.some((f) => f.startsWith("--engine-args")), "the configuration is known");
    const simulated = { ...run.result, extensions: { ...run.result.extensions, simulated_engine: true } };
    assert.deepEqual(conformingFixes(simulated).map((f) => f.problem), [
      "the server is the scripted engine (a simulation)",
    ]);
    assert.deepEqual(conformingFixes({ ...run.result, run: { ...run.result.run, status: "complete" } }), []);
  } finally {
    await cleanup(run);
  }
});
