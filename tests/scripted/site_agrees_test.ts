/**
 * The website's check (site/web, which shares no code with the runner) reads an engine's usage and timings field
 * by field as the runner does: a key sent twice, a count beyond a double (1e400), a count written with a fraction,
 * a string count or a repeated predicted_n beside a usable rate each null (or derive) that one field and leave the
 * others, so a genuine result with such an engine passes both `report` and the site.
 */
import assert from "node:assert/strict";
import { cleanup, runScripted, type ScriptedRun } from "./_harness.ts";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

Deno.test("usage and timings with repeated keys and out-of-range numbers: report and the site agree, field by field", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: {
        script: {
          "performance-short-r1": { usageJson: '{"completion_tokens":12,"completion_tokens":13,"prompt_tokens":80}' },
          "performance-short-r2": { usageJson: '{"completion_tokens":1e400,"prompt_tokens":80}' },
          "performance-short-r3": { usageJson: '{"completion_tokens":12.0,"prompt_tokens":"80"}' },
          "performance-prompt-4k-r1": {
            timingsJson: '{"prompt_n":5,"prompt_ms":10,"predicted_n":12,"predicted_n":12,"predicted_ms":1000,' +
              '"predicted_per_second":12.0}',
          },
          "performance-prompt-4k-r2": {
            timingsJson: '{"prompt_n":5,"prompt_ms":1e400,"predicted_n":12,"predicted_ms":1000,' +
              '"predicted_per_second":12.0}',
          },
        },
      },
    });
    assert.deepEqual(run.problems, [], "report finds no problem");
    const r1 = run.byId.get("performance-short-r1")!;
    assert.equal(r1.tokens.output_tokens, null, "a count sent twice is ambiguous");
    assert.equal(r1.tokens.input_tokens, 80, "the other count of the same chunk stands");
    assert.equal(run.byId.get("performance-short-r2")!.tokens.output_tokens, null);
    assert.equal(run.byId.get("performance-short-r2")!.tokens.input_tokens, 80);
    assert.equal(run.byId.get("performance-short-r3")!.tokens.output_tokens, null);
    assert.equal(run.byId.get("performance-short-r3")!.tokens.input_tokens, null);
    const long1 = run.byId.get("performance-prompt-4k-r1")!;
    assert.equal(long1.tokens.decode_tokens, 12, "predicted_n sent twice: the count the rate implies");
    assert.equal(long1.tokens.read_tokens, 5);
    const long2 = run.byId.get("performance-prompt-4k-r2")!;
    assert.equal(long2.timings.prompt_s, null, "prompt_ms beyond a double is no duration");
    assert.equal(long2.tokens.decode_tokens, 12);

    const site = await verifyFolder(folderReader(run.report.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, [], "the site finds no problem");
    assert.equal(site.state, "verified");
  } finally {
    await cleanup(run);
  }
});

Deno.test("counts and timers past the plausibility table: the run, report and the site each null them alike", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: {
        script: {
          // 9e15 output tokens for a request capped at 512, 50 read of a 40-token prompt, a timer of two days.
          "performance-short-r1": { usageJson: '{"completion_tokens":9000000000000000,"prompt_tokens":40}' },
          "performance-short-r2": {
            timingsJson: '{"prompt_n":50,"prompt_ms":10,"predicted_n":12,"predicted_ms":172800000,' +
              '"predicted_per_second":12.0}',
            usageJson: '{"completion_tokens":12,"prompt_tokens":40}',
          },
        },
      },
    });
    assert.deepEqual(run.problems, [], "report finds no problem in the run's own result");
    const r1 = run.byId.get("performance-short-r1")!;
    assert.equal(r1.tokens.output_tokens, null);
    assert.equal(r1.tokens.input_tokens, 40);
    const r2 = run.byId.get("performance-short-r2")!;
    assert.equal(r2.tokens.read_tokens, null);
    assert.equal(r2.timings.decode_s, null);
    assert.equal(r2.metrics.decode_tps, null);
    const site = await verifyFolder(folderReader(run.report.folder), { protocols: KNOWN_PROTOCOLS, ...SITE_BUNDLE });
    assert.deepEqual(site.reasons, [], "the site finds no problem");
    assert.equal(site.state, "verified");
  } finally {
    await cleanup(run);
  }
});
