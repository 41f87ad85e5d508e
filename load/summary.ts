/**
 * Summary of one load run, per endpoint and pooled (labelled pooled_mixture when several endpoints were
 * loaded). The window is first measured send to last measured terminal completion of any outcome; throughput,
 * goodput and token throughput divide by it. Throughput bins are fixed-width over send offsets (open loop: the
 * scheduled offsets), each divided by its actual width. Distributions use successes of the measure phase only.
 */
import type Type from "typebox";
import { describeSortedRuns, type DistSummary } from "../score/mod.ts";
import { LOAD_FORMAT_VERSION } from "./metrics.ts";
import { type CadenceColumn, type NumericColumn, RowStore } from "./row_store.ts";
import {
  type EndpointLoadSummary,
  type LengthCheck,
  LOAD_LINE_FORMATS,
  LOAD_SUMMARY,
  type LoadDistributions,
  type LoadMode,
  type Slo,
} from "../contract/mod.ts";
import { binsOf, concurrencyOf } from "./throughput.ts";

export const LOAD_SUMMARY_FORMAT = LOAD_LINE_FORMATS.summary;
export const POOLED_LABEL = "pooled_mixture" as const;

/** A sequence-length target: the stat of achieved lengths must lie within tolerance x target of the target. */
export interface LengthTarget {
  target: number;
  /** Fraction of the target, e.g. 0.1. */
  tolerance: number;
  stat: "mean" | "median";
}

/** The summaries' shapes are the load line contract's (contract/load_lines.ts). */
export type { EndpointLoadSummary, LengthCheck, LoadDistributions, LoadPhases, Slo } from "../contract/mod.ts";

export interface LoadSummaryOptions {
  mode: LoadMode;
  /** Null for an open loop without --max-concurrency (stamped with UNCAPPED_REASON). */
  effectiveMaxConcurrency: number | null;
  /** Default 1 s. */
  binWidthS?: number;
  slo?: Slo;
  isl?: LengthTarget;
  osl?: LengthTarget;
  /** Echoed into the summary as run configuration (seed, rate, workload, prompt-set SHA-256, ...). */
  config?: Record<string, unknown>;
}

/** One run's summary line (the contract's LOAD_SUMMARY), its audits typed as the conductor stamps them. */
export interface LoadSummary extends Omit<Type.Static<typeof LOAD_SUMMARY>, "run" | "audits"> {
  audits?: LoadAudits;
}

/** The audits stamped on a run's summary. */
export interface LoadAudits {
  ttft: { checked: number; missing: number; allowed: boolean; pass: boolean; rule: string };
  reasoning_truncated: { count: number; rejected: boolean; pass: boolean; rule: string };
  warmup: { requests: number; seconds: number | null; warning: string | null };
}

/** Why an uncapped open loop has no effective max concurrency. */
export const UNCAPPED_REASON =
  "open loop without --max-concurrency: nothing caps outstanding requests (the generator's own limit is " +
  "stamped as internal_concurrency_limit)";

/** Part of a store that one summary covers: its rows of the given endpoint indices. */
export interface RowSelection {
  store: RowStore;
  endpoints: readonly number[];
}

/** Calls `visit(store, i)` for every stored row of the selections. */
export function eachRow(parts: readonly RowSelection[], visit: (store: RowStore, i: number) => void): void {
  for (const part of parts) {
    const wanted = new Set(part.endpoints);
    const { store } = part;
    store.endpoint.forEach((e, i) => {
      if (wanted.has(e)) visit(store, i);
    });
  }
}

const SUCCESS = 0, DROPPED = 2, CANCELLED = 3;
const ANSWERED = 1, REASONING_TRUNCATED = 2, NO_OUTPUT_TOKEN = 3;

/** The sorted values of one cadence column over the selections (successes that streamed reasoning). */
function cadenceRuns(parts: readonly RowSelection[], column: CadenceColumn): Float64Array[] {
  return parts.map((part) => {
    const wanted = new Set(part.endpoints);
    const col = part.store.cadence[column];
    const values = new Float64Array(col.length);
    let n = 0;
    part.store.cadenceEndpoint.forEach((e, i) => {
      const v = col.at(i);
      if (wanted.has(e) && !Number.isNaN(v)) values[n++] = v;
    });
    return values.subarray(0, n).sort();
  });
}

