/**
 * Console text of load tests and release gates. Every number comes from a summary, aggregate or verdict object;
 * nothing is computed here that the JSONL does not hold.
 */
import type { DistSummary } from "../score/mod.ts";
import type { LoadAggregate } from "./aggregate.ts";
import type { LoadRunResult } from "./execute.ts";
import type { LoadTestHooks } from "./_load_types.ts";
import type { CompareMetric, CompareResult } from "./gate/gate.ts";
import { ceilingOrigin, type HeadroomStamp } from "./headroom.ts";
import type { EndpointLoadSummary, LoadPhases, LoadSummary } from "./summary.ts";

function fmt(value: number | null, unit: "s" | "ms" | "" = "", digits = 2): string {
  if (value === null) return "-";
  if (unit === "ms") return (value * 1000).toFixed(digits);
  return value.toFixed(digits);
}

/** The widest line of the per-run text: the one-screen ending's width (no line over 100 columns). */
const WIDTH = 100;

/** Each line of `text` broken at spaces into lines of at most WIDTH columns, the later ones indented by two. */
function wrap(text: string): string {
  return text.split("\n").map((line) => {
    const out: string[] = [];
    let rest = line;
    while (rest.length > WIDTH) {
      const cut = rest.lastIndexOf(" ", WIDTH);
      if (cut <= 2) break;
      out.push(rest.slice(0, cut));
      rest = `  ${rest.slice(cut + 1)}`;
    }
    return [...out, rest].join("\n");
  }).join("\n");
}

/**
 * The table's columns: name, n, mean, sd, mad, p50, p90, p95, p99, max. One space apart they take 98 columns for
 * values below 100,000 (ms or tokens) and counts below ten million; a value at or above 100,000 drops its decimals.
 */
const COLUMNS = [15, 7, 8, 8, 8, 8, 9, 9, 9, 8];

/** Cells set in the table's columns, the name left-aligned, the numbers right-aligned. */
function tableRow(cells: readonly string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(COLUMNS[0]!) : c.padStart(COLUMNS[i]!))).join(" ");
}

/** A table's number: two decimals, none at or above 100,000 (so that it keeps to its column). */
function fixed(value: number): string {
  return value.toFixed(Math.abs(value) >= 100_000 ? 0 : 2);
}

function distRow(name: string, d: DistSummary, unit: "ms" | ""): string {
  const cell = (x: number | null, unreliable = false): string => {
    if (x === null) return "-";
    return `${fixed(unit === "ms" ? x * 1000 : x)}${unreliable ? "*" : ""}`;
  };
  const u = d.unreliable;
  return tableRow([
    name,
    String(d.n),
    cell(d.mean),
    cell(d.sd),
    cell(d.mad),
    cell(d.p50),
    cell(d.p90, u.p90),
    cell(d.p95, u.p95),
    cell(d.p99, u.p99),
    cell(d.max),
  ]);
}

