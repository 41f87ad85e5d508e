/**
 * The conductor of `compare`: a release gate of a candidate against a baseline on this machine (performance
 * methodology, release validation). Every workload is prepared once, its pin checked (same bytes for both sides),
 * before any traffic; the sessions bring each side's server up in the interleaved order of compare_sessions.ts,
 * measure every point (workload x concurrency) of every round by warm-up then measured issuance, and release it; the
 * gate compares output tokens/s, TPOT p50 and the error rate per point against the baseline's own noise floor (or a
 * recorded one). `planCompare` lists the same runs without sending anything. Every line is sanitized.
 */
import { sanitizeCommand } from "../report/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import { MAX_INPUT_DEPTH } from "./_strict_input.ts";
import {
  compareSchedule,
  type CompareSession,
  type CompareSide,
  type CompareTarget,
  isProfileTarget,
  type ProfileStarter,
  runCompareSessions,
} from "./compare_sessions.ts";
import { executeLoad } from "./execute.ts";
import { compareLoad, type ComparePointInput, type CompareResult, pointKey } from "./gate.ts";
import {
  interruptedStamp,
  type LineSink,
  type LoadTestDeps,
  type LoadTestHooks,
  PREFLIGHT_DEADLINE_S,
  WARMUP_LIMIT_S,
} from "./load_run.ts";
import { checkStreamingServer, TargetRefused } from "./preflight.ts";
import { type PreparedWorkload, prepareWorkload, type WorkloadOptions } from "./prepare.ts";
import type { EndpointLoadSummary } from "./summary.ts";

export const COMPARE_FORMAT_LINE = "strata-load-compare-run" as const;
/**
 * Version 3 (from 2): lines are written as they happen; each server turn's preflight check; a measurement a signal
 * cut short carries `interrupted`, and an interrupted comparison ends with a line of kind "interrupted" and no
 * verdict. Version 2 (from 1): workloads and points by label, durations, the spec's identity, the noise-floor record.
 */
export const COMPARE_RUN_VERSION = 3 as const;

/** One labelled workload of a comparison. */
export interface CompareWorkload {
  label: string;
  options: WorkloadOptions;
}

/** What one `compare` asks for. */
export interface CompareRunOptions {
  baseline: CompareTarget;
  candidate: CompareTarget;
  workloads: CompareWorkload[];
  points: number[];
  rounds: number;
  /** Measured issuance per round: a count, or seconds. */
  requests: number | undefined;
  durationS: number | undefined;
  /** Warm-up per round: a count (default: the point's concurrency), or seconds. */
  warmupRequests: number | undefined;
  warmupS?: number | undefined;
  /** In-flight requests are cancelled this long after the measured window (with --duration). */
  drainS?: number | undefined;
  /** A warm-up still running this long past its plan fails the comparison (default WARMUP_LIMIT_S). */
  warmupLimitS?: number | undefined;
  tolerance: number;
  maxErrorRateIncrease?: number;
  /** Recorded noise floors to apply (see gate.ts), and where they came from. */
  noiseFloor: Record<string, number>;
  noiseFloorFrom?: string | null;
  /** The spec file, when the gate came from one. */
  spec?: { name: string; sha256: string; servingStack: Record<string, string>; path: string } | null;
  out: string | undefined;
}

/** Which measurement of the comparison is starting, for a person's progress line. */
export interface CompareMeasurement {
  /** 1-based position among all measurements, and their number. */
  index: number;
  total: number;
  side: CompareSide;
  /** 1-based round of the total. */
  round: number;
  rounds: number;
  /** The point's key (workload and concurrency) and its concurrency. */
  point: string;
  concurrency: number;
  /** The measurement's plan: requests, or seconds of measured issuance. */
  requests: number | null;
  durationS: number | null;
  warmupRequests: number;
  warmupS: number | null;
}

/** What the caller hears while the comparison runs: each measurement, and its requests as load's hooks say. */
export interface CompareHooks extends Pick<LoadTestHooks, "onEpoch" | "onSend" | "onRow" | "onOutput"> {
  onPreflight?(url: string): void;
  onMeasure?(measurement: CompareMeasurement): void;
}

/** What `compare` touches outside itself: load's dependencies, plus the engine starter for profile sides. */
export interface CompareDeps extends LoadTestDeps {
  /** Required when a side is a profile (the CLI passes engine/mod.ts's startProfileEngine). */
  startProfile?: ProfileStarter;
  /** Progress lines (which side, point and round is measured; engines started and stopped). */
  progress?(line: string): void;
  hooks?: CompareHooks;
}