/** Sorted runs of one numeric column over the rows that `keep` accepts, one run per store and endpoint. */
function columnRuns(
  parts: readonly RowSelection[],
  column: NumericColumn,
  keep: (store: RowStore, i: number) => boolean,
): Float64Array[] {
  const runs: Float64Array[] = [];
  for (const part of parts) {
    for (const e of part.endpoints) {
      // Typed scratch of the store's size, not a growing array: a long run's summary stays near 8 B a row.
      const values = new Float64Array(part.store.size);
      let n = 0;
      const col = part.store.numeric[column];
      part.store.endpoint.forEach((ep, i) => {
        if (ep !== e || !keep(part.store, i)) return;
        const v = col.at(i);
        if (!Number.isNaN(v)) values[n++] = v;
      });
      runs.push(values.subarray(0, n).sort());
    }
  }
  return runs;
}

/** Whether a measured length lies outside its target's tolerance (no target, or no length: no miss). */
function misses(t: LengthTarget | undefined, length: number): boolean {
  return t !== undefined && !Number.isNaN(length) && Math.abs(length - t.target) > t.tolerance * t.target;
}

function lengthCheckOf(d: DistSummary, mismatches: number, t: LengthTarget): LengthCheck {
  const achieved = t.stat === "mean" ? d.mean : d.p50;
  const bound = t.tolerance * t.target;
  return {
    target: t.target,
    tolerance: t.tolerance,
    stat: t.stat,
    achieved,
    within: achieved === null ? null : Math.abs(achieved - t.target) <= bound,
    mismatches,
    checked: d.n,
  };
}

/** The summary of the selected rows (one endpoint, all of a run's endpoints, or every shard of a merge). */
export function summarizeSelection(
  label: string,
  parts: readonly RowSelection[],
  options: LoadSummaryOptions,
  capLevel: number | null,
): EndpointLoadSummary {
  const missing: Record<string, string> = {};
  const binWidthS = options.binWidthS ?? 1;
  const tally = tallyRows(parts, options, missing);
  const timeline = sentTimeline(parts, options, tally.rates.counts.attempted, binWidthS);
  const distributions = distributionsOf(parts);
  if (tally.itlMissing) missing.itl_s = "the stream client did not record chunk offsets";
  if (!options.isl) missing.isl = "no --isl-target";
  if (!options.osl) missing.osl = "no --osl-target";
  return {
    label,
    ...tally.rates,
    bin_width_s: timeline.bins.widthS,
    bins: timeline.bins.bins,
    distributions,
    concurrency: concurrencyOf(timeline.starts, timeline.ends, capLevel),
    isl: options.isl ? lengthCheckOf(distributions.input_tokens, tally.islMisses, options.isl) : null,
    osl: options.osl ? lengthCheckOf(distributions.output_tokens, tally.oslMisses, options.osl) : null,
    missing,
  };
}

/**
 * One pass over the rows: the counts, and the rates over the window from the first send to the last end (token
 * rates null once a count is missing, goodput null without an SLO), each null's reason written to `missing`.
 */
