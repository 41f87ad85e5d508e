/** One measured load run: the generator issues the plan, each sample becomes a request row, the rows a summary. */
import type { LoadRunFacts } from "../contract/mod.ts";
import { type LoadDeps, type LoadPlan, runLoad } from "./generator.ts";
import { buildLoadRow, type LoadRequestRow } from "./metrics.ts";
import type { PreparedWorkload } from "./prepare.ts";
import { type LengthTarget, type LoadSummary, type Slo, summarizeLoad } from "./summary.ts";

/** One run: raw facts, request rows, and the summary computed from the rows. */
export interface LoadRunResult {
  facts: LoadRunFacts;
  rows: LoadRequestRow[];
  summary: LoadSummary;
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
}

/** Runs the generator once and turns its samples into rows and a summary. */
export async function executeLoad(options: ExecuteLoadOptions, deps: LoadDeps): Promise<LoadRunResult> {
  const plan: LoadPlan = {
    ...options.plan,
    endpoints: options.urls,
    requestFor: options.workload.requestFor,
    seed: options.seed,
  };
  const facts = await runLoad(plan, deps, options.signal ? { signal: options.signal } : {});
  const rows = facts.samples.map((s) => buildLoadRow(s, { lateAfterS: options.lateAfterS }));
  const summaryOptions: Parameters<typeof summarizeLoad>[1] = {
    mode: facts.mode,
    effectiveMaxConcurrency: facts.effective_max_concurrency,
    binWidthS: options.binS,
    slo: options.slo,
    config: {
      ...options.workload.stamp,
      requested_rate_per_s: facts.requested_rate_per_s,
      arrival: facts.arrival,
      warmup_requests: options.plan.warmupRequests,
      warmup_s: facts.warmup_s,
      stopped_by: facts.stopped_by,
      late_after_s: options.lateAfterS,
    },
  };
  if (options.isl) summaryOptions.isl = options.isl;
  if (options.osl) summaryOptions.osl = options.osl;
  return { facts, rows, summary: summarizeLoad(rows, summaryOptions) };
}
