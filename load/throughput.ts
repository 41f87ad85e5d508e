/**
 * Throughput over time and requests in flight, for load summaries: fixed-width throughput bins over offsets (each
 * divided by its actual width), and the time-weighted in-flight level from send/terminal intervals.
 */

/** A bin of completions and the in-flight levels over the window: the load line contract's shapes. */
export type { ObservedConcurrency, ThroughputBin } from "../contract/mod.ts";
import type { ObservedConcurrency, ThroughputBin } from "../contract/mod.ts";

/**
 * The most bins one summary holds: at about 150 bytes each, 65,536 bins keep a summary line well inside the load
 * line cap (16 MiB), and a row whose offset was edited to 1e12 s cannot make the summary allocate terabytes.
 */
export const MAX_THROUGHPUT_BINS = 65_536;

/**
 * Fixed-width bins over the offsets of `count` points, measured from the first one, each divided by its actual
 * width; the points are read through accessors (the summary reads its columns so). When the span needs more than
 * MAX_THROUGHPUT_BINS bins the width is doubled until it fits, and the width used is returned with the bins.
 */
export function binsOf(
  count: number,
  offsetAt: (i: number) => number,
  completedAt: (i: number) => boolean,
  tokensAt: (i: number) => number | null,
  requestedWidthS: number,
): { widthS: number; bins: ThroughputBin[] } {
  if (!(requestedWidthS > 0)) {
    throw new RangeError(`Cannot bin throughput: width "${requestedWidthS}" must be positive`);
  }
  let binWidthS = requestedWidthS;
  if (count === 0) return { widthS: binWidthS, bins: [] };
  let first = Infinity, last = -Infinity;
  for (let i = 0; i < count; i++) {
    first = Math.min(first, offsetAt(i));
    last = Math.max(last, offsetAt(i));
  }
  const span = last - first;
  if (!Number.isFinite(span)) throw new RangeError(`Cannot bin throughput: offsets span "${span}" s`);
  const binsFor = (width: number) => Math.max(1, Math.ceil(span / width - 1e-9));
  while (binsFor(binWidthS) > MAX_THROUGHPUT_BINS) binWidthS *= 2;
  const n = binsFor(binWidthS);
  const completed = new Float64Array(n);
  const tokens = new Float64Array(n);
  for (let i = 0; i < count; i++) {
    if (!completedAt(i)) continue;
    const b = Math.min(Math.floor((offsetAt(i) - first) / binWidthS), n - 1);
    completed[b]!++;
    const t = tokensAt(i);
    tokens[b] = t === null || Number.isNaN(tokens[b]!) ? Number.NaN : tokens[b]! + t;
  }
  const bins = Array.from({ length: n }, (_, i) => {
    const width = Math.min((i + 1) * binWidthS, span) - i * binWidthS;
    const done = completed[i] as number;
    const t = Number.isNaN(tokens[i] as number) ? null : tokens[i] as number;
    return {
      start_s: i * binWidthS,
      width_s: width,
      completed: done,
      output_tokens: t,
      requests_per_s: width > 0 ? done / width : null,
      output_tokens_per_s: width > 0 && t !== null ? t / width : null,
    };
  });
  return { widthS: binWidthS, bins };
}

/**
 * The in-flight level from send and terminal times (sorted here, in place): time-weighted mean, median, max, and the
 * share of the window at the cap.
 */
export function concurrencyOf(starts: Float64Array, ends: Float64Array, capLevel: number | null): ObservedConcurrency {
  if (starts.length === 0) return { mean: null, p50: null, max: 0, cap_engaged_fraction: null };
  starts.sort();
  ends.sort();
  const timeAtLevel: number[] = [];
  let level = 0, max = 0, i = 0, j = 0;
  const firstT = Math.min(starts[0]!, ends[0]!);
  let prev = firstT, lastT = firstT;
  // Ends before starts at the same instant: a slot freed and refilled is not double-counted.
  while (i < starts.length || j < ends.length) {
    const isEnd = j < ends.length && (i >= starts.length || ends[j]! <= starts[i]!);
    const t = isEnd ? ends[j++]! : starts[i++]!;
    if (t > prev) timeAtLevel[level] = (timeAtLevel[level] ?? 0) + (t - prev);
    prev = t;
    lastT = t;
    level += isEnd ? -1 : 1;
    max = Math.max(max, level);
  }
  const total = lastT - firstT;
  if (!(total > 0)) return { mean: null, p50: null, max, cap_engaged_fraction: null };
  let weighted = 0, atCap = 0;
  timeAtLevel.forEach((dt, lvl) => {
    weighted += lvl * dt;
    if (capLevel !== null && lvl >= capLevel) atCap += dt;
  });
  let cumulative = 0, p50 = 0;
  for (let lvl = 0; lvl < timeAtLevel.length; lvl++) {
    cumulative += timeAtLevel[lvl] ?? 0;
    if (cumulative >= total / 2) {
      p50 = lvl;
      break;
    }
  }
  return { mean: weighted / total, p50, max, cap_engaged_fraction: capLevel === null ? null : atCap / total };
}

/** Completions in one bin of the whole window, by completion time (the page's throughput over time). */
export interface CompletionBin {
  /** The bin's middle, seconds since the first measured send. */
  mid_s: number;
  completed: number;
  requests_per_s: number;
  /** Null when a success in the bin has no server-counted output tokens. */
  output_tokens_per_s: number | null;
}

/** The smallest of 1, 2, 5 x 10^k (k >= -1) that is at least `s`. */
function niceAtLeast(s: number): number {
  for (let scale = 0.1;; scale *= 10) {
    for (const step of [1, 2, 5]) if (step * scale >= s - 1e-12) return step * scale;
  }
}

/**
 * Throughput over time binned by completion: equal bins covering the whole window (first measured send to the last
 * terminal event), each at least `minWidthS` and at least the typical request's length (its median E2E latency,
 * rounded up to 1, 2 or 5 x 10^k s), so that a closed loop of long requests is not drawn as a 0/1 saw-tooth. The
 * width is then stretched so that a whole number of bins fills the window: no partial bin spikes at the end.
 * `ends` are the successes' completion offsets and `tokens` their output tokens (NaN: not counted), in the window.
 */
export function completionBins(
  ends: ArrayLike<number>,
  tokens: ArrayLike<number>,
  windowS: number,
  typicalS: number | null,
  minWidthS: number,
): { width_s: number; bins: CompletionBin[] } {
  if (!(windowS > 0)) return { width_s: minWidthS, bins: [] };
  const wanted = niceAtLeast(Math.max(minWidthS, typicalS ?? 0));
  const n = Math.max(1, Math.floor(windowS / wanted + 1e-9));
  const width = windowS / n;
  const done = new Float64Array(n), sum = new Float64Array(n);
  for (let i = 0; i < ends.length; i++) {
    const [end, t] = [ends[i] as number, tokens[i] as number];
    const b = Math.min(Math.max(0, Math.floor(end / width)), n - 1);
    done[b]!++;
    sum[b] = Number.isNaN(t) ? Number.NaN : (sum[b] as number) + t;
  }
  const bins = Array.from({ length: n }, (_, b) => {
    const [count, total] = [done[b] as number, sum[b] as number];
    return {
      mid_s: (b + 0.5) * width,
      completed: count,
      requests_per_s: count / width,
      output_tokens_per_s: Number.isNaN(total) ? null : total / width,
    };
  });
  return { width_s: width, bins };
}