function tallyRows(parts: readonly RowSelection[], options: LoadSummaryOptions, missing: Record<string, string>) {
  const slo = options.slo ?? {};
  const sloSet = slo.ttftS !== undefined || slo.tpotS !== undefined || slo.e2eS !== undefined;
  let measured = 0, sent = 0, ok = 0, late = 0, answered = 0, truncated = 0, noOutput = 0, drained = 0, good = 0;
  let cancelled = 0;
  let firstSend = Infinity, lastEnd = -Infinity, lastSend = -Infinity;
  let outTokens: number | null = 0, inTokens: number | null = 0;
  let okWithItl = 0, okWithoutTtft = 0;
  const islMiss = { n: 0 }, oslMiss = { n: 0 };
  eachRow(parts, (store, i) => {
    measured++;
    const status = store.status.at(i);
    const flags = store.flags.at(i);
    if (RowStore.isLate(flags)) late++;
    if (status === DROPPED) return;
    sent++;
    if (RowStore.isDrainCancelled(flags)) drained++;
    const num = store.numeric;
    const send = num.send_offset_s.at(i);
    firstSend = Math.min(firstSend, send);
    lastSend = Math.max(lastSend, send);
    lastEnd = Math.max(lastEnd, num.end_offset_s.at(i));
    if (status === CANCELLED) cancelled++;
    if (status !== SUCCESS) return;
    ok++;
    if (RowStore.hasItl(flags)) okWithItl++;
    const answer = store.answer.at(i);
    if (answer === ANSWERED) answered++;
    else if (answer === REASONING_TRUNCATED) truncated++;
    else if (answer === NO_OUTPUT_TOKEN) noOutput++;
    const out = num.output_tokens.at(i), inp = num.input_tokens.at(i);
    outTokens = outTokens === null || Number.isNaN(out) ? null : outTokens + out;
    inTokens = inTokens === null || Number.isNaN(inp) ? null : inTokens + inp;
    const ttft = num.ttft_s.at(i), tpot = num.tpot_s.at(i), e2e = num.latency_s.at(i);
    if (Number.isNaN(ttft)) okWithoutTtft++;
    if (sloSet && answer === ANSWERED && meetsSloValues(ttft, tpot, e2e, slo)) good++;
    if (misses(options.isl, inp)) islMiss.n++;
    if (misses(options.osl, out)) oslMiss.n++;
  });
  const windowS = sent > 0 ? lastEnd - firstSend : null;
  if (windowS === null) missing.window_s = "no measured request was sent";
  const perWindow = (count: number | null): number | null =>
    windowS !== null && windowS > 0 && count !== null ? count / windowS : null;
  if (outTokens === null) {
    missing.output_tokens_per_s = "a successful request lacks a server completion token count; no local estimate";
  }
  if (inTokens === null) missing.input_tokens_per_s = "a successful request lacks a server prompt token count";
  if (!sloSet) missing.goodput_requests_per_s = "no SLO configured (--slo-ttft-ms, --slo-tpot-ms, --slo-e2e-ms)";
  let achievedRate: number | null = null;
  if (options.mode === "open" && sent >= 2) {
    const span = lastSend - firstSend;
    achievedRate = span > 0 ? (sent - 1) / span : null;
  } else if (options.mode !== "open") missing.achieved_send_rate_per_s = "closed loop: no requested rate";
  const rates = {
    counts: {
      attempted: sent,
      succeeded: ok,
      failed: sent - ok - cancelled,
      dropped: measured - sent,
      late,
      answered,
      reasoning_truncated: truncated,
      no_output_token: noOutput,
      cancelled_at_drain: drained,
      cancelled,
      without_ttft: okWithoutTtft,
    },
    window_s: windowS,
    error_rate: sent - cancelled > 0 ? (sent - ok - cancelled) / (sent - cancelled) : null,
    drop_rate: measured > 0 ? (measured - sent) / measured : null,
    requests_per_s: perWindow(ok),
    output_tokens_per_s: perWindow(outTokens),
    input_tokens_per_s: perWindow(inTokens),
    goodput_requests_per_s: perWindow(sloSet ? good : null),
    achieved_send_rate_per_s: achievedRate,
  };
  return { rates, itlMissing: ok > 0 && okWithItl === 0, islMisses: islMiss.n, oslMisses: oslMiss.n };
}
/** The sent rows' send-to-end intervals (for concurrency) and throughput bins, in typed scratch arrays. */
function sentTimeline(parts: readonly RowSelection[], options: LoadSummaryOptions, sent: number, binWidthS: number) {
  // NaN tokens: no count.
  const starts = new Float64Array(sent), ends = new Float64Array(sent);
  const binOffsets = new Float64Array(sent), binTokens = new Float64Array(sent), binDone = new Uint8Array(sent);
  let k = 0, b = 0;
  eachRow(parts, (store, i) => {
    if (store.status.at(i) === DROPPED) return;
    const num = store.numeric;
    starts[k] = num.send_offset_s.at(i);
    ends[k++] = num.end_offset_s.at(i);
    const x = options.mode === "open" ? num.scheduled_offset_s.at(i) : num.send_offset_s.at(i);
    if (Number.isNaN(x)) return;
    binOffsets[b] = x;
    binDone[b] = store.status.at(i) === SUCCESS ? 1 : 0;
    binTokens[b++] = num.output_tokens.at(i);
  });
  const bins = binsOf(b, (i) => binOffsets[i] as number, (i) => binDone[i] === 1, (i) => {
    const t = binTokens[i] as number;
    return Number.isNaN(t) ? null : t;
  }, binWidthS);
  return { starts, ends, bins };
}

