/**
 * The named stages of `load`'s conductor (load_run.ts `runLoadTest`), in their order: the preflight check of each
 * URL, the client headroom check, the config line, one measured run, and the verdict of the finished runs. Each
 * stage takes what the ones before it made and hands plain data on.
 */
import { IGNORED_FIELDS } from "../contract/mod.ts";
import type { LoadAggregate } from "./aggregate.ts";
import { executeLoad, type LoadRunResult } from "./execute.ts";
import { clientCeiling, type HeadroomCeiling, headroomStamp } from "./headroom.ts";
import type { PreparedWorkload } from "./prepare.ts";
import { checkStreamingServer, type PreflightResult } from "./preflight.ts";
import { promptMixReport } from "./prompt_mix.ts";
import type { LoadRequestRow } from "./metrics.ts";
import type { LengthTarget } from "./summary.ts";
import type { LineSink, LoadTestDeps, LoadTestHooks, LoadTestOptions, LoadTestOutcome } from "./_load_types.ts";

/** Longest wait for the preflight's one-token answer, seconds (a model still loading answers 503 at once). */
export const PREFLIGHT_DEADLINE_S = 120;

/**
 * Default longest warm-up past its plan, seconds (by count: the whole warm-up; by time: after --warmup-s): a server
 * that answers no warm-up request within it fails the run ("warmup-limit") instead of holding it for the request
 * timeout. Load and compare bound every phase so: preflight (PREFLIGHT_DEADLINE_S), warm-up (this), measured
 * issuance (--duration or --requests), drain (--drain-s).
 */
export const WARMUP_LIMIT_S = 120;

