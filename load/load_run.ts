/**
 * The conductor of `load`: prepares the workload once (pin, selection, feasibility: all before traffic), opens the
 * JSONL, measures the client's headroom for the run's shape, runs the generator `repeat` times (against the given
 * URLs, or against the scripted engine it starts for the self-check), writes every row as its request ends and each
 * run's summary with its audits, prompt mix and headroom stamp, adds the cross-run aggregate, and says how the test
 * ended. Every line is sanitized. What a person sees is rendered by the caller from the hooks' plain data.
 */
import type { MockEngine, MockEngineOptions } from "../mock/mod.ts";
import type { Sanitizer } from "../report/mod.ts";
import { aggregateRuns, type LoadAggregate } from "./aggregate.ts";
import { executeLoad, type LoadRunResult } from "./execute.ts";
import type { LoadDeps, LoadPlan } from "./generator.ts";
import { clientCeiling, type HeadroomCeiling, type HeadroomDeps, headroomStamp } from "./headroom.ts";
import { checkTargetsFeasible, type PreparedWorkload, prepareWorkload, type WorkloadOptions } from "./prepare.ts";
import { checkStreamingServer, type PreflightResult } from "./preflight.ts";
import { promptMixReport } from "./prompt_mix.ts";
import type { LoadRequestRow } from "./metrics.ts";
import { scheduleSha256, type ShardRun, shardStamp } from "./shard.ts";
import type { LengthTarget, Slo } from "./summary.ts";

export const LOAD_RUN_FORMAT = "strata-load-run" as const;
/**
 * Version 3 (from 2): the preflight check, cancelled rows and interrupted runs (see LOAD_FORMAT_VERSION).
 * Version 2 (from 1): adds the audits, prompt mix, headroom, drain and shard stamps.
 */
export const LOAD_RUN_VERSION = 3 as const;

/** What one `load` asks for. */
export interface LoadTestOptions {
  urls: string[];
  selfCheck: boolean;
  plan: Omit<LoadPlan, "endpoints" | "requestFor" | "seed">;
  workload: WorkloadOptions;
  lateAfterS: number;
  repeat: number;
  isl: LengthTarget | undefined;
  osl: LengthTarget | undefined;
  failOnOslMismatch: boolean;
  slo: Slo;
  binS: number;
  out: string | undefined;
  /** Non-streaming only: TTFT from the HTTP first byte, labelled so. */
  inferTtftFromFirstByte?: boolean;
  /** --strict: reject reasoning-truncated answers. */
  strict?: boolean;
  /** --ci-safety: strict, plus every measured request must succeed and warm-up must not be zero. */
  ciSafety?: boolean;
  /** --allow-missing-ttft: successes without a TTFT pass the audit. */
  allowMissingTtft?: boolean;
  /** The client headroom check: measured (or cached) before the runs unless off. */
  headroom?: { mode: "auto" | "off"; durationS: number };
  /** This generator's shard of a fleet run, with its absolute start time. */
  shard?: ShardRun;
  /** Write the prompt-mix report (the mix of the last run) to this file as JSON. */
  promptMixReport?: string;
  /** The engine a profile started (or found) for this test, as the config line records it; absent for URLs. */
  engine?: Record<string, unknown>;
}

