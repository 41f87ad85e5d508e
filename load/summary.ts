/**
 * Summary of one load run, per endpoint and pooled (labelled pooled_mixture when several endpoints were
 * loaded). The window is first measured send to last measured terminal completion of any outcome; throughput,
 * goodput and token throughput divide by it. Throughput bins are fixed-width over send offsets (open loop: the
 * scheduled offsets), each divided by its actual width. Distributions use successes of the measure phase only.
 */
import { describeDistribution, type DistSummary } from "../score/mod.ts";
import { LOAD_FORMAT_VERSION, type LoadRequestRow } from "./metrics.ts";
import type { LoadMode } from "../contract/mod.ts";

export const LOAD_SUMMARY_FORMAT = "strata-load-summary" as const;
export const POOLED_LABEL = "pooled_mixture" as const;

/** Service-level objectives for goodput; an unset one is not checked. */
export interface Slo {
  ttftS?: number;
  tpotS?: number;
  e2eS?: number;
}

/** A sequence-length target: the stat of achieved lengths must lie within tolerance x target of the target. */
export interface LengthTarget {
  target: number;
  /** Fraction of the target, e.g. 0.1. */
  tolerance: number;
  stat: "mean" | "median";
}

export interface LengthCheck {
  target: number;
  tolerance: number;
  stat: "mean" | "median";
  achieved: number | null;
  /** The achieved stat lies within tolerance. */
  within: boolean | null;
  /** Measured successes whose own length lies outside tolerance. */
  mismatches: number;
  checked: number;
}

export interface ThroughputBin {
  start_s: number;
  width_s: number;
  completed: number;
  output_tokens: number | null;
  requests_per_s: number | null;
  output_tokens_per_s: number | null;
}

export interface ObservedConcurrency {
  /** Time-weighted over the window. */
  mean: number | null;
  /** Time-weighted median in-flight level. */
  p50: number | null;
  max: number;
  /** Share of the window spent at the cap; null for a single endpoint of several (the cap is shared). */
  cap_engaged_fraction: number | null;
}

export interface LoadDistributions {
  latency_s: DistSummary;
  co_latency_s: DistSummary;
  ttft_s: DistSummary;
  first_byte_s: DistSummary;
  first_reasoning_s: DistSummary;
  first_answer_s: DistSummary;
  tpot_s: DistSummary;
  itl_s: DistSummary;
  lateness_s: DistSummary;
  input_tokens: DistSummary;
  output_tokens: DistSummary;
}

export interface EndpointLoadSummary {
  label: string;
  counts: {
    attempted: number;
    succeeded: number;
    failed: number;
    dropped: number;
    late: number;
    answered: number;
    reasoning_truncated: number;
    no_output_token: number;
  };
  window_s: number | null;
  error_rate: number | null;
  drop_rate: number | null;
  requests_per_s: number | null;
  output_tokens_per_s: number | null;
  input_tokens_per_s: number | null;
  goodput_requests_per_s: number | null;
  /** Open loop: measured sends over their span ((n - 1) / (last send - first send)). */
  achieved_send_rate_per_s: number | null;
  bin_width_s: number;
  bins: ThroughputBin[];
  distributions: LoadDistributions;
  concurrency: ObservedConcurrency;
  isl: LengthCheck | null;
  osl: LengthCheck | null;
  /** Field -> why it is null. */
  missing: Record<string, string>;
}

export interface LoadSummaryOptions {
  mode: LoadMode;
  effectiveMaxConcurrency: number;
  /** Default 1 s. */
  binWidthS?: number;
  slo?: Slo;
  isl?: LengthTarget;
  osl?: LengthTarget;
  /** Echoed into the summary as run configuration (seed, rate, workload, prompt-set SHA-256, ...). */
  config?: Record<string, unknown>;
}

