import assert from "node:assert/strict";
import { loadBundle } from "../../../fixtures/mod.ts";
import type { Fixture, StreamOutcome } from "../../../contract/mod.ts";
import { KNOWN_ANSWERS } from "../../../mock/_plan.ts";
import { type AssembleInput, assembleResult } from "../../../report/assemble.ts";
import { nullPointers } from "../../../report/checks/_missing.ts";
import { validateResult } from "../../../report/validate.ts";
import { renderConsoleSummary, renderReadme } from "../../../report/render.ts";
import { executeRun } from "../../../runner/executor.ts";
import { planRun } from "../../../runner/plan.ts";
import { recordOf } from "../../../score/mod.ts";
import { outcome } from "../runner/_fakes.ts";

/** A llama.cpp-like finished outcome for a fixture: right sanity answers, performance capped at 512. */
function answerFor(fixture: Fixture): StreamOutcome {
  const known = KNOWN_ANSWERS[fixture.case_id];
  const capped = fixture.phase !== "sanity";
  const completion = capped ? fixture.max_output_tokens : 40;
  const base = outcome("finished", {
    finish_reason: capped ? "length" : known && "call" in known ? "tool_calls" : "stop",
    first_delta_kind: "reasoning",
    usage: {
      prompt_tokens: fixture.input_tokens,
      completion_tokens: completion,
      total_tokens: fixture.input_tokens + completion,
      prompt_tokens_details: { cached_tokens: 0 },
    },
    timings: {
      cache_n: 0,
      prompt_n: fixture.input_tokens,
      prompt_ms: fixture.input_tokens,
      prompt_per_second: 1000,
      predicted_n: completion,
      predicted_ms: completion * 20,
      predicted_per_second: Math.round(((completion - 1) / (completion * 20)) * 1000 * 10) / 10,
    },
    offsets: {
      headers_s: 0.001,
      first_byte_s: 0.002,
      first_delta_s: 0.1,
      first_answer_s: capped ? null : 0.5,
      end_s: 1,
    },
    answer_text: "",
  });
  if (!capped && known && "text" in known) base.answer_text = known.text;
  if (!capped && known && "call" in known) {
    base.first_delta_kind = "reasoning";
    base.tool_calls = [{
      index: 0,
      id: "call_1",
      type: "function",
      name: known.call.name,
      arguments: JSON.stringify(known.call.arguments),
    }];
  }
  return base;
}

async function facts(answer: (f: Fixture) => StreamOutcome, optional = false) {
  const { fixtures, corpusSha256 } = await loadBundle();
  const plan = planRun(fixtures, { optionalConcurrency: optional });
  let t = 0;
  const execution = await executeRun({
    baseUrl: "http://127.0.0.1:1",
    plan,
    bodyOf: (f) => ({ id: f.id }),
  }, {
    streamChat: (o) => Promise.resolve(answer(plan.fixtures.find((f) => f.id === (o.body as { id: string }).id)!)),
    checkHealth: () => Promise.resolve({ ok: false, status: null, message: "connection refused" }),
    nowMs: () => (t += 1500),
  });
  return { fixtures, corpusSha256, execution };
}