/** Console text of one endpoint summary. */
export function renderEndpointSummary(s: EndpointLoadSummary): string {
  const c = s.counts;
  const lines = [
    `== ${s.label}`,
    `requests: ${c.attempted} sent, ${c.succeeded} ok, ${c.failed} failed` +
    (c.cancelled_at_drain > 0 ? ` (${c.cancelled_at_drain} cancelled at the drain limit)` : "") +
    `, ${c.dropped} dropped, ${c.late} late` +
    (c.cancelled > 0 ? `, ${c.cancelled} cancelled by the interruption (not failures)` : ""),
    `ok: ${c.answered} answered, ${c.reasoning_truncated} reasoning_truncated, ${c.no_output_token} no_output_token`,
    `window ${fmt(s.window_s, "s", 3)} s | ${fmt(s.requests_per_s)} req/s | ${
      fmt(s.output_tokens_per_s, "", 1)
    } output tok/s` +
    ` | goodput ${fmt(s.goodput_requests_per_s)} req/s | error rate ${fmt(s.error_rate, "", 4)}`,
    `in flight: mean ${fmt(s.concurrency.mean)} p50 ${fmt(s.concurrency.p50, "", 0)} max ${s.concurrency.max}` +
    (s.concurrency.cap_engaged_fraction !== null
      ? ` | at cap ${fmt(s.concurrency.cap_engaged_fraction * 100, "", 1)}%`
      : "") +
    (s.achieved_send_rate_per_s !== null ? ` | achieved send rate ${fmt(s.achieved_send_rate_per_s, "", 3)}/s` : ""),
    tableRow(["metric (ms)", "n", "mean", "sd", "mad", "p50", "p90", "p95", "p99", "max"]),
  ];
  const d = s.distributions;
  for (
    const [name, dist] of [
      ["e2e latency", d.latency_s],
      ["co latency", d.co_latency_s],
      ["ttft", d.ttft_s],
      ["first byte", d.first_byte_s],
      ["first reasoning", d.first_reasoning_s],
      ["first answer", d.first_answer_s],
      ["tpot", d.tpot_s],
      ["itl (chunks)", d.itl_s],
      // The reasoning cadence: only requests that streamed reasoning (absent from older summaries).
      ["thinking", d.thinking_s],
      ["reasoning tpot", d.reasoning_tpot_s],
      ["reasoning itl", d.reasoning_itl_s],
      ["answer tpot", d.answer_tpot_s],
      ["lateness", d.lateness_s],
    ] as const
  ) if (dist !== undefined && dist.n > 0) lines.push(distRow(name, dist, "ms"));
  for (const [name, dist] of [["input tokens", d.input_tokens], ["output tokens", d.output_tokens]] as const) {
    if (dist.n > 0) lines.push(distRow(name, dist, ""));
  }
  for (const [name, check] of [["ISL", s.isl], ["OSL", s.osl]] as const) {
    if (check === null) continue;
    lines.push(
      `${name}: target ${check.target} +-${fmt(check.tolerance * 100, "", 0)}% | achieved ${check.stat} ` +
        `${fmt(check.achieved, "", 1)} (${
          check.within ? "within" : "outside"
        }) | ${check.mismatches}/${check.checked} requests outside`,
    );
  }
  return lines.map(wrap).join("\n") + "\n";
}

/** Console text of a run summary: per endpoint, then the pooled mixture when there are several. */
export function renderLoadSummary(summary: LoadSummary): string {
  const cap = summary.effective_max_concurrency ?? "none (open loop, uncapped)";
  const stopped = summary.interrupted === undefined
    ? ""
    : `load: INTERRUPTED by ${summary.interrupted.by}: NOT A COMPLETE RESULT; ${summary.interrupted.note}\n`;
  const head = `${stopped}load: ${summary.mode} loop, effective max concurrency ${cap}\n` +
    "percentiles: Hyndman-Fan type 7 (* = unreliable at this n)\n";
  const parts = summary.endpoints.map(renderEndpointSummary);
  if (summary.endpoints.length > 1) parts.push(renderEndpointSummary(summary.overall));
  return wrap(head) + parts.join("") + renderRunNotes(summary);
}

/** One line: how the warm-up, measured issuance and drain of a run ended. */
export function renderPhases(p: LoadPhases): string {
  const limit = p.warmup.limit_s === null ? "" : ` (limit ${p.warmup.limit_s} s)`;
  const warmup = p.warmup.ended === "none"
    ? "no warm-up"
    : p.warmup.ended === "limit"
    ? `warm-up OVERRAN its limit of ${p.warmup.limit_s} s: cancelled, nothing measured`
    : `warm-up ${p.warmup.ended} in ${p.warmup.seconds.toFixed(2)} s${limit}`;
  const measure = p.measure.ended === "not-started"
    ? "measurement not started"
    : `measured issuance stopped by ${p.measure.ended}, run ended at ${p.measure.seconds.toFixed(2)} s`;
  const drain = p.drain.limit_s === null
    ? "no drain limit"
    : `drain limit ${p.drain.limit_s} s: ${p.drain.cancelled} in-flight requests cancelled`;
  return `phases: ${warmup} | ${measure} | ${drain}`;
}

