/**
 * Release gate between a baseline and a candidate server (performance methodology, release validation): at each
 * point (workload and concurrency), system output tokens/s and TPOT p50 of the candidate must lie within the
 * tolerance (5%) of the baseline's, or within the point's recorded noise floor when that is wider. The noise floor
 * is the baseline's own: the half-width of the seeded bootstrap 95% interval of the baseline's round means,
 * relative to the baseline value, measured in this run and recorded with the verdict; a later gate may reuse a
 * recorded floor instead. The candidate's spread never widens its own tolerance. A missing point fails. The error
 * rate is gated too (this project's reading: a candidate whose error rate exceeds the baseline's by more than
 * `maxErrorRateIncrease` fails, whatever its speed). TTFT p50 is reported, never gated.
 */
import { LOAD_LINE_FORMATS, LOAD_LINE_VERSIONS } from "../../contract/mod.ts";
import { type BootstrapInterval, bootstrapInterval, bootstrapRelativeDelta, mean } from "../../score/mod.ts";
import type { EndpointLoadSummary } from "../summary.ts";

export const LOAD_COMPARE_FORMAT = LOAD_LINE_FORMATS.compare;
/**
 * Version 3 (from 2): the same verdict, versioned with the compare JSONL it ends (an interrupted comparison has none).
 * Version 2 (from 1): points are (workload, concurrency); the noise floor is the baseline's own or a recorded one, with its source; the error rate is gated; each side's error rate is shown.
 */
export const LOAD_COMPARE_VERSION = LOAD_LINE_VERSIONS[LOAD_COMPARE_FORMAT];
export const DEFAULT_GATE_TOLERANCE = 0.05;
/** Default most a candidate's error rate may exceed the baseline's (absolute fraction). */
export const DEFAULT_MAX_ERROR_RATE_INCREASE = 0.01;
/** The workload label of a gate that names none (a command line without a spec file). */
export const DEFAULT_WORKLOAD = "W1";

export type CompareMetric =
  | "output_tokens_per_s"
  | "tpot_p50_s"
  | "error_rate"
  | "ttft_p50_s"
  | "thinking_p50_s"
  | "reasoning_tpot_p50_s"
  | "answer_tpot_p50_s";
const PICK: Readonly<Record<CompareMetric, (s: EndpointLoadSummary) => number | null>> = {
  output_tokens_per_s: (s) => s.output_tokens_per_s,
  tpot_p50_s: (s) => s.distributions.tpot_s.p50,
  error_rate: (s) => s.error_rate,
  ttft_p50_s: (s) => s.distributions.ttft_s.p50,
  // The reasoning cadence (absent from summaries written before it was recorded).
  thinking_p50_s: (s) => s.distributions.thinking_s?.p50 ?? null,
  reasoning_tpot_p50_s: (s) => s.distributions.reasoning_tpot_s?.p50 ?? null,
  answer_tpot_p50_s: (s) => s.distributions.answer_tpot_s?.p50 ?? null,
};
/** Informational rows of the reasoning cadence: listed at a point only where a side streamed reasoning. */
const REASONING_METRICS: readonly CompareMetric[] = ["thinking_p50_s", "reasoning_tpot_p50_s", "answer_tpot_p50_s"];
/**
 * Why TTFT is shown and not gated: it belongs to its cohort and issuance (methodology): in a closed loop it counts
 * the queue the point's own concurrency builds, so it compares only at equal concurrency, issuance and warm-up.
 */
export const TTFT_CAVEAT = "informational: TTFT is not gated; it depends on the cohort and issuance (a closed " +
  "loop's TTFT includes the queue its own concurrency builds): compare it only between sides measured at the same " +
  "concurrency, issuance and warm-up, as here";
/** Metrics gated against the tolerance or noise floor. */
const RELATIVE_GATED: readonly CompareMetric[] = ["output_tokens_per_s", "tpot_p50_s"];
export const COMPARE_METRICS: readonly CompareMetric[] = [
  "output_tokens_per_s",
  "tpot_p50_s",
  "error_rate",
  "ttft_p50_s",
  ...REASONING_METRICS,
];

/** The key of a point: "W1@8". */
export function pointKey(workload: string, concurrency: number): string {
  return `${workload}@${concurrency}`;
}

/** One point: the overall summary of each measured round, per side. */
export interface ComparePointInput {
  workload?: string;
  concurrency: number;
  baseline: readonly EndpointLoadSummary[];
  candidate: readonly EndpointLoadSummary[];
}

