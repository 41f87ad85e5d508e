/**
 * The words of a `load` test: what it asks for, what it touches outside itself, what its caller hears, and how it
 * ends (the conductor is load_run.ts; its stages _load_stages.ts).
 */
import type { Dialect } from "../contract/mod.ts";
import type { MockEngine, MockEngineOptions } from "../mock/mod.ts";
import type { Sanitizer } from "../sanitize/mod.ts";
import type { LoadAggregate } from "./aggregate.ts";
import type { LoadRunResult } from "./execute.ts";
import type { LoadDeps, LoadPlan } from "./load_plan_bounds.ts";
import type { HeadroomCeiling, HeadroomDeps } from "./headroom.ts";
import type { WorkloadOptions } from "./prepare.ts";
import type { LoadRequestRow } from "./metrics.ts";
import type { ShardRun } from "./shard.ts";
import type { LengthTarget, Slo } from "./summary.ts";

/** What one `load` asks for. */
export interface LoadTestOptions {
  urls: string[];
  selfCheck: boolean;
  plan: Omit<LoadPlan, "endpoints" | "requestFor" | "seed">;
  workload: WorkloadOptions;
  lateAfterS: number;
  /** Measured runs: with `sweep`, one per point. */
  repeat: number;
  /**
   * A sweep (`--concurrency 1,4,16`, `--rate 1,2,4`): what each run sets in `plan` (its concurrency or rate and its
   * warm-up), `plan` being the largest point. Its runs load different levels: no aggregate is made across them.
   */
  sweep?: Partial<LoadTestOptions["plan"]>[];
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
  /** Closes and removes the file: nothing was measured into it. */
  discard?(): Promise<void>;
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
  /** The engine family at a URL (asked only when a request field some family ignores is sent). */
  dialectOf?(url: string): Promise<{ dialect: Dialect; evidence: string }>;
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
 * `unreachable` when a URL failed the preflight check (nothing was measured); `warmup-limit` when a run's warm-up did
 * not end within --warmup-limit-s (its requests were cancelled, nothing of that run was measured); `write-failed`
 * when --out could not be written.
 */
export type LoadTestOutcome =
  | {
    status: "ok" | "no-success" | "osl-mismatch" | "audit-failed" | "interrupted" | "unreachable" | "warmup-limit";
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
