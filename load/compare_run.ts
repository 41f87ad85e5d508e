/**
 * The conductor of `compare`: a release gate of a candidate against a baseline on this machine (performance
 * methodology, release validation). The workload is prepared once (same bytes for both sides); the sessions
 * bring each side's server up in the interleaved order of compare_sessions.ts, measure every point's rounds, and
 * release it; the gate compares output tokens/s and TPOT p50 per point. Every line is sanitized into the JSONL.
 */
import { sanitizeCommand } from "../report/mod.ts";
import {
  compareSchedule,
  type CompareSide,
  type CompareTarget,
  isProfileTarget,
  type ProfileStarter,
  runCompareSessions,
} from "./compare_sessions.ts";
import { executeLoad } from "./execute.ts";
import { compareLoad, type ComparePointInput, type CompareResult } from "./gate.ts";
import type { LoadTestDeps } from "./load_run.ts";
import { prepareWorkload, type WorkloadOptions } from "./prepare.ts";
import type { EndpointLoadSummary } from "./summary.ts";

export const COMPARE_FORMAT_LINE = "strata-load-compare-run" as const;

/** What one `compare` asks for. */
export interface CompareRunOptions {
  baseline: CompareTarget;
  candidate: CompareTarget;
  points: number[];
  rounds: number;
  requests: number | undefined;
  durationS: number | undefined;
  warmupRequests: number | undefined;
  tolerance: number;
  noiseFloor: Record<number, number>;
  workload: WorkloadOptions;
  out: string | undefined;
}

/** What `compare` touches outside itself: load's dependencies, plus the engine starter for profile sides. */
export interface CompareDeps extends LoadTestDeps {
  /** Required when a side is a profile (the CLI passes engine/mod.ts's startProfileEngine). */
  startProfile?: ProfileStarter;
  /** Progress lines (which side, point and round is measured; engines started and stopped). */
  progress?(line: string): void;
}

/** How a side is written into the JSONL: its URL, or its profile reference with machine paths redacted. */
function targetStamp(target: CompareTarget): { url: string } | { profile: string } {
  return isProfileTarget(target) ? { profile: sanitizeCommand([target.profile]) } : { url: target.url };
}

/**
 * Measures every point in interleaved rounds and returns the gate verdict with the JSONL lines. Engines started
 * for profile sides are stopped before this returns or throws.
 */
export async function runCompare(
  options: CompareRunOptions,
  deps: CompareDeps,
): Promise<{ result: CompareResult; lines: string[] }> {
  const perRound = (c: number) => options.requests ?? Math.max(8, 4 * c);
  const workload = await prepareWorkload(
    options.workload,
    options.requests ?? Math.max(...options.points.map(perRound)),
    deps.readText,
  );
  const targets = { baseline: options.baseline, candidate: options.candidate };
  const sessions = compareSchedule(targets, options.points, options.rounds);
  // Every line passes the sanitizer, as run and load outputs do: summaries can carry server error text.
  const encode = (value: unknown): string => JSON.stringify(deps.sanitizer.json(value));
  const lines = [encode({
    format: COMPARE_FORMAT_LINE,
    version: 1,
    kind: "config",
    baseline: targetStamp(options.baseline),
    candidate: targetStamp(options.candidate),
    schedule: sessions.some((s) => s.points.length > 1) ? "engines-in-turn" : "alternate-per-point",
    points: options.points,
    rounds: options.rounds,
    requests_per_round: options.requests ?? null,
    duration_s_per_round: options.durationS ?? null,
    tolerance: options.tolerance,
    noise_floor: options.noiseFloor,
    workload: workload.stamp,
  })];
  const rounds = new Map<number, Record<CompareSide, EndpointLoadSummary[]>>(
    options.points.map((c) => [c, { baseline: [], candidate: [] }]),
  );
  await runCompareSessions(targets, sessions, {
    ...(deps.startProfile ? { startProfile: deps.startProfile } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    progress: (line) => deps.progress?.(line),
    record: (line) => lines.push(encode({ format: COMPARE_FORMAT_LINE, version: 1, ...line })),
    measure: async (side, url, concurrency, round) => {
      const plan: Parameters<typeof executeLoad>[0]["plan"] = {
        mode: "closed",
        concurrency,
        warmupRequests: options.warmupRequests ?? concurrency,
        requestDeadlineS: options.workload.requestTimeoutS,
      };
      if (options.durationS !== undefined) plan.durationS = options.durationS;
      else plan.requests = perRound(concurrency);
      const run = await executeLoad({
        urls: [url],
        plan,
        workload,
        seed: (options.workload.seed + round) >>> 0,
        lateAfterS: 0.002,
        binS: 1,
        slo: {},
        ...(deps.signal ? { signal: deps.signal } : {}),
      }, deps);
      rounds.get(concurrency)![side].push(run.summary.overall);
      lines.push(encode({ side, concurrency, round, ...run.summary }));
    },
  });
  const inputs: ComparePointInput[] = options.points.map((concurrency) => ({
    concurrency,
    ...rounds.get(concurrency)!,
  }));
  const result = compareLoad(inputs, {
    seed: options.workload.seed,
    expectedConcurrency: options.points,
    toleranceFraction: options.tolerance,
    recordedNoiseFloor: options.noiseFloor,
  });
  lines.push(encode(result));
  return { result, lines };
}
