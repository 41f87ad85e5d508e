/**
 * Stage durations and round wall times of the standard protocol, defined once on one monotonic clock. A request
 * occupies the span from its dispatch (an offset in seconds from the run's epoch, the executor's start) to its
 * termination (that offset plus the client's end offset, which counts from the same dispatch). The executor
 * measures a run with these functions and the validator rebuilds the run's durations from the evidence lines with
 * the same functions on the same numbers, so the two agree exactly: JSON carries each double unchanged.
 *
 * - required_duration_s: the warm-up's dispatch to the termination of the last sanity request.
 * - optional_duration_s: the first dispatch to the last termination of the optional stage.
 * - a round's wall_s: the first dispatch to the last termination of that round's requests.
 */

/** Where one sent request lies on the run's clock, in seconds. */
export interface RequestSpan {
  /** Dispatch, seconds from the run's epoch. */
  dispatchOffsetS: number;
  /** Termination, seconds from this request's dispatch (the client's end offset). */
  endOffsetS: number;
}

/** A request's termination, seconds from the run's epoch. */
export function spanEndS(span: RequestSpan): number {
  return span.dispatchOffsetS + span.endOffsetS;
}

/**
 * Seconds from the first dispatch to the last termination of the spans.
 * @throws {RangeError} when `spans` is empty: a wall of nothing is not zero, it is not measured.
 */
export function wallS(spans: readonly RequestSpan[]): number {
  if (spans.length === 0) throw new RangeError("Cannot measure a wall time: no request was sent");
  let firstDispatch = Infinity;
  let lastEnd = -Infinity;
  for (const span of spans) {
    firstDispatch = Math.min(firstDispatch, span.dispatchOffsetS);
    lastEnd = Math.max(lastEnd, spanEndS(span));
  }
  return lastEnd - firstDispatch;
}

/** Seconds from the dispatch of `first` to the termination of `last` (the required stages' duration). */
export function stageDurationS(first: RequestSpan, last: RequestSpan): number {
  return spanEndS(last) - first.dispatchOffsetS;
}
