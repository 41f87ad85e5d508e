/**
 * Release gate between a baseline and a candidate server (performance methodology, release validation): at each
 * concurrency point, system output tokens/s and TPOT p50 of the candidate must lie within the tolerance (5%) of
 * the baseline's, or within the point's noise floor when that is wider. The noise floor is this project's reading:
 * a recorded floor if given, else the run-to-run spread either side shows over its own rounds. A missing point
 * fails. TTFT p50 is reported, never gated. Values per side are means over interleaved rounds; intervals are
 * seeded bootstraps.
 */
import { type BootstrapInterval, bootstrapInterval, bootstrapRelativeDelta, mean } from "../score/mod.ts";
import type { EndpointLoadSummary } from "./summary.ts";

export const LOAD_COMPARE_FORMAT = "strata-load-compare" as const;
export const DEFAULT_GATE_TOLERANCE = 0.05;

export type CompareMetric = "output_tokens_per_s" | "tpot_p50_s" | "ttft_p50_s";
const PICK: Readonly<Record<CompareMetric, (s: EndpointLoadSummary) => number | null>> = {
  output_tokens_per_s: (s) => s.output_tokens_per_s,
  tpot_p50_s: (s) => s.distributions.tpot_s.p50,
  ttft_p50_s: (s) => s.distributions.ttft_s.p50,
};
const GATED: readonly CompareMetric[] = ["output_tokens_per_s", "tpot_p50_s"];

/** One concurrency point: the overall summary of each measured round, per side. */
export interface ComparePointInput {
  concurrency: number;
  baseline: readonly EndpointLoadSummary[];
  candidate: readonly EndpointLoadSummary[];
}

export interface MetricDelta {
  metric: CompareMetric;
  gated: boolean;
  baseline: number | null;
  candidate: number | null;
  /** candidate / baseline - 1. */
  delta_fraction: number | null;
  delta_interval: BootstrapInterval | null;
  /**
   * Measured noise: the wider of the two sides' bootstrap 95% interval half-widths over their own rounds,
   * relative to the baseline value (or the recorded floor when wider); null with one round a side and none recorded.
   */
  noise_floor_fraction: number | null;
  /** max(gate tolerance, noise floor) for gated metrics. */
  allowed_fraction: number | null;
  /** null for informational metrics. */
  pass: boolean | null;
  reason: string;
}

export interface ComparePointResult {
  concurrency: number;
  rounds: { baseline: number; candidate: number };
  metrics: MetricDelta[];
  pass: boolean;
}

export interface CompareResult {
  format: typeof LOAD_COMPARE_FORMAT;
  version: 1;
  tolerance_fraction: number;
  seed: number;
  points: ComparePointResult[];
  pass: boolean;
}

export interface CompareOptions {
  /** Default 0.05. */
  toleranceFraction?: number;
  seed: number;
  /** Recorded per-point noise floors (fraction), by concurrency; the wider of this and the measured one applies. */
  recordedNoiseFloor?: Readonly<Record<number, number>>;
  /** Points that had to be measured; any absent from `points` fails. */
  expectedConcurrency: readonly number[];
}

function metricDelta(
  metric: CompareMetric,
  point: ComparePointInput,
  options: CompareOptions,
  seed: number,
): MetricDelta {
  const gated = GATED.includes(metric);
  const tolerance = options.toleranceFraction ?? DEFAULT_GATE_TOLERANCE;
  const base = point.baseline.map(PICK[metric]);
  const cand = point.candidate.map(PICK[metric]);
  const empty = {
    metric,
    gated,
    baseline: null,
    candidate: null,
    delta_fraction: null,
    delta_interval: null,
    noise_floor_fraction: null,
    allowed_fraction: null,
  };
  if (base.length === 0 || cand.length === 0 || base.some((v) => v === null) || cand.some((v) => v === null)) {
    return { ...empty, pass: gated ? false : null, reason: "missing: a round of this point has no value" };
  }
  const b = base as number[], c = cand as number[];
  const bMean = mean(b), cMean = mean(c);
  if (!(bMean > 0)) {
    return { ...empty, pass: gated ? false : null, reason: "missing: the baseline value is not positive" };
  }
  const delta = cMean / bMean - 1;
  const interval = b.length >= 2 || c.length >= 2 ? bootstrapRelativeDelta(b, c, { seed }) : null;
  let noise: number | null = null;
  for (const [side, values] of [[1, b], [2, c]] as const) {
    if (values.length < 2) continue;
    const iv = bootstrapInterval(values, { seed: (seed + side) >>> 0 });
    noise = Math.max(noise ?? 0, (iv.upper - iv.lower) / 2 / bMean);
  }
  const recorded = options.recordedNoiseFloor?.[point.concurrency];
  const floor = Math.max(noise ?? 0, recorded ?? 0);
  const allowed = Math.max(tolerance, floor);
  const within = Math.abs(delta) <= allowed;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return {
    metric,
    gated,
    baseline: bMean,
    candidate: cMean,
    delta_fraction: delta,
    delta_interval: interval,
    noise_floor_fraction: noise === null && recorded === undefined ? null : floor,
    allowed_fraction: gated ? allowed : null,
    pass: gated ? within : null,
    reason: gated
      ? `${pct(delta)} ${within ? "within" : "outside"} +-${pct(allowed)}${floor > tolerance ? " (noise floor)" : ""}`
      : "informational: TTFT is not gated",
  };
}

/** Gate verdict over every expected concurrency point. */
export function compareLoad(points: readonly ComparePointInput[], options: CompareOptions): CompareResult {
  const results: ComparePointResult[] = [];
  const metrics: CompareMetric[] = ["output_tokens_per_s", "tpot_p50_s", "ttft_p50_s"];
  for (const concurrency of options.expectedConcurrency) {
    const point = points.find((p) => p.concurrency === concurrency) ??
      { concurrency, baseline: [], candidate: [] };
    const deltas = metrics.map((m, i) =>
      metricDelta(m, point, options, (options.seed + concurrency * 16 + i * 2) >>> 0)
    );
    results.push({
      concurrency,
      rounds: { baseline: point.baseline.length, candidate: point.candidate.length },
      metrics: deltas,
      pass: deltas.every((d) => d.pass !== false),
    });
  }
  return {
    format: LOAD_COMPARE_FORMAT,
    version: 1,
    tolerance_fraction: options.toleranceFraction ?? DEFAULT_GATE_TOLERANCE,
    seed: options.seed,
    points: results,
    pass: results.length > 0 && results.every((p) => p.pass),
  };
}
