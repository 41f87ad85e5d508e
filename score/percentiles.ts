/**
 * Distribution summaries of the performance methodology: n, min, max, mean, sample standard deviation, median
 * absolute deviation and Hyndman-Fan type 7 percentiles (numpy's default: linear interpolation between order
 * statistics at h = (n - 1) p), with flags on tail percentiles that too few samples make unreliable.
 */
import { mean as meanOf } from "./stats.ts";

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
export function percentileType7(sortedValues: readonly number[], p: number): number {
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
function sortedFinite(values: readonly number[]): number[] {
  for (const v of values) {
    if (!Number.isFinite(v)) throw new RangeError(`Cannot summarize a distribution: value "${v}" is not finite`);
  }
  return [...values].sort((x, y) => x - y);
}

/**
 * Full summary of one distribution.
 * @throws RangeError when a value is not finite.
 */
export function describeDistribution(values: readonly number[]): DistSummary {
  const n = values.length;
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
  const sorted = sortedFinite(values);
  const mean = meanOf(sorted);
  let squares = 0;
  for (const v of sorted) squares += (v - mean) * (v - mean);
  const p50 = percentileType7(sorted, 0.5);
  const deviations = sortedFinite(sorted.map((v) => Math.abs(v - p50)));
  return {
    n,
    min: sorted[0] as number,
    max: sorted[n - 1] as number,
    mean,
    sd: n >= 2 ? Math.sqrt(squares / (n - 1)) : null,
    mad: percentileType7(deviations, 0.5),
    p50,
    p90: percentileType7(sorted, 0.9),
    p95: percentileType7(sorted, 0.95),
    p99: percentileType7(sorted, 0.99),
    percentile_method: PERCENTILE_METHOD,
    unreliable,
  };
}