/** The lines after the distributions: workload provenance, audits, drain, client headroom. */
function renderRunNotes(summary: LoadSummary): string {
  const lines: string[] = [];
  const mix = summary.prompt_mix as
    | { source?: string; provenance?: { kind?: string; corpus?: string; text_license?: string } }
    | undefined;
  if (mix?.provenance) {
    const p = mix.provenance;
    const what = p.kind === "real-text"
      ? `real text (${p.corpus}; ${p.text_license?.split(":")[0]})`
      : p.kind === "synthetic"
      ? "SYNTHETIC (generated word salad, not real text)"
      : "prompt file";
    lines.push(`workload: ${mix.source}, ${what}`);
  }
  if (summary.phases) lines.push(renderPhases(summary.phases));
  const a = summary.audits;
  if (a) {
    lines.push(
      `audits: TTFT ${a.ttft.pass ? "pass" : "FAIL"} (${a.ttft.missing}/${a.ttft.checked} successes without TTFT` +
        `${a.ttft.allowed ? ", allowed" : ""}) | reasoning-truncated ${a.reasoning_truncated.count}` +
        (a.reasoning_truncated.rejected ? ` (${a.reasoning_truncated.pass ? "none to reject" : "REJECTED"})` : "") +
        (a.warmup.warning ? ` | warm-up: ${a.warmup.warning}` : ""),
    );
  }
  const h = summary.client_headroom as HeadroomStamp | undefined;
  if (h) {
    lines.push(
      h.ceiling === null || h.fraction_of_ceiling === null
        ? `client headroom: ${h.missing ?? "not measured"}`
        : `client headroom: ${fmt(h.fraction_of_ceiling * 100, "", 1)}% of the client's ceiling ` +
          `(${fmt(h.ceiling.events_per_s, "", 0)} events/s, ${ceilingOrigin(h.ceiling)})`,
    );
  }
  return lines.length === 0 ? "" : lines.map(wrap).join("\n") + "\n";
}

/** Console text of a cross-run aggregate. */
export function renderAggregate(agg: LoadAggregate): string {
  const lines = [`across ${agg.runs} runs (seeded percentile bootstrap, 95%, seed ${agg.seed}):`];
  for (const m of agg.metrics) {
    if (m.n === 0) continue;
    const iv = m.interval ? `[${m.interval.lower.toPrecision(4)}, ${m.interval.upper.toPrecision(4)}]` : "-";
    const flag = m.unreliable ? ` (* unreliable: ${m.unreliable})` : "";
    lines.push(
      `  ${m.metric.padEnd(24)} mean ${m.mean?.toPrecision(4)} sd ${m.sd?.toPrecision(3) ?? "-"} 95% ${iv}${flag}`,
    );
  }
  return wrap(lines.join("\n")) + "\n";
}

/** Self-check figures: the client's own ceiling against a zero-service-time engine. */
export function renderSelfCheck(run: LoadRunResult): string {
  const s = run.summary.overall;
  const eventsPerS = s.window_s !== null && s.window_s > 0 ? run.measuredEvents / s.window_s : null;
  return wrap(
    `self-check (scripted engine in-process, zero service time; client and engine share these cores):\n` +
      `  client ceiling: ${fmt(s.requests_per_s, "", 1)} req/s, ${fmt(s.output_tokens_per_s, "", 0)} output tok/s, ` +
      `${fmt(eventsPerS, "", 0)} SSE events/s at ${run.facts.effective_max_concurrency} concurrent streams;\n` +
      `  TTFT p50 ${fmt(s.distributions.ttft_s.p50, "ms")} ms p99 ${fmt(s.distributions.ttft_s.p99, "ms")} ms; ` +
      "a real target's throughput must stay well below this ceiling for its numbers to describe the server\n",
  );
}

/** A signed percentage of a fraction to one decimal ("+5.7%", "-10.0%"; "-" for null). */
export function signedPercent(x: number | null): string {
  if (x === null) return "-";
  const shown = (x * 100).toFixed(1);
  // A value that rounds to zero is +0.0%, never -0.0% (a sign the figure cannot carry).
  return `${x >= 0 || Number(shown) === 0 ? "+" : ""}${Number(shown) === 0 ? "0.0" : shown}%`;
}

/** Each gate metric as the load console names it, in its unit there (ms, not s). */
const METRIC_NAMES: Readonly<Record<CompareMetric, string>> = {
  output_tokens_per_s: "output tok/s",
  tpot_p50_s: "TPOT p50 ms",
  error_rate: "error rate",
  ttft_p50_s: "TTFT p50 ms",
  thinking_p50_s: "thinking p50 ms",
  reasoning_tpot_p50_s: "reasoning TPOT p50 ms",
  answer_tpot_p50_s: "answer TPOT p50 ms",
};

