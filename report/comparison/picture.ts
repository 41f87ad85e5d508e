/**
 * The comparison picture (comparison.ts) as a Vega-Lite spec: per group and case one panel per metric, one under
 * another, every configuration of the case on that panel's one axis. Cells and deltas read as in the tables
 * (render.ts).
 */
import type { ChartSpec } from "../charts.ts";
import type { Comparison, ComparisonGroup } from "./comparison.ts";
import type { DeltaMetric } from "./delta.ts";
import {
  aggregateCell,
  configName,
  DELTA_NAMES,
  deltaCells,
  deltaDecimals,
  factList,
  metricCell,
  SIMULATED,
  simulatedBanner,
} from "./render.ts";
import { fixed, oneLine } from "../_format.ts";

/** A picture's metrics per case: rates, TTFT, and the optional stage's round aggregate. */
const PICTURED: readonly DeltaMetric[] = ["prompt_tps", "decode_tps", "ttft_s", "round_aggregate_tps"];

/** The widest the picture may be (a laptop screen), the panel's plot and the room left for its row labels. */
export const PICTURE_WIDTH_PX = 1280;
const PANEL_WIDTH_PX = 360;
const LABEL_LIMIT_PX = PICTURE_WIDTH_PX - PANEL_WIDTH_PX - 120;

/** The panel of one case and metric: every configuration (each status) on one axis, the delta in the subtitle. */
function casePanel(group: ComparisonGroup, caseId: string, metric: DeltaMetric, index: number): object | null {
  // The legend names what the configurations differ in ("B: server capacity 2"), not the letter alone.
  const legends = new Map(group.configurations.map((c) => [
    c.label,
    c.differs.length === 0 ? c.label : `${c.label}: ${oneLine(factList(c.differs))}`,
  ]));
  const values = group.sections.flatMap((section) =>
    section.rows.flatMap((row) => {
      const sample = row.caseId === caseId ? row.samples[metric] : undefined;
      if (sample === undefined || sample.range.n === 0) return [];
      const status = section.status === "complete" ? "" : ` (${section.status})`;
      const decimals = deltaDecimals(metric);
      const split = sample.disagreeingRunMedians?.map((m) => fixed(m, decimals)).join("; ");
      const cell = split !== undefined
        ? `runs ${split}, not pooled`
        : metric === "round_aggregate_tps"
        ? aggregateCell(sample.range)
        : metricCell(sample.range, metric);
      return sample.runs.map((run, r) => ({
        label: `${configName(row.configuration, row.simulated)}${status}: ${cell}`,
        config: legends.get(row.configuration) ?? row.configuration,
        run: `run ${r + 1}`,
        median: run.length === 0 ? null : sample.disagreeingRunMedians === null ? sample.range.median : null,
        min: run.length === 0 ? null : Math.min(...run),
        max: run.length === 0 ? null : Math.max(...run),
        value: sample.disagreeingRunMedians?.[r] ?? null,
      })).filter((v) => v.min !== null);
    })
  );
  if (values.length === 0) return null;
  const deltas = group.sections.flatMap((s) => s.deltas.filter((d) => d.caseId === caseId && d.metric === metric));
  const subtitle = deltas.map((d) => {
    const [, , , , change, interval, verdict] = deltaCells(d);
    return d.delta === null ? `${d.candidate} vs ${d.baseline}: ${verdict}` : `${d.candidate} vs ${d.baseline}: ` +
      `${change} (95% ${interval}): ${verdict}`;
  });
  const name = DELTA_NAMES[metric];
  // Labels whole (their numbers are the row's), the value axis from zero: a fitted axis makes a small difference look
  // large. One panel a row keeps the picture within PICTURE_WIDTH_PX whatever the labels' length.
  const y = { field: "label", type: "nominal", sort: null, title: null, axis: { labelLimit: LABEL_LIMIT_PX } };
  const x = { type: "quantitative", title: name, scale: { zero: true, nice: true } };
  const color = { field: "config", type: "nominal", title: "configuration" };
  return {
    title: { text: `Group ${index + 1}, ${caseId}: ${name}`, subtitle: subtitle.length > 0 ? subtitle : [""] },
    width: PANEL_WIDTH_PX,
    height: { step: 22 },
    data: { values },
    layer: [
      {
        mark: { type: "rule", strokeWidth: 3, opacity: 0.6 },
        encoding: { y, x: { ...x, field: "min" }, x2: { field: "max" }, color },
      },
      { mark: { type: "point", filled: true, size: 80 }, encoding: { y, x: { ...x, field: "median" }, color } },
      { mark: { type: "tick", thickness: 2, size: 14 }, encoding: { y, x: { ...x, field: "value" }, color } },
    ],
  };
}

/**
 * The comparison picture: per group and case one panel per metric (prompt and decode tok/s, TTFT, the round
 * aggregate), one under another, every configuration on that panel's one axis (from zero): a dot at the median, a bar over
 * min-max, and per run a tick where the runs disagree (no pooled dot then). Each row's label carries its numbers;
 * each panel's subtitle says B against A with its interval, or "not resolved".
 */
export function comparisonSpec(comparison: Comparison): ChartSpec {
  const rows = comparison.groups.flatMap((group, index) => {
    const cases = [...new Set(group.sections.flatMap((s) => s.rows.map((r) => r.caseId)))];
    return cases.flatMap((caseId) => {
      return PICTURED.map((m) => casePanel(group, caseId, m, index)).filter((p) => p !== null);
    });
  });
  const banner = simulatedBanner(comparison);
  const title = "Comparison: configurations side by side per case (dot: median; bar: min-max)";
  return {
    title: {
      text: banner === null ? title : `${SIMULATED}: ${title}`,
      subtitle: [
        ...(banner === null ? [] : [banner]),
        ...comparison.groups.map((g, i) => `Group ${i + 1}: ${oneLine(g.label)}`),
        ...comparison.notes,
      ],
    },
    vconcat: rows,
    config: { legend: { orient: "top", labelLimit: LABEL_LIMIT_PX } },
  } as unknown as ChartSpec;
}
