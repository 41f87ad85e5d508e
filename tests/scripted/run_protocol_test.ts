/** The activation checklist against the scripted engine: every run writes a valid, fully explained result. */
import assert from "node:assert/strict";
import { cleanup, maxSharedPrefixTokens, runScripted, type ScriptedRun } from "./_harness.ts";
import type { RequestCounts } from "../../contract/mod.ts";
import type { MockEngine, MockRequestLog } from "../../mock/mod.ts";
import { renderConsoleSummary } from "../../report/mod.ts";
import { chunkGaps, rangeOf } from "../../score/mod.ts";

function assertValid(run: ScriptedRun): void {
  assert.deepEqual(run.problems, [], "validateResultText finds no problem in results.json");
  assert.deepEqual(run.report.validationProblems, [], "the runner's own self-check agrees");
  assert.deepEqual(run.report.unexplainedNulls, [], "every null has a specific reason");
}

function assertCountIdentities(counts: RequestCounts): void {
  for (const phase of Object.values(counts)) {
    assert.equal(phase.attempted, phase.completed + phase.truncated + phase.failed);
    assert.equal(phase.planned, phase.attempted + phase.skipped);
  }
}

Deno.test("a complete run with right answers is complete, 12/12, 22 records, one line per request", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted();
    assertValid(run);
    assert.equal(run.result.run.status, "complete", JSON.stringify(run.result.extensions));
    assert.equal(run.result.requests.length, 22);
    assert.equal(run.result.quality.passed, 12);
    assert.equal(run.result.request_counts.performance.attempted, 9);
    assert.equal(run.result.request_counts.concurrency.planned, 0);
    assertCountIdentities(run.result.request_counts);
    assert.equal(run.outputs.length, 22);
    assert.deepEqual(run.outputs.map((o) => o.request_id), run.result.requests.map((r) => r.id));
    assert.ok(run.result.run.required_duration_s !== null && run.result.run.required_duration_s >= 0);
    assert.equal(run.result.run.optional_duration_s, null);
    assert.match(run.result.missing["/run/optional_duration_s"] ?? "", /not selected/);
    assert.equal(run.engine.requests.length, 22);
    // Summaries are rebuilt by the validator; here: 3 cases x 5 metrics, each n <= 3.
    assert.equal(run.result.summaries.length, 15);
    const kinds = run.result.artifacts.map((a) => `${a.kind} ${a.path}`).sort();
    assert.deepEqual(kinds, [
      "config config.json",
      "outputs outputs.jsonl",
      "provenance caps.svg",
      "provenance latency.svg",
      "provenance rates.svg",
      "provenance template.jinja",
      "provenance template_check.json",
    ]);
    const check = run.result.extensions?.template_check as Record<string, unknown>;
    assert.deepEqual([check.ran, check.matched, check.mismatches, check.unchecked], [true, 22, 0, 0]);
    assert.equal(run.result.configuration.template?.path, "template.jinja");
    assert.equal(run.result.extensions?.dialect, "llama.cpp");
  } finally {
    await cleanup(run);
  }
});

