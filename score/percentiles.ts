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
  const { lo, hi, frac } = ranksFor(n, p);
  const a = sortedValues[lo] as number, b = sortedValues[hi] as number;
  return a + frac * (b - a);
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

/**
 * A sorted run of values: ascending `values`, each appearing once, or `counts[i]` times when counts are given (a
 * run-length form, which is how a histogram of exact values is summarized without expanding it).
 */
export type SortedRun = ArrayLike<number> | { values: ArrayLike<number>; counts: ArrayLike<number> };

/** Entries [from, to) of a run read forward or backward, each value mapped by `map`. */
interface EntryCursor {
  value: number;
  count: number;
  /** Moves to the next entry; false when there is none. */
  next(): boolean;
}

function valuesOf(run: SortedRun): ArrayLike<number> {
  return "values" in run && "counts" in run ? run.values : run as ArrayLike<number>;
}
function countsOf(run: SortedRun): ArrayLike<number> | null {
  return "values" in run && "counts" in run ? run.counts : null;
}
function sizeOf(run: SortedRun): number {
  const counts = countsOf(run);
  if (counts === null) return valuesOf(run).length;
  let n = 0;
  for (let i = 0; i < counts.length; i++) n += counts[i] as number;
  return n;
}

/** A cursor over entries of `run` from `from` (inclusive) towards `to` (exclusive), stepping +1 or -1. */
function cursor(run: SortedRun, from: number, to: number, map: (v: number) => number): EntryCursor | null {
  const values = valuesOf(run), counts = countsOf(run);
  const step = to >= from ? 1 : -1;
  let i = from;
  const skipEmpty = () => {
    while (i !== to && counts !== null && (counts[i] as number) === 0) i += step;
  };
  skipEmpty();
  if (i === to) return null;
  const c: EntryCursor = {
    value: map(values[i] as number),
    count: counts === null ? 1 : counts[i] as number,
    next() {
      i += step;
      skipEmpty();
      if (i === to) return false;
      c.value = map(values[i] as number);
      c.count = counts === null ? 1 : counts[i] as number;
      return true;
    },
  };
  return c;
}

/**
 * Visits the entries of several ascending cursors in ascending value order (a k-way merge), each with its count and
 * the rank of its first copy in the union. Ties may come in any order: they are equal values, so every sum taken
 * copy by copy in this order equals the sum over the sorted union.
 */
function walkMerged(
  cursors: readonly (EntryCursor | null)[],
  visit: (value: number, count: number, rank: number) => void,
) {
  const heap = cursors.filter((c): c is EntryCursor => c !== null);
  let rank = 0;
  if (heap.length === 1) {
    const c = heap[0]!;
    do {
      visit(c.value, c.count, rank);
      rank += c.count;
    } while (c.next());
    return;
  }
  const down = (at: number) => {
    for (;;) {
      const l = 2 * at + 1, r = l + 1;
      let m = at;
      if (l < heap.length && heap[l]!.value < heap[m]!.value) m = l;
      if (r < heap.length && heap[r]!.value < heap[m]!.value) m = r;
      if (m === at) return;
      [heap[at], heap[m]] = [heap[m]!, heap[at]!];
      at = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const c = heap[0]!;
    visit(c.value, c.count, rank);
    rank += c.count;
    if (!c.next()) {
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

/** Records the value at every wanted rank an entry covers. */
function takeRanks(wanted: Map<number, number>, value: number, count: number, rank: number): void {
  for (const r of wanted.keys()) if (r >= rank && r < rank + count) wanted.set(r, value);
}

/**
 * The median absolute deviation from `p50` of the union of ascending runs of `n` values in all, without expanding
 * them: deviations |v - p50| in ascending order, each run split at p50 into entries read backwards (below it) and
 * entries read forwards (at or above it), both ascending in deviation.
 */
function sortedRunsMad(runs: readonly SortedRun[], n: number, p50: number): number {
  const deviations: (EntryCursor | null)[] = [];
  for (const r of runs) {
    const values = valuesOf(r);
    let split = 0, hi = values.length;
    while (split < hi) {
      const mid = (split + hi) >> 1;
      if ((values[mid] as number) < p50) split = mid + 1;
      else hi = mid;
    }
    deviations.push(cursor(r, split - 1, -1, (v) => p50 - v));
    deviations.push(cursor(r, split, values.length, (v) => v - p50));
  }
  const ranks = ranksFor(n, 0.5);
  const values = new Map<number, number>([[ranks.lo, 0], [ranks.hi, 0]]);
  walkMerged(deviations, (v, count, rank) => takeRanks(values, v, count, rank));
  const lo = values.get(ranks.lo) as number, hi = values.get(ranks.hi) as number;
  return lo + ranks.frac * (hi - lo);
}

/**
 * The summary of the union of several ascending runs of finite numbers (plain or run-length), without expanding
 * or concatenating them: exactly the numbers describeDistribution gives for all values together (the same
 * ascending summation, copy by copy; the same order statistics and MAD). This is how pooled and merged load
 * distributions stay exact in bounded memory. The runs must be sorted ascending and finite; the caller promises it.
 */
export function describeSortedRuns(runs: readonly SortedRun[]): DistSummary {
  let n = 0;
  for (const r of runs) n += sizeOf(r);
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
  const forward = () => runs.map((r) => cursor(r, 0, valuesOf(r).length, (v) => v));
  const targets = REPORTED_PERCENTILES.map((p) => ranksFor(n, p));
  const wanted = new Map<number, number>();
  for (const t of targets) wanted.set(t.lo, 0).set(t.hi, 0);
  let sum = 0, min = 0, max = 0;
  walkMerged(forward(), (v, count, rank) => {
    for (let k = 0; k < count; k++) sum += v;
    if (rank === 0) min = v;
    if (rank + count === n) max = v;
    takeRanks(wanted, v, count, rank);
  });
  const mean = sum / n;
  let squares = 0;
  walkMerged(forward(), (v, count) => {
    const d = (v - mean) * (v - mean);
    for (let k = 0; k < count; k++) squares += d;
  });
  const pick = (t: { lo: number; hi: number; frac: number }) => {
    const a = wanted.get(t.lo) as number, b = wanted.get(t.hi) as number;
    return a + t.frac * (b - a);
  };
  const [p50, p90, p95, p99] = targets.map(pick) as [number, number, number, number];
  return {
    n,
    min,
    max,
    mean,
    sd: n >= 2 ? Math.sqrt(squares / (n - 1)) : null,
    mad: sortedRunsMad(runs, n, p50),
    p50,
    p90,
    p95,
    p99,
    percentile_method: PERCENTILE_METHOD,
    unreliable,
  };
}