export interface LoadSummary {
  format: typeof LOAD_SUMMARY_FORMAT;
  version: typeof LOAD_FORMAT_VERSION;
  mode: LoadMode;
  effective_max_concurrency: number;
  slo: Slo;
  config: Record<string, unknown>;
  /** All endpoints together: the endpoint's own label with one endpoint, pooled_mixture with several. */
  overall: EndpointLoadSummary;
  /** One per endpoint, in --url order (also when there is one). */
  endpoints: EndpointLoadSummary[];
}

function nums(rows: readonly LoadRequestRow[], pick: (r: LoadRequestRow) => number | null): number[] {
  const out: number[] = [];
  for (const r of rows) {
    const v = pick(r);
    if (v !== null) out.push(v);
  }
  return out;
}

function lengthCheck(values: readonly number[], t: LengthTarget): LengthCheck {
  const d = describeDistribution(values);
  const achieved = t.stat === "mean" ? d.mean : d.p50;
  const bound = t.tolerance * t.target;
  let mismatches = 0;
  for (const v of values) if (Math.abs(v - t.target) > bound) mismatches++;
  return {
    target: t.target,
    tolerance: t.tolerance,
    stat: t.stat,
    achieved,
    within: achieved === null ? null : Math.abs(achieved - t.target) <= bound,
    mismatches,
    checked: values.length,
  };
}

/** Whether a success meets every configured SLO (an undefined metric cannot show that it met one). */
export function meetsSlo(row: LoadRequestRow, slo: Slo): boolean {
  if (slo.ttftS !== undefined && (row.ttft_s === null || row.ttft_s > slo.ttftS)) return false;
  if (slo.tpotS !== undefined && (row.tpot_s === null || row.tpot_s > slo.tpotS)) return false;
  if (slo.e2eS !== undefined && (row.latency_s === null || row.latency_s > slo.e2eS)) return false;
  return true;
}

/** Fixed-width bins over offsets measured from the first one; each divided by its actual width. */
export function throughputBins(
  points: readonly { offsetS: number; completed: boolean; outputTokens: number | null }[],
  binWidthS: number,
): ThroughputBin[] {
  if (!(binWidthS > 0)) throw new RangeError(`Cannot bin throughput: width "${binWidthS}" must be positive`);
  if (points.length === 0) return [];
  let first = Infinity, last = -Infinity;
  for (const p of points) {
    first = Math.min(first, p.offsetS);
    last = Math.max(last, p.offsetS);
  }
  const span = last - first;
  const count = Math.max(1, Math.ceil(span / binWidthS - 1e-9));
  const bins = Array.from({ length: count }, (_, i) => ({
    start_s: i * binWidthS,
    width_s: Math.min((i + 1) * binWidthS, span) - i * binWidthS,
    completed: 0,
    tokens: 0 as number | null,
  }));
  for (const p of points) {
    if (!p.completed) continue;
    const bin = bins[Math.min(Math.floor((p.offsetS - first) / binWidthS), count - 1)]!;
    bin.completed++;
    bin.tokens = bin.tokens === null || p.outputTokens === null ? null : bin.tokens + p.outputTokens;
  }
  return bins.map((b) => ({
    start_s: b.start_s,
    width_s: b.width_s,
    completed: b.completed,
    output_tokens: b.tokens,
    requests_per_s: b.width_s > 0 ? b.completed / b.width_s : null,
    output_tokens_per_s: b.width_s > 0 && b.tokens !== null ? b.tokens / b.width_s : null,
  }));
}

