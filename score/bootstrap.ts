/**
 * Seeded percentile bootstrap for cross-run aggregation: resample the per-run values with replacement
 * (10,000 times by default), compute the statistic on each resample, and take the Hyndman-Fan type 7
 * 2.5th and 97.5th percentiles of those statistics as the 95% interval. The same seed gives the same interval.
 */
import { createPrng } from "../contract/mod.ts";
import { percentileType7 } from "./percentiles.ts";
import { mean } from "./stats.ts";

/** Resample count the methodology prescribes. */
export const BOOTSTRAP_RESAMPLES = 10_000;

export interface BootstrapOptions {
  /** PRNG seed (uint32); required so that every interval is reproducible. */
  seed: number;
  /** Default 10,000. */
  resamples?: number;
  /** Default 0.95. */
  confidence?: number;
}

export interface BootstrapInterval {
  /** The statistic on the original values. */
  estimate: number;
  lower: number;
  upper: number;
  confidence: number;
  resamples: number;
  seed: number;
  method: "percentile-bootstrap";
}

/** Resamples and confidence of a bootstrap. @throws RangeError when resamples < 1 or confidence is outside (0, 1). */
function settingsOf(options: BootstrapOptions): { resamples: number; confidence: number } {
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`Cannot bootstrap: resamples "${resamples}" must be a positive integer`);
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`Cannot bootstrap: confidence "${confidence}" must lie in (0, 1)`);
  }
  return { resamples, confidence };
}

/** The interval from the resampled statistics: their type 7 percentiles at the two tails. Sorts `stats`. */
function intervalOf(
  stats: number[],
  estimate: number,
  settings: { resamples: number; confidence: number },
  seed: number,
): BootstrapInterval {
  stats.sort((a, b) => a - b);
  const tail = (1 - settings.confidence) / 2;
  return {
    estimate,
    lower: percentileType7(stats, tail),
    upper: percentileType7(stats, 1 - tail),
    confidence: settings.confidence,
    resamples: settings.resamples,
    seed,
    method: "percentile-bootstrap",
  };
}

/**
 * Percentile-bootstrap interval of `statistic` over `values`.
 * @throws RangeError on empty input, a non-finite value, resamples < 1 or confidence outside (0, 1).
 */
export function bootstrapInterval(
  values: readonly number[],
  options: BootstrapOptions,
  statistic: (sample: readonly number[]) => number = mean,
): BootstrapInterval {
  const n = values.length;
  if (n === 0) throw new RangeError("Cannot bootstrap: no values");
  for (const v of values) {
    if (!Number.isFinite(v)) throw new RangeError(`Cannot bootstrap: value "${v}" is not finite`);
  }
  const settings = settingsOf(options);
  const random = createPrng(options.seed);
  const stats = new Array<number>(settings.resamples);
  const sample = new Array<number>(n);
  for (let r = 0; r < settings.resamples; r++) {
    for (let i = 0; i < n; i++) sample[i] = values[random.nextInt(n)] as number;
    stats[r] = statistic(sample);
  }
  return intervalOf(stats, statistic(values), settings, options.seed);
}

/**
 * Percentile-bootstrap interval of the relative difference statistic(candidate) / statistic(baseline) - 1 (the
 * mean unless another statistic is given), resampling each side independently (two-sample bootstrap). Seeded like
 * bootstrapInterval.
 * @throws RangeError on an empty side, a non-finite value, or a baseline whose statistic is 0.
 */
export function bootstrapRelativeDelta(
  baseline: readonly number[],
  candidate: readonly number[],
  options: BootstrapOptions,
  statistic: (sample: readonly number[]) => number = mean,
): BootstrapInterval {
  if (baseline.length === 0 || candidate.length === 0) {
    throw new RangeError("Cannot bootstrap a delta: a side is empty");
  }
  for (const v of [...baseline, ...candidate]) {
    if (!Number.isFinite(v)) throw new RangeError(`Cannot bootstrap a delta: value "${v}" is not finite`);
  }
  if (statistic(baseline) === 0) throw new RangeError("Cannot bootstrap a relative delta: the baseline is 0");
  const settings = settingsOf(options);
  const random = createPrng(options.seed);
  const resample = (values: readonly number[]): number[] =>
    Array.from(values, () => values[random.nextInt(values.length)] as number);
  const stats: number[] = [];
  for (let r = 0; r < settings.resamples; r++) {
    const b = statistic(resample(baseline));
    const c = statistic(resample(candidate));
    // A resampled baseline of 0 has no relative delta; with positive measurements it cannot occur.
    if (b !== 0) stats.push(c / b - 1);
  }
  return intervalOf(stats, statistic(candidate) / statistic(baseline) - 1, settings, options.seed);
}