/** How a comparison ended: a verdict, or a signal before it (no verdict is made of a partial comparison). */
export interface CompareOutcome {
  result: CompareResult | null;
  interrupted: { by: string; measured: number; planned: number } | null;
  lines: string[];
  /** Where the JSONL went (options.out), and whether closing it failed. */
  written: { ok: true } | { ok: false; reason: string } | null;
}

/** One measured point of the plan. */
export interface ComparePoint {
  workload: string;
  concurrency: number;
}

/** One measurement `compare` makes, in order. */
export interface PlannedRun {
  order: number;
  side: CompareSide;
  round: number;
  workload: string;
  concurrency: number;
  warmup: string;
  measure: string;
  /** Seconds this run takes at most (warm-up + measured + drain), when durations are set; else null. */
  bound_s: number | null;
}

/** How a side is written into the JSONL: its URL, or its profile reference with machine paths redacted. */
function targetStamp(target: CompareTarget): { url: string } | { profile: string } {
  return isProfileTarget(target) ? { profile: sanitizeCommand([target.profile]) } : { url: target.url };
}

/** Requests per measured round at a point (count mode). */
function perRound(options: CompareRunOptions, c: number): number {
  return options.requests ?? Math.max(8, 4 * c);
}

/** Prepares every workload (pins checked, selections made): before any traffic. */
async function prepareAll(options: CompareRunOptions, deps: Pick<LoadTestDeps, "readText">) {
  const prepared = new Map<string, PreparedWorkload>();
  for (const w of options.workloads) {
    const count = options.requests ?? Math.max(...options.points.map((c) => perRound(options, c)));
    prepared.set(w.label, await prepareWorkload(w.options, count, deps.readText));
  }
  return prepared;
}

function pointsOf(options: CompareRunOptions): ComparePoint[] {
  return options.workloads.flatMap((w) => options.points.map((concurrency) => ({ workload: w.label, concurrency })));
}

function sessionsOf(options: CompareRunOptions, points: ComparePoint[]): CompareSession[] {
  return compareSchedule(
    { baseline: options.baseline, candidate: options.candidate },
    points.map((_, i) => i),
    options.rounds,
  );
}

/** Every run `compare` would make, in order, with its warm-up and measured issuance; sends nothing. */
export async function planCompare(
  options: CompareRunOptions,
  deps: Pick<LoadTestDeps, "readText">,
): Promise<{ runs: PlannedRun[]; workloads: Record<string, Record<string, unknown>>; bound_s: number | null }> {
  const prepared = await prepareAll(options, deps);
  const points = pointsOf(options);
  const runs: PlannedRun[] = [];
  for (const session of sessionsOf(options, points)) {
    for (const p of session.points) {
      const point = points[p]!;
      const c = point.concurrency;
      const warmup = options.warmupS !== undefined
        ? `${options.warmupS} s at concurrency ${c}`
        : `${options.warmupRequests ?? c} requests`;
      const measure = options.durationS !== undefined
        ? `${options.durationS} s of closed-loop issuance at concurrency ${c} (drain limit ${options.drainS ?? "none"})`
        : `${perRound(options, c)} requests at concurrency ${c}`;
      const bound = options.durationS !== undefined && options.warmupS !== undefined
        ? options.warmupS + options.durationS + 2 * (options.drainS ?? 0)
        : null;
      runs.push({
        order: runs.length + 1,
        side: session.side,
        round: session.round + 1,
        workload: point.workload,
        concurrency: c,
        warmup,
        measure,
        bound_s: bound,
      });
    }
  }
  const total = runs.every((r) => r.bound_s !== null) ? runs.reduce((s, r) => s + (r.bound_s as number), 0) : null;
  return {
    runs,
    workloads: Object.fromEntries([...prepared].map(([label, w]) => [label, w.stamp])),
    bound_s: total,
  };
}

/**
 * Measures every point in interleaved rounds and returns the gate verdict with the JSONL lines (also written to
 * options.out as they happen). Engines started for profile sides are stopped before this returns or throws. After
 * a signal it returns without a verdict, with what was measured before it.
 * @throws like prepareWorkload for a workload refused before traffic (pin mismatch, unreadable file);
 * {TargetRefused} when a side's server fails the preflight check (nothing is measured against it);
 * {Error} "Cannot write ..." when options.out cannot be opened (before any traffic).
 */
