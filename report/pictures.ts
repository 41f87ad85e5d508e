/**
 * The pictures of one result, drawn from what results.json holds (summaries, rounds, and score/'s case readouts;
 * nothing is computed here): per-case prompt and decode tokens/s with their min-max ranges, TTFT and first-answer
 * latency per case, caps reached per case, and the optional stage's aggregate per round. Each is one SVG file
 * the run writes into the result folder as a provenance artifact and the README shows. A simulated or
 * non-complete result says so in every picture's subtitle: a picture can travel without its README.
 */
import {
  CONCURRENCY_CASE,
  type Metric,
  OUTPUT_CAPS,
  PERFORMANCE_CASES,
  type Result,
  type Summary,
} from "../contract/mod.ts";
import { leftOutOfReadout, readCases } from "../score/mod.ts";
import { chartRenderer, type ChartSpec, renderChartSvg, spreadScale } from "./charts.ts";
import { fixed, metricDecimals } from "./_format.ts";

/** One picture: its file name in the result folder, the caption the README gives it, its SVG text and renderer. */
export interface Picture {
  file: string;
  caption: string;
  svg: string;
  /** What drew it (charts.ts `chartRenderer`); the run records it as `extensions.pictures_renderer`. */
  renderer: string;
}

/** Extensions key of the renderer the pictures were drawn with. */
export const PICTURES_RENDERER_KEY = "pictures_renderer";

/** File names of the pictures, in README order. */
export const PICTURE_FILES = {
  rates: "rates.svg",
  latency: "latency.svg",
  caps: "caps.svg",
  rounds: "rounds.svg",
} as const;

const METRIC_LABELS: Readonly<Record<Metric, string>> = {
  prompt_tps: "Prompt tokens/s",
  decode_tps: "Decode tokens/s",
  ttft_s: "TTFT, s",
  first_answer_s: "First answer, s",
  total_s: "Total, s",
};

/** A row of a range chart: one case's median and min-max, or a note where there is no value. */
interface RangeRow {
  panel: string;
  label: string;
  median: number | null;
  min: number | null;
  max: number | null;
  text: string;
}

function subtitle(result: Result): string[] {
  const lines: string[] = [];
  if (result.extensions?.["simulated_engine"] === true) {
    lines.push("SIMULATED ENGINE: scripted test engine, not a measurement of any hardware");
  }
  lines.push(`run ${result.run.id}, status ${result.run.status}, protocol ${result.protocol.id}`);
  return lines;
}

function caseLabel(phase: "performance" | "concurrency", caseId: string): string {
  return phase === "concurrency" ? `${caseId} x4` : caseId;
}

/** The picture's title, led by SIMULATED for a simulated engine. */
function heading(result: Result, text: string): string {
  return result.extensions?.["simulated_engine"] === true ? `SIMULATED: ${text}` : text;
}

/** The cases a metric is drawn for: what a readout leaves out (score/'s leftOutOfReadout) is not drawn either. */
function casesOf(result: Result, metric: Metric): ["performance" | "concurrency", string][] {
  const cases: ["performance" | "concurrency", string][] = PERFORMANCE_CASES.map((c) => ["performance", c]);
  if (result.run.optional_concurrency) cases.push(["concurrency", CONCURRENCY_CASE]);
  return cases.filter(([, c]) => !leftOutOfReadout(metric, c));
}

function rangeRows(result: Result, metric: Metric): RangeRow[] {
  const find = (phase: string, caseId: string): Summary | undefined =>
    result.summaries.find((s) => s.phase === phase && s.case_id === caseId && s.metric === metric);
  const d = metricDecimals(metric);
  return casesOf(result, metric).map(([phase, caseId]) => {
    const s = find(phase, caseId);
    const measured = s !== undefined && s.median !== null;
    return {
      panel: METRIC_LABELS[metric],
      label: caseLabel(phase, caseId),
      median: s?.median ?? null,
      min: s?.min ?? null,
      max: s?.max ?? null,
      text: measured
        ? `${fixed(s.median, d)} [${fixed(s.min, d)}-${fixed(s.max, d)}] n=${s.n}`
        : `not measured (n=${s?.n ?? 0})`,
    };
  });
}

/** The unit a metric's axis is titled with. */
const METRIC_UNITS_TEXT: Readonly<Record<Metric, string>> = {
  prompt_tps: "prompt tokens/s",
  decode_tps: "decode tokens/s",
  ttft_s: "seconds from dispatch",
  first_answer_s: "seconds from dispatch",
  total_s: "seconds from dispatch",
};

/**
 * Horizontal median-and-range chart: a rule from min to max and a dot at the median; each row's label carries its
 * numbers, so nothing is drawn outside the frame.
 */
