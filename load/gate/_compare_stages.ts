/**
 * The named stages of `compare`'s conductor (compare_run.ts `runCompare`): the workloads prepared, the points and
 * sessions laid out, each server checked, the config line, one measurement of a point, and the end (the interrupted
 * line, or the gate's verdict with its noise-floor line).
 */
import { sanitizeCommand } from "../../sanitize/mod.ts";
import {
  compareSchedule,
  type CompareSession,
  type CompareSide,
  type CompareTarget,
  isProfileTarget,
} from "./compare_sessions.ts";
import { executeLoad } from "../execute.ts";
import { compareLoad, type ComparePointInput, type CompareResult, pointKey } from "./gate.ts";
import { interruptedStamp, PREFLIGHT_DEADLINE_S, WARMUP_LIMIT_S } from "../_load_stages.ts";
import type { LoadTestDeps } from "../_load_types.ts";
import { checkStreamingServer, type PreflightResult, refusalAdvice, TargetRefused } from "../preflight.ts";
import { type PreparedWorkload, prepareWorkload } from "../prepare.ts";
import type { EndpointLoadSummary } from "../summary.ts";
import {
  COMPARE_FORMAT_LINE,
  COMPARE_RUN_VERSION,
  type CompareDeps,
  type ComparePoint,
  type CompareRunOptions,
} from "./_compare_types.ts";

/** The head of every line of compare's own. */
export const LINE_HEAD = { format: COMPARE_FORMAT_LINE, version: COMPARE_RUN_VERSION } as const;

/** How a side is written into the JSONL: its URL, or its profile reference with machine paths redacted. */
export function targetStamp(target: CompareTarget): { url: string } | { profile: string } {
  return isProfileTarget(target) ? { profile: sanitizeCommand([target.profile]) } : { url: target.url };
}

/** Requests per measured round at a point (count mode). */
export function perRound(options: CompareRunOptions, c: number): number {
  return options.requests ?? Math.max(8, 4 * c);
}

/** Prepares every workload (pins checked, selections made): before any traffic. */
export async function prepareAll(options: CompareRunOptions, deps: Pick<LoadTestDeps, "readText">) {
  const prepared = new Map<string, PreparedWorkload>();
  for (const w of options.workloads) {
    const count = options.requests ?? Math.max(...options.points.map((c) => perRound(options, c)));
    prepared.set(w.label, await prepareWorkload(w.options, count, deps.readText));
  }
  return prepared;
}

export function pointsOf(options: CompareRunOptions): ComparePoint[] {
  return options.workloads.flatMap((w) => options.points.map((concurrency) => ({ workload: w.label, concurrency })));
}

export function sessionsOf(options: CompareRunOptions, points: ComparePoint[]): CompareSession[] {
  return compareSchedule(
    { baseline: options.baseline, candidate: options.candidate },
    points.map((_, i) => i),
    options.rounds,
  );
}

/**
 * The preflight check of one side's server (PREFLIGHT_DEADLINE_S at most); `measuredBefore` counts the
 * measurements already made (a server started from a profile is checked as it comes up, between rounds).
 * @throws {TargetRefused} when it does not answer as a streaming chat server (unless a signal stopped it).
 */
