/**
 * The conductor of `load`: prepares the workload once, runs the generator `repeat` times (against the given URLs,
 * or against the scripted engine it starts for the self-check), builds rows and summaries, adds the cross-run
 * aggregate, and writes every line, sanitized, as versioned JSONL. What a person sees is rendered by the caller
 * from the hooks' plain data.
 */
import type { MockEngine, MockEngineOptions } from "../mock/mod.ts";
import type { Sanitizer } from "../report/mod.ts";
import { aggregateRuns, type LoadAggregate } from "./aggregate.ts";
import { executeLoad, type LoadRunResult } from "./execute.ts";
import type { LoadDeps, LoadPlan } from "./generator.ts";
import { prepareWorkload, type WorkloadOptions } from "./prepare.ts";
import type { LengthTarget, Slo } from "./summary.ts";

export const LOAD_RUN_FORMAT = "strata-load-run" as const;

/** What one `load` asks for. */
export interface LoadTestOptions {
  urls: string[];
  selfCheck: boolean;
  plan: Omit<LoadPlan, "endpoints" | "requestFor" | "seed">;
  workload: WorkloadOptions;
  lateAfterS: number;
  repeat: number;
  isl: LengthTarget | undefined;
  osl: LengthTarget | undefined;
  failOnOslMismatch: boolean;
  slo: Slo;
  binS: number;
  out: string | undefined;
}

/** Everything a load test touches outside itself. */
export interface LoadTestDeps extends LoadDeps {
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  startMockEngine(options: MockEngineOptions): Promise<MockEngine>;
  /** Redacts home folders, user and host names and secrets from every --out line (rows carry server error text). */
  sanitizer: Sanitizer;
  signal?: AbortSignal;
}

/** What the caller hears while the test runs (in this order); all optional. */
export interface LoadTestHooks {
  onRunStart?(run: number, runs: number, urls: readonly string[]): void;
  onRunEnd?(run: LoadRunResult, index: number): void;
  onAggregate?(aggregate: LoadAggregate): void;
  onWritten?(path: string, lines: number): void;
}

/**
 * How the test ended: `ok`; `no-success` when no measured request of the last run succeeded; `osl-mismatch` when
 * --fail-on-osl-mismatch found a request outside the tolerance; `write-failed` when --out could not be written.
 */
export type LoadTestOutcome =
  | { status: "ok" | "no-success" | "osl-mismatch"; runs: LoadRunResult[]; aggregate: LoadAggregate | null }
  | { status: "write-failed"; reason: string; runs: LoadRunResult[]; aggregate: LoadAggregate | null };

/** Scripted engine of the self-check: no service time, many slots, 64 visible tokens a request. */
export const SELF_CHECK_ENGINE: MockEngineOptions = {
  timeScale: 0,
  slots: 512,
  script: {
    "*": {
      answer: { kind: "text", text: Array.from({ length: 63 }, () => "tok").join(" ") },
      reasoningTokens: 0,
    },
  },
};

/**
 * Runs one `load` test.
 * @throws {RangeError} for a workload whose requests would all send one prompt; SyntaxError/RangeError for a
 * malformed prompt file; whatever `readText` throws for an unreadable one.
 */
export async function runLoadTest(
  options: LoadTestOptions,
  deps: LoadTestDeps,
  hooks: LoadTestHooks = {},
): Promise<LoadTestOutcome> {
  let engine: MockEngine | null = null;
  try {
    let urls = options.urls;
    if (options.selfCheck) {
      engine = await deps.startMockEngine(SELF_CHECK_ENGINE);
      urls = [engine.url];
    }
    const requestCount = options.plan.requests ?? 2;
    const workload = await prepareWorkload(options.workload, requestCount, deps.readText);
    const profile = workload.set.profile;
    const osl = options.osl ??
      (profile && options.failOnOslMismatch ? { target: profile.osl_target, tolerance: 0.1, stat: "mean" } : undefined);
    const isl = options.isl;
    const lines: string[] = [];
    /** Adds one --out JSONL line, sanitized like run's published files. */
    const emit = (value: unknown) => lines.push(JSON.stringify(deps.sanitizer.json(value)));
    emit({
      format: LOAD_RUN_FORMAT,
      version: 1,
      kind: "config",
      urls,
      self_check: options.selfCheck,
      plan: options.plan,
      workload: workload.stamp,
      repeat: options.repeat,
      slo: options.slo,
      isl: isl ?? null,
      osl: osl ?? null,
      bin_s: options.binS,
      late_after_s: options.lateAfterS,
    });
    const runs: LoadRunResult[] = [];
    for (let r = 0; r < options.repeat; r++) {
      if (deps.signal?.aborted) break;
      hooks.onRunStart?.(r, options.repeat, urls);
      const run = await executeLoad({
        urls,
        plan: options.plan,
        workload,
        seed: (options.workload.seed + r) >>> 0,
        lateAfterS: options.lateAfterS,
        binS: options.binS,
        slo: options.slo,
        isl,
        osl,
        ...(deps.signal ? { signal: deps.signal } : {}),
      }, deps);
      runs.push(run);
      for (const row of run.rows) emit({ run: r, ...row });
      emit({ run: r, ...run.summary });
      hooks.onRunEnd?.(run, r);
    }
    let aggregate: LoadAggregate | null = null;
    if (runs.length > 1) {
      aggregate = aggregateRuns(runs.map((r) => r.summary.overall), { seed: options.workload.seed });
      emit(aggregate);
      hooks.onAggregate?.(aggregate);
    }
    if (options.out !== undefined) {
      const written = await deps.writeText(options.out, lines.join("\n") + "\n");
      if (!written.ok) return { status: "write-failed", reason: written.reason, runs, aggregate };
      hooks.onWritten?.(options.out, lines.length);
    }
    const last = runs[runs.length - 1];
    if (last === undefined || last.summary.overall.counts.succeeded === 0) {
      return { status: "no-success", runs, aggregate };
    }
    if (options.failOnOslMismatch && runs.some((r) => (r.summary.overall.osl?.mismatches ?? 0) > 0)) {
      return { status: "osl-mismatch", runs, aggregate };
    }
    return { status: "ok", runs, aggregate };
  } finally {
    await engine?.close();
  }
}
