/** The elementary statistics, each defined once: arithmetic mean, median, and the order statistics of a sample. */

/** Arithmetic mean, summed in the order given (callers that sort first get the sorted sum). NaN when empty. */
export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Median of the values: the middle value for odd n, the mean of the two middle values for even n.
 * @throws {RangeError} on empty input or a value that is not a finite number.
 */
export function median(values: readonly number[]): number {
  const sorted = sortedFinite(values, "a median");
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Median, minimum, maximum and n of a nonempty sample. @throws {RangeError} like `median`. */
export function orderStatistics(values: readonly number[]): { median: number; min: number; max: number; n: number } {
  const sorted = sortedFinite(values, "order statistics");
  return {
    median: median(sorted),
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
    n: sorted.length,
  };
}

function sortedFinite(values: readonly number[], what: string): number[] {
  if (values.length === 0) throw new RangeError(`Cannot compute ${what}: no values`);
  for (const value of values) {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new RangeError(`Cannot compute ${what}: value "${value}" is not a finite number`);
    }
  }
  return [...values].sort((a, b) => a - b);
}