/**
 * Table of deltas with intervals, from the verdict object: a heading line per point (saying where its noise floor
 * was recorded) and its metrics under it, numbers right-aligned one space apart as on the load console, so that no
 * line is over WIDTH columns (a row that still is, with extreme values, wraps).
 */
export function renderCompare(result: CompareResult): string {
  const header = ["metric", "baseline", "candidate", "delta", "95% interval", "allowed", "floor", "verdict"];
  const points = result.points.map((p) => ({
    key: p.key + (p.metrics.some((m) => m.noise_floor_source === "recorded") ? " (noise floor recorded)" : ""),
    rows: p.metrics.map((m) => {
      const cell = (x: number | null) =>
        x === null
          ? "-"
          : m.metric === "error_rate"
          ? signedPercent(x).replace("+", "")
          : m.metric === "output_tokens_per_s"
          ? fmt(x, "", 1)
          : fixed(x * 1000);
      return [
        METRIC_NAMES[m.metric],
        cell(m.baseline),
        cell(m.candidate),
        signedPercent(m.delta_fraction),
        m.delta_interval ? `[${signedPercent(m.delta_interval.lower)}, ${signedPercent(m.delta_interval.upper)}]` : "-",
        m.allowed_fraction === null
          ? "-"
          : `${m.metric === "error_rate" ? "+" : "+-"}${(m.allowed_fraction * 100).toFixed(1)}%`,
        m.noise_floor_fraction === null ? "-" : `${(m.noise_floor_fraction * 100).toFixed(1)}%`,
        m.pass === null ? "info" : m.pass ? "pass" : `FAIL${m.reason.startsWith("missing") ? " (missing)" : ""}`,
      ];
    }),
  }));
  const widths = header.map((h, i) => Math.max(h.length, ...points.flatMap((p) => p.rows).map((r) => r[i]!.length)));
  const line = ([name, ...cells]: string[]) =>
    `  ${name!.padEnd(widths[0]!)}  ${cells.slice(0, -1).map((c, i) => c.padStart(widths[i + 1]!)).join(" ")} ` +
    cells.at(-1);
  // Each informational caveat once under the table, naming its rows (TTFT: its cohort and issuance), as the JSONL does.
  const info = result.points.flatMap((p) => p.metrics.filter((m) => m.pass === null));
  const caveats = [...Map.groupBy(info, (m) => m.reason)].map(([reason, metrics]) =>
    `${[...new Set(metrics.map((m) => METRIC_NAMES[m.metric]))].join(", ")}: ${reason}`
  );
  return wrap([
    `compare: tolerance +-${(result.tolerance_fraction * 100).toFixed(1)}% or the point's noise floor (the ` +
    `baseline's own rounds, or recorded); error rate may rise by ${
      signedPercent(result.max_error_rate_increase).slice(1)
    }; ` +
    `intervals: seeded percentile bootstrap over rounds (seed ${result.seed})`,
    line(header),
    ...points.flatMap((p) => [p.key, ...p.rows.map(line)]),
    ...caveats,
    `gate: ${result.pass ? "PASS" : "FAIL"}`,
  ].join("\n")) + "\n";
}

/** Where console text goes. */
export interface ConsoleWriters {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Hooks that print a load test as it runs: a line on stderr as each run starts, its summary (and, for the
 * self-check, the client's ceiling) on stdout as it ends, then the aggregate, and where the JSONL went.
 */
export function consoleHooks(options: { selfCheck: boolean }, io: ConsoleWriters): LoadTestHooks {
  return {
    onHeadroom: (c) =>
      io.stderr(
        `load: client ceiling ${Math.round(c.events_per_s)} events/s, ${c.requests_per_s.toFixed(1)} req/s at ` +
          `${c.shape.concurrency} streams x ${c.shape.outputTokens} tokens (${c.source})\n`,
      ),
    onWarning: (text) => io.stderr(`load: warning: ${text}\n`),
    onRunStart: (run, runs, urls) => io.stderr(`load: run ${run + 1}/${runs} against ${urls.join(", ")}\n`),
    onRunEnd: (run) => {
      io.stdout(renderLoadSummary(run.summary));
      if (options.selfCheck) io.stdout(renderSelfCheck(run));
    },
    onAggregate: (aggregate) => io.stdout(renderAggregate(aggregate)),
    onWritten: (path, lines) => io.stderr(`load: wrote ${lines} JSONL lines to ${path}\n`),
  };
}