/** Every distribution of the selection: successful requests' columns, lateness over the sent, the pooled runs. */
function distributionsOf(parts: readonly RowSelection[]): LoadDistributions {
  const isOk = (store: RowStore, i: number) => store.status.at(i) === SUCCESS;
  const isSent = (store: RowStore, i: number) => store.status.at(i) !== DROPPED;
  const dist = (column: NumericColumn, keep = isOk) => describeSortedRuns(columnRuns(parts, column, keep));
  const itlRuns = parts.flatMap((p) => p.endpoints.flatMap((e) => p.store.itlRuns(e)));
  return {
    latency_s: dist("latency_s"),
    co_latency_s: dist("co_latency_s"),
    ttft_s: dist("ttft_s"),
    first_byte_s: dist("first_byte_s"),
    first_reasoning_s: dist("first_reasoning_s"),
    first_answer_s: dist("first_answer_s"),
    tpot_s: dist("tpot_s"),
    itl_s: describeSortedRuns(itlRuns),
    thinking_s: describeSortedRuns(cadenceRuns(parts, "thinking_s")),
    reasoning_itl_s: describeSortedRuns(parts.flatMap((p) => p.endpoints.flatMap((e) => p.store.reasoningItlRuns(e)))),
    reasoning_tpot_s: describeSortedRuns(cadenceRuns(parts, "reasoning_tpot_s")),
    answer_tpot_s: describeSortedRuns(cadenceRuns(parts, "answer_tpot_s")),
    lateness_s: dist("lateness_s", isSent),
    input_tokens: dist("input_tokens"),
    output_tokens: dist("output_tokens"),
  };
}

function meetsSloValues(ttft: number, tpot: number, e2e: number, slo: Slo): boolean {
  if (slo.ttftS !== undefined && (Number.isNaN(ttft) || ttft > slo.ttftS)) return false;
  if (slo.tpotS !== undefined && (Number.isNaN(tpot) || tpot > slo.tpotS)) return false;
  if (slo.e2eS !== undefined && (Number.isNaN(e2e) || e2e > slo.e2eS)) return false;
  return true;
}

/** The summary of one run's stored rows: per endpoint, and pooled_mixture over several. */
export function summarizeStore(store: RowStore, options: LoadSummaryOptions): LoadSummary {
  const endpoints = store.endpoints();
  const several = endpoints.length > 1;
  const cap = options.effectiveMaxConcurrency;
  const perEndpoint = endpoints.map((e) =>
    summarizeSelection(store.labels.get(e) as string, [{ store, endpoints: [e] }], options, several ? null : cap)
  );
  const overall = several || perEndpoint.length === 0
    ? summarizeSelection(several ? POOLED_LABEL : "none", [{ store, endpoints }], options, cap)
    : perEndpoint[0]!;
  return {
    format: LOAD_SUMMARY_FORMAT,
    version: LOAD_FORMAT_VERSION,
    mode: options.mode,
    effective_max_concurrency: cap,
    ...(cap === null ? { effective_max_concurrency_missing: UNCAPPED_REASON } : {}),
    slo: options.slo ?? {},
    config: options.config ?? {},
    overall,
    endpoints: perEndpoint,
  };
}
