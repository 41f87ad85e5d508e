/**
 * "A or B?" for one case: configuration B's median against configuration A's, as a relative delta with a seeded
 * 95% percentile-bootstrap interval over the values behind each median (the repetitions of every run, the rounds'
 * aggregates for the optional stage). Where the interval holds zero, or a side has fewer than two values, the
 * data cannot tell: the verdict is "not resolved". The methodology's rule: a point-estimate delta without its
 * interval is not a result.
 *
 * Runs of one configuration are read together only where they agree: two runs whose min-max ranges of a metric do
 * not overlap and whose medians differ by more than 10% measured different things (a setting the result does not
 * record, a busy machine), and a median of their pooled values is a figure neither run measured. Such a metric gets
 * no pooled figure and no verdict; each run's median is shown instead. (Disjoint ranges alone are not enough: two
 * runs of three values from one distribution are disjoint one time in ten.)
 */
import { bootstrapRelativeDelta, median, rangeOf, type ValueRange } from "../../score/mod.ts";

/** The seed of every comparison interval: the same results give the same intervals. */
export const DELTA_SEED = 27;

/** Metrics a comparison reads per case: the four request metrics and the optional stage's per-round aggregate. */
export const DELTA_METRICS = ["prompt_tps", "decode_tps", "ttft_s", "first_answer_s", "round_aggregate_tps"] as const;
export type DeltaMetric = typeof DELTA_METRICS[number];

/** Latencies: lower is better; rates: higher is better. */
const LOWER_IS_BETTER: ReadonlySet<DeltaMetric> = new Set(["ttft_s", "first_answer_s"]);

/** One metric of one (configuration, case): each run's values (in run order), and what a reader is shown. */
export interface MetricSample {
  runs: number[][];
  /** Median [min-max] n over every run's values; its median is null where the runs disagree (never pooled). */
  range: ValueRange;
  /** Each run's median where the runs disagree (their ranges do not overlap), else null. */
  disagreeingRunMedians: (number | null)[] | null;
}

/** How far apart two runs' medians must be (relative to the lower) for disjoint runs to disagree. */
export const RUN_DISAGREEMENT = 0.1;

/** Whether two runs disagree: disjoint ranges and medians more than RUN_DISAGREEMENT apart. */
function disagree(a: readonly number[], b: readonly number[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  const disjoint = Math.max(...a) < Math.min(...b) || Math.max(...b) < Math.min(...a);
  const [low, high] = [median(a), median(b)].sort((x, y) => x - y) as [number, number];
  return disjoint && high - low > RUN_DISAGREEMENT * Math.abs(low);
}

/** Reads one metric over a configuration's runs: pooled where the runs agree, per run where they do not. */
export function sampleMetric(runs: number[][]): MetricSample {
  const range = rangeOf(runs.flat());
  if (!runs.some((a, i) => runs.some((b, j) => j > i && disagree(a, b)))) {
    return { runs, range, disagreeingRunMedians: null };
  }
  return {
    runs,
    range: { ...range, median: null },
    disagreeingRunMedians: runs.map((values) => (values.length === 0 ? null : median(values))),
  };
}

/** B's median against A's for one case and metric. */
export interface CaseDelta {
  caseId: string;
  concurrency: number;
  metric: DeltaMetric;
  baseline: string;
  candidate: string;
  baselineMedian: number | null;
  candidateMedian: number | null;
  /** Relative delta median(B) / median(A) - 1 and its 95% interval; null where it cannot be computed. */
  delta: { estimate: number; lower: number; upper: number } | null;
  /** "better" / "worse" when the interval excludes zero (for latencies lower is better), else "not resolved". */
  verdict: "better" | "worse" | "not resolved";
  /** Why a verdict is "not resolved" ("the interval includes 0"), or null. */
  why: string | null;
  /** The sides (labels) whose runs disagree: their median is null, never pooled. */
  disagreeing: string[];
}

/** A side of a delta: a configuration's label and its sample of one metric of one case. */
export interface DeltaSide {
  label: string;
  sample: MetricSample;
}

/** The delta of `candidate` against `baseline` for one case and metric. */
export function caseDelta(
  at: { caseId: string; concurrency: number; metric: DeltaMetric },
  baseline: DeltaSide,
  candidate: DeltaSide,
): CaseDelta {
  const base = {
    ...at,
    baseline: baseline.label,
    candidate: candidate.label,
    baselineMedian: baseline.sample.range.median,
    candidateMedian: candidate.sample.range.median,
    delta: null,
    verdict: "not resolved" as const,
    disagreeing: [baseline, candidate].filter((s) => s.sample.disagreeingRunMedians !== null).map((s) => s.label),
  };
  if (base.disagreeing.length > 0) return { ...base, why: `the runs of ${base.disagreeing.join(" and ")} disagree` };
  const b = baseline.sample.runs.flat();
  const c = candidate.sample.runs.flat();
  if (b.length < 2 || c.length < 2) return { ...base, why: "fewer than 2 values on a side" };
  if (median(b) === 0) return { ...base, why: `${baseline.label}'s median is 0` };
  const interval = bootstrapRelativeDelta(b, c, { seed: DELTA_SEED }, median);
  const delta = { estimate: interval.estimate, lower: interval.lower, upper: interval.upper };
  if (interval.lower <= 0 && interval.upper >= 0) return { ...base, delta, why: "the interval includes 0" };
  const higher = interval.lower > 0;
  return { ...base, delta, verdict: higher !== LOWER_IS_BETTER.has(at.metric) ? "better" : "worse", why: null };
}