export async function runCompare(options: CompareRunOptions, deps: CompareDeps): Promise<CompareOutcome> {
  const prepared = await prepareAll(options, deps);
  const points = pointsOf(options);
  const targets = { baseline: options.baseline, candidate: options.candidate };
  const sessions = sessionsOf(options, points);
  const hooks = deps.hooks ?? {};
  const stream = options.workloads.every((w) => w.options.stream !== false);
  const model = options.workloads[0]?.options.model;
  const preflight = async (side: CompareSide, url: string) => {
    hooks.onPreflight?.(url);
    const checked = await checkStreamingServer(url, deps, {
      stream,
      model,
      deadlineS: PREFLIGHT_DEADLINE_S,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (!checked.ok && !deps.signal?.aborted) {
      throw new TargetRefused(
        `Cannot compare: the ${side} ${checked.reason}; it must answer as an OpenAI-compatible streaming chat server`,
      );
    }
    return checked;
  };
  // Servers someone else runs are checked before anything is measured or written.
  const checkedUrls = new Map<string, unknown>();
  for (const side of ["baseline", "candidate"] as const) {
    const target = targets[side];
    if (!isProfileTarget(target) && !checkedUrls.has(target.url)) {
      checkedUrls.set(target.url, await preflight(side, target.url));
    }
  }
  let sink: LineSink | null = null;
  if (options.out !== undefined) {
    const opened = await deps.openLines(options.out);
    if (!opened.ok) throw new Error(`Cannot write "${options.out}": ${opened.reason}`);
    sink = opened.value;
    hooks.onOutput?.(options.out);
  }
  const lines: string[] = [];
  // Every line passes the sanitizer, as run and load outputs do: summaries can carry server error text.
  const emit = (value: unknown) => {
    const line = JSON.stringify(deps.sanitizer.json(value));
    lines.push(line);
    sink?.write(`${line}\n`);
  };
  const total = sessions.reduce((n, s) => n + s.points.length, 0);
  let measured = 0;
  try {
    emit({
      format: COMPARE_FORMAT_LINE,
      version: COMPARE_RUN_VERSION,
      kind: "config",
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
      drain_s: options.drainS ?? null,
      tolerance: options.tolerance,
      max_error_rate_increase: options.maxErrorRateIncrease ?? null,
      recorded_noise_floor: options.noiseFloor,
      recorded_noise_floor_from: options.noiseFloorFrom ?? null,
      preflight: [...checkedUrls.values()],
    });
    const rounds = new Map<number, Record<CompareSide, EndpointLoadSummary[]>>(
      points.map((_, i) => [i, { baseline: [], candidate: [] }]),
    );
    await runCompareSessions(targets, sessions, {
      ...(deps.startProfile ? { startProfile: deps.startProfile } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
      progress: (line) => deps.progress?.(line),
      describe: (p) => pointKey(points[p]!.workload, points[p]!.concurrency),
      record: (line) =>
        emit({
          format: COMPARE_FORMAT_LINE,
          version: COMPARE_RUN_VERSION,
          ...line,
          ...(Array.isArray(line.points)
            ? { points: (line.points as number[]).map((p) => pointKey(points[p]!.workload, points[p]!.concurrency)) }
            : {}),
        }),
      // A server started here from a profile is checked as it comes up, before its first measurement.
      ready: async (side, url, fromProfile) => {
        if (fromProfile) {
          const checked = await preflight(side, url);
          emit({ format: COMPARE_FORMAT_LINE, version: COMPARE_RUN_VERSION, kind: "preflight", side, ...checked });
        }
      },
      measure: async (side, url, p, round) => {
        const { workload: label, concurrency } = points[p]!;
        const workload = prepared.get(label)!;
        const w = options.workloads.find((x) => x.label === label)!.options;
        const plan: Parameters<typeof executeLoad>[0]["plan"] = {
          mode: "closed",
          concurrency,
          warmupRequests: options.warmupS !== undefined ? 0 : options.warmupRequests ?? concurrency,
          requestDeadlineS: w.requestTimeoutS,
        };
        if (options.warmupS !== undefined) plan.warmupS = options.warmupS;
        plan.warmupLimitS = options.warmupLimitS ?? WARMUP_LIMIT_S;
        if (options.drainS !== undefined) plan.drainLimitS = options.drainS;
        if (options.durationS !== undefined) plan.durationS = options.durationS;
        else plan.requests = perRound(options, concurrency);
        measured++;
        hooks.onMeasure?.({
          index: measured,
          total,
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
          workload,
          seed: (w.seed + round) >>> 0,
          lateAfterS: 0.002,
          binS: 1,
          slo: {},
          rows: { nonStreaming: w.stream === false },
          ...(deps.signal ? { signal: deps.signal } : {}),
          onEpoch: () => hooks.onEpoch?.(measured - 1),
          onSend: (phase) => hooks.onSend?.(phase, measured - 1),
          onRow: (row) => hooks.onRow?.(row, measured - 1),
        }, deps);
        if (deps.signal?.aborted) {
          // Cut short: kept in the JSONL, marked, and never a round of the gate.
          run.summary.interrupted = interruptedStamp(deps.signal);
          measured--;
        } else rounds.get(p)![side].push(run.summary.overall);
        emit({ side, workload: label, concurrency, round, ...run.summary });
        if (run.facts.stopped_by === "warmup-limit") {
          throw new TargetRefused(
            `Cannot compare: the ${side} at ${pointKey(label, concurrency)} round ${round + 1}: ` +
              `its warm-up did not end within its limit of ${plan.warmupLimitS} s (the requests in flight were ` +
              "cancelled): nothing was measured; the server answered too slowly or not at all (raise --warmup-limit-s)",
          );
        }
      },
    });
    if (deps.signal?.aborted) {
      const by = interruptedStamp(deps.signal).by;
      emit({
        format: COMPARE_FORMAT_LINE,
        version: COMPARE_RUN_VERSION,
        kind: "interrupted",
        by,
        measurements_done: measured,
        measurements_planned: total,
        note: "stopped before every point was measured: no gate verdict is made of a partial comparison; the " +
          "measurements above are kept",
      });
      return { result: null, interrupted: { by, measured, planned: total }, lines, written: await closeSink() };
    }
    const inputs: ComparePointInput[] = points.map((point, i) => ({ ...point, ...rounds.get(i)! }));
    const result = compareLoad(inputs, {
      seed: options.workloads[0]?.options.seed ?? 1,
      expectedConcurrency: options.points,
      workloads: options.workloads.map((w) => w.label),
      toleranceFraction: options.tolerance,
      ...(options.maxErrorRateIncrease !== undefined ? { maxErrorRateIncrease: options.maxErrorRateIncrease } : {}),
      recordedNoiseFloor: options.noiseFloor,
    });
    emit(result);
    emit({
      format: COMPARE_FORMAT_LINE,
      version: COMPARE_RUN_VERSION,
      kind: "noise-floor",
      rule: "half-width of the seeded bootstrap 95% interval of the baseline's round means, relative to the " +
        "baseline value; reuse with compare --noise-floor-from FILE",
      baseline: targetStamp(options.baseline),
      spec: options.spec ? { name: options.spec.name, sha256: options.spec.sha256 } : null,
      rounds: options.rounds,
      noise_floor: result.noise_floor,
    });
    return { result, interrupted: null, lines, written: await closeSink() };
  } finally {
    await closeSink();
  }

  async function closeSink(): Promise<{ ok: true } | { ok: false; reason: string } | null> {
    if (sink === null) return null;
    const s = sink;
    sink = null;
    return await s.close();
  }
}

/**
 * The noise floors recorded by an earlier compare's JSONL (its "noise-floor" line).
 * @throws SyntaxError when the text holds no such line.
 */
export function readRecordedNoiseFloor(text: string): Record<string, number> {
  for (const line of text.split("\n").reverse()) {
    if (line.trim() === "") continue;
    const parsed = parseStrictJsonPlain(line, { maxDepth: MAX_INPUT_DEPTH });
    if (!parsed.ok) continue;
    const value = parsed.value;
    const v = value as { format?: unknown; kind?: unknown; noise_floor?: unknown };
    if (v.format === COMPARE_FORMAT_LINE && v.kind === "noise-floor" && typeof v.noise_floor === "object") {
      const out: Record<string, number> = {};
      for (const [k, x] of Object.entries(v.noise_floor as Record<string, unknown>)) {
        if (typeof x === "number" && Number.isFinite(x) && x >= 0) out[k] = x;
      }
      return out;
    }
  }
  throw new SyntaxError(
    "Cannot reuse a noise floor: the file has no compare noise-floor line (write one with compare --out FILE)",
  );
}
