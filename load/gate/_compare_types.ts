/**
 * The words of `compare`: what it asks for, what it touches and tells, and how it ends (the conductor is
 * compare_run.ts; its stages _compare_stages.ts).
 */
import { LOAD_LINE_FORMATS, LOAD_LINE_VERSIONS } from "../../contract/mod.ts";
import type { CompareSide, CompareTarget, ProfileStarter } from "./compare_sessions.ts";
import type { CompareResult } from "./gate.ts";
import type { LoadTestDeps, LoadTestHooks } from "../_load_types.ts";
import type { WorkloadOptions } from "../prepare.ts";

export const COMPARE_FORMAT_LINE = LOAD_LINE_FORMATS.compareRun;
/**
 * Version 3 (from 2): lines are written as they happen; each server turn's preflight check; a measurement a signal
 * cut short carries `interrupted`, and an interrupted comparison ends with a line of kind "interrupted" and no
 * verdict. Version 2 (from 1): workloads and points by label, durations, the spec's identity, the noise-floor record.
 */
export const COMPARE_RUN_VERSION = LOAD_LINE_VERSIONS[COMPARE_FORMAT_LINE];

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
  /** Seconds this run takes at most (warm-up and its limit + measured + drain) with --duration; else null. */
  bound_s: number | null;
  /** Seconds it takes when nothing waits on a limit (warm-up + measured issuance) with --duration; else null. */
  expected_s: number | null;
}
