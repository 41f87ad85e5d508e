/**
 * `load --html` and `compare --html`: one self-contained HTML page (inline SVG pictures drawn with report/'s
 * charts, inline CSS, no script, no external reference) that opens offline. For a load test, per run and per
 * endpoint (and pooled when several were loaded): latency CDFs (E2E, TTFT, TPOT, ITL, coordinated-omission
 * latency) of the measured successes, throughput over time binned by completion, and requests in flight over
 * time; a table of the summary's distributions beside them, with goodput, errors and lateness. For a gate: each
 * point's baseline and candidate with the gate band. Both pages open with the configuration block (what was run)
 * and, across several load levels, the throughput-versus-latency curve. Metric names and units are the console's
 * (latencies in ms). The CDFs and the in-flight steps are score/'s; the other numbers are the summaries'.
 */
import { type ChartSpec, latencyCurveSpec, renderChartSvg } from "../report/mod.ts";
import { type CdfPoint, empiricalCdf, empiricalCdfCounted, levelOverTime } from "../score/mod.ts";
import type { LoadRunResult } from "./execute.ts";
import type { CompareMetric, CompareResult } from "./gate/gate.ts";
import { configurationBlock, escapeHtml, ms, number, page, type PageContext, sloText } from "./_html_parts.ts";
import { curvePoints } from "./saved/saved_report.ts";
import { eachRow, type EndpointLoadSummary, POOLED_LABEL, type RowSelection, type Slo } from "./summary.ts";
import { completionBins } from "./throughput.ts";

/** Above this many measured requests the in-flight picture is left out (its step list would be too large). */
const MAX_IN_FLIGHT_REQUESTS = 1_000_000;

const CDF_METRICS = [
  ["latency_s", "E2E latency"],
  ["ttft_s", "TTFT"],
  ["tpot_s", "TPOT"],
  ["itl_s", "ITL"],
  ["co_latency_s", "Coordinated-omission latency"],
] as const;

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
  eachRow(parts, (store, i) => {
    const v = store.numeric[metric].at(i);
    if (store.statusAt(i) === "success" && !Number.isNaN(v)) sample.push(v);
  });
  return { points: empiricalCdf(sample), n: sample.length };
}

/** The SLO a CDF's metric is held to (--slo-*-ms), by metric. */
const SLO_OF: Partial<Record<typeof CDF_METRICS[number][0], keyof Slo>> = {
  latency_s: "e2eS",
  ttft_s: "ttftS",
  tpot_s: "tpotS",
};

/**
 * The CDF picture of one metric, with its SLO as a dashed rule where one was set (goodput counts the requests left
 * of it); null where no request measured it (the table says "not measured").
 */
function cdfChart(
  parts: readonly RowSelection[],
  metric: typeof CDF_METRICS[number][0],
  title: string,
  slo: Slo,
): ChartSpec | null {
  const cdf = cdfOf(parts, metric);
  if (cdf.n === 0) return null;
  const values = cdf.points.map((p) => ({ ms: p.value * 1000, fraction: p.fraction }));
  const sloS = SLO_OF[metric] === undefined ? undefined : slo[SLO_OF[metric]!];
  const sloMs = sloS === undefined ? [] : [sloS * 1000];
  const x = {
    field: "ms",
    type: "quantitative",
    title: "ms",
    scale: xScale([...values.map((v) => v.ms), ...sloMs], 1),
  };
  const curve = {
    data: { values },
    mark: { type: "line", interpolate: "step-after", color: "#4c78a8" },
    encoding: { x, y: { field: "fraction", type: "quantitative", title: "fraction ≤ x", scale: { domain: [0, 1] } } },
  };
  const rule = {
    data: { values: sloMs.map((ms) => ({ ms })) },
    mark: { type: "rule", color: "#e45756", strokeDash: [4, 3] },
    encoding: { x: { ...x, title: "ms" } },
  };
  return {
    title: `${title} CDF (n=${cdf.n})${sloMs.length > 0 ? `, SLO ${number(sloMs[0]!)} ms` : ""}`,
    width: 260,
    height: 150,
    ...(sloMs.length > 0 ? { layer: [curve, rule] } : curve),
  } as unknown as ChartSpec;
}

