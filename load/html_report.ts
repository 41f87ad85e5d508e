/**
 * `load --html` and `compare --html`: one self-contained HTML page (inline SVG pictures drawn with report/'s
 * charts, inline CSS, no script, no external reference) that opens offline. For a load test, per run and per
 * endpoint (and pooled when several were loaded): latency CDFs (E2E, TTFT, TPOT, ITL, coordinated-omission
 * latency) of the measured successes, throughput over time from the summary's bins, and requests in flight over
 * time; a table of the summary's distributions beside them. For a gate: each point's baseline and candidate with
 * the gate band. The CDFs and the in-flight steps are score/'s; the other numbers are the summaries'.
 */
import { type ChartSpec, renderChartSvg } from "../report/mod.ts";
import { type CdfPoint, empiricalCdf, empiricalCdfCounted, levelOverTime } from "../score/mod.ts";
import type { LoadRunResult } from "./execute.ts";
import type { CompareResult } from "./gate.ts";
import { type EndpointLoadSummary, POOLED_LABEL, type RowSelection } from "./summary.ts";

/** Above this many measured requests the in-flight picture is left out (its step list would be too large). */
const MAX_IN_FLIGHT_REQUESTS = 1_000_000;

const CDF_METRICS = [
  ["latency_s", "E2E latency"],
  ["ttft_s", "TTFT"],
  ["tpot_s", "TPOT"],
  ["itl_s", "ITL"],
  ["co_latency_s", "Coordinated-omission latency"],
] as const;

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function number(value: number | null, digits = 4): string {
  return value === null || !Number.isFinite(value) ? "not measured" : String(Number(value.toPrecision(digits)));
}

/** Seconds as milliseconds with three significant digits and no exponent ("0.000818", "12.3", "1520"). */
function ms(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "not measured";
  const value = seconds * 1000;
  if (value === 0) return "0";
  const decimals = Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value)))));
  return value.toFixed(decimals);
}

/**
 * An x scale that starts at zero, or a unit-wide one where every value is the same (a single bin, ITL gaps all 0):
 * a zero-width domain would label its axis "0.000000".
 */
function xScale(values: readonly number[], unit: number): Record<string, unknown> {
  let low = Infinity;
  let high = -Infinity;
  for (const v of values) {
    if (v < low) low = v;
    if (v > high) high = v;
  }
  if (values.length === 0 || high > low) return { zero: true };
  return { domain: [Math.min(0, low), Math.max(low, 0) + unit] };
}

/** The CDF of one metric over the measured successes of the selected rows (ITL: every gap, pooled), with its n. */
function cdfOf(
  parts: readonly RowSelection[],
  metric: typeof CDF_METRICS[number][0],
): { points: CdfPoint[]; n: number } {
  if (metric === "itl_s") {
    const counts = new Map<number, number>();
    for (const p of parts) {
      for (const e of p.endpoints) {
        for (const run of p.store.itlRuns(e)) {
          for (let i = 0; i < run.values.length; i++) {
            counts.set(run.values[i]!, (counts.get(run.values[i]!) ?? 0) + run.counts[i]!);
          }
        }
      }
    }
    const values = [...counts.keys()].sort((a, b) => a - b);
    const n = values.reduce((s, v) => s + counts.get(v)!, 0);
    return { points: empiricalCdfCounted(values, values.map((v) => counts.get(v)!)), n };
  }
  const sample: number[] = [];
  for (const p of parts) {
    const wanted = new Set(p.endpoints);
    const col = p.store.numeric[metric];
    p.store.endpoint.forEach((e, i) => {
      if (!wanted.has(e) || p.store.statusAt(i) !== "success") return;
      const v = col.at(i);
      if (!Number.isNaN(v)) sample.push(v);
    });
  }
  return { points: empiricalCdf(sample), n: sample.length };
}

function cdfChart(parts: readonly RowSelection[], metric: typeof CDF_METRICS[number][0], title: string): ChartSpec {
  const cdf = cdfOf(parts, metric);
  const values = cdf.points.map((p) => ({ ms: p.value * 1000, fraction: p.fraction }));
  return {
    title: `${title} CDF (n=${cdf.n})`,
    width: 260,
    height: 150,
    data: { values },
    mark: { type: "line", interpolate: "step-after", color: "#4c78a8" },
    encoding: {
      x: { field: "ms", type: "quantitative", title: "ms", scale: xScale(values.map((v) => v.ms), 1) },
      y: { field: "fraction", type: "quantitative", title: "fraction ≤ x", scale: { domain: [0, 1] } },
    },
  } as unknown as ChartSpec;
}