Deno.test("records carry the reasoning cadence the client stamped, rebuilt from the line; report prints it per case", async () => {
  let run: ScriptedRun | undefined;
  try {
    // Real waiting: each reasoning and answer token is its own delta, 5 ms apart.
    const answer = { kind: "text" as const, text: "one two three four five six" };
    const done = run = await runScripted({
      mock: {
        timeScale: 1,
        decodeTps: 200,
        promptTps: 1_000_000,
        script: {
          "performance-*": { answer, reasoningTokens: 10 },
          "performance-short-r2": { answer, reasoningTokens: 0 },
        },
      },
    });
    assertValid(done);
    // Chunks that arrive in one network read share its stamp (a gap of 0); over all of them, the gaps are real.
    const gaps: number[] = [];
    const lineOf = (id: string) => done.outputs.find((o) => o.request_id === id)!;
    for (const id of ["performance-short-r1", "performance-prompt-4k-r2", "performance-prompt-16k-r3"]) {
      const record = done.byId.get(id)!;
      const cadence = done.result.extensions!.reasoning_cadence![id]!;
      // Written as whole microseconds, each after the first a difference; read back, the seconds scored.
      const seconds = (us: number[]) => us.map((_, i) => us.slice(0, i + 1).reduce((a, b) => a + b, 0) / 1e6);
      const reasoning = seconds(lineOf(id).reasoning_chunk_offsets_us as number[]);
      const answers = seconds(lineOf(id).chunk_offsets_us as number[]);
      assert.equal(reasoning.length, 10, JSON.stringify(cadence));
      assert.ok(answers.length >= 2);
      assert.equal(cadence.thinking_s, record.timings.first_answer_s! - reasoning[0]!);
      gaps.push(...chunkGaps(reasoning), ...chunkGaps(answers));
      assert.ok(Math.abs(cadence.reasoning_tpot_s! * 9 - (reasoning.at(-1)! - reasoning[0]!)) < 1e-5);
      assert.ok(Math.abs(cadence.answer_tpot_s! * (answers.length - 1) - (answers.at(-1)! - answers[0]!)) < 1e-5);
    }
    // Each case's gaps are pooled once (the per-request lists are the stamps' differences, in the evidence).
    const pooled = done.result.extensions!.reasoning_itl!;
    assert.deepEqual(pooled.map((p) => `${p.phase} ${p.case_id}`), [
      "performance short",
      "performance prompt-4k",
      "performance prompt-16k",
    ]);
    for (const entry of pooled) {
      const ids = done.result.requests.filter((r) => r.phase === entry.phase && r.case_id === entry.case_id)
        .filter((r) => done.result.extensions!.reasoning_cadence![r.id] !== null).map((r) => r.id);
      const stamps = (id: string, key: string) => {
        const us = lineOf(id)[key] as number[];
        return us.map((_, i) => us.slice(0, i + 1).reduce((a, b) => a + b, 0) / 1e6);
      };
      assert.deepEqual(
        entry.reasoning_itl_s,
        rangeOf(ids.flatMap((id) => chunkGaps(stamps(id, "reasoning_chunk_offsets_us")))),
      );
      assert.deepEqual(entry.answer_itl_s, rangeOf(ids.flatMap((id) => chunkGaps(stamps(id, "chunk_offsets_us")))));
    }
    assert.ok(gaps.every((gap) => gap >= 0) && gaps.some((gap) => gap > 0), JSON.stringify(gaps));
    const plain = done.result.requests.findIndex((r) => r.id === "performance-short-r2");
    assert.ok(plain >= 0);
    assert.equal(done.result.extensions!.reasoning_cadence!["performance-short-r2"], null);
    assert.equal(done.result.missing["/extensions/reasoning_cadence/performance-short-r2"], "no reasoning streamed");
    // Each line whole again (the console wraps prose at 100 columns, its continuations indented).
    const text = renderConsoleSummary(done.result).replace(/\n {2,}(?=\S)/g, " ");
    const lines = text.split("\n").filter((l) => l.startsWith("Reasoning cadence, "));
    assert.equal(lines.length, 4, lines.join("\n"));
    assert.match(lines[1]!, /^Reasoning cadence, short \(2 of 3 measured requests reasoned\): thinking [0-9.]+ s /);
    assert.match(
      lines[2]!,
      /^Reasoning cadence, prompt-4k \(3 of 3 measured requests reasoned\):.* ITL [0-9.]+ ms .* n=27;/,
    );
  } finally {
    await cleanup(run);
  }
});

Deno.test("a run against the scripted engine is labelled simulated and nonconforming even without --simulated", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { announceScripted: true } });
    assertValid(run);
    assert.equal(run.result.run.status, "nonconforming");
    assert.equal(run.result.extensions?.simulated_engine, true);
    const reasons = run.result.extensions?.nonconforming_reasons as string[];
    assert.ok(reasons.some((r) => /scripted engine/.test(r)), JSON.stringify(reasons));
  } finally {
    await cleanup(run);
  }
});

Deno.test("early EOS, cap truncation, wrong answers, malformed JSON, duplicate keys and prose tool calls are each recorded", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: {
        script: {
          "performance-short-r1": { answer: { kind: "early_eos", tokens: 7 } },
          "sanity-I1": { answer: { kind: "malformed_json" } },
          "sanity-I2": { answer: { kind: "text", text: "[1,2,9]" } },
          "sanity-I3": { answer: { kind: "duplicate_keys" } },
          "sanity-I4": { answer: { kind: "cap" } },
          "sanity-T1": { answer: { kind: "prose_tool_call" } },
          "sanity-T3": {
            answer: {
              kind: "tool_call",
              name: "convert_units",
              arguments: '{"value":3.0,"from_unit":"km","to_unit":"m"}',
            },
          },
        },
      },
    });
    assertValid(run);
    const early = run.byId.get("performance-short-r1")!;
    assert.equal(early.status, "completed");
    assert.equal(early.finish_reason, "stop");
    assert.equal(early.tokens.output_tokens, 7);
    assert.equal(early.timings.first_answer_s, null);
    assert.equal(run.byId.get("sanity-I4")!.status, "truncated");
    for (const id of ["sanity-I1", "sanity-I2", "sanity-I3", "sanity-I4", "sanity-T1", "sanity-T3"]) {
      assert.equal(run.byId.get(id)!.evaluation?.passed, false, id);
    }
    assert.equal(run.result.quality.passed, 6);
    assert.equal(run.result.quality.categories.instruction.passed, 0);
    assert.equal(run.result.run.status, "complete");
  } finally {
    await cleanup(run);
  }
});

