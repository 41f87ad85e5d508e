/**
 * Cross-run aggregation: the headline numbers of repeated independent runs, each with its sample dispersion and
 * a seeded percentile-bootstrap 95% interval of the mean over runs.
 */
import { LOAD_LINE_FORMATS } from "../contract/mod.ts";
import { type BootstrapInterval, bootstrapInterval, describeDistribution } from "../score/mod.ts";
import type { EndpointLoadSummary } from "./summary.ts";

export const LOAD_AGGREGATE_FORMAT = LOAD_LINE_FORMATS.aggregate;

/** The tail percentile a headline depends on, so its per-run values inherit that percentile's unreliability. */
const TAIL_OF: Readonly<Record<string, (s: EndpointLoadSummary) => boolean>> = {
  ttft_p99_s: (s) => s.distributions.ttft_s.unreliable.p99,
  latency_p99_s: (s) => s.distributions.latency_s.unreliable.p99,
  co_latency_p99_s: (s) => s.distributions.co_latency_s.unreliable.p99,
};

/** Headline numbers taken from each run's overall summary. */
export const HEADLINES: Readonly<Record<string, (s: EndpointLoadSummary) => number | null>> = {
  requests_per_s: (s) => s.requests_per_s,
  output_tokens_per_s: (s) => s.output_tokens_per_s,
  goodput_requests_per_s: (s) => s.goodput_requests_per_s,
  ttft_p50_s: (s) => s.distributions.ttft_s.p50,
  ttft_p99_s: (s) => s.distributions.ttft_s.p99,
  tpot_p50_s: (s) => s.distributions.tpot_s.p50,
  itl_p50_s: (s) => s.distributions.itl_s.p50,
  latency_p50_s: (s) => s.distributions.latency_s.p50,
  latency_p99_s: (s) => s.distributions.latency_s.p99,
  co_latency_p50_s: (s) => s.distributions.co_latency_s.p50,
  co_latency_p99_s: (s) => s.distributions.co_latency_s.p99,
};

export interface AggregatedMetric {
  metric: string;
  /** One value per run, in run order; null where that run could not measure it. */
  values: (number | null)[];
  n: number;
  mean: number | null;
  sd: number | null;
  interval: BootstrapInterval | null;
  /** Why the interval is null. */
  missing: string | null;
  /** Set when a run's value is a tail percentile marked unreliable at its n (p99 under 100 samples), saying which. */
  unreliable: string | null;
}

export interface LoadAggregate {
  format: typeof LOAD_AGGREGATE_FORMAT;
  /** 3: versioned with the load JSONL it is a line of (the same aggregate as version 2). */
  version: 3;
  runs: number;
  seed: number;
  metrics: AggregatedMetric[];
}

/** Aggregates the overall summaries of repeated runs; the interval needs at least two runs with a value. */
export function aggregateRuns(runs: readonly EndpointLoadSummary[], options: { seed: number }): LoadAggregate {
  const metrics: AggregatedMetric[] = Object.entries(HEADLINES).map(([metric, pick], i) => {
    const values = runs.map(pick);
    const present = values.filter((v): v is number => v !== null);
    const d = describeDistribution(present);
    const enough = present.length >= 2;
    return {
      metric,
      values,
      n: present.length,
      mean: d.mean,
      sd: d.sd,
      // Each metric gets its own seed offset so intervals do not share one resample sequence.
      interval: enough ? bootstrapInterval(present, { seed: (options.seed + i) >>> 0 }) : null,
      missing: enough ? null : `needs at least two runs with a value (have ${present.length})`,
      unreliable: unreliableRuns(metric, runs),
    };
  });
  return { format: LOAD_AGGREGATE_FORMAT, version: 3, runs: runs.length, seed: options.seed, metrics };
}

function unreliableRuns(metric: string, runs: readonly EndpointLoadSummary[]): string | null {
  const tail = TAIL_OF[metric];
  if (tail === undefined) return null;
  const flagged = runs.map((r, i) => (tail(r) ? i + 1 : null)).filter((i) => i !== null);
  return flagged.length === 0 ? null : `p99 from fewer than 100 samples in run(s) ${flagged.join(", ")}`;
}