function overTimeCharts(parts: readonly RowSelection[], summary: EndpointLoadSummary): ChartSpec[] {
  const bins = summary.bins.map((b) => ({
    t: b.start_s,
    rps: b.requests_per_s,
    tps: b.output_tokens_per_s,
  }));
  const sent: { startS: number; endS: number }[] = [];
  let first = Infinity;
  let total = 0;
  for (const p of parts) total += p.store.size;
  if (total <= MAX_IN_FLIGHT_REQUESTS) {
    for (const p of parts) {
      const wanted = new Set(p.endpoints);
      p.store.endpoint.forEach((e, i) => {
        const start = p.store.numeric.send_offset_s.at(i), end = p.store.numeric.end_offset_s.at(i);
        if (!wanted.has(e) || Number.isNaN(start) || Number.isNaN(end)) return;
        sent.push({ startS: start, endS: end });
        first = Math.min(first, start);
      });
    }
  }
  const steps = levelOverTime(sent.map((r) => ({ startS: r.startS - first, endS: r.endS - first })))
    .map((s) => ({ t: s.startS, level: s.level }));
  const line = (title: string, values: { t: number }[], field: string, yTitle: string, step: boolean) => ({
    title,
    width: 260,
    height: 150,
    data: { values },
    mark: { type: "line", interpolate: step ? "step-after" : "linear", point: !step, color: "#f58518" },
    encoding: {
      x: {
        field: "t",
        type: "quantitative",
        title: "s since the first measured send",
        scale: xScale(values.map((v) => v.t), summary.bin_width_s),
      },
      y: { field, type: "quantitative", title: yTitle },
    },
  });
  return [
    line(`Completed requests/s per ${summary.bin_width_s} s bin`, bins, "rps", "requests/s", false),
    line(`Output tokens/s per ${summary.bin_width_s} s bin`, bins, "tps", "tokens/s", false),
    line(
      total <= MAX_IN_FLIGHT_REQUESTS
        ? "Requests in flight"
        : `Requests in flight (not drawn: more than ${MAX_IN_FLIGHT_REQUESTS} requests)`,
      steps,
      "level",
      "in flight",
      true,
    ),
  ] as unknown as ChartSpec[];
}

async function svgGrid(charts: ChartSpec[], columns: number): Promise<string> {
  const rows: ChartSpec[][] = [];
  for (let i = 0; i < charts.length; i += columns) rows.push(charts.slice(i, i + columns));
  return await renderChartSvg({ vconcat: rows.map((row) => ({ hconcat: row })) } as unknown as ChartSpec);
}

