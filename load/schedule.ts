/**
 * Open-loop arrival schedules: absolute offsets (seconds from the measurement epoch) drawn from a seed, so the
 * same seed, rate and process give the same schedule on every run. Poisson arrivals have exponential gaps
 * (-ln(1 - u) / rate); constant arrivals are i / rate. The first arrival is at offset 0.
 */
import { type ArrivalProcess, createPrng } from "../contract/mod.ts";

export interface ScheduleOptions {
  ratePerS: number;
  process: ArrivalProcess;
  seed: number;
}

/**
 * Endless iterator of arrival offsets in seconds, ascending.
 * @throws RangeError unless the rate is positive and finite.
 */
export function* arrivalOffsets(options: ScheduleOptions): Generator<number, never> {
  const { ratePerS } = options;
  if (!(ratePerS > 0 && Number.isFinite(ratePerS))) {
    throw new RangeError(
      `Cannot build an arrival schedule: rate "${ratePerS}" must be a positive number of requests/s`,
    );
  }
  const random = createPrng(options.seed);
  let t = 0;
  for (let i = 0;; i++) {
    if (options.process === "constant") {
      yield i / ratePerS;
    } else {
      yield t;
      t += -Math.log(1 - random.next()) / ratePerS;
    }
  }
}