function input(f: Awaited<ReturnType<typeof facts>>, optional = false): AssembleInput {
  return {
    runId: "20260101T000000Z-abcdef",
    startedAt: "2026-01-01T00:00:00.000Z",
    command: "strata-bench run",
    optionalConcurrency: optional,
    execution: f.execution,
    requests: f.execution.requests.map((r) => ({ fixture: r.fixture, built: recordOf(r) })),
    protocol: {
      gitCommit: "a".repeat(40),
      gitCommitReason: null,
      corpusSha256: f.corpusSha256,
      modelCardRevision: null,
      modelCardRevisionReason: "draft protocol",
    },
    provenance: {
      hardware: { gpus: [], cpu: "test cpu", ram_bytes: 1024, storage: null, background_workloads: [] },
      software: {
        os: { name: "linux", version: "6" },
        drivers: null,
        runtime: [],
        strata_commit: "b".repeat(40),
        engine_version: "b7000-80fb11a",
        build_kind: "source",
        runner_commit: "a".repeat(40),
        build_options: null,
      },
      model: {
        id: "m",
        revision: "r",
        source_revision: "s",
        quantization: "q",
        files: [{ path: "m.gguf", sha256: "c".repeat(64) }],
        tokenizer_revision: "t",
        custom_pack: null,
      },
      configuration: {
        context_tokens: 32768,
        server_capacity: 4,
        kv_cache: null,
        expert_cache: null,
        offloading: null,
        prefill: null,
        mtp: null,
        calibration: null,
        experimental_options: null,
        template: { path: "template.jinja", sha256: "d".repeat(64) },
      },
      missing: {
        "/hardware/storage": "not probed in this test",
        "/software/drivers": "not probed in this test",
        "/software/build_options": "not given",
        "/model/custom_pack": "none",
        "/configuration/kv_cache": "unknown",
        "/configuration/expert_cache": "unknown",
        "/configuration/offloading": "unknown",
        "/configuration/prefill": "unknown",
        "/configuration/mtp": "unknown",
        "/configuration/calibration": "unknown",
        "/configuration/experimental_options": "unknown",
      },
      nonconformingReasons: [],
    },
    track: "custom",
    trackNotes: null,
    sampling: {
      temperature: 1,
      top_p: 0.95,
      top_k: 20,
      min_p: 0,
      presence_penalty: 0,
      repetition_penalty: 1,
      reasoning_effort: "xhigh",
    },
    chatTemplateKwargs: { enable_thinking: true, preserve_thinking: true },
    artifacts: [
      { kind: "outputs", path: "outputs.jsonl", sha256: "e".repeat(64) },
      { kind: "provenance", path: "template.jinja", sha256: "d".repeat(64) },
    ],
    nonconformingReasons: [],
    extensions: {},
  };
}

Deno.test("an all-right run assembles into a complete result that the strict validator accepts", async () => {
  const f = await facts(answerFor);
  const { result, unexplainedNulls } = assembleResult(input(f));
  assert.deepEqual(unexplainedNulls, []);
  assert.equal(result.run.status, "complete");
  assert.equal(result.quality.passed, 12);
  const max = Object.fromEntries(f.fixtures.map((x) => [x.id, x.max_shared_prefix_tokens]));
  assert.deepEqual(await validateResult(JSON.parse(JSON.stringify(result)), { maxSharedPrefixTokens: max }), []);
  for (const pointer of nullPointers(result)) assert.ok(result.missing[pointer], pointer);
  assert.equal(result.missing["/configuration/track_notes"]?.includes("--track-notes"), true);
});

Deno.test("a dead engine after a failure gives a partial result with every skipped request explained", async () => {
  const f = await facts((fx) => fx.id === "performance-short-r2" ? outcome("cut") : answerFor(fx));
  const { result, unexplainedNulls } = assembleResult(input(f));
  assert.deepEqual(unexplainedNulls, []);
  assert.equal(result.run.status, "partial");
  assert.equal(result.request_counts.sanity.skipped, 12);
  assert.equal(result.run.required_duration_s, null);
  assert.match(result.missing["/run/required_duration_s"] ?? "", /did not finish/);
  const max = Object.fromEntries(f.fixtures.map((x) => [x.id, x.max_shared_prefix_tokens]));
  assert.deepEqual(await validateResult(JSON.parse(JSON.stringify(result)), { maxSharedPrefixTokens: max }), []);
});

Deno.test("run-level reasons (remote server, simulated engine) make the result nonconforming and are listed", async () => {
  const f = await facts(answerFor);
  const base = input(f);
  const { result, nonconformingReasons } = assembleResult({
    ...base,
    nonconformingReasons: ["the server 192.168.1.5 is not on loopback", "simulated"],
  });
  assert.equal(result.run.status, "nonconforming");
  assert.deepEqual(nonconformingReasons, ["the server 192.168.1.5 is not on loopback", "simulated"]);
  assert.deepEqual(result.extensions?.nonconforming_reasons, nonconformingReasons);
});