/** In-flight level over [start, end] from send/terminal intervals: time-weighted mean, median, max, time at cap. */
export function observedConcurrency(
  intervals: readonly { startS: number; endS: number }[],
  capLevel: number | null,
): ObservedConcurrency {
  if (intervals.length === 0) return { mean: null, p50: null, max: 0, cap_engaged_fraction: null };
  const events: [number, number][] = [];
  for (const iv of intervals) events.push([iv.startS, 1], [iv.endS, -1]);
  // Ends before starts at the same instant: a slot freed and refilled is not double-counted.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const timeAtLevel = new Map<number, number>();
  let level = 0, max = 0, prev = events[0]![0];
  for (const [t, delta] of events) {
    if (t > prev) timeAtLevel.set(level, (timeAtLevel.get(level) ?? 0) + (t - prev));
    prev = t;
    level += delta;
    max = Math.max(max, level);
  }
  const total = events[events.length - 1]![0] - events[0]![0];
  if (!(total > 0)) return { mean: null, p50: null, max, cap_engaged_fraction: null };
  let weighted = 0, atCap = 0;
  for (const [lvl, dt] of timeAtLevel) {
    weighted += lvl * dt;
    if (capLevel !== null && lvl >= capLevel) atCap += dt;
  }
  let cumulative = 0, p50 = 0;
  for (const lvl of [...timeAtLevel.keys()].sort((a, b) => a - b)) {
    cumulative += timeAtLevel.get(lvl) as number;
    if (cumulative >= total / 2) {
      p50 = lvl;
      break;
    }
  }
  return { mean: weighted / total, p50, max, cap_engaged_fraction: capLevel === null ? null : atCap / total };
}

