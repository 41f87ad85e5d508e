/**
 * The conductor of `compare`: a release gate of a candidate against a baseline on this machine (performance
 * methodology, release validation). Every workload is prepared once, its pin checked (same bytes for both sides),
 * before any traffic; the sessions bring each side's server up in the interleaved order of compare_sessions.ts,
 * measure every point (workload x concurrency) of every round by warm-up then measured issuance, and release it; the
 * gate compares output tokens/s, TPOT p50 and the error rate per point against the baseline's own noise floor (or a
 * recorded one). `planCompare` lists the same runs without sending anything. Every line is sanitized.
 */
import { isProfileTarget, runCompareSessions } from "./compare_sessions.ts";
import { pointKey } from "./gate.ts";
import {
  ignoredFieldWarnings,
  interruptedStamp,
  OutputLines,
  PREFLIGHT_DEADLINE_S,
  WARMUP_LIMIT_S,
} from "../_load_stages.ts";
import type { LoadTestDeps } from "../_load_types.ts";
import {
  configLine,
  interruptedLine,
  LINE_HEAD,
  type MeasureContext,
  measurePoint,
  perRound,
  pointsOf,
  preflightSide,
  prepareAll,
  sessionsOf,
  verdictOf,
} from "./_compare_stages.ts";
import { type CompareDeps, type CompareOutcome, type CompareRunOptions, type PlannedRun } from "./_compare_types.ts";

/**
 * Every run `compare` would make, in order, with its warm-up and measured issuance, sends nothing; with --duration,
 * the most seconds it can take: each run's warm-up and warm-up limit, measured issuance and drain, and every
 * preflight check's deadline (engines started from profiles add their own start-up).
 */
export async function planCompare(
  options: CompareRunOptions,
  deps: Pick<LoadTestDeps, "readText">,
): Promise<
  {
    runs: PlannedRun[];
    workloads: Record<string, Record<string, unknown>>;
    bound_s: number | null;
    expected_s: number | null;
  }
> {
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
      // A warm-up ends within its plan plus the warm-up limit, or fails the comparison.
      const bound = options.durationS !== undefined
        ? (options.warmupS ?? 0) + (options.warmupLimitS ?? WARMUP_LIMIT_S) + options.durationS +
          2 * (options.drainS ?? 0)
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
        expected_s: options.durationS !== undefined ? (options.warmupS ?? 0) + options.durationS : null,
      });
    }
  }
  // Each server someone else runs is checked once, each server started from a profile at each of its turns.
  const urls = [options.baseline, options.candidate].flatMap((t) => isProfileTarget(t) ? [] : [t.url]);
  const preflights = new Set(urls).size +
    sessionsOf(options, points).filter((s) => isProfileTarget(options[s.side])).length;
  const total = runs.every((r) => r.bound_s !== null)
    ? runs.reduce((s, r) => s + (r.bound_s as number), preflights * PREFLIGHT_DEADLINE_S)
    : null;
  return {
    runs,
    workloads: Object.fromEntries([...prepared].map(([label, w]) => [label, w.stamp])),
    bound_s: total,
    expected_s: runs.every((r) => r.expected_s !== null)
      ? runs.reduce((sum, r) => sum + (r.expected_s as number), 0)
      : null,
  };
}

/**
 * Measures every point in interleaved rounds and returns the gate verdict with the JSONL lines (also written to
 * options.out as they happen): prepare, check the servers someone else runs, open the output, the config line, the
 * sessions (each measurement by measurePoint), then the interrupted line or the verdict. Engines started for
 * profile sides are stopped before this returns or throws. After a signal it returns without a verdict, with what
 * was measured before it.
 * @throws like prepareWorkload for a workload refused before traffic (pin mismatch, unreadable file);
 * {TargetRefused} when a side's server fails the preflight check (nothing is measured against it) or a warm-up
 * overran --warmup-limit-s; {Error} "Cannot write ..." when options.out cannot be opened (before any traffic).
 */
export async function runCompare(options: CompareRunOptions, deps: CompareDeps): Promise<CompareOutcome> {
  const startedAt = new Date(deps.wallMs?.() ?? Date.now()).toISOString();
  const prepared = await prepareAll(options, deps);
  const points = pointsOf(options);
  const targets = { baseline: options.baseline, candidate: options.candidate };
  const sessions = sessionsOf(options, points);
  // Servers someone else runs are checked before anything is measured or written.
  const checkedUrls = new Map<string, unknown>();
  for (const side of ["baseline", "candidate"] as const) {
    const target = targets[side];
    if (isProfileTarget(target) || checkedUrls.has(target.url)) continue;
    checkedUrls.set(target.url, await preflightSide(options, deps, side, target.url));
  }
  const out = new OutputLines(deps.sanitizer);
  if (options.out !== undefined) {
    const opened = await out.open(options.out, deps);
    if (!opened.ok) throw new Error(`Cannot write "${options.out}": ${opened.reason}`);
    deps.hooks?.onOutput?.(options.out);
  }
  const lines: string[] = [];
  const context: MeasureContext = {
    options,
    deps,
    points,
    prepared,
    // Every line passes the sanitizer, as run and load outputs do: summaries can carry server error text.
    emit: (value) => lines.push(out.emit(value)),
    measured: 0,
    total: sessions.reduce((n, s) => n + s.points.length, 0),
    rounds: new Map(points.map((_, i) => [i, { baseline: [], candidate: [] }])),
  };
  const closed = async () => options.out === undefined ? null : await out.close();
  try {
    const toolkit = (await deps.toolkit?.()) ?? null;
    const warnings: string[] = [];
    for (const w of prepared.values()) {
      warnings.push(...await ignoredFieldWarnings(w.stamp, [...checkedUrls.keys()], deps));
    }
    for (const warning of warnings) deps.progress?.(`compare: warning: ${warning}`);
    context.emit(configLine(options, sessions, prepared, [...checkedUrls.values()], { startedAt, toolkit, warnings }));
    await runCompareSessions(targets, sessions, {
      ...(deps.startProfile ? { startProfile: deps.startProfile } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
      progress: (line) => deps.progress?.(line),
      describe: (p) => pointKey(points[p]!.workload, points[p]!.concurrency),
      record: (line) =>
        context.emit({
          ...LINE_HEAD,
          ...line,
          ...(Array.isArray(line.points)
            ? { points: (line.points as number[]).map((p) => pointKey(points[p]!.workload, points[p]!.concurrency)) }
            : {}),
        }),
      // A server started here from a profile is checked as it comes up, before its first measurement.
      ready: async (side, url, fromProfile) => {
        if (fromProfile) {
          const checked = await preflightSide(options, deps, side, url, context.measured);
          context.emit({ ...LINE_HEAD, kind: "preflight", side, ...checked });
        }
      },
      measure: (side, url, p, round) => measurePoint(context, side, url, p, round),
    });
    if (deps.signal?.aborted) {
      const by = interruptedStamp(deps.signal).by;
      context.emit(interruptedLine(context, by));
      return {
        result: null,
        interrupted: { by, measured: context.measured, planned: context.total },
        lines,
        written: await closed(),
      };
    }
    const result = verdictOf(context);
    return { result, interrupted: null, lines, written: await closed() };
  } finally {
    await out.close();
  }
}
