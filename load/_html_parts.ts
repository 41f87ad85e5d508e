/**
 * What the load and compare pages share: escaping, number formats (latencies in ms, as the console prints them),
 * the page frame, and the configuration block a page opens with (what was run: target, mode, rate or concurrency,
 * workload and its hash, duration, SLOs, toolkit version and commit, date), read from the JSONL's config line.
 */
import type { SavedSummary } from "./saved/saved_results.ts";
import type { Slo } from "./summary.ts";

type Fields = Record<string, unknown>;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function number(value: number | null | undefined, digits = 4): string {
  return value === null || value === undefined || !Number.isFinite(value)
    ? "not measured"
    : String(Number(value.toPrecision(digits)));
}

/** Seconds as milliseconds with three significant digits and no exponent ("0.000818", "12.3", "1520"). */
export function ms(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "not measured";
  const value = seconds * 1000;
  if (value === 0) return "0";
  const decimals = Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value)))));
  return value.toFixed(decimals);
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:90%}.fail{color:#b00020;font-weight:bold}.pass{color:#1b7a1b;font-weight:bold}
dl.config{display:grid;grid-template-columns:max-content auto;gap:2px 16px;background:#f6f8fa;padding:10px 14px;
border:1px solid #ddd}dl.config dt{font-weight:bold}dl.config dd{margin:0;font-family:monospace;word-break:break-all}
section{margin-bottom:32px}svg{max-width:100%;height:auto}</style></head>
<body>
${body}
</body></html>
`;
}

/** What a page knows beyond the JSONL: the toolkit and the date of a live run (a saved file's are in its name). */
export interface PageContext {
  /** The JSONL's config line. */
  config: Fields;
  /** Its summary lines (for the mode, the concurrency or rate, and the SLOs). */
  summaries: readonly SavedSummary[];
  /** "0.1.0 (commit abc...)" when the config line does not record it. */
  toolkit?: string;
  /** ISO date of the run, when known. */
  date?: string;
}

function targetOf(side: unknown): string {
  const s = (side ?? {}) as Fields;
  return typeof s.url === "string" ? s.url : typeof s.profile === "string" ? `profile ${s.profile}` : "not recorded";
}

function workloadText(w: Fields | undefined): string {
  if (w === undefined) return "not recorded";
  const hash = typeof w.selection_sha256 === "string" ? `selection SHA-256 ${w.selection_sha256}` : "no hash";
  return `${String(w.source ?? "unknown")}, ${String(w.selected_prompts ?? "?")} prompts, seed ${
    String(w.seed ?? "?")
  }; ${hash}`;
}

/** "TTFT <= 500 ms, TPOT <= 50 ms", or "none (goodput not measured)". */
export function sloText(slo: Slo | Fields | undefined): string {
  const s = slo as Fields | undefined;
  const parts = [["TTFT", s?.ttftS], ["TPOT", s?.tpotS], ["E2E", s?.e2eS]]
    .filter(([, v]) => typeof v === "number")
    .map(([name, v]) => `${name} <= ${ms(v as number)} ms`);
  return parts.length === 0 ? "none (goodput not measured)" : parts.join(", ");
}

/** The configuration block's rows: name and text, from the config line and the summaries. */
export function configurationRows(context: PageContext): [string, string][] {
  const c = context.config;
  const plan = (c.plan ?? {}) as Fields;
  const first = context.summaries[0];
  const cfg = (first?.config ?? {}) as Fields;
  const isCompare = c.kind === "config" && "baseline" in c;
  const rows: [string, string][] = [];
  if (isCompare) {
    rows.push(["baseline", targetOf(c.baseline)], ["candidate", targetOf(c.candidate)]);
    rows.push(["mode", `${first?.mode ?? "closed"} loop, concurrency points ${JSON.stringify(c.points ?? [])}`]);
    const workloads = Object.entries((c.workloads ?? {}) as Record<string, Fields>);
    for (const [label, w] of workloads) rows.push([`workload ${label}`, workloadText(w)]);
    const perRound = c.duration_s_per_round !== null && c.duration_s_per_round !== undefined
      ? `${String(c.duration_s_per_round)} s`
      : `${String(c.requests_per_round ?? "?")} requests`;
    rows.push(["duration", `${String(c.rounds ?? "?")} rounds of ${perRound} per side and point`]);
    rows.push([
      "gate",
      `tolerance ±${number(Number(c.tolerance) * 100, 3)}%, error rate +${String(c.max_error_rate_increase)}`,
    ]);
  } else {
    rows.push(["target", ((c.urls ?? []) as string[]).join(", ") || "not recorded"]);
    const mode = String(plan.mode ?? first?.mode ?? "?");
    // A sweep's points, or the one level of the plan.
    const sweep = Array.isArray(c.sweep) ? (c.sweep as Fields[]) : null;
    const points = (key: string, level: unknown) => sweep?.map((p) => String(p[key])).join(", ") ?? String(level);
    const level = mode === "open"
      ? `${points("ratePerS", plan.ratePerS ?? cfg.requested_rate_per_s ?? "?")} requests/s (${
        String(plan.arrival ?? "poisson")
      })` +
        (plan.maxConcurrency === undefined ? "" : `, at most ${String(plan.maxConcurrency)} in flight`)
      : `concurrency ${points("concurrency", plan.concurrency ?? first?.effective_max_concurrency ?? "?")}`;
    rows.push(["mode", `${mode} loop, ${level}${sweep === null ? "" : " (a sweep: one run per point)"}`]);
    rows.push(["workload", workloadText(c.workload as Fields | undefined)]);
    const stop = typeof plan.durationS === "number"
      ? `${plan.durationS} s`
      : `${String(plan.requests ?? "?")} requests`;
    rows.push([
      "duration",
      `${stop} measured after ${points("warmupRequests", plan.warmupRequests ?? 0)} warm-up, ${
        String(c.repeat ?? 1)
      } run(s)`,
    ]);
  }
  rows.push(["SLOs", sloText((c.slo ?? first?.slo) as Fields | undefined)]);
  const toolkit = c.toolkit as Fields | undefined;
  rows.push([
    "toolkit",
    toolkit !== undefined
      ? `strata-bench ${String(toolkit.version)} (commit ${String(toolkit.commit ?? "unknown")})`
      : context.toolkit ?? "not recorded in this file",
  ]);
  rows.push(["date", context.date ?? "not recorded in this file"]);
  return rows;
}

/** The configuration block as HTML. */
export function configurationBlock(context: PageContext): string {
  const rows = configurationRows(context).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`);
  return `<dl class="config">\n${rows.join("\n")}\n</dl>`;
}