function summarizeEndpoint(
  label: string,
  rows: readonly LoadRequestRow[],
  options: LoadSummaryOptions,
  capLevel: number | null,
): EndpointLoadSummary {
  const missing: Record<string, string> = {};
  const measured = rows.filter((r) => r.phase === "measure");
  const sent = measured.filter((r) => r.status !== "dropped");
  const ok = measured.filter((r) => r.status === "success");
  const answered = ok.filter((r) => r.answer === "answered");
  const binWidthS = options.binWidthS ?? 1;

  let windowS: number | null = null;
  if (sent.length > 0) {
    const firstSend = Math.min(...sent.map((r) => r.send_offset_s as number));
    const lastEnd = Math.max(...sent.map((r) => r.end_offset_s as number));
    windowS = lastEnd - firstSend;
  }
  const perWindow = (count: number | null): number | null =>
    windowS !== null && windowS > 0 && count !== null ? count / windowS : null;
  if (windowS === null) missing.window_s = "no measured request was sent";

  const outTokens = ok.every((r) => r.output_tokens !== null)
    ? ok.reduce((s, r) => s + (r.output_tokens ?? 0), 0)
    : null;
  const inTokens = ok.every((r) => r.input_tokens !== null) ? ok.reduce((s, r) => s + (r.input_tokens ?? 0), 0) : null;
  if (outTokens === null) {
    missing.output_tokens_per_s = "a successful request lacks a server completion token count; no local estimate";
  }
  if (inTokens === null) missing.input_tokens_per_s = "a successful request lacks a server prompt token count";
  const slo = options.slo ?? {};
  const sloSet = slo.ttftS !== undefined || slo.tpotS !== undefined || slo.e2eS !== undefined;
  const good = sloSet ? answered.filter((r) => meetsSlo(r, slo)).length : null;
  if (!sloSet) missing.goodput_requests_per_s = "no SLO configured (--slo-ttft-ms, --slo-tpot-ms, --slo-e2e-ms)";

  const sends = sent.map((r) => r.send_offset_s as number).sort((a, b) => a - b);
  let achievedRate: number | null = null;
  if (options.mode === "open" && sends.length >= 2) {
    const span = (sends[sends.length - 1] as number) - (sends[0] as number);
    achievedRate = span > 0 ? (sends.length - 1) / span : null;
  } else if (options.mode !== "open") missing.achieved_send_rate_per_s = "closed loop: no requested rate";

  const binOffset = (r: LoadRequestRow): number | null =>
    options.mode === "open" ? r.scheduled_offset_s : r.send_offset_s;
  const binPoints = sent.flatMap((r) => {
    const x = binOffset(r);
    return x === null ? [] : [{ offsetS: x, completed: r.status === "success", outputTokens: r.output_tokens }];
  });

  const summary: EndpointLoadSummary = {
    label,
    counts: {
      attempted: sent.length,
      succeeded: ok.length,
      failed: sent.length - ok.length,
      dropped: measured.length - sent.length,
      late: measured.filter((r) => r.late).length,
      answered: answered.length,
      reasoning_truncated: ok.filter((r) => r.answer === "reasoning_truncated").length,
      no_output_token: ok.filter((r) => r.answer === "no_output_token").length,
    },
    window_s: windowS,
    error_rate: sent.length > 0 ? (sent.length - ok.length) / sent.length : null,
    drop_rate: measured.length > 0 ? (measured.length - sent.length) / measured.length : null,
    requests_per_s: perWindow(ok.length),
    output_tokens_per_s: perWindow(outTokens),
    input_tokens_per_s: perWindow(inTokens),
    goodput_requests_per_s: perWindow(good),
    achieved_send_rate_per_s: achievedRate,
    bin_width_s: binWidthS,
    bins: throughputBins(binPoints, binWidthS),
    distributions: {
      latency_s: describeDistribution(nums(ok, (r) => r.latency_s)),
      co_latency_s: describeDistribution(nums(ok, (r) => r.co_latency_s)),
      ttft_s: describeDistribution(nums(ok, (r) => r.ttft_s)),
      first_byte_s: describeDistribution(nums(ok, (r) => r.first_byte_s)),
      first_reasoning_s: describeDistribution(nums(ok, (r) => r.first_reasoning_s)),
      first_answer_s: describeDistribution(nums(ok, (r) => r.first_answer_s)),
      tpot_s: describeDistribution(nums(ok, (r) => r.tpot_s)),
      itl_s: describeDistribution(ok.flatMap((r) => r.itl_s ?? [])),
      lateness_s: describeDistribution(nums(sent, (r) => r.lateness_s)),
      input_tokens: describeDistribution(nums(ok, (r) => r.input_tokens)),
      output_tokens: describeDistribution(nums(ok, (r) => r.output_tokens)),
    },
    concurrency: observedConcurrency(
      sent.map((r) => ({ startS: r.send_offset_s as number, endS: r.end_offset_s as number })),
      capLevel,
    ),
    isl: options.isl ? lengthCheck(nums(ok, (r) => r.input_tokens), options.isl) : null,
    osl: options.osl ? lengthCheck(nums(ok, (r) => r.output_tokens), options.osl) : null,
    missing,
  };
  if (ok.length > 0 && ok.every((r) => r.itl_s === null)) {
    missing.itl_s = "the stream client did not record chunk offsets";
  }
  if (!options.isl) missing.isl = "no --isl-target";
  if (!options.osl) missing.osl = "no --osl-target";
  return summary;
}

/** The summary of one run's request rows (warm-up rows are ignored). */
export function summarizeLoad(rows: readonly LoadRequestRow[], options: LoadSummaryOptions): LoadSummary {
  const endpoints = [...new Map(rows.map((r) => [r.endpoint_index, r.endpoint])).entries()].sort((a, b) => a[0] - b[0]);
  const several = endpoints.length > 1;
  const perEndpoint = endpoints.map(([index, url]) =>
    summarizeEndpoint(
      url,
      rows.filter((r) => r.endpoint_index === index),
      options,
      several ? null : options.effectiveMaxConcurrency,
    )
  );
  const overall = several || perEndpoint.length === 0
    ? summarizeEndpoint(several ? POOLED_LABEL : "none", rows, options, options.effectiveMaxConcurrency)
    : perEndpoint[0]!;
  return {
    format: LOAD_SUMMARY_FORMAT,
    version: LOAD_FORMAT_VERSION,
    mode: options.mode,
    effective_max_concurrency: options.effectiveMaxConcurrency,
    slo: options.slo ?? {},
    config: options.config ?? {},
    overall,
    endpoints: perEndpoint,
  };
}