Deno.test("missing usage, missing timings, empty deltas and keep-alives leave nulls with reasons and a valid result", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: {
        script: {
          "performance-short-*": { omitUsage: true },
          "performance-prompt-4k-*": { omitTimings: true },
          "sanity-*": { keepAliveEvery: 2, emptyDeltaEvery: 3 },
        },
      },
    });
    assertValid(run);
    const noUsage = run.byId.get("performance-short-r2")!;
    assert.equal(noUsage.tokens.output_tokens, null);
    assert.ok(run.result.missing["/requests/4/tokens/output_tokens"]);
    const noTimings = run.byId.get("performance-prompt-4k-r1")!;
    assert.equal(noTimings.metrics.decode_tps, null);
    assert.equal(run.result.quality.passed, 12, "keep-alives and empty deltas do not break answers");
    const decode4k = run.result.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "decode_tps")!;
    assert.equal(decode4k.n, 0);
    assert.equal(decode4k.median, null);
  } finally {
    await cleanup(run);
  }
});

Deno.test("a timeout and a cut stream fail their requests, /health answers, and the run continues", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: {
        script: {
          "sanity-R1": { fault: { kind: "stall", afterTokens: 2, ms: 5000 } },
          "performance-prompt-16k-r2": { fault: { kind: "cut", afterTokens: 3 } },
        },
      },
      run: { deadlineS: 0.3 },
    });
    assertValid(run);
    const timedOut = run.byId.get("sanity-R1")!;
    assert.equal(timedOut.status, "failed");
    assert.equal(timedOut.error?.kind, "timeout");
    assert.equal(timedOut.evaluation?.passed, false);
    assert.equal(run.byId.get("performance-prompt-16k-r2")!.status, "failed");
    assert.equal(run.result.request_counts.sanity.skipped, 0);
    assert.equal(run.result.run.status, "complete", "failures are recorded outcomes, not skipped work");
    assert.equal((run.result.extensions?.health_checks as unknown[]).length, 2);
  } finally {
    await cleanup(run);
  }
});

Deno.test("cancelling mid-run records the in-flight request as cancelled, skips the rest and still writes a valid partial result", async () => {
  let run: ScriptedRun | undefined;
  const controller = new AbortController();
  let engine: MockEngine | undefined;
  let waitProblem: unknown = null;
  try {
    run = await runScripted({
      // The request sends its first delta, then stalls: the abort lands at that known point, mid-stream.
      mock: { script: { "performance-short-r2": { fault: { kind: "stall", afterTokens: 1, ms: 5000 } } } },
      onEngine: (e) => (engine = e),
      run: {
        signal: controller.signal,
        onRequestStart: (fixture) => {
          if (fixture.id !== "performance-short-r2") return;
          engine!.waitFor((e) =>
            e.requests.some((r) => r.requestId === "performance-short-r2" && r.firstDeltaSentAtEpochUs !== null)
          ).catch((error) => (waitProblem = error)).finally(() => controller.abort("SIGINT"));
        },
      },
    });
    assert.equal(waitProblem, null, "the stalled request sent its first delta before the abort");
    // The engine sees the client hang up during the stall (not after it): the abort landed mid-stream.
    await run.engine.waitFor(
      (e) => e.requests.some((r) => r.requestId === "performance-short-r2" && r.outcome === "client_disconnected"),
      4000,
    );
    assertValid(run);
    assert.equal(run.result.run.status, "partial");
    assert.equal(run.byId.get("performance-short-r2")!.status, "failed");
    assert.equal(run.byId.get("performance-short-r2")!.error?.kind, "cancelled");
    assert.equal(run.result.request_counts.sanity.skipped, 12);
    assert.equal(run.result.requests.length, 22);
    assert.equal(run.result.run.required_duration_s, null);
    assert.equal(run.outputs.length, 22);
    assertCountIdentities(run.result.request_counts);
  } finally {
    await cleanup(run);
  }
});

