/**
 * Distribution summaries of the performance methodology: n, min, max, mean, sample standard deviation, median
 * absolute deviation and Hyndman-Fan type 7 percentiles (numpy's default: linear interpolation between order
 * statistics at h = (n - 1) p), with flags on tail percentiles that too few samples make unreliable.
 */

/** Name of the percentile method, written next to every percentile. */
export const PERCENTILE_METHOD = "hyndman-fan-7" as const;

/** Percentiles every distribution reports, as fractions. */
export const REPORTED_PERCENTILES = [0.5, 0.9, 0.95, 0.99] as const;

/** Summary of one distribution; every number is null when n is 0 (never a measured zero). */
export interface DistSummary {
  n: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** Sample standard deviation (n - 1 denominator); null below two samples. */
  sd: number | null;
  /** Median absolute deviation from the median, unscaled (no 1.4826 factor). */
  mad: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  percentile_method: typeof PERCENTILE_METHOD;
  /** A tail percentile p is unreliable while n < 1 / (1 - p): p90 under 10, p95 under 20, p99 under 100 samples. */
  unreliable: { p90: boolean; p95: boolean; p99: boolean };
}

/**
 * Hyndman-Fan type 7 percentile of values already sorted ascending; p is a fraction in [0, 1].
 * @throws RangeError on empty input or p outside [0, 1].
 */
export function percentileType7(sortedValues: ArrayLike<number>, p: number): number {
  const n = sortedValues.length;
  if (n === 0) throw new RangeError("Cannot compute a percentile: no values");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`Cannot compute a percentile: p "${p}" is outside [0, 1]`);
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sortedValues[lo] as number;
  const b = sortedValues[hi] as number;
  return a + (h - lo) * (b - a);
}

/** Whether percentile p (fraction) is unreliable at n samples: n < 1 / (1 - p), with a little float slack. */
export function isPercentileUnreliable(n: number, p: number): boolean {
  return n < Math.round(1 / (1 - p));
}

/** Sorted copy, ascending, of finite numbers; @throws RangeError on a non-finite value. */
function sortedFinite(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) throw new RangeError(`Cannot summarize a distribution: value "${v}" is not finite`);
    out[i] = v;
  }
  return out.sort();
}

/**
 * Full summary of one distribution.
 * @throws RangeError when a value is not finite.
 */
export function describeDistribution(values: ArrayLike<number>): DistSummary {
  return describeSortedRuns([sortedFinite(values)]);
}

/** One ascending sequence the merge walk reads: `at(i)` for i in [0, length). */
interface Sequence {
  length: number;
  at(i: number): number;
}

/**
 * Visits the values of several ascending sequences in ascending order (a k-way merge), with each value's rank in
 * the union. Ties may come in any order: they are equal values, so every sum in this order equals the sum over the
 * sorted union.
 */
function walkMerged(sequences: readonly Sequence[], visit: (value: number, rank: number) => void): void {
  const live = sequences.filter((s) => s.length > 0);
  if (live.length === 1) {
    const s = live[0]!;
    for (let i = 0; i < s.length; i++) visit(s.at(i), i);
    return;
  }
  // Binary min-heap of sequence positions, keyed by each sequence's current value.
  const pos = new Array<number>(live.length).fill(0);
  const heap = live.map((_, i) => i);
  const key = (h: number) => live[h]!.at(pos[h]!);
  const down = (at: number) => {
    for (;;) {
      const l = 2 * at + 1, r = l + 1;
      let m = at;
      if (l < heap.length && key(heap[l]!) < key(heap[m]!)) m = l;
      if (r < heap.length && key(heap[r]!) < key(heap[m]!)) m = r;
      if (m === at) return;
      [heap[at], heap[m]] = [heap[m]!, heap[at]!];
      at = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  let rank = 0;
  while (heap.length > 0) {
    const h = heap[0]!;
    visit(key(h), rank++);
    pos[h]!++;
    if (pos[h]! >= live[h]!.length) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    if (heap.length > 0) down(0);
  }
}

/** Type 7 percentile from the two order statistics it interpolates between. */
function ranksFor(n: number, p: number): { lo: number; hi: number; frac: number } {
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  return { lo, hi: Math.min(lo + 1, n - 1), frac: h - lo };
}

/**
 * The summary of the union of several ascending runs of finite numbers, without concatenating them: exactly the
 * numbers describeDistribution gives for all values together (same ascending summation order, same order
 * statistics). This is how pooled distributions (several endpoints, several shards) stay exact in bounded memory.
 * The runs must be sorted ascending and finite; that is the caller's promise.
 */
export function describeSortedRuns(runs: readonly ArrayLike<number>[]): DistSummary {
  let n = 0;
  for (const r of runs) n += r.length;
  const unreliable = {
    p90: isPercentileUnreliable(n, 0.9),
    p95: isPercentileUnreliable(n, 0.95),
    p99: isPercentileUnreliable(n, 0.99),
  };
  if (n === 0) {
    return {
      n,
      min: null,
      max: null,
      mean: null,
      sd: null,
      mad: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      percentile_method: PERCENTILE_METHOD,
      unreliable,
    };
  }
  const sequences: Sequence[] = runs.map((r) => ({ length: r.length, at: (i) => r[i] as number }));
  const wanted = new Map<number, number>();
  const targets = REPORTED_PERCENTILES.map((p) => ranksFor(n, p));
  for (const t of targets) wanted.set(t.lo, 0).set(t.hi, 0);
  let sum = 0, min = 0, max = 0;
  walkMerged(sequences, (v, rank) => {
    sum += v;
    if (rank === 0) min = v;
    if (rank === n - 1) max = v;
    if (wanted.has(rank)) wanted.set(rank, v);
  });
  const mean = sum / n;
  let squares = 0;
  walkMerged(sequences, (v) => squares += (v - mean) * (v - mean));
  const pick = (t: { lo: number; hi: number; frac: number }) => {
    const a = wanted.get(t.lo) as number, b = wanted.get(t.hi) as number;
    return a + t.frac * (b - a);
  };
  const [p50, p90, p95, p99] = targets.map(pick) as [number, number, number, number];
  // Deviations |v - p50| in ascending order: each run splits at p50 into a part read backwards (below it) and a
  // part read forwards (at or above it); both are ascending in deviation.
  const deviations: Sequence[] = [];
  for (const r of runs) {
    let split = 0, hiIdx = r.length;
    while (split < hiIdx) {
      const mid = (split + hiIdx) >> 1;
      if ((r[mid] as number) < p50) split = mid + 1;
      else hiIdx = mid;
    }
    const below = split;
    deviations.push({ length: below, at: (i) => p50 - (r[below - 1 - i] as number) });
    deviations.push({ length: r.length - below, at: (i) => (r[below + i] as number) - p50 });
  }
  const madRanks = ranksFor(n, 0.5);
  const madValues = new Map<number, number>([[madRanks.lo, 0], [madRanks.hi, 0]]);
  walkMerged(deviations, (v, rank) => {
    if (madValues.has(rank)) madValues.set(rank, v);
  });
  const madLo = madValues.get(madRanks.lo) as number, madHi = madValues.get(madRanks.hi) as number;
  return {
    n,
    min,
    max,
    mean,
    sd: n >= 2 ? Math.sqrt(squares / (n - 1)) : null,
    mad: madLo + madRanks.frac * (madHi - madLo),
    p50,
    p90,
    p95,
    p99,
    percentile_method: PERCENTILE_METHOD,
    unreliable,
  };
}
