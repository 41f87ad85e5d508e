/**
 * One measured load run: the generator issues the plan; each sample becomes a request row the moment it ends,
 * which is handed to `onRow` (the JSONL) and kept only in compact columns (row_store.ts); the summary is computed
 * from those columns, with the run's audits (TTFT, reasoning truncation, warm-up) beside it.
 */
import type { LoadRunFacts } from "../contract/mod.ts";
import { runLoad } from "./generator.ts";
import { type LoadDeps, type LoadPlan, warmsUp } from "./load_plan_bounds.ts";
import { buildLoadRow, type LoadRequestRow, type LoadRowOptions } from "./metrics.ts";
import type { PreparedWorkload } from "./prepare.ts";
import { RowStore } from "./row_store.ts";
import {
  type LengthTarget,
  type LoadAudits,
  type LoadPhases,
  type LoadSummary,
  type Slo,
  summarizeStore,
} from "./summary.ts";

/** One run: raw facts, its compact rows, the summary computed from them, and the SSE events it read. */
export interface LoadRunResult {
  facts: LoadRunFacts;
  store: RowStore;
  summary: LoadSummary;
  /** SSE data events of measured requests (the client's work, for the headroom check). */
  measuredEvents: number;
}

/** What the audits of a run check (performance methodology: TTFT audit, strict mode, warm-up). */
export interface AuditOptions {
  /** --allow-missing-ttft: successes without TTFT do not fail the audit. */
  allowMissingTtft: boolean;
  /** --strict / --ci-safety: reasoning-truncated answers are rejected. */
  rejectReasoningTruncated: boolean;
  /** Why the warm-up is too small for publishable numbers, or null. */
  warmupWarning: string | null;
}

export interface ExecuteLoadOptions {
  urls: readonly string[];
  plan: Omit<LoadPlan, "endpoints" | "requestFor" | "seed">;
  workload: PreparedWorkload;
  seed: number;
  lateAfterS: number;
  binS: number;
  slo: Slo;
  isl?: LengthTarget | undefined;
  osl?: LengthTarget | undefined;
  signal?: AbortSignal;
  /** How rows are built beyond lateness: non-streaming, TTFT from the first byte. */
  rows?: Omit<LoadRowOptions, "lateAfterS" | "drainLimitS">;
  audit?: AuditOptions;
  /** Each request row as its request ends (warm-up rows included), e.g. to write it to the JSONL. */
  onRow?(row: LoadRequestRow): void;
  /** At the measurement epoch. */
  onEpoch?(epochS: number): void;
  /** As each request is sent (progress counters only). */
  onSend?(phase: "warmup" | "measure"): void;
  /** The store to keep the rows in (a benchmark watches its size); default a new one. */
  store?: RowStore;
}

/** The phases of a run from the generator's facts. */
export function phasesOf(facts: LoadRunFacts, plan: ExecuteLoadOptions["plan"]): LoadPhases {
  const stopped = facts.stopped_by;
  const overran = stopped === "warmup-limit";
  const cancelled = stopped === "cancelled";
  return {
    warmup: {
      ended: overran
        ? "limit"
        : !warmsUp(plan)
        ? "none"
        : cancelled && facts.counts.measured === 0
        ? "interrupted"
        : "completed",
      seconds: facts.warmup_s,
      limit_s: plan.warmupLimitS ?? null,
    },
    measure: {
      ended: overran ? "not-started" : cancelled ? "interrupted" : stopped as "requests" | "duration",
      seconds: overran ? 0 : facts.drain.end_s,
    },
    drain: { limit_s: facts.drain.limit_s, cancelled: facts.drain.cancelled },
  };
}

/** The audits of one summary. */
export function auditRun(summary: LoadSummary, options: AuditOptions, plan: ExecuteLoadOptions["plan"]): LoadAudits {
  const c = summary.overall.counts;
  return {
    ttft: {
      checked: c.succeeded,
      missing: c.without_ttft,
      allowed: options.allowMissingTtft,
      pass: c.without_ttft === 0 || options.allowMissingTtft,
      rule: "every measured success has a TTFT (first nonempty delta, or the HTTP first byte when asked); " +
        "--allow-missing-ttft relaxes it",
    },
    reasoning_truncated: {
      count: c.reasoning_truncated,
      rejected: options.rejectReasoningTruncated,
      pass: !options.rejectReasoningTruncated || c.reasoning_truncated === 0,
      rule: "a reasoning-only length finish is not an answer; --strict and --ci-safety reject it",
    },
    warmup: { requests: plan.warmupRequests, seconds: plan.warmupS ?? null, warning: options.warmupWarning },
  };
}

/** Runs the generator once; rows go to `onRow` as they end and into compact columns for the summary. */
export async function executeLoad(options: ExecuteLoadOptions, deps: LoadDeps): Promise<LoadRunResult> {
  const plan: LoadPlan = {
    ...options.plan,
    endpoints: options.urls,
    requestFor: options.workload.requestFor,
    seed: options.seed,
  };
  const store = options.store ?? new RowStore();
  store.reserve();
  let measuredEvents = 0;
  const rowOptions: LoadRowOptions = {
    ...options.rows,
    lateAfterS: options.lateAfterS,
    drainLimitS: options.plan.drainLimitS ?? null,
  };
  const facts = await runLoad(plan, deps, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onEpoch ? { onEpoch: options.onEpoch } : {}),
    ...(options.onSend ? { onSend: options.onSend } : {}),
    onSample: (sample) => {
      const row = buildLoadRow(sample, rowOptions);
      const events = sample.outcome?.events ?? 0;
      if (row.phase === "measure") measuredEvents += events;
      store.add(row, events);
      options.onRow?.(row);
    },
  });
  const summaryOptions: Parameters<typeof summarizeStore>[1] = {
    mode: facts.mode,
    effectiveMaxConcurrency: facts.effective_max_concurrency,
    binWidthS: options.binS,
    slo: options.slo,
    config: {
      ...options.workload.stamp,
      requested_rate_per_s: facts.requested_rate_per_s,
      arrival: facts.arrival,
      internal_concurrency_limit: facts.internal_concurrency_limit,
      warmup_requests: options.plan.warmupRequests,
      warmup_s_planned: options.plan.warmupS ?? null,
      warmup_s: facts.warmup_s,
      duration_s: options.plan.durationS ?? null,
      stopped_by: facts.stopped_by,
      drain: facts.drain,
      late_after_s: options.lateAfterS,
      streaming: options.rows?.nonStreaming !== true,
      infer_ttft_from_first_byte: options.rows?.inferTtftFromFirstByte === true,
      shard: facts.shard,
    },
  };
  if (options.isl) summaryOptions.isl = options.isl;
  if (options.osl) summaryOptions.osl = options.osl;
  const summary = summarizeStore(store, summaryOptions);
  summary.phases = phasesOf(facts, options.plan);
  if (options.audit) summary.audits = auditRun(summary, options.audit, options.plan);
  return { facts, store, summary, measuredEvents };
}