function distributionTable(summary: EndpointLoadSummary): string {
  const d = summary.distributions;
  const rows: [string, typeof d.latency_s][] = [
    ["E2E latency", d.latency_s],
    ["TTFT", d.ttft_s],
    ["TPOT", d.tpot_s],
    ["ITL", d.itl_s],
    ["Coordinated-omission latency", d.co_latency_s],
  ];
  // In milliseconds, as the pictures beside the table are.
  const cells = rows.map(([name, x]) =>
    `<tr><td>${escapeHtml(name)}</td><td>${x.n}</td><td>${ms(x.p50)}</td><td>${ms(x.p90)}${
      x.unreliable.p90 ? " *" : ""
    }</td><td>${ms(x.p99)}${x.unreliable.p99 ? " *" : ""}</td><td>${ms(x.max)}</td></tr>`
  ).join("\n");
  const c = summary.counts;
  return `<p>${c.succeeded} of ${c.attempted} measured requests succeeded, ${c.failed} failed, ${c.dropped} dropped; ` +
    `window ${number(summary.window_s)} s, ${number(summary.requests_per_s)} requests/s, ` +
    `${number(summary.output_tokens_per_s)} output tokens/s.</p>\n` +
    `<table><thead><tr><th>metric</th><th>n</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th></tr>` +
    "</thead>" +
    `<tbody>\n${cells}\n</tbody></table>\n<p class="note">Percentiles are Hyndman-Fan type 7; * marks a tail ` +
    "percentile with too few samples to be reliable.</p>";
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:90%}.fail{color:#b00020;font-weight:bold}.pass{color:#1b7a1b;font-weight:bold}
section{margin-bottom:32px}svg{max-width:100%;height:auto}</style></head>
<body>
${body}
</body></html>
`;
}

/** The page of a load test: every run, each endpoint and (with several) the pooled mixture. */
export async function renderLoadHtml(runs: readonly LoadRunResult[], heading: string): Promise<string> {
  const parts = [`<h1>${escapeHtml(heading)}</h1>`];
  for (const [index, run] of runs.entries()) {
    const endpoints = run.store.endpoints();
    const views: { label: string; parts: RowSelection[]; summary: EndpointLoadSummary }[] = run.summary.endpoints.map(
      (summary, i) => ({ label: summary.label, parts: [{ store: run.store, endpoints: [endpoints[i]!] }], summary }),
    );
    if (views.length > 1) {
      views.push({ label: POOLED_LABEL, parts: [{ store: run.store, endpoints }], summary: run.summary.overall });
    }
    for (const view of views) {
      const charts = [
        ...CDF_METRICS.map(([m, t]) => cdfChart(view.parts, m, t)),
        ...overTimeCharts(view.parts, view.summary),
      ];
      parts.push(
        `<section><h2>Run ${index + 1} of ${runs.length}: ${escapeHtml(view.label)} (${run.summary.mode} loop)</h2>`,
        distributionTable(view.summary),
        await svgGrid(charts, 4),
        "</section>",
      );
    }
  }
  return page(heading, parts.join("\n"));
}

/** The page of a gate: per gated metric, each point's baseline and candidate with the band the gate allows. */
export async function renderCompareHtml(result: CompareResult, heading: string): Promise<string> {
  const rows: string[] = [];
  const charts: ChartSpec[] = [];
  for (const metric of ["output_tokens_per_s", "tpot_p50_s", "ttft_p50_s"] as const) {
    const values = result.points.flatMap((p) => {
      const m = p.metrics.find((x) => x.metric === metric);
      if (!m) return [];
      const allowed = m.allowed_fraction;
      const base = m.baseline;
      return [{
        point: `c=${p.concurrency}`,
        baseline: base,
        candidate: m.candidate,
        low: base !== null && allowed !== null ? base * (1 - allowed) : null,
        high: base !== null && allowed !== null ? base * (1 + allowed) : null,
        verdict: m.pass === null ? "informational" : m.pass ? "pass" : "fail",
      }];
    });
    for (const p of result.points) {
      const m = p.metrics.find((x) => x.metric === metric);
      if (!m) continue;
      const verdict = m.pass === null ? "informational" : m.pass ? "pass" : "fail";
      rows.push(
        `<tr><td>${p.concurrency}</td><td>${metric}</td><td>${number(m.baseline)}</td><td>${number(m.candidate)}</td>` +
          `<td>${m.delta_fraction === null ? "not measured" : `${(m.delta_fraction * 100).toFixed(1)}%`}</td>` +
          `<td>${m.allowed_fraction === null ? "" : `±${(m.allowed_fraction * 100).toFixed(1)}%`}</td>` +
          `<td class="${verdict === "fail" ? "fail" : verdict === "pass" ? "pass" : ""}">${verdict}</td>` +
          `<td>${escapeHtml(m.reason)}</td></tr>`,
      );
    }
    const x = { field: "point", type: "nominal", title: "concurrency point", sort: null };
    charts.push({
      title: `${metric}${metric === "ttft_p50_s" ? " (informational, not gated)" : ": gate band around the baseline"}`,
      width: 300,
      height: 180,
      data: { values },
      layer: [
        {
          mark: { type: "bar", opacity: 0.25, color: "#54a24b", size: 30 },
          encoding: { x, y: { field: "low", type: "quantitative", title: metric }, y2: { field: "high" } },
        },
        {
          mark: { type: "point", filled: true, size: 90, shape: "square", color: "#4c78a8" },
          encoding: { x, y: { field: "baseline", type: "quantitative" } },
        },
        {
          mark: { type: "point", filled: true, size: 90, shape: "diamond", color: "#e45756" },
          encoding: { x, y: { field: "candidate", type: "quantitative" } },
        },
      ],
    } as unknown as ChartSpec);
  }
  const verdict = result.pass ? '<span class="pass">the gate holds</span>' : '<span class="fail">the gate fails</span>';
  const body = [
    `<h1>${escapeHtml(heading)}</h1>`,
    `<p>${verdict} (tolerance ±${(result.tolerance_fraction * 100).toFixed(1)}% or the point's noise floor when ` +
    "wider). Square: baseline; diamond: candidate; band: what the gate allows.</p>",
    await svgGrid(charts, 3),
    "<table><thead><tr><th>point</th><th>metric</th><th>baseline</th><th>candidate</th><th>delta</th>" +
    `<th>allowed</th><th>verdict</th><th>reason</th></tr></thead><tbody>\n${rows.join("\n")}\n</tbody></table>`,
  ].join("\n");
  return page(heading, body);
}