Deno.test("server death: /health fails after the failed request and every later request is skipped", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: { script: { "performance-prompt-4k-r2": { fault: { kind: "die", afterTokens: 2 } } } },
    });
    assertValid(run);
    assert.equal(run.byId.get("performance-prompt-4k-r2")!.status, "failed");
    const skipped = run.result.requests.filter((r) => r.status === "skipped");
    assert.equal(skipped.length, 22 - 6);
    assert.match(skipped[0]!.error?.message ?? "", /health/);
    assert.equal(run.result.run.status, "partial");
    assert.equal(run.result.quality.passed, 0);
    assertCountIdentities(run.result.request_counts);
  } finally {
    await cleanup(run);
  }
});

Deno.test("a failed warm-up skips everything after it", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { script: { warmup: { fault: { kind: "http_error", status: 500 } } } } });
    assertValid(run);
    assert.equal(run.engine.requests.length, 1);
    assert.equal(run.result.requests.filter((r) => r.status === "skipped").length, 21);
    assert.equal(run.result.run.status, "partial");
  } finally {
    await cleanup(run);
  }
});

Deno.test("a refused setting (HTTP 400) makes the run nonconforming and is never retried", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: { script: { "sanity-T2": { fault: { kind: "http_error", status: 400, message: "unsupported" } } } },
    });
    assertValid(run);
    assert.equal(run.result.run.status, "nonconforming");
    assert.equal(run.engine.requests.filter((r) => r.requestId === "sanity-T2").length, 1);
    const reasons = run.result.extensions?.nonconforming_reasons as string[];
    assert.ok(reasons.some((r) => r.includes("sanity-T2")), reasons.join("; "));
  } finally {
    await cleanup(run);
  }
});

Deno.test("a second run against the same server finds unexpected payload reuse and is nonconforming", async () => {
  let first: ScriptedRun | undefined;
  try {
    // Enough slots that every prompt of the first run stays cached in one of them (as a prompt cache would).
    first = await runScripted({ mock: { slots: 32 } });
    assert.equal(first.result.run.status, "complete");
    const second = await runScripted({ engine: first.engine, dir: first.dir });
    assert.deepEqual(second.problems, []);
    assert.equal(second.result.run.status, "nonconforming");
    const reasons = second.result.extensions?.nonconforming_reasons as string[];
    assert.ok(reasons.some((r) => /performance-.*cache/.test(r)), reasons.join("; "));
    const reused = second.result.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "prompt_tps")!;
    assert.ok(reused.excluded.length > 0, "reused requests leave the speed summaries");
    const prior = second.result.extensions?.server_prior_requests as { at_least: number };
    assert.ok(prior.at_least > 0, "the report says the server had answered requests");
  } finally {
    await cleanup(first);
  }
});

Deno.test("optional concurrency on a one-slot server: 34 records, three rounds with walls, capacity 1", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { slots: 1 }, run: { optionalConcurrency: true } });
    assertValid(run);
    assert.equal(run.result.requests.length, 34);
    assert.equal(run.result.concurrency_rounds.length, 3);
    assert.ok(run.result.concurrency_rounds.every((r) => r.wall_s !== null && r.request_ids.length === 4));
    assert.equal(run.result.configuration.server_capacity, 1);
    assert.equal(run.result.summaries.length, 20);
    assert.ok(run.result.run.optional_duration_s !== null);
    assert.equal(run.result.request_counts.concurrency.attempted, 12);
    assertCountIdentities(run.result.request_counts);
    // The round report says how many requests waited for the one slot, from the engine's own timers.
    const queueing = run.result.extensions?.round_queueing as {
      waited: number;
      requests: { request_id: string; queued: boolean; source: string }[];
    }[];
    assert.deepEqual(queueing.map((q) => q.waited), [3, 3, 3]);
    assert.ok(queueing.every((q) => q.requests.every((w) => w.source.startsWith("engine timers"))));
  } finally {
    await cleanup(run);
  }
});