function rangePanel(rows: RangeRow[], title: string, metric: Metric): ChartSpec {
  const values = rows.map((row) => ({ ...row, label: `${row.label}: ${row.text}` }));
  // The case order is given explicitly: a layer that drops a row without a value would otherwise move it last.
  const y = {
    field: "label",
    type: "nominal",
    sort: values.map((r) => r.label),
    title: null,
    axis: { labelLimit: 480 },
  };
  // With no value at all the axis would show a lone 0.000000: draw an empty [0, 1] scale without labels.
  const empty = rows.every((row) => row.median === null);
  const x = empty
    ? { scale: { domain: [0, 1] }, axis: null }
    : { scale: spreadScale(rows.flatMap((r) => [r.min, r.max])) };
  return {
    title,
    width: 320,
    height: { step: 30 },
    data: { values },
    layer: [
      {
        mark: { type: "rule", strokeWidth: 3, color: "#4c78a8" },
        encoding: {
          y,
          x: { field: "min", type: "quantitative", title: METRIC_UNITS_TEXT[metric], ...x },
          x2: { field: "max" },
        },
      },
      {
        mark: { type: "point", filled: true, size: 80, color: "#1f3f66" },
        encoding: { y, x: { field: "median", type: "quantitative" } },
      },
    ],
  } as unknown as ChartSpec;
}

function rangePicture(result: Result, metrics: Metric[], title: string): ChartSpec {
  return {
    title: { text: heading(result, title), subtitle: subtitle(result) },
    vconcat: metrics.map((metric) =>
      rangePanel(rangeRows(result, metric), `${METRIC_LABELS[metric]} (median, min-max)`, metric)
    ),
  } as unknown as ChartSpec;
}

function capsPicture(result: Result): ChartSpec {
  const values = readCases(result).flatMap((c) => [
    { label: caseLabel(c.phase, c.caseId), outcome: "reached the cap", count: c.capped, order: 1 },
    { label: caseLabel(c.phase, c.caseId), outcome: "stopped before the cap", count: c.measured - c.capped, order: 2 },
    { label: caseLabel(c.phase, c.caseId), outcome: "failed", count: c.failed, order: 3 },
    { label: caseLabel(c.phase, c.caseId), outcome: "skipped", count: c.skipped, order: 4 },
  ]);
  return {
    title: {
      text: heading(result, `Requests per case by how they ended (output cap ${OUTPUT_CAPS.performance} tokens)`),
      subtitle: subtitle(result),
    },
    width: 300,
    height: { step: 30 },
    data: { values },
    mark: { type: "bar" },
    encoding: {
      y: { field: "label", type: "nominal", sort: null, title: null, axis: { labelLimit: 220 } },
      x: {
        field: "count",
        type: "quantitative",
        title: "requests (stacked by how they ended)",
        axis: { tickMinStep: 1 },
      },
      color: {
        field: "outcome",
        type: "nominal",
        sort: ["reached the cap", "stopped before the cap", "failed", "skipped"],
        scale: {
          domain: ["reached the cap", "stopped before the cap", "failed", "skipped"],
          range: ["#f58518", "#54a24b", "#e45756", "#9d9d9d"],
        },
        legend: { title: null, orient: "bottom", labelLimit: 220, columns: 2 },
      },
      order: { field: "order", type: "quantitative" },
    },
  } as unknown as ChartSpec;
}

function roundsPicture(result: Result): ChartSpec {
  const values = result.concurrency_rounds.map((r) => ({
    label: `round ${r.round}: ${r.aggregate_tps === null ? "not measured" : `${fixed(r.aggregate_tps, 1)} tok/s`}, ` +
      `${r.failed} failed`,
    tps: r.aggregate_tps,
  }));
  return {
    title: {
      text: heading(result, "Optional stage: aggregate output tokens/s per round (4 requests released together)"),
      subtitle: [
        ...subtitle(result),
        `server capacity ${result.configuration.server_capacity ?? "not measured"} slot(s)`,
      ],
    },
    width: 320,
    height: { step: 30 },
    data: { values },
    mark: { type: "bar", color: "#4c78a8" },
    encoding: {
      y: { field: "label", type: "nominal", sort: null, title: null, axis: { labelLimit: 480 } },
      x: { field: "tps", type: "quantitative", title: "aggregate output tokens/s" },
    },
  } as unknown as ChartSpec;
}

/** The Vega-Lite specs of a result's pictures, by file name, in README order (rounds only with the optional stage). */
export function pictureSpecs(result: Result): { file: string; caption: string; spec: ChartSpec }[] {
  const specs: { file: string; caption: string; spec: ChartSpec }[] = [
    {
      file: PICTURE_FILES.rates,
      caption: "Prompt and decode tokens/s per case: median (dot) and min-max (line)",
      spec: rangePicture(result, ["prompt_tps", "decode_tps"], "Throughput per case (engine timers)"),
    },
    {
      file: PICTURE_FILES.latency,
      caption: "TTFT and first-answer latency per case: median (dot) and min-max (line)",
      spec: rangePicture(result, ["ttft_s", "first_answer_s"], "Latency per case (client clock)"),
    },
    { file: PICTURE_FILES.caps, caption: "Requests per case that reached the output cap", spec: capsPicture(result) },
  ];
  if (result.run.optional_concurrency) {
    specs.push({
      file: PICTURE_FILES.rounds,
      caption: "Optional stage: aggregate output tokens/s per round",
      spec: roundsPicture(result),
    });
  }
  return specs;
}

/** Draws every picture of a result. @throws {Error} when a spec fails to render (a defect). */
export async function renderResultPictures(result: Result): Promise<Picture[]> {
  const renderer = await chartRenderer();
  const out: Picture[] = [];
  for (const { file, caption, spec } of pictureSpecs(result)) {
    out.push({ file, caption, svg: await renderChartSvg(spec), renderer });
  }
  return out;
}