/** Seconds as a bin width is titled: "2 s", "0.5 s", "1.37 s". */
const seconds = (s: number) => `${Number(s.toPrecision(3))} s`;

function overTimeCharts(parts: readonly RowSelection[], summary: EndpointLoadSummary): ChartSpec[] {
  const sent: { startS: number; endS: number }[] = [];
  const ends: number[] = [], tokens: number[] = [];
  let first = Infinity, last = -Infinity;
  let total = 0;
  for (const p of parts) total += p.store.size;
  eachRow(parts, (store, i) => {
    const start = store.numeric.send_offset_s.at(i), end = store.numeric.end_offset_s.at(i);
    if (Number.isNaN(start) || Number.isNaN(end)) return;
    if (total <= MAX_IN_FLIGHT_REQUESTS) sent.push({ startS: start, endS: end });
    [first, last] = [Math.min(first, start), Math.max(last, end)];
    if (store.statusAt(i) !== "success") return;
    ends.push(end);
    tokens.push(store.numeric.output_tokens.at(i));
  });
  // Throughput by completion over the whole window, in bins at least as long as a typical request (the summary's
  // own bins follow the methodology: by send time, which stops where the last request was sent).
  const { width_s, bins } = completionBins(
    ends.map((e) => e - first),
    tokens,
    last - first,
    summary.distributions.latency_s.p50,
    summary.bin_width_s,
  );
  const binned = bins.map((b) => ({ t: b.mid_s, rps: b.requests_per_s, tps: b.output_tokens_per_s }));
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
        // The whole window, from the first measured send to the last end: a single bin is no lone dot on a 1 s axis.
        scale: last > first
          ? { domain: [0, last - first], nice: false }
          : xScale(values.map((v) => v.t), summary.bin_width_s),
      },
      y: { field, type: "quantitative", title: yTitle, scale: { zero: true } },
    },
  });
  const by = `by completion, ${seconds(width_s)} bins`;
  return [
    line(`Completed requests/s (${by})`, binned, "rps", "requests/s", false),
    line(`Output tokens/s (${by})`, binned, "tps", "tokens/s", false),
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

/** Goodput, errors and lateness in one sentence: what a load test is for, besides its speed. */
function outcomeLine(summary: EndpointLoadSummary, slo: string): string {
  const c = summary.counts;
  const goodput = summary.goodput_requests_per_s === null
    ? `goodput not measured (${summary.missing.goodput_requests_per_s ?? "no SLO"})`
    : `goodput ${number(summary.goodput_requests_per_s)} requests/s within the SLOs (${slo})`;
  const errors = `errors: ${c.failed} failed, ${c.dropped} dropped (error rate ${
    summary.error_rate === null ? "not measured" : `${(summary.error_rate * 100).toFixed(2)}%`
  })`;
  const late = summary.distributions.lateness_s;
  const lateness = late.n === 0
    ? "lateness not measured (a closed loop sends on completion: it has no schedule to be late against)"
    : `lateness: ${c.late} late, p50 ${ms(late.p50)} ms, p99 ${ms(late.p99)} ms`;
  return `<p><strong>${escapeHtml(goodput)}</strong>; ${escapeHtml(errors)}; ${escapeHtml(lateness)}.</p>`;
}

function distributionTable(summary: EndpointLoadSummary, slo: string): string {
  const d = summary.distributions;
  const rows: [string, typeof d.latency_s][] = [
    ["E2E latency", d.latency_s],
    ["TTFT", d.ttft_s],
    ["TPOT", d.tpot_s],
    ["ITL", d.itl_s],
    ["Coordinated-omission latency", d.co_latency_s],
    ["Lateness", d.lateness_s],
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
    `${number(summary.output_tokens_per_s)} output tokens/s.</p>\n${outcomeLine(summary, slo)}\n` +
    `<table><thead><tr><th>metric</th><th>n</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th></tr>` +
    "</thead>" +
    `<tbody>\n${cells}\n</tbody></table>\n<p class="note">Percentiles are Hyndman-Fan type 7; * marks a tail ` +
    "percentile with too few samples to be reliable.</p>";
}

/** The configuration block and, across two or more load levels, the throughput-versus-latency curve. */
async function opening(context: PageContext | undefined, title: string): Promise<string[]> {
  if (context === undefined) return [];
  const out = [configurationBlock(context)];
  const spec = latencyCurveSpec(title, curvePoints(context.summaries));
  if (spec !== null) out.push(await renderChartSvg(spec));
  return out;
}

/**
 * The page of a load test: what was run (with `context`), then every run, each endpoint and (with several) the
 * pooled mixture.
 */
export async function renderLoadHtml(
  runs: readonly Pick<LoadRunResult, "store" | "summary">[],
  heading: string,
  context?: PageContext,
): Promise<string> {
  const parts = [`<h1>${escapeHtml(heading)}</h1>`, ...await opening(context, "Throughput against latency")];
  const levels = runs.map(({ summary }) =>
    summary.mode === "open"
      ? `rate ${number(summary.config.requested_rate_per_s as number)}/s`
      : `concurrency ${summary.effective_max_concurrency}`
  );
  // A sweep's runs are its points, each at its own level; runs at one level are repeats.
  const sweep = runs.length > 1 && new Set(levels).size === runs.length;
  for (const [index, run] of runs.entries()) {
    const title = sweep
      ? `Point ${index + 1} of ${runs.length}: ${levels[index]},`
      : `Run ${index + 1} of ${runs.length}:`;
    const endpoints = run.store.endpoints();
    const views: { label: string; parts: RowSelection[]; summary: EndpointLoadSummary }[] = run.summary.endpoints.map(
      (summary, i) => ({ label: summary.label, parts: [{ store: run.store, endpoints: [endpoints[i]!] }], summary }),
    );
    if (views.length > 1) {
      views.push({ label: POOLED_LABEL, parts: [{ store: run.store, endpoints }], summary: run.summary.overall });
    }
    for (const view of views) {
      const charts = [
        ...CDF_METRICS.map(([m, t]) => cdfChart(view.parts, m, t, run.summary.slo)).filter((c) => c !== null),
        ...overTimeCharts(view.parts, view.summary),
      ];
      parts.push(
        `<section><h2>${title} ${escapeHtml(view.label)} (${run.summary.mode} loop)</h2>`,
        distributionTable(view.summary, sloText(run.summary.slo)),
        await svgGrid(charts, 4),
        "</section>",
      );
    }
  }
  return page(heading, parts.join("\n"));
}

/** Each metric as the console names it, its unit, and the factor from the verdict's value to that unit. */
const GATE_METRICS: Readonly<Record<CompareMetric, { name: string; label: string; scale: number }>> = {
  output_tokens_per_s: { name: "Output tok/s", label: "Output tok/s", scale: 1 },
  tpot_p50_s: { name: "TPOT p50", label: "TPOT p50 (ms)", scale: 1000 },
  ttft_p50_s: { name: "TTFT p50", label: "TTFT p50 (ms)", scale: 1000 },
  error_rate: { name: "Error rate", label: "Error rate (%)", scale: 100 },
  thinking_p50_s: { name: "Thinking p50", label: "Thinking p50 (ms)", scale: 1000 },
  reasoning_tpot_p50_s: { name: "Reasoning TPOT p50", label: "Reasoning TPOT p50 (ms)", scale: 1000 },
  answer_tpot_p50_s: { name: "Answer TPOT p50", label: "Answer TPOT p50 (ms)", scale: 1000 },
};

/** A verdict value in its console unit. */
function gateValue(metric: CompareMetric, value: number | null): number | null {
  return value === null ? null : value * GATE_METRICS[metric].scale;
}

/**
 * The page of a gate: what was compared (with `context`), the throughput-versus-latency curve of both sides, per
 * gated metric each point's baseline and candidate with the band the gate allows, and the table of every metric.
 */
export async function renderCompareHtml(
  result: CompareResult,
  heading: string,
  context?: PageContext,
): Promise<string> {
  const rows: string[] = [];
  const charts = (["output_tokens_per_s", "tpot_p50_s", "ttft_p50_s"] as const).map((metric) =>
    gateChart(result, metric)
  );
  for (const p of result.points) {
    for (const metric of ["output_tokens_per_s", "tpot_p50_s", "error_rate", "ttft_p50_s"] as const) {
      const m = p.metrics.find((x) => x.metric === metric);
      if (!m) continue;
      const { label } = GATE_METRICS[metric];
      const verdict = m.pass === null ? "informational" : m.pass ? "pass" : "fail";
      const delta = m.delta_fraction === null
        ? "not measured"
        : metric === "error_rate"
        ? `${(m.delta_fraction * 100).toFixed(2)} points`
        : `${(m.delta_fraction * 100).toFixed(1)}%`;
      rows.push(
        `<tr><td>${escapeHtml(`${p.workload} c=${p.concurrency}`)}</td><td>${escapeHtml(label)}</td>` +
          `<td>${number(gateValue(metric, m.baseline))}</td><td>${number(gateValue(metric, m.candidate))}</td>` +
          `<td>${delta}</td><td>${
            m.allowed_fraction === null ? "" : `±${(m.allowed_fraction * 100).toFixed(1)}%`
          }</td>` +
          `<td class="${verdict === "fail" ? "fail" : verdict === "pass" ? "pass" : ""}">${verdict}</td>` +
          `<td>${escapeHtml(m.reason)}</td></tr>`,
      );
    }
  }
  const verdict = result.pass ? '<span class="pass">the gate holds</span>' : '<span class="fail">the gate fails</span>';
  const body = [
    `<h1>${escapeHtml(heading)}</h1>`,
    ...await opening(context, "Throughput against latency: baseline and candidate"),
    `<p>${verdict} (tolerance ±${(result.tolerance_fraction * 100).toFixed(1)}% or the point's noise floor when ` +
    "wider). Square: baseline; diamond: candidate; band: what the gate allows.</p>",
    await svgGrid(charts, 3),
    "<table><thead><tr><th>point</th><th>metric</th><th>baseline</th><th>candidate</th><th>delta</th>" +
    `<th>allowed</th><th>verdict</th><th>reason</th></tr></thead><tbody>\n${rows.join("\n")}\n</tbody></table>`,
  ].join("\n");
  return page(heading, body);
}

/** One gated metric's chart: per point the baseline with the band the gate allows, and the candidate. */
function gateChart(result: CompareResult, metric: "output_tokens_per_s" | "tpot_p50_s" | "ttft_p50_s"): ChartSpec {
  const { name, label } = GATE_METRICS[metric];
  const values = result.points.flatMap((p) => {
    const m = p.metrics.find((x) => x.metric === metric);
    if (!m) return [];
    const allowed = m.allowed_fraction;
    const base = gateValue(metric, m.baseline);
    return [{
      point: `${p.workload} c=${p.concurrency}`,
      side: "baseline",
      value: base,
      low: base !== null && allowed !== null ? base * (1 - allowed) : null,
      high: base !== null && allowed !== null ? base * (1 + allowed) : null,
    }, { point: `${p.workload} c=${p.concurrency}`, side: "candidate", value: gateValue(metric, m.candidate) }];
  });
  const x = { field: "point", type: "nominal", title: "concurrency point", sort: null, axis: { labelAngle: 0 } };
  // From zero: a panel fitted to its two values makes a 1% difference fill it (the band shows what the gate allows).
  const y = { field: "value", type: "quantitative", title: label, scale: { zero: true, nice: true } };
  return {
    title: `${name}${metric === "ttft_p50_s" ? " (informational, not gated)" : ": candidate against the gate band"}`,
    width: 300,
    height: 200,
    data: { values },
    layer: [
      {
        transform: [{ filter: "datum.low !== null" }],
        mark: { type: "bar", opacity: 0.25, color: "#54a24b", size: 36 },
        encoding: { x, y: { field: "low", type: "quantitative", title: label }, y2: { field: "high" } },
      },
      {
        mark: { type: "point", filled: true, size: 110 },
        encoding: {
          x,
          y,
          shape: { field: "side", type: "nominal", title: null, scale: { range: ["square", "diamond"] } },
          color: {
            field: "side",
            type: "nominal",
            title: null,
            scale: { range: ["#4c78a8", "#e45756"] },
            legend: { orient: "bottom" },
          },
        },
      },
    ],
  } as unknown as ChartSpec;
}