Deno.test("a bundle that differs from its manifest refuses the run before anything is sent", async () => {
  const { startMockEngine } = await import("../../mock/mod.ts");
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const { realRunDeps } = await import("../../runner/mod.ts");
    const { runProtocol } = await import("../../runner/mod.ts");
    const { RunRefusedError } = await import("../../runner/run_errors.ts");
    const deps = realRunDeps({
      loadBundle: () => Promise.reject(new Error("Cannot load the fixture bundle: warmup.json differs")),
    }, { hashCacheDir: null });
    await assert.rejects(
      runProtocol({
        baseUrl: engine.url,
        optionalConcurrency: false,
        track: "custom",
        trackNotes: null,
        declared: {
          modelId: null,
          modelRevision: null,
          sourceRevision: null,
          tokenizerRevision: null,
          quantization: null,
          customPack: null,
          background: [],
          buildOptions: null,
          engineCommit: null,
        },
        simulated: false,
        outRoot: "unused-never-created",
        command: "strata-bench run",
      }, deps),
      (e: unknown) => e instanceof RunRefusedError && e.code === "bundle" && /warmup\.json/.test(e.message),
    );
    assert.equal(engine.requests.length, 0);
  } finally {
    await engine.close();
  }
});

Deno.test("a server that answers /health with an error is not called unreachable: wait for its model", async () => {
  const { realRunDeps, runProtocol } = await import("../../runner/mod.ts");
  const { RunRefusedError } = await import("../../runner/run_errors.ts");
  const out = await Deno.makeTempDir({ prefix: "strata-health-" });
  try {
    const answers: [{ ok: false; status: number | null; message: string; connected: boolean }, RegExp][] = [
      [
        { ok: false, status: 503, message: "Loading model", connected: true },
        /answered \/health with HTTP 503 \(Loading model\), not 200; wait until it has loaded/,
      ],
      [
        { ok: false, status: null, message: "connection refused", connected: false },
        /did not answer \/health \(connection refused\); start it first/,
      ],
      [
        { ok: false, status: null, message: "the server closed the connection", connected: true },
        /a process at .* took the connection but gave \/health no HTTP answer \(the server closed the connection\); check that --url/,
      ],
    ];
    for (const [answer, message] of answers) {
      const deps = realRunDeps({ checkHealth: () => Promise.resolve(answer) }, { hashCacheDir: null });
      await assert.rejects(
        runProtocol({
          baseUrl: "http://127.0.0.1:9",
          optionalConcurrency: false,
          track: "custom",
          trackNotes: null,
          declared: {
            modelId: null,
            modelRevision: null,
            sourceRevision: null,
            tokenizerRevision: null,
            quantization: null,
            customPack: null,
            background: [],
            buildOptions: null,
            engineCommit: null,
          },
          simulated: false,
          outRoot: out,
          command: "strata-bench run",
        }, deps),
        (e: unknown) => e instanceof RunRefusedError && e.code === "unreachable" && message.test(e.message),
      );
    }
    assert.deepEqual([...Deno.readDirSync(out)], [], "nothing written");
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("the validator rejects a result with an unknown format or schema version", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted();
    const { validateResultText } = await import("../../report/validate.ts");
    const options = { maxSharedPrefixTokens: await maxSharedPrefixTokens() };
    const v2 = JSON.stringify({ ...run.result, schema_version: 2 });
    assert.ok((await validateResultText(v2, options)).some((p) => p.pointer === "/schema_version"));
    const other = JSON.stringify({ ...run.result, format: "strata-standard-benchmark-next" });
    assert.ok((await validateResultText(other, options)).some((p) => p.pointer === "/format"));
  } finally {
    await cleanup(run);
  }
});

Deno.test("optional rounds on one slot: the requests the round report says waited are the ones the engine queued", async () => {
  let run: ScriptedRun | undefined;
  try {
    // Real waiting at a fast speed, so the engine's timers and its queue are both real.
    run = await runScripted({
      mock: { slots: 1, timeScale: 1, decodeTps: 5000, promptTps: 1_000_000 },
      run: { optionalConcurrency: true },
    });
    assertValid(run);
    const queueing = run.result.extensions?.round_queueing as {
      round: number;
      waited: number;
      requests: { request_id: string; queued: boolean; wait_s: number }[];
    }[];
    const engineLog: MockRequestLog[] = run.engine.requests;
    for (const q of queueing) {
      assert.equal(q.waited, 3);
      // The engine's own log: one request of the round took the free slot, three waited in its FIFO queue.
      const logs = engineLog.filter((r) => r.requestId?.startsWith(`concurrency-r${q.round}-`));
      const byWait = [...logs].sort((a, b) => (a.queuedMs ?? 0) - (b.queuedMs ?? 0));
      const engineQueued = byWait.slice(1).map((r) => r.requestId).sort();
      assert.deepEqual(q.requests.filter((w) => w.queued).map((w) => w.request_id).sort(), engineQueued);
    }
  } finally {
    await cleanup(run);
  }
});
