/**
 * `load --html` and `compare --html`: one self-contained HTML page (inline SVG pictures drawn with report/'s
 * charts, inline CSS, no script, no external reference) that opens offline. For a load test, per run and per
 * endpoint (and pooled when several were loaded): latency CDFs (E2E, TTFT, TPOT, ITL, coordinated-omission
 * latency) of the measured successes, throughput over time from the summary's bins, and requests in flight over
 * time; a table of the summary's distributions beside them. For a gate: each point's baseline and candidate with
 * the gate band. The CDFs and the in-flight steps are score/'s; the other numbers are the summaries'.
 */
import { type ChartSpec, renderChartSvg } from "../report/mod.ts";
import { empiricalCdf, levelOverTime } from "../score/mod.ts";
import type { LoadRunResult } from "./execute.ts";
import type { CompareResult } from "./gate.ts";
import type { LoadRequestRow } from "./metrics.ts";
import { type EndpointLoadSummary, POOLED_LABEL } from "./summary.ts";

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

/** The values of one CDF metric over the measured successes of `rows` (ITL: every gap, pooled). */
function sampleOf(rows: readonly LoadRequestRow[], metric: typeof CDF_METRICS[number][0]): number[] {
  const ok = rows.filter((r) => r.phase === "measure" && r.status === "success");
  if (metric === "itl_s") return ok.flatMap((r) => r.itl_s ?? []);
  return ok.flatMap((r) => (r[metric] === null ? [] : [r[metric] as number]));
}

function cdfChart(rows: readonly LoadRequestRow[], metric: typeof CDF_METRICS[number][0], title: string): ChartSpec {
  const sample = sampleOf(rows, metric);
  const values = empiricalCdf(sample).map((p) => ({ ms: p.value * 1000, fraction: p.fraction }));
  return {
    title: `${title} CDF (n=${sample.length})`,
    width: 260,
    height: 150,
    data: { values },
    mark: { type: "line", interpolate: "step-after", color: "#4c78a8" },
    encoding: {
      x: { field: "ms", type: "quantitative", title: "ms" },
      y: { field: "fraction", type: "quantitative", title: "fraction ≤ x", scale: { domain: [0, 1] } },
    },
  } as unknown as ChartSpec;
}

function overTimeCharts(rows: readonly LoadRequestRow[], summary: EndpointLoadSummary): ChartSpec[] {
  const bins = summary.bins.map((b) => ({
    t: b.start_s,
    rps: b.requests_per_s,
    tps: b.output_tokens_per_s,
  }));
  const sent = rows.filter((r) => r.phase === "measure" && r.send_offset_s !== null && r.end_offset_s !== null);
  const first = Math.min(...sent.map((r) => r.send_offset_s as number));
  const steps = levelOverTime(
    sent.map((r) => ({ startS: (r.send_offset_s as number) - first, endS: (r.end_offset_s as number) - first })),
  ).map((s) => ({ t: s.startS, level: s.level }));
  const line = (title: string, values: unknown[], field: string, yTitle: string, step: boolean) => ({
    title,
    width: 260,
    height: 150,
    data: { values },
    mark: { type: "line", interpolate: step ? "step-after" : "linear", point: !step, color: "#f58518" },
    encoding: {
      x: { field: "t", type: "quantitative", title: "s since the first measured send" },
      y: { field, type: "quantitative", title: yTitle },
    },
  });
  return [
    line(`Completed requests/s per ${summary.bin_width_s} s bin`, bins, "rps", "requests/s", false),
    line(`Output tokens/s per ${summary.bin_width_s} s bin`, bins, "tps", "tokens/s", false),
    line("Requests in flight", steps, "level", "in flight", true),
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
    ["E2E latency s", d.latency_s],
    ["TTFT s", d.ttft_s],
    ["TPOT s", d.tpot_s],
    ["ITL s", d.itl_s],
    ["Coordinated-omission latency s", d.co_latency_s],
  ];
  const cells = rows.map(([name, x]) =>
    `<tr><td>${escapeHtml(name)}</td><td>${x.n}</td><td>${number(x.p50)}</td><td>${number(x.p90)}${
      x.unreliable.p90 ? " *" : ""
    }</td><td>${number(x.p99)}${x.unreliable.p99 ? " *" : ""}</td><td>${number(x.max)}</td></tr>`
  ).join("\n");
  const c = summary.counts;
  return `<p>${c.succeeded} of ${c.attempted} measured requests succeeded, ${c.failed} failed, ${c.dropped} dropped; ` +
    `window ${number(summary.window_s)} s, ${number(summary.requests_per_s)} requests/s, ` +
    `${number(summary.output_tokens_per_s)} output tokens/s.</p>\n` +
    `<table><thead><tr><th>metric</th><th>n</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr></thead>` +
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
    const views: { label: string; rows: LoadRequestRow[]; summary: EndpointLoadSummary }[] = run.summary.endpoints.map(
      (summary, i) => ({ label: summary.label, rows: run.rows.filter((r) => r.endpoint_index === i), summary }),
    );
    if (views.length > 1) views.push({ label: POOLED_LABEL, rows: run.rows, summary: run.summary.overall });
    for (const view of views) {
      const charts = [
        ...CDF_METRICS.map(([m, t]) => cdfChart(view.rows, m, t)),
        ...overTimeCharts(view.rows, view.summary),
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
