/**
 * The conductor of `load`: prepares the workload once (pin, selection, feasibility: all before traffic), opens the
 * JSONL, measures the client's headroom for the run's shape, runs the generator `repeat` times (each run a point of
 * a sweep, or the same plan again; against the given URLs, or against the scripted engine it starts for the
 * self-check), writes every row as its request ends and each run's summary with its audits, prompt mix and headroom
 * stamp, adds the cross-run aggregate (never across a sweep's points), and says how the test ended. Every line is
 * sanitized. What a person sees is rendered by the caller from the hooks' plain data.
 */
import { LOAD_LINE_FORMATS, LOAD_LINE_VERSIONS } from "../contract/mod.ts";
import type { MockEngine } from "../mock/mod.ts";
import { aggregateRuns, type LoadAggregate } from "./aggregate.ts";
import type { LoadRunResult } from "./execute.ts";
import { headroomEngine } from "./headroom.ts";
import { checkTargetsFeasible, type PreparedWorkload, prepareWorkload, WorkloadRefusal } from "./prepare.ts";
import { warmsUp } from "./load_plan_bounds.ts";
import { scheduleSha256, shardStamp } from "./shard.ts";
import type { LengthTarget } from "./summary.ts";
import {
  headroomStage,
  ignoredFieldWarnings,
  interruptedStamp,
  measureRun,
  OutputLines,
  preflightStage,
  type RunContext,
  verdict,
  warmupLimitReason,
} from "./_load_stages.ts";
import type { LoadTestDeps, LoadTestHooks, LoadTestOptions, LoadTestOutcome } from "./_load_types.ts";

export const LOAD_RUN_FORMAT = LOAD_LINE_FORMATS.run;
/**
 * Version 3 (from 2): the preflight check, cancelled rows and interrupted runs (see LOAD_FORMAT_VERSION).
 * Version 2 (from 1): adds the audits, prompt mix, headroom, drain and shard stamps.
 */
export const LOAD_RUN_VERSION = LOAD_LINE_VERSIONS[LOAD_RUN_FORMAT];

/** Scripted engine of the self-check: the headroom check's (no service time), 512 slots, 64 visible tokens a request. */
const SELF_CHECK_ENGINE = headroomEngine(64, 512);

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
  if (options.workload.publishable === true) {
    const p = options.plan;
    const problems = [
      ...(options.selfCheck ? ["the self-check measures the client, not a server"] : []),
      ...(warmsUp(p) ? [] : ["zero warm-up is for scripted servers only"]),
      ...((options.workload.ignoreEos || options.workload.minTokens !== undefined) && !options.failOnOslMismatch
        ? ["--ignore-eos or --min-tokens needs --fail-on-osl-mismatch"]
        : []),
    ];
    if (problems.length > 0) throw new WorkloadRefusal(`Cannot publish this load: ${problems.join("; ")}`);
  }
  const workload = await prepareWorkload(options.workload, requestCount, deps.readText);
  const osl = oslTargetOf(options, workload);
  checkTargetsFeasible(workload, options.workload, { isl: options.isl, osl });
  return { workload, osl };
}

/**
 * Runs one `load` test: prepare, open the output, preflight, headroom, config line, the measured runs, then the
 * finish (interrupted line, or aggregate, prompt mix and verdict).
 * @throws {RangeError} for a workload refused before traffic (repeated prompt, pin mismatch, infeasible target);
 * SyntaxError/RangeError for a malformed prompt file; whatever `readText` throws for an unreadable one.
 */
export async function runLoadTest(
  options: LoadTestOptions,
  deps: LoadTestDeps,
  hooks: LoadTestHooks = {},
): Promise<LoadTestOutcome> {
  let engine: MockEngine | null = null;
  const startedAt = new Date(deps.wallMs?.() ?? Date.now()).toISOString();
  const runs: LoadRunResult[] = [];
  const out = new OutputLines(deps.sanitizer);
  const ended = (status: "unreachable" | "interrupted" | "warmup-limit", reasons: string[]): LoadTestOutcome => ({
    status,
    runs,
    aggregate: null,
    reasons,
  });
  try {
    const { workload, osl } = await prepareLoadTest(options, deps);
    // Open the output before any traffic (the preflight's included): an unwritable --out fails now, not after an
    // hour of load. A target refused, or a signal, before anything was measured leaves no file behind.
    if (options.out !== undefined) {
      const opened = await out.open(options.out, deps);
      if (!opened.ok) return { status: "write-failed", reason: opened.reason, runs, aggregate: null, reasons: [] };
    }
    const checked = await preflightStage(options, deps, hooks);
    if (checked.interrupted || checked.refused.length > 0) {
      await out.discard();
      return checked.interrupted
        ? ended("interrupted", ["interrupted before the load began"])
        : ended("unreachable", checked.refused);
    }
    if (options.out !== undefined) hooks.onOutput?.(options.out);
    let urls = options.urls;
    if (options.selfCheck) {
      engine = await deps.startMockEngine(SELF_CHECK_ENGINE);
      urls = [engine.url];
    }
    const warmupWarning = !warmsUp(options.plan) && !options.selfCheck ? ZERO_WARMUP_WARNING : null;
    const toolkit = (await deps.toolkit?.()) ?? null;
    const scheduleInput = { plan: options.plan, seed: options.workload.seed, repeat: options.repeat };
    const shard = options.shard === undefined
      ? null
      : shardStamp({ ...scheduleInput, shard: options.shard }, workload, toolkit);
    const headroom = await headroomStage(options, workload, deps, hooks);
    const warnings = [
      ...(warmupWarning === null ? [] : [warmupWarning]),
      ...(options.selfCheck ? [] : await ignoredFieldWarnings(workload.stamp, urls, deps)),
    ];
    for (const warning of warnings) hooks.onWarning?.(warning);
    const context: RunContext = { options, deps, hooks, urls, workload, osl, warmupWarning, headroom, shard, out };
    out.emit(configLine(context, { startedAt, scheduleInput, toolkit, preflight: checked.preflight, warnings }));
    const stopped = await measureRuns(context, runs);
    if (stopped !== null) return await closed(ended(stopped.status, stopped.reasons));
    return await finish(options, deps, hooks, runs, out);
  } finally {
    await out.close();
    await engine?.close();
  }

  /** Closes the JSONL and says so; a close that fails turns the outcome into write-failed. */
  async function closed(outcome: LoadTestOutcome): Promise<LoadTestOutcome> {
    if (options.out === undefined) return outcome;
    const written = await out.close();
    if (!written.ok) return { ...outcome, status: "write-failed", reason: written.reason };
    hooks.onWritten?.(options.out, out.lines);
    return outcome;
  }
}

