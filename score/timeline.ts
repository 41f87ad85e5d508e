/**
 * Shapes of a sample that pictures draw: the empirical cumulative distribution of a sample (each sorted value
 * with the fraction of values at or below it), and the level of overlapping intervals over time (how many
 * requests were in flight, as a step function). Defined here, once, so a renderer only draws them.
 */

/** One step of an empirical CDF: `fraction` of the sample is at or below `value`. */
export interface CdfPoint {
  value: number;
  fraction: number;
}

/**
 * The empirical CDF: one point per distinct value, ascending, the last at fraction 1. At most `maxPoints` points
 * (evenly spaced by rank, the minimum and maximum always kept) so a picture of a large sample stays small.
 * @throws {RangeError} on a value that is not finite, or maxPoints below 2.
 */
export function empiricalCdf(values: readonly number[], maxPoints = 400): CdfPoint[] {
  for (const v of values) {
    if (!Number.isFinite(v)) throw new RangeError(`Cannot draw a CDF: value "${v}" is not finite`);
  }
  const sorted = [...values].sort((a, b) => a - b);
  const distinct: number[] = [], counts: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0 && sorted[i] === sorted[i - 1]) counts[counts.length - 1]!++;
    else distinct.push(sorted[i]!), counts.push(1);
  }
  return empiricalCdfCounted(distinct, counts, maxPoints);
}

/**
 * The empirical CDF of a sample given as distinct values ascending with their counts (a histogram of exact values,
 * as load keeps its ITL samples): the same points empiricalCdf gives for the values written out.
 * @throws {RangeError} on a value that is not finite, a negative count, or maxPoints below 2.
 */
export function empiricalCdfCounted(
  values: ArrayLike<number>,
  counts: ArrayLike<number>,
  maxPoints = 400,
): CdfPoint[] {
  if (!(maxPoints >= 2)) throw new RangeError(`Cannot draw a CDF: maxPoints "${maxPoints}" must be at least 2`);
  let n = 0;
  for (let i = 0; i < counts.length; i++) {
    if (!((counts[i] as number) >= 0)) throw new RangeError(`Cannot draw a CDF: count "${counts[i]}" is negative`);
    if (!Number.isFinite(values[i] as number)) {
      throw new RangeError(`Cannot draw a CDF: value "${values[i]}" is not finite`);
    }
    n += counts[i] as number;
  }
  const points: CdfPoint[] = [];
  let seen = 0;
  for (let i = 0; i < values.length; i++) {
    if ((counts[i] as number) === 0) continue;
    // The last copy of each distinct value carries its cumulative fraction.
    seen += counts[i] as number;
    points.push({ value: values[i] as number, fraction: seen / n });
  }
  if (points.length <= maxPoints) return points;
  const step = (points.length - 1) / (maxPoints - 1);
  return Array.from({ length: maxPoints }, (_, k) => points[Math.round(k * step)]!);
}

/** One step of a level over time: from `startS` (until the next step's start) the level is `level`. */
export interface LevelStep {
  startS: number;
  level: number;
}

/**
 * How many intervals are open over time, as steps from the first start to the last end (where the level is 0).
 * An interval ending at the instant another starts is closed first, so a freed and refilled slot is not counted
 * twice.
 * @throws {RangeError} on an interval that is not finite or ends before it starts.
 */
export function levelOverTime(intervals: readonly { startS: number; endS: number }[]): LevelStep[] {
  const events: [number, number][] = [];
  for (const { startS, endS } of intervals) {
    if (!Number.isFinite(startS) || !Number.isFinite(endS) || endS < startS) {
      throw new RangeError(`Cannot follow the level: interval [${startS}, ${endS}] is not a finite forward interval`);
    }
    events.push([startS, 1], [endS, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const steps: LevelStep[] = [];
  let level = 0;
  for (let i = 0; i < events.length; i++) {
    const [t, delta] = events[i]!;
    level += delta;
    if (i + 1 < events.length && events[i + 1]![0] === t) continue;
    if (steps.at(-1)?.level !== level) steps.push({ startS: t, level });
  }
  return steps;
}