/** An output file written line by line. */
export interface LineSink {
  write(text: string): void;
  close(): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** Everything a load test touches outside itself. */
export interface LoadTestDeps extends LoadDeps, Partial<Omit<HeadroomDeps, keyof LoadDeps | "startMockEngine">> {
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Opens an output written as it grows (rows are written as requests end, not kept in memory). */
  openLines(path: string): Promise<{ ok: true; value: LineSink } | { ok: false; reason: string }>;
  startMockEngine(options: MockEngineOptions): Promise<MockEngine>;
  /** Redacts home folders, user and host names and secrets from every --out line (rows carry server error text). */
  sanitizer: Sanitizer;
  /** Wall clock, epoch milliseconds (shard start times and clock evidence only; never in a duration). */
  wallMs?(): number;
  /** This toolkit's version and commit, stamped so that shards of different toolkits are not merged. */
  toolkit?(): Promise<{ version: string; commit: string | null }>;
  signal?: AbortSignal;
}

/** What the caller hears while the test runs (in this order); all optional. */
export interface LoadTestHooks {
  /** Before the preflight check of the URLs, before the headroom check. */
  onStage?(stage: "preflight" | "headroom"): void;
  onHeadroom?(ceiling: HeadroomCeiling): void;
  onRunStart?(run: number, runs: number, urls: readonly string[]): void;
  /** At the run's measurement epoch: warm-up is over (and a shard's start time reached). */
  onEpoch?(run: number): void;
  /** As each request is sent; for counters only (it runs on the generator's path). */
  onSend?(phase: "warmup" | "measure", run: number): void;
  /** As each request ends, with its row (warm-up rows included); for counters only. */
  onRow?(row: LoadRequestRow, run: number): void;
  onRunEnd?(run: LoadRunResult, index: number): void;
  onAggregate?(aggregate: LoadAggregate): void;
  /** The JSONL file is open (before any traffic): rows go there as they end. */
  onOutput?(path: string): void;
  onWritten?(path: string, lines: number): void;
  /** A note that does not stop the test (zero warm-up, client near its ceiling, a late shard start). */
  onWarning?(text: string): void;
}

/**
 * How the test ended: `ok`; `no-success` when no measured request of the last run succeeded; `osl-mismatch` when
 * --fail-on-osl-mismatch found a request outside the tolerance; `audit-failed` when the TTFT audit, --strict or
 * --ci-safety rejected a run; `interrupted` when a signal stopped it (what ended before is kept, marked so);
 * `unreachable` when a URL failed the preflight check (nothing was measured); `write-failed` when --out could not
 * be written.
 */
export type LoadTestOutcome =
  | {
    status: "ok" | "no-success" | "osl-mismatch" | "audit-failed" | "interrupted" | "unreachable";
    runs: LoadRunResult[];
    aggregate: LoadAggregate | null;
    reasons: string[];
  }
  | {
    status: "write-failed";
    reason: string;
    runs: LoadRunResult[];
    aggregate: LoadAggregate | null;
    reasons: string[];
  };

/** Scripted engine of the self-check: no service time, many slots, 64 visible tokens a request. */
export const SELF_CHECK_ENGINE: MockEngineOptions = {
  timeScale: 0,
  slots: 512,
  script: {
    "*": {
      answer: { kind: "text", text: Array.from({ length: 63 }, () => "tok").join(" ") },
      reasoningTokens: 0,
    },
  },
};

/** The warning a zero warm-up earns (methodology: valid only against a scripted or dummy server). */
export const ZERO_WARMUP_WARNING =
  "zero warm-up: valid for determinism checks against a scripted or dummy server only; against a real GPU endpoint " +
  "use a warm-up at least as large as the concurrency (model load, graph capture, JIT) for publishable numbers";

/** The OSL the workload targets: the flag, the profile's, or none. */
function oslTargetOf(options: LoadTestOptions, workload: PreparedWorkload): LengthTarget | undefined {
  const profile = workload.set.profile;
  return options.osl ??
    (profile && options.failOnOslMismatch ? { target: profile.osl_target, tolerance: 0.1, stat: "mean" } : undefined);
}

/** Output tokens a request of this workload is expected to have (for the headroom check's shape). */
function expectedOutputTokens(options: LoadTestOptions, workload: PreparedWorkload): number {
  return options.osl?.target ?? workload.set.profile?.osl_target ?? options.workload.maxTokens ?? 64;
}

/**
 * Prepares a load test without sending anything: the workload (read, pinned, selected, targets checked) and the
 * output tokens a request is expected to have.
 * @throws like prepareWorkload and checkTargetsFeasible.
 */
export async function prepareLoadTest(
  options: LoadTestOptions,
  deps: Pick<LoadTestDeps, "readText">,
): Promise<{ workload: PreparedWorkload; osl: LengthTarget | undefined }> {
  const requestCount = options.plan.requests ?? 2;
  const workload = await prepareWorkload(options.workload, requestCount, deps.readText);
  const osl = oslTargetOf(options, workload);
  checkTargetsFeasible(workload, options.workload, { isl: options.isl, osl });
  return { workload, osl };
}

/**
 * Runs one `load` test.
 * @throws {RangeError} for a workload refused before traffic (repeated prompt, pin mismatch, infeasible target);
 * SyntaxError/RangeError for a malformed prompt file; whatever `readText` throws for an unreadable one.
 */
export async function runLoadTest(
  options: LoadTestOptions,
  deps: LoadTestDeps,
  hooks: LoadTestHooks = {},
): Promise<LoadTestOutcome> {
  let engine: MockEngine | null = null;
  const reasons: string[] = [];
  const runs: LoadRunResult[] = [];
  let aggregate: LoadAggregate | null = null;
  let sink: LineSink | null = null;
  let lines = 0;
  /** Adds one --out JSONL line, sanitized like run's published files. */
  const emit = (value: unknown) => {
    if (sink === null) return;
    sink.write(JSON.stringify(deps.sanitizer.json(value)) + "\n");
    lines++;
  };
  const closeSink = async (): Promise<{ ok: true } | { ok: false; reason: string }> => {
    if (sink === null) return { ok: true };
    const s = sink;
    sink = null;
    return await s.close();
  };
  try {
    const { workload, osl } = await prepareLoadTest(options, deps);
    const isl = options.isl;
    // Each URL must answer as a streaming chat server before anything is measured (the self-check's engine is ours).
    const preflight: PreflightResult[] = [];
    if (!options.selfCheck) {
      hooks.onStage?.("preflight");
      for (const url of options.urls) {
        const checked = await checkStreamingServer(url, deps, {
          stream: options.workload.stream !== false,
          model: options.workload.model,
          deadlineS: Math.min(options.workload.requestTimeoutS, PREFLIGHT_DEADLINE_S),
          ...(deps.signal ? { signal: deps.signal } : {}),
        });
        preflight.push(checked);
        if (deps.signal?.aborted) {
          return { status: "interrupted", runs, aggregate, reasons: ["interrupted before the load began"] };
        }
        if (!checked.ok) {
          reasons.push(`${checked.reason}; it must answer as an OpenAI-compatible streaming chat server`);
        }
      }
      if (reasons.length > 0) return { status: "unreachable", runs, aggregate, reasons };
    }
    // Open the output before any traffic: an unwritable --out fails now, not after an hour of load.
    if (options.out !== undefined) {
      const opened = await deps.openLines(options.out);
      if (!opened.ok) return { status: "write-failed", reason: opened.reason, runs, aggregate, reasons };
      sink = opened.value;
      hooks.onOutput?.(options.out);
    }
    let urls = options.urls;
    if (options.selfCheck) {
      engine = await deps.startMockEngine(SELF_CHECK_ENGINE);
      urls = [engine.url];
    }
    const warnings: string[] = [];
    const zeroWarmup = options.plan.warmupRequests === 0 &&
      !(options.plan.warmupS !== undefined && options.plan.warmupS > 0);
    const warmupWarning = zeroWarmup && !options.selfCheck ? ZERO_WARMUP_WARNING : null;
    if (warmupWarning !== null) warnings.push(warmupWarning);
    const toolkit = (await deps.toolkit?.()) ?? null;
    const scheduleInput = { plan: options.plan, seed: options.workload.seed, repeat: options.repeat };
    const shard = options.shard === undefined
      ? null
      : shardStamp({ ...scheduleInput, shard: options.shard }, workload, toolkit);

    // Client headroom for this run's shape, before the load.
    let ceiling: HeadroomCeiling | null = null;
    let headroomMissing: string | null = null;
    const headroom = options.headroom ?? { mode: "off", durationS: 0 };
    if (options.selfCheck) headroomMissing = "the self-check is itself the client's ceiling";
    else if (headroom.mode === "off") headroomMissing = "not measured (--no-headroom-check)";
    else {
      hooks.onStage?.("headroom");
      const concurrency = options.plan.mode === "closed"
        ? Math.ceil((options.plan.concurrency as number) / (options.shard?.count ?? 1))
        : options.plan.maxConcurrency ?? 64;
      ceiling = await clientCeiling(
        { concurrency, outputTokens: expectedOutputTokens(options, workload) },
        { durationS: headroom.durationS, useCache: true },
        { ...deps, startMockEngine: deps.startMockEngine },
        deps.signal,
      );
      hooks.onHeadroom?.(ceiling);
    }
    for (const w of warnings) hooks.onWarning?.(w);

    emit({
      format: LOAD_RUN_FORMAT,
      version: LOAD_RUN_VERSION,
      kind: "config",
      urls,
      self_check: options.selfCheck,
      plan: options.plan,
      workload: workload.stamp,
      repeat: options.repeat,
      slo: options.slo,
      isl: isl ?? null,
      osl: osl ?? null,
      bin_s: options.binS,
      late_after_s: options.lateAfterS,
      strict: options.strict === true,
      ci_safety: options.ciSafety === true,
      allow_missing_ttft: options.allowMissingTtft === true,
      infer_ttft_from_first_byte: options.inferTtftFromFirstByte === true,
      schedule_sha256: scheduleSha256(scheduleInput, workload),
      client_headroom_ceiling: ceiling,
      toolkit,
      shard,
      engine: options.engine ?? null,
      preflight,
      warnings,
    });
    for (let r = 0; r < options.repeat; r++) {
      if (deps.signal?.aborted) break;
      hooks.onRunStart?.(r, options.repeat, urls);
      const plan = { ...options.plan };
      let clock: Record<string, unknown> | null = null;
      let startAtS: number | null = null;
      if (options.shard !== undefined) plan.shard = { index: options.shard.index, count: options.shard.count };
      if (options.shard !== undefined && r === 0) {
        const startAt = options.shard.startAt(deps);
        plan.startAtS = startAtS = startAt.startAtS;
        clock = startAt.evidence;
      }
      const run = await executeLoad({
        urls,
        plan,
        workload,
        seed: (options.workload.seed + r) >>> 0,
        lateAfterS: options.lateAfterS,
        binS: options.binS,
        slo: options.slo,
        isl,
        osl,
        rows: {
          nonStreaming: options.workload.stream === false,
          inferTtftFromFirstByte: options.inferTtftFromFirstByte === true,
        },
        audit: {
          allowMissingTtft: options.allowMissingTtft === true,
          rejectReasoningTruncated: options.strict === true || options.ciSafety === true,
          warmupWarning,
        },
        ...(deps.signal ? { signal: deps.signal } : {}),
        onRow: (row) => {
          emit({ run: r, ...row });
          hooks.onRow?.(row, r);
        },
        onSend: (phase) => hooks.onSend?.(phase, r),
        onEpoch: () => {
          if (clock !== null) {
            clock.epoch_late_s = Math.max(0, deps.nowS() - (startAtS as number));
            clock.wall_at_epoch_ms = deps.wallMs?.() ?? null;
          }
          hooks.onEpoch?.(r);
        },
      }, deps);
      const o = run.summary.overall;
      run.summary.prompt_mix = promptMixReport(workload, o, { isl: isl ?? null, osl: osl ?? null });
      const stamp = headroomStamp(ceiling, {
        eventsPerS: o.window_s !== null && o.window_s > 0 ? run.measuredEvents / o.window_s : null,
        requestsPerS: o.requests_per_s,
      }, headroomMissing);
      run.summary.client_headroom = { ...stamp };
      if (stamp.warning !== null) hooks.onWarning?.(stamp.warning);
      if (shard !== null) {
        run.summary.shard = { ...shard, clock: clock ?? null };
        const late = typeof clock?.epoch_late_s === "number" ? clock.epoch_late_s : null;
        if (late !== null && late > options.shard!.maxStartLateS) {
          hooks.onWarning?.(
            `shard ${shard.index}/${shard.count} started ${late.toFixed(3)} s after --start-at (bound ` +
              `${options.shard!.maxStartLateS} s): its warm-up overran or it was launched late; choose a later start`,
          );
        }
      }
      const interrupted = deps.signal?.aborted === true;
      if (interrupted) run.summary.interrupted = interruptedStamp(deps.signal!);
      runs.push(run);
      emit({ run: r, ...run.summary });
      hooks.onRunEnd?.(run, r);
      if (interrupted) break;
    }
    if (deps.signal?.aborted) {
      // What ended before the signal is kept, marked; no aggregate or verdict is made of an unfinished plan.
      const stamp = interruptedStamp(deps.signal);
      emit({
        format: LOAD_RUN_FORMAT,
        version: LOAD_RUN_VERSION,
        kind: "interrupted",
        by: stamp.by,
        runs_planned: options.repeat,
        runs_ended: runs.length,
        note: stamp.note,
      });
      if (options.out !== undefined) {
        const written = await closeSink();
        if (!written.ok) return { status: "write-failed", reason: written.reason, runs, aggregate, reasons };
        hooks.onWritten?.(options.out, lines);
      }
      return { status: "interrupted", runs, aggregate, reasons: [`interrupted by ${stamp.by}`] };
    }
    if (runs.length > 1) {
      aggregate = aggregateRuns(runs.map((r) => r.summary.overall), { seed: options.workload.seed });
      emit(aggregate);
      hooks.onAggregate?.(aggregate);
    }
    if (options.promptMixReport !== undefined && runs.length > 0) {
      const mix = runs[runs.length - 1]!.summary.prompt_mix;
      const written = await deps.writeText(
        options.promptMixReport,
        JSON.stringify(deps.sanitizer.json(mix), null, 2) + "\n",
      );
      if (!written.ok) return { status: "write-failed", reason: written.reason, runs, aggregate, reasons };
    }
    if (options.out !== undefined) {
      const written = await closeSink();
      if (!written.ok) return { status: "write-failed", reason: written.reason, runs, aggregate, reasons };
      hooks.onWritten?.(options.out, lines);
    }
    return verdict(options, runs, aggregate, reasons);
  } finally {
    await closeSink();
    await engine?.close();
  }
}

/** Longest wait for the preflight's one-token answer, seconds (a model still loading answers 503 at once). */
export const PREFLIGHT_DEADLINE_S = 120;

/** What stopped a run, from the abort signal's reason (the CLI passes the signal's name). */
export function interruptedStamp(signal: AbortSignal): { by: string; note: string } {
  const reason = signal.reason;
  const by = typeof reason === "string" ? reason : reason instanceof Error ? reason.message : "a signal";
  return {
    by,
    note: "stopped before its plan was done: the numbers cover only the requests that ended before the signal; " +
      "requests in flight were cancelled (status cancelled, not failures); not a complete result",
  };
}

/** How the finished runs end the test (the checks that come after the measurement). */
function verdict(
  options: LoadTestOptions,
  runs: LoadRunResult[],
  aggregate: LoadAggregate | null,
  reasons: string[],
): LoadTestOutcome {
  const last = runs[runs.length - 1];
  if (last === undefined || last.summary.overall.counts.succeeded === 0) {
    return { status: "no-success", runs, aggregate, reasons: ["no measured request succeeded"] };
  }
  for (const [i, run] of runs.entries()) {
    const a = run.summary.audits;
    const c = run.summary.overall.counts;
    const tag = runs.length > 1 ? `run ${i + 1}: ` : "";
    if (a && !a.ttft.pass) {
      reasons.push(
        `${tag}TTFT audit: ${a.ttft.missing} of ${a.ttft.checked} successes have no TTFT (pass --allow-missing-ttft ` +
          "to accept them, or --infer-ttft-from-first-byte for non-streaming requests)",
      );
    }
    if (a && !a.reasoning_truncated.pass) {
      reasons.push(
        `${tag}${a.reasoning_truncated.count} measured answers were reasoning-truncated (only reasoning until the ` +
          "length cap): --strict/--ci-safety reject them; raise --max-tokens",
      );
    }
    if (options.ciSafety && (c.failed > 0 || c.dropped > 0)) {
      reasons.push(`${tag}--ci-safety: ${c.failed} measured requests failed and ${c.dropped} were dropped`);
    }
  }
  if (reasons.length > 0) return { status: "audit-failed", runs, aggregate, reasons };
  if (options.failOnOslMismatch && runs.some((r) => (r.summary.overall.osl?.mismatches ?? 0) > 0)) {
    return { status: "osl-mismatch", runs, aggregate, reasons };
  }
  return { status: "ok", runs, aggregate, reasons };
}
