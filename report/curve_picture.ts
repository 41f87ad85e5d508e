/**
 * The throughput-versus-latency curve (AIPerf's and GuideLLM's sweep plot): one point per concurrency point or
 * request rate, output tokens/s on the x axis against a latency percentile on the y axis, one line per series
 * (a side of a comparison, a server of a load test), for TTFT and TPOT at p50, p90 and p99, in milliseconds as
 * the console prints them. Going right is more throughput, going up is slower answers: the knee is where the
 * server stops giving throughput for latency. The numbers are the summaries'; nothing is computed here.
 */
import { type ChartSpec, spreadScale } from "./charts.ts";

/** A latency's percentiles in seconds (null where not measured). */
export interface CurvePercentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** One load point of one series. */
export interface CurvePoint {
  /** "baseline", "candidate", a server's URL. */
  series: string;
  /** What the point loaded: "c=8" or "2 req/s". */
  load: string;
  outputTokensPerS: number | null;
  ttftS: CurvePercentiles;
  tpotS: CurvePercentiles;
}

const PERCENTILES = ["p50", "p90", "p99"] as const;

/** The percentiles' line styles (solid, dashed, dotted), drawn in the legend as they are on the lines. */
const DASHES = [[1, 0], [6, 3], [2, 2]];

/**
 * The points with one label a load level, over its highest point (every series and percentile of that level): the
 * labels of two series, or of p50 under p90, no longer sit on one another.
 */
function labelledOnce<T extends { load: string; ms: number }>(values: readonly T[]): (T & { labelled: boolean })[] {
  const top = new Map<string, number>();
  values.forEach((v, i) => {
    const best = top.get(v.load);
    if (best === undefined || v.ms > values[best]!.ms) top.set(v.load, i);
  });
  return values.map((v, i) => ({ ...v, labelled: top.get(v.load) === i }));
}

/** One value a line passes through: a series' percentile at a load level; `step` is the level's order. */
function curveValues(points: readonly CurvePoint[], metric: "ttftS" | "tpotS") {
  // `step`: the points' order (load levels as given), along which each line runs, whatever their throughput.
  return points.flatMap((p, step) =>
    PERCENTILES.flatMap((q) => {
      const s = p[metric][q];
      if (s === null || p.outputTokensPerS === null) return [];
      return [{
        series: p.series,
        line: `${p.series} ${q}`,
        percentile: q,
        tps: p.outputTokensPerS,
        ms: s * 1000,
        load: p.load,
        step,
      }];
    })
  );
}

/** The series legend: a stroke per server, names whole. */
const SERIES_LEGEND = {
  orient: "bottom",
  symbolType: "stroke",
  symbolStrokeWidth: 3,
  symbolSize: 300,
  labelLimit: 360,
};

/** The percentile legend: a dash per percentile, drawn dark (vega-lite strokes a filled mark's symbols transparent). */
const PERCENTILE_LEGEND = {
  orient: "bottom",
  symbolType: "stroke",
  symbolStrokeWidth: 2,
  symbolSize: 400,
  encoding: {
    symbols: { stroke: { value: "#333" }, fill: { value: "black" }, fillOpacity: { value: 1 }, opacity: { value: 1 } },
  },
};

function panel(points: readonly CurvePoint[], metric: "ttftS" | "tpotS"): object {
  const name = metric === "ttftS" ? "TTFT" : "TPOT";
  const values = curveValues(points, metric);
  const x = {
    field: "tps",
    type: "quantitative",
    title: "output tokens/s (system)",
    scale: spreadScale(values.map((v) => v.tps)),
  };
  const y = { field: "ms", type: "quantitative", title: `${name} ms`, scale: { zero: true, nice: true } };
  return {
    title: { text: `${name} against throughput`, subtitle: "one point a load level, labelled over its highest" },
    width: 360,
    height: 240,
    data: { values: labelledOnce(values) },
    layer: [
      {
        mark: { type: "line", point: { filled: true, size: 50 } },
        encoding: {
          x,
          y,
          color: { field: "series", type: "nominal", title: "series", legend: SERIES_LEGEND },
          strokeDash: {
            field: "percentile",
            type: "nominal",
            title: "percentile",
            scale: { domain: PERCENTILES, range: DASHES },
            legend: PERCENTILE_LEGEND,
          },
          detail: { field: "line" },
          order: { field: "step" },
        },
      },
      {
        transform: [{ filter: "datum.labelled" }],
        mark: { type: "text", dy: -9, fontSize: 10, color: "#333" },
        encoding: { x, y, text: { field: "load" } },
      },
    ],
  };
}

/**
 * The curve as a spec: TTFT and TPOT side by side, each with one line per series and percentile.
 * Returns null below two load levels with a throughput (one level is a point, not a curve).
 */
export function latencyCurveSpec(title: string, points: readonly CurvePoint[]): ChartSpec | null {
  if (new Set(points.filter((p) => p.outputTokensPerS !== null).map((p) => p.load)).size < 2) return null;
  return {
    title: {
      text: title,
      subtitle:
        "output tokens/s against latency percentiles, per load level (several rounds or runs of a level: their mean)",
    },
    hconcat: [panel(points, "ttftS"), panel(points, "tpotS")],
    resolve: { legend: { color: "shared", strokeDash: "shared" } },
  } as unknown as ChartSpec;
}