/** The JSONL of one test: every line sanitized, written as it happens, closed once. */
export class OutputLines {
  #sink: LineSink | null = null;
  #sanitizer: LoadTestDeps["sanitizer"];
  lines = 0;
  constructor(sanitizer: LoadTestDeps["sanitizer"]) {
    this.#sanitizer = sanitizer;
  }
  /** Opens `path` for lines. */
  async open(
    path: string,
    deps: Pick<LoadTestDeps, "openLines">,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const opened = await deps.openLines(path);
    if (!opened.ok) return opened;
    this.#sink = opened.value;
    return { ok: true };
  }
  /** One line, sanitized like run's published files (rows carry server error text), written when open. */
  emit(value: unknown): string {
    const line = JSON.stringify(this.#sanitizer.json(value));
    if (this.#sink === null) return line;
    this.#sink.write(line + "\n");
    this.lines++;
    return line;
  }
  /**
   * Sanitizes a value and writes nothing: its strings enter the sanitizer's memo, so the first line that carries
   * them costs a lookup instead of the sanitizer's regular expressions, whose code V8 drops when they went unused
   * through full collections and compiles again at next use (2-7 ms here, measured: a stall at a schedule's start).
   */
  prime(value: unknown): void {
    this.#sanitizer.json(value);
  }
  /** Removes the file, written or not: a test refused before anything was measured leaves none behind. */
  async discard(): Promise<void> {
    const sink = this.#sink;
    this.#sink = null;
    if (sink === null) return;
    if (sink.discard !== undefined) await sink.discard();
    else await sink.close();
  }
  /** Closes the file (once; later calls and a never-opened file give ok). */
  async close(): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (this.#sink === null) return { ok: true };
    const sink = this.#sink;
    this.#sink = null;
    return await sink.close();
  }
}

/** What the preflight stage found: each URL's check, and why the test is refused (empty: every URL answered). */
export interface PreflightStage {
  preflight: PreflightResult[];
  refused: string[];
  interrupted: boolean;
}

/** Each URL must answer as a streaming chat server before anything is measured (the self-check's engine is ours). */
export async function preflightStage(
  options: LoadTestOptions,
  deps: LoadTestDeps,
  hooks: LoadTestHooks,
): Promise<PreflightStage> {
  const found: PreflightStage = { preflight: [], refused: [], interrupted: false };
  if (options.selfCheck) return found;
  hooks.onStage?.("preflight");
  for (const url of options.urls) {
    const checked = await checkStreamingServer(url, deps, {
      stream: options.workload.stream !== false,
      model: options.workload.model,
      deadlineS: Math.min(options.workload.requestTimeoutS, PREFLIGHT_DEADLINE_S),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    found.preflight.push(checked);
    if (deps.signal?.aborted) return { ...found, interrupted: true };
    if (!checked.ok) {
      found.refused.push(checked.reason ?? `${url} did not answer as a streaming chat server`);
    }
  }
  return found;
}

/**
 * One warning for each server whose engine family ignores a field the workload sends (contract's IGNORED_FIELDS:
 * llama-server and `min_tokens`), and with timings_per_token for each server that is not llama.cpp, whose field it
 * is; servers are asked only when such a field is sent.
 */
export async function ignoredFieldWarnings(
  stamp: Record<string, unknown>,
  urls: readonly string[],
  deps: Pick<LoadTestDeps, "dialectOf">,
): Promise<string[]> {
  const sent = [...new Set(Object.values(IGNORED_FIELDS).flat())].filter((f) =>
    stamp[f] !== undefined && stamp[f] !== null
  );
  const perToken = stamp.timings_per_token === true;
  if ((sent.length === 0 && !perToken) || deps.dialectOf === undefined) return [];
  const warnings: string[] = [];
  for (const url of new Set(urls)) {
    const { dialect, evidence } = await deps.dialectOf(url);
    if (perToken && dialect !== "llama.cpp") {
      warnings.push(
        `${url} is ${dialect} (${evidence}): timings_per_token is llama.cpp's field, so its chunks may carry no ` +
          'engine counts; reasoning and answer TPOT then count one token a chunk (tokens_from "events")',
      );
    }
    for (const field of sent.filter((f) => IGNORED_FIELDS[dialect].includes(f))) {
      warnings.push(
        `${url} is ${dialect} (${evidence}), which ignores ${field}: the requests send it, but their output lengths ` +
          "are what the model chose; check them with --fail-on-osl-mismatch",
      );
    }
  }
  return warnings;
}

/** The client headroom for this run's shape, before the load; or why it is not measured. */
export async function headroomStage(
  options: LoadTestOptions,
  workload: PreparedWorkload,
  deps: LoadTestDeps,
  hooks: LoadTestHooks,
): Promise<{ ceiling: HeadroomCeiling | null; missing: string | null }> {
  const headroom = options.headroom ?? { mode: "off", durationS: 0 };
  if (options.selfCheck) return { ceiling: null, missing: "the self-check is itself the client's ceiling" };
  if (headroom.mode === "off") return { ceiling: null, missing: "not measured (--no-headroom-check)" };
  hooks.onStage?.("headroom");
  const concurrency = options.plan.mode === "closed"
    ? Math.ceil((options.plan.concurrency as number) / (options.shard?.count ?? 1))
    : options.plan.maxConcurrency ?? 64;
  const outputTokens = options.osl?.target ?? workload.set.profile?.osl_target ?? options.workload.maxTokens ?? 64;
  const ceiling = await clientCeiling(
    { concurrency, outputTokens },
    { durationS: headroom.durationS, useCache: true },
    { ...deps, startMockEngine: deps.startMockEngine },
    deps.signal,
  );
  hooks.onHeadroom?.(ceiling);
  return { ceiling, missing: null };
}

/** What every measured run of one test shares. */
export interface RunContext {
  options: LoadTestOptions;
  deps: LoadTestDeps;
  hooks: LoadTestHooks;
  urls: string[];
  workload: PreparedWorkload;
  osl: LengthTarget | undefined;
  warmupWarning: string | null;
  headroom: { ceiling: HeadroomCeiling | null; missing: string | null };
  shard: Record<string, unknown> | null;
  out: OutputLines;
}

/** Measured run `r`: the generator over the URLs, its rows to the JSONL as they end, its summary stamped. */
export async function measureRun(context: RunContext, r: number): Promise<LoadRunResult> {
  const { options, deps, hooks, workload, osl, out } = context;
  const isl = options.isl;
  hooks.onRunStart?.(r, options.repeat, context.urls);
  // The one string a measured row carries that no warm-up row did: known before the epoch, not at the first row.
  out.prime({ run: r, phase: "measure" satisfies LoadRequestRow["phase"] });
  const plan = { ...options.plan, ...options.sweep?.[r] };
  let clock: Record<string, unknown> | null = null;
  let startAtS: number | null = null;
  if (options.shard !== undefined) plan.shard = { index: options.shard.index, count: options.shard.count };
  if (options.shard !== undefined && r === 0) {
    const startAt = options.shard.startAt(deps);
    plan.startAtS = startAtS = startAt.startAtS;
    clock = startAt.evidence;
  }
  const run = await executeLoad({
    urls: context.urls,
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
      warmupWarning: context.warmupWarning,
    },
    ...(deps.signal ? { signal: deps.signal } : {}),
    onRow: (row) => {
      out.emit({ run: r, ...row });
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
  const stamp = headroomStamp(context.headroom.ceiling, {
    eventsPerS: o.window_s !== null && o.window_s > 0 ? run.measuredEvents / o.window_s : null,
    requestsPerS: o.requests_per_s,
  }, context.headroom.missing);
  run.summary.client_headroom = { ...stamp };
  if (stamp.warning !== null) hooks.onWarning?.(stamp.warning);
  if (context.shard !== null) {
    const shard = context.shard;
    run.summary.shard = { ...shard, clock: clock ?? null };
    const late = typeof clock?.epoch_late_s === "number" ? clock.epoch_late_s : null;
    if (late !== null && late > options.shard!.maxStartLateS) {
      hooks.onWarning?.(
        `shard ${shard.index}/${shard.count} started ${late.toFixed(3)} s after --start-at (bound ` +
          `${options.shard!.maxStartLateS} s): its warm-up overran or it was launched late; choose a later start`,
      );
    }
  }
  if (deps.signal?.aborted === true) run.summary.interrupted = interruptedStamp(deps.signal);
  return run;
}

/** Why a run whose warm-up overran its limit measured nothing, in a person's words. */
export function warmupLimitReason(run: LoadRunResult, index: number, runs: number): string {
  const limit = run.summary.phases?.warmup.limit_s ?? "?";
  const tag = runs > 1 ? `run ${index + 1}: ` : "";
  // Earlier runs of a repeat or sweep ended and are kept: only this run measured nothing.
  const kept = index === 0 ? "nothing was measured" : `this run measured nothing (the ${index} before it are kept)`;
  return `${tag}the warm-up did not end within its limit of ${limit} s (${run.facts.counts.warmup} warm-up requests ` +
    `ended or were cancelled): ${kept}; the server answered too slowly or not at all (raise ` +
    "--warmup-limit-s for a slow model)";
}

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
export function verdict(
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