export interface MetricDelta {
  metric: CompareMetric;
  gated: boolean;
  baseline: number | null;
  candidate: number | null;
  /** candidate / baseline - 1 (error rate: candidate - baseline, absolute). */
  delta_fraction: number | null;
  delta_interval: BootstrapInterval | null;
  /** The baseline's own round-to-round noise measured in this run (relative); null below two baseline rounds. */
  baseline_noise_fraction: number | null;
  /** The noise floor applied: a recorded one when given, else the baseline's measured one. */
  noise_floor_fraction: number | null;
  noise_floor_source: "baseline-rounds" | "recorded" | null;
  /** max(gate tolerance, noise floor) for relative gated metrics; the allowed increase for the error rate. */
  allowed_fraction: number | null;
  /** null for informational metrics. */
  pass: boolean | null;
  reason: string;
}

export interface ComparePointResult {
  workload: string;
  concurrency: number;
  key: string;
  rounds: { baseline: number; candidate: number };
  metrics: MetricDelta[];
  pass: boolean;
}

export interface CompareResult {
  format: typeof LOAD_COMPARE_FORMAT;
  version: typeof LOAD_COMPARE_VERSION;
  tolerance_fraction: number;
  max_error_rate_increase: number;
  seed: number;
  points: ComparePointResult[];
  /** The baseline's measured noise floors by "W1@8:metric", to record and reuse in a later gate. */
  noise_floor: Record<string, number>;
  pass: boolean;
}