export async function preflightSide(
  options: CompareRunOptions,
  deps: CompareDeps,
  side: CompareSide,
  url: string,
  measuredBefore = 0,
): Promise<PreflightResult> {
  deps.hooks?.onPreflight?.(url);
  const checked = await checkStreamingServer(url, deps, {
    stream: options.workloads.every((w) => w.options.stream !== false),
    model: options.workloads[0]?.options.model,
    deadlineS: PREFLIGHT_DEADLINE_S,
    flag: `--${side}`,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  if (!checked.ok && !deps.signal?.aborted) {
    const reason = checked.reason ?? `${url} did not answer as a streaming chat server`;
    const { verdict, fix } = refusalAdvice(reason, `--${side}`);
    throw new TargetRefused(
      `compare: ${verdict}: the ${side}: ${reason}${fix === null ? "" : `; ${fix}`}; ${
        measuredBefore > 0
          ? `nothing was measured against it (the ${measuredBefore} measurements before it are kept)`
          : "nothing was measured"
      }`,
    );
  }
  return checked;
}

/**
 * The config line: when it started and by which toolkit, its warnings, both sides, the schedule, the workloads' stamps, the plan
 * and the gate's settings.
 */
export function configLine(
  options: CompareRunOptions,
  sessions: CompareSession[],
  prepared: Map<string, PreparedWorkload>,
  preflight: unknown[],
  run: { startedAt: string; toolkit: { version: string; commit: string | null } | null; warnings: string[] },
): Record<string, unknown> {
  return {
    ...LINE_HEAD,
    kind: "config",
    started_at: run.startedAt,
    toolkit: run.toolkit,
    warnings: run.warnings,
    baseline: targetStamp(options.baseline),
    candidate: targetStamp(options.candidate),
    schedule: sessions.some((s) => s.points.length > 1) ? "engines-in-turn" : "alternate-per-point",
    spec: options.spec ?? null,
    points: options.points,
    workloads: Object.fromEntries([...prepared].map(([label, w]) => [label, w.stamp])),
    rounds: options.rounds,
    requests_per_round: options.durationS === undefined ? options.requests ?? null : null,
    duration_s_per_round: options.durationS ?? null,
    warmup_requests: options.warmupS === undefined ? options.warmupRequests ?? null : null,
    warmup_s: options.warmupS ?? null,
    warmup_limit_s: options.warmupLimitS ?? WARMUP_LIMIT_S,
    drain_s: options.drainS ?? null,
    tolerance: options.tolerance,
    max_error_rate_increase: options.maxErrorRateIncrease ?? null,
    recorded_noise_floor: options.noiseFloor,
    recorded_noise_floor_from: options.noiseFloorFrom ?? null,
    preflight,
  };
}

/** What the measurements of one comparison share. */
export interface MeasureContext {
  options: CompareRunOptions;
  deps: CompareDeps;
  points: ComparePoint[];
  prepared: Map<string, PreparedWorkload>;
  emit(value: unknown): void;
  /** Measurements started (an interrupted one is taken back), and their planned total. */
  measured: number;
  total: number;
  /** Each point's round summaries per side: what the gate compares. */
  rounds: Map<number, Record<CompareSide, EndpointLoadSummary[]>>;
}

/**
 * One measurement: side `side` at point `p`, round `round`: warm-up, then measured issuance; its summary is
 * written, and kept for the gate unless a signal cut it short.
 * @throws {TargetRefused} when its warm-up overran --warmup-limit-s (nothing of it was measured).
 */
export async function measurePoint(
  context: MeasureContext,
  side: CompareSide,
  url: string,
  p: number,
  round: number,
): Promise<void> {
  const { options, deps } = context;
  const hooks = deps.hooks ?? {};
  const { workload: label, concurrency } = context.points[p]!;
  const w = options.workloads.find((x) => x.label === label)!.options;
  const plan: Parameters<typeof executeLoad>[0]["plan"] = {
    mode: "closed",
    concurrency,
    warmupRequests: options.warmupS !== undefined ? 0 : options.warmupRequests ?? concurrency,
    warmupLimitS: options.warmupLimitS ?? WARMUP_LIMIT_S,
    requestDeadlineS: w.requestTimeoutS,
  };
  if (options.warmupS !== undefined) plan.warmupS = options.warmupS;
  if (options.drainS !== undefined) plan.drainLimitS = options.drainS;
  if (options.durationS !== undefined) plan.durationS = options.durationS;
  else plan.requests = perRound(options, concurrency);
  const index = ++context.measured;
  hooks.onMeasure?.({
    index,
    total: context.total,
    side,
    round: round + 1,
    rounds: options.rounds,
    point: pointKey(label, concurrency),
    concurrency,
    requests: plan.requests ?? null,
    durationS: plan.durationS ?? null,
    warmupRequests: plan.warmupRequests,
    warmupS: plan.warmupS ?? null,
  });
  const run = await executeLoad({
    urls: [url],
    plan,
    workload: context.prepared.get(label)!,
    seed: (w.seed + round) >>> 0,
    lateAfterS: 0.002,
    binS: 1,
    slo: {},
    rows: { nonStreaming: w.stream === false },
    ...(deps.signal ? { signal: deps.signal } : {}),
    onEpoch: () => hooks.onEpoch?.(index - 1),
    onSend: (phase) => hooks.onSend?.(phase, index - 1),
    onRow: (row) => hooks.onRow?.(row, index - 1),
  }, deps);
  if (deps.signal?.aborted) {
    // Cut short: kept in the JSONL, marked, and never a round of the gate.
    run.summary.interrupted = interruptedStamp(deps.signal);
    context.measured--;
  } else context.rounds.get(p)![side].push(run.summary.overall);
  context.emit({ side, workload: label, concurrency, round, ...run.summary });
  if (run.facts.stopped_by === "warmup-limit") {
    throw new TargetRefused(
      `Cannot compare: the ${side} at ${pointKey(label, concurrency)} round ${round + 1}: its warm-up did not end ` +
        `within its limit of ${plan.warmupLimitS} s (the requests in flight were cancelled): ${
          context.measured > 1
            ? `this round measured nothing (the ${context.measured - 1} measurements before it are kept)`
            : "nothing was measured"
        }; ` +
        "the server answered too slowly or not at all (raise --warmup-limit-s)",
    );
  }
}

/** The interrupted line: how many measurements ended before the signal (no verdict is made of them). */
export function interruptedLine(context: MeasureContext, by: string): Record<string, unknown> {
  return {
    ...LINE_HEAD,
    kind: "interrupted",
    by,
    measurements_done: context.measured,
    measurements_planned: context.total,
    note: "stopped before every point was measured: no gate verdict is made of a partial comparison; the " +
      "measurements above are kept",
  };
}

/** The gate's verdict over every point's rounds, with its noise-floor line (both written). */
export function verdictOf(context: MeasureContext): CompareResult {
  const { options } = context;
  const inputs: ComparePointInput[] = context.points.map((point, i) => ({ ...point, ...context.rounds.get(i)! }));
  const result = compareLoad(inputs, {
    seed: options.workloads[0]?.options.seed ?? 1,
    expectedConcurrency: options.points,
    workloads: options.workloads.map((w) => w.label),
    toleranceFraction: options.tolerance,
    ...(options.maxErrorRateIncrease !== undefined ? { maxErrorRateIncrease: options.maxErrorRateIncrease } : {}),
    recordedNoiseFloor: options.noiseFloor,
  });
  context.emit(result);
  context.emit({
    ...LINE_HEAD,
    kind: "noise-floor",
    rule: "half-width of the seeded bootstrap 95% interval of the baseline's round means, relative to the " +
      "baseline value; reuse with compare --noise-floor-from FILE",
    baseline: targetStamp(options.baseline),
    spec: options.spec ? { name: options.spec.name, sha256: options.spec.sha256 } : null,
    rounds: options.rounds,
    noise_floor: result.noise_floor,
  });
  return result;
}