/** The run's config line: what was asked (plan, workload, targets, rules), the schedule's hash, headroom, shard. */
function configLine(
  { options, urls, workload, osl, headroom, shard }: RunContext,
  { startedAt, scheduleInput, toolkit, preflight, warnings }: {
    startedAt: string;
    scheduleInput: Parameters<typeof scheduleSha256>[0];
    toolkit: unknown;
    preflight: unknown;
    warnings: string[];
  },
): Record<string, unknown> {
  return {
    ...lineHead("config"),
    started_at: startedAt,
    urls,
    self_check: options.selfCheck,
    plan: options.plan,
    workload: workload.stamp,
    repeat: options.repeat,
    sweep: options.sweep ?? null,
    slo: options.slo,
    isl: options.isl ?? null,
    osl: osl ?? null,
    bin_s: options.binS,
    late_after_s: options.lateAfterS,
    strict: options.strict === true,
    ci_safety: options.ciSafety === true,
    allow_missing_ttft: options.allowMissingTtft === true,
    infer_ttft_from_first_byte: options.inferTtftFromFirstByte === true,
    schedule_sha256: scheduleSha256(scheduleInput, workload),
    client_headroom_ceiling: headroom.ceiling,
    toolkit,
    shard,
    engine: options.engine ?? null,
    preflight,
    warnings,
  };
}

/** The measured runs, each summary written as it ends; what stopped them early (the warm-up limit, a signal). */
async function measureRuns(context: RunContext, runs: LoadRunResult[]) {
  const { options, deps, hooks, out } = context;
  for (let r = 0; r < options.repeat && !deps.signal?.aborted; r++) {
    const run = await measureRun(context, r);
    runs.push(run);
    out.emit({ run: r, ...run.summary });
    hooks.onRunEnd?.(run, r);
    if (run.facts.stopped_by === "warmup-limit") {
      return { status: "warmup-limit" as const, reasons: [warmupLimitReason(run, r, options.repeat)] };
    }
  }
  if (deps.signal?.aborted) {
    // What ended before the signal is kept, marked; no aggregate or verdict is made of an unfinished plan.
    const stamp = interruptedStamp(deps.signal);
    out.emit({
      ...lineHead("interrupted"),
      by: stamp.by,
      runs_planned: options.repeat,
      runs_ended: runs.length,
      note: stamp.note,
    });
    return { status: "interrupted" as const, reasons: [`interrupted by ${stamp.by}`] };
  }
  return null;
}

/** The head of a line of load's own (not a row or summary). */
function lineHead(kind: string): { format: typeof LOAD_RUN_FORMAT; version: typeof LOAD_RUN_VERSION; kind: string } {
  return { format: LOAD_RUN_FORMAT, version: LOAD_RUN_VERSION, kind };
}

/** The finish of a test whose runs all ended: the aggregate, the prompt-mix report, the closed JSONL, the verdict. */
async function finish(
  options: LoadTestOptions,
  deps: LoadTestDeps,
  hooks: LoadTestHooks,
  runs: LoadRunResult[],
  out: OutputLines,
): Promise<LoadTestOutcome> {
  let aggregate: LoadAggregate | null = null;
  if (runs.length > 1 && options.sweep === undefined) {
    aggregate = aggregateRuns(runs.map((r) => r.summary.overall), { seed: options.workload.seed });
    out.emit(aggregate);
    hooks.onAggregate?.(aggregate);
  }
  const failed = (reason: string): LoadTestOutcome => ({
    status: "write-failed",
    reason,
    runs,
    aggregate,
    reasons: [],
  });
  if (options.promptMixReport !== undefined && runs.length > 0) {
    const mix = runs[runs.length - 1]!.summary.prompt_mix;
    const written = await deps.writeText(
      options.promptMixReport,
      JSON.stringify(deps.sanitizer.json(mix), null, 2) + "\n",
    );
    if (!written.ok) return failed(written.reason);
  }
  if (options.out !== undefined) {
    const written = await out.close();
    if (!written.ok) return failed(written.reason);
    hooks.onWritten?.(options.out, out.lines);
  }
  return verdict(options, runs, aggregate, []);
}
