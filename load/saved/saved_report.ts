/**
 * A saved load or compare result (saved_results.ts) as CSV and as the points of the throughput-versus-latency
 * curve (report/'s latencyCurveSpec). CSV: one line per summary and endpoint (the pooled mixture too when a run
 * loaded several), every number the summary states, latencies in ms as the console prints them. Curve: per series
 * (a compare's side, a load's server) and load level (concurrency point or rate), the mean over its rounds or runs
 * of output tokens/s and of each latency percentile.
 */
import { csvCell, type CurvePoint } from "../../report/mod.ts";
import { mean } from "../../score/mod.ts";
import { DEFAULT_WORKLOAD } from "../gate/gate.ts";
import type { SavedSummary } from "./saved_results.ts";
import type { EndpointLoadSummary } from "../summary.ts";

const LATENCIES = [["ttft", "ttft_s"], ["tpot", "tpot_s"], ["e2e", "latency_s"], ["itl", "itl_s"], [
  "lateness",
  "lateness_s",
]] as const;

const CSV_HEAD = [
  "side",
  "workload",
  "run",
  "round",
  "mode",
  "concurrency",
  "rate_per_s",
  "endpoint",
  "attempted",
  "succeeded",
  "failed",
  "dropped",
  "late",
  "error_rate",
  "requests_per_s",
  "output_tokens_per_s",
  "goodput_requests_per_s",
  ...LATENCIES.flatMap(([name]) => ["p50", "p90", "p99"].map((p) => `${name}_${p}_ms`)),
];

const toMs = (s: number | null) => (s === null ? null : Number((s * 1000).toPrecision(6)));

/** The load level of a summary: "c=8", or "2 req/s" for an open loop without a cap. */
export function loadLevel(s: SavedSummary): string {
  const concurrency = s.concurrency ?? s.effective_max_concurrency;
  const rate = (s.config as Record<string, unknown>).requested_rate_per_s;
  if (s.mode === "open" && typeof rate === "number") return `${rate} req/s`;
  return concurrency === null ? "uncapped" : `c=${concurrency}`;
}

/** The saved result as CSV (RFC 4180 quoting through report/'s csvCell, LF line ends). */
export function savedCsv(summaries: readonly SavedSummary[]): string {
  const lines = [CSV_HEAD.join(",")];
  summaries.forEach((s, i) => {
    const parts = s.endpoints.length > 1 ? [...s.endpoints, s.overall] : [s.overall];
    const rate = (s.config as Record<string, unknown>).requested_rate_per_s;
    for (const e of parts) {
      const d = e.distributions;
      lines.push(
        [
          s.side ?? null,
          s.workload ?? null,
          s.run ?? i,
          s.round ?? null,
          s.mode,
          s.concurrency ?? s.effective_max_concurrency,
          typeof rate === "number" ? rate : null,
          e.label,
          e.counts.attempted,
          e.counts.succeeded,
          e.counts.failed,
          e.counts.dropped,
          e.counts.late,
          e.error_rate,
          e.requests_per_s,
          e.output_tokens_per_s,
          e.goodput_requests_per_s,
          ...LATENCIES.flatMap(([, key]) => [toMs(d[key].p50), toMs(d[key].p90), toMs(d[key].p99)]),
        ].map((v) => csvCell(typeof v === "number" ? v : v === null ? null : String(v))).join(","),
      );
    }
  });
  return `${lines.join("\n")}\n`;
}

function meanOrNull(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : mean(present);
}

/**
 * The curve's points: per series (a compare side, else each endpoint of a load run) and load level, the mean over
 * its rounds. Interrupted runs are left out (their numbers cover part of a plan).
 */
export function curvePoints(summaries: readonly SavedSummary[]): CurvePoint[] {
  const groups = new Map<string, { series: string; load: string; parts: EndpointLoadSummary[] }>();
  for (const s of summaries) {
    if (s.interrupted !== undefined) continue;
    const parts: [string, EndpointLoadSummary][] = s.side !== undefined
      ? [[`${s.side}${s.workload !== undefined && s.workload !== DEFAULT_WORKLOAD ? ` ${s.workload}` : ""}`, s.overall]]
      : s.endpoints.map((e) => [e.label, e]);
    for (const [series, summary] of parts) {
      const load = loadLevel(s);
      const key = JSON.stringify([series, load]);
      const entry = groups.get(key) ?? { series, load, parts: [] };
      entry.parts.push(summary);
      groups.set(key, entry);
    }
  }
  return [...groups.values()].map(({ series, load, parts }) => {
    const pct = (key: "ttft_s" | "tpot_s") => ({
      p50: meanOrNull(parts.map((p) => p.distributions[key].p50)),
      p90: meanOrNull(parts.map((p) => p.distributions[key].p90)),
      p99: meanOrNull(parts.map((p) => p.distributions[key].p99)),
    });
    return {
      series,
      load,
      outputTokensPerS: meanOrNull(parts.map((p) => p.output_tokens_per_s)),
      ttftS: pct("ttft_s"),
      tpotS: pct("tpot_s"),
    };
  });
}