export interface CompareOptions {
  /** Default 0.05. */
  toleranceFraction?: number;
  /** Default 0.01. */
  maxErrorRateIncrease?: number;
  seed: number;
  /**
   * Recorded noise floors (fraction) to apply instead of the measured ones: by "W1@8:metric", "W1@8" (every gated
   * metric of that point) or "8" (that concurrency of every workload).
   */
  recordedNoiseFloor?: Readonly<Record<string, number>>;
  /** Concurrency points that had to be measured; any absent from `points` fails. */
  expectedConcurrency: readonly number[];
  /** Workloads that had to be measured at every point (default ["W1"]). */
  workloads?: readonly string[];
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function recordedFloor(options: CompareOptions, key: string, concurrency: number, metric: CompareMetric) {
  const r = options.recordedNoiseFloor;
  if (r === undefined) return undefined;
  return r[`${key}:${metric}`] ?? r[key] ?? r[String(concurrency)];
}

/** The fields of a delta that has no value yet (a missing round, a baseline that is not positive). */
function emptyDelta(metric: CompareMetric, gated: boolean) {
  return {
    metric,
    gated,
    baseline: null,
    candidate: null,
    delta_fraction: null,
    delta_interval: null,
    baseline_noise_fraction: null,
    noise_floor_fraction: null,
    noise_floor_source: null,
    allowed_fraction: null,
  };
}

/** The error rate's gate: an absolute increase of at most --max-error-rate-increase. */
function errorRateDelta(bMean: number, cMean: number, options: CompareOptions): MetricDelta {
  const allowed = options.maxErrorRateIncrease ?? DEFAULT_MAX_ERROR_RATE_INCREASE;
  const increase = cMean - bMean;
  const within = increase <= allowed;
  return {
    ...emptyDelta("error_rate", true),
    baseline: bMean,
    candidate: cMean,
    delta_fraction: increase,
    allowed_fraction: allowed,
    pass: within,
    reason: `error rate ${pct(cMean)} vs ${pct(bMean)}: ${within ? "within" : "more than"} +${pct(allowed)}`,
  };
}

/**
 * A relative delta (candidate mean over baseline mean, minus one) with its seeded interval; for a gated metric, the
 * verdict against the tolerance or the noise floor (recorded, else the baseline rounds' own), whichever is wider.
 */
function relativeDelta(
  metric: CompareMetric,
  b: number[],
  c: number[],
  floors: { recorded: number | undefined; tolerance: number },
  seed: number,
): MetricDelta {
  const relative = RELATIVE_GATED.includes(metric);
  const bMean = mean(b), cMean = mean(c);
  const delta = cMean / bMean - 1;
  const interval = b.length >= 2 || c.length >= 2 ? bootstrapRelativeDelta(b, c, { seed }) : null;
  let measured: number | null = null;
  if (b.length >= 2) {
    const iv = bootstrapInterval(b, { seed: (seed + 1) >>> 0 });
    measured = (iv.upper - iv.lower) / 2 / bMean;
  }
  const { recorded, tolerance } = floors;
  const floor = recorded ?? measured;
  const allowed = Math.max(tolerance, floor ?? 0);
  const within = Math.abs(delta) <= allowed;
  return {
    metric,
    gated: relative,
    baseline: bMean,
    candidate: cMean,
    delta_fraction: delta,
    delta_interval: interval,
    baseline_noise_fraction: measured,
    noise_floor_fraction: relative ? floor : null,
    noise_floor_source: !relative || floor === null ? null : recorded !== undefined ? "recorded" : "baseline-rounds",
    allowed_fraction: relative ? allowed : null,
    pass: relative ? within : null,
    reason: relative
      ? `${pct(delta)} ${within ? "within" : "outside"} +-${pct(allowed)}${
        (floor ?? 0) > tolerance ? ` (${recorded !== undefined ? "recorded" : "baseline"} noise floor)` : ""
      }`
      : metric === "ttft_p50_s"
      ? TTFT_CAVEAT
      : "informational: the reasoning cadence is not gated",
  };
}

function metricDelta(
  metric: CompareMetric,
  point: ComparePointInput & { workload: string },
  options: CompareOptions,
  seed: number,
): MetricDelta {
  const relative = RELATIVE_GATED.includes(metric);
  const gated = relative || metric === "error_rate";
  const base = point.baseline.map(PICK[metric]);
  const cand = point.candidate.map(PICK[metric]);
  if (base.length === 0 || cand.length === 0 || base.some((v) => v === null) || cand.some((v) => v === null)) {
    return {
      ...emptyDelta(metric, gated),
      pass: gated ? false : null,
      reason: "missing: a round of this point has no value",
    };
  }
  const b = base as number[], c = cand as number[];
  if (metric === "error_rate") return errorRateDelta(mean(b), mean(c), options);
  if (!(mean(b) > 0)) {
    return {
      ...emptyDelta(metric, gated),
      pass: relative ? false : null,
      reason: "missing: the baseline value is not positive",
    };
  }
  const key = pointKey(point.workload, point.concurrency);
  const recorded = relative ? recordedFloor(options, key, point.concurrency, metric) : undefined;
  const tolerance = options.toleranceFraction ?? DEFAULT_GATE_TOLERANCE;
  return relativeDelta(metric, b, c, { recorded, tolerance }, seed);
}

/** Gate verdict over every expected point (each workload at each concurrency). */
export function compareLoad(points: readonly ComparePointInput[], options: CompareOptions): CompareResult {
  const results: ComparePointResult[] = [];
  const noiseFloor: Record<string, number> = {};
  const workloads = options.workloads ?? [DEFAULT_WORKLOAD];
  let w = 0;
  for (const workload of workloads) {
    for (const concurrency of options.expectedConcurrency) {
      const found = points.find((p) => (p.workload ?? DEFAULT_WORKLOAD) === workload && p.concurrency === concurrency);
      const point = { ...(found ?? { concurrency, baseline: [], candidate: [] }), workload };
      const key = pointKey(workload, concurrency);
      const deltas = COMPARE_METRICS.map((m, i) =>
        metricDelta(m, point, options, (options.seed + concurrency * 16 + i * 2 + w * 7919) >>> 0)
      ).filter((d) =>
        !REASONING_METRICS.includes(d.metric) ||
        [...point.baseline, ...point.candidate].some((s) => PICK[d.metric](s) !== null)
      );
      for (const d of deltas) {
        if (d.gated && d.baseline_noise_fraction !== null) noiseFloor[`${key}:${d.metric}`] = d.baseline_noise_fraction;
      }
      results.push({
        workload,
        concurrency,
        key,
        rounds: { baseline: point.baseline.length, candidate: point.candidate.length },
        metrics: deltas,
        pass: deltas.every((d) => d.pass !== false),
      });
    }
    w++;
  }
  return {
    format: LOAD_COMPARE_FORMAT,
    version: LOAD_COMPARE_VERSION,
    tolerance_fraction: options.toleranceFraction ?? DEFAULT_GATE_TOLERANCE,
    max_error_rate_increase: options.maxErrorRateIncrease ?? DEFAULT_MAX_ERROR_RATE_INCREASE,
    seed: options.seed,
    points: results,
    noise_floor: noiseFloor,
    pass: results.length > 0 && results.every((p) => p.pass),
  };
}