Deno.test("optional rounds assemble into three concurrency rounds and twenty summaries", async () => {
  const f = await facts(answerFor, true);
  const { result, unexplainedNulls } = assembleResult(input(f, true));
  assert.deepEqual(unexplainedNulls, []);
  assert.equal(result.requests.length, 34);
  assert.equal(result.concurrency_rounds.length, 3);
  assert.equal(result.summaries.length, 20);
  assert.ok(result.run.optional_duration_s !== null);
  const max = Object.fromEntries(f.fixtures.map((x) => [x.id, x.max_shared_prefix_tokens]));
  assert.deepEqual(await validateResult(JSON.parse(JSON.stringify(result)), { maxSharedPrefixTokens: max }), []);
});

Deno.test("skipped work reads 'skipped: <reason>' once, in exclusions, record reasons and the README", async () => {
  const f = await facts((fx) => fx.id === "performance-short-r2" ? outcome("cut") : answerFor(fx));
  const { result } = assembleResult(input(f));
  const exclusions = result.summaries.flatMap((s) => s.excluded.map((e) => e.reason));
  const skippedReasons = exclusions.filter((r) => r.startsWith("skipped:"));
  assert.ok(skippedReasons.length > 0);
  for (const reason of skippedReasons) {
    assert.match(reason, /^skipped: the engine did not answer \/health after performance-short-r2 failed/);
  }
  const text = JSON.stringify(result) + renderReadme(result) + renderConsoleSummary(result);
  assert.doesNotMatch(text, /skipped: skipped|skipped, skipped/);
  assert.match(
    renderReadme(result),
    /- sanity-I1: skipped: the engine did not answer \/health after performance-short-r2/,
  );
  assert.doesNotMatch(text, /request was skipped: skipped/);
});

Deno.test("concurrency rounds that never ran (engine died earlier) have null output tokens with a reason", async () => {
  const f = await facts((fx) => fx.id === "sanity-T4" ? outcome("cut") : answerFor(fx), true);
  const { result, unexplainedNulls } = assembleResult(input(f, true));
  assert.deepEqual(unexplainedNulls, []);
  assert.equal(result.concurrency_rounds.length, 3);
  result.concurrency_rounds.forEach((round, i) => {
    assert.equal(round.output_tokens, null);
    assert.match(
      result.missing[`/concurrency_rounds/${i}/output_tokens`] ?? "",
      /^the round was not run: all 4 of its requests were skipped \(the engine did not answer/,
    );
  });
  const max = Object.fromEntries(f.fixtures.map((x) => [x.id, x.max_shared_prefix_tokens]));
  assert.deepEqual(await validateResult(JSON.parse(JSON.stringify(result)), { maxSharedPrefixTokens: max }), []);
});

Deno.test("a 4K performance request whose server sent no usage makes the run nonconforming, with the reason", async () => {
  const f = await facts((fx) =>
    fx.id === "performance-prompt-4k-r2" ? { ...answerFor(fx), usage: null } : answerFor(fx)
  );
  const { result, unexplainedNulls } = assembleResult(input(f));
  assert.deepEqual(unexplainedNulls, []);
  assert.equal(result.run.status, "nonconforming");
  assert.deepEqual(result.extensions?.nonconforming_reasons, [
    "performance-prompt-4k-r2: the prompt length could not be checked against 4096 +/- 2%: the server sent no " +
    "usage.prompt_tokens although the request asked for usage (stream_options.include_usage)",
  ]);
  const max = Object.fromEntries(f.fixtures.map((x) => [x.id, x.max_shared_prefix_tokens]));
  assert.deepEqual(await validateResult(JSON.parse(JSON.stringify(result)), { maxSharedPrefixTokens: max }), []);
});
