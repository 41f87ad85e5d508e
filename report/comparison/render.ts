/**
 * A comparison (comparison.ts) as Markdown, CSV, JSON, and a picture spec. Every format holds the same rows in
 * the same order, so a test can pin the output byte for byte. Text that came from result files is escaped for its
 * format: Markdown metacharacters, CSV quoting plus a leading apostrophe for cells a spreadsheet would run as a
 * formula. A simulated configuration is labelled SIMULATED in every format and on every row: a row can be copied
 * out of its table.
 */
import { METRIC_UNITS } from "../../contract/mod.ts";
import { BOOTSTRAP_RESAMPLES, LEFT_OUT_NOTE, type ValueRange } from "../../score/mod.ts";
import {
  COMPARED_METRICS,
  type ComparedConfiguration,
  type ComparedMetric,
  type Comparison,
  type ComparisonRow,
  type FactValue,
} from "./comparison.ts";
import {
  type CaseDelta,
  DELTA_METRICS,
  DELTA_SEED,
  type DeltaMetric,
  type MetricSample,
  RUN_DISAGREEMENT,
} from "./delta.ts";
import { fixed, metricDecimals, NOT_MEASURED, tokenRange } from "../_format.ts";
import { markdownTable, markdownText } from "../_markdown.ts";
import { wrapProse } from "../render.ts";

/** Format name and schema version of `--format json`. */
export const COMPARISON_FORMAT = "strata-bench-comparison" as const;
/**
 * Version 3: snake_case keys, null for what was not measured, the round aggregate, the simulated labels, each
 * section's deltas and the medians of runs that disagree.
 */
export const COMPARISON_SCHEMA_VERSION = 3;

/** The label of a simulated configuration wherever it is named. */
export const SIMULATED = "SIMULATED";

const SECTION_TITLES = {
  complete: "Complete results",
  partial: "Partial results (required work was skipped: never a full-suite result, never ranked)",
  nonconforming: "Nonconforming results (they depart from the protocol: not comparable with standard results)",
} as const;

const METRIC_HEADS: Readonly<Record<ComparedMetric, string>> = {
  prompt_tps: "Prompt tok/s",
  decode_tps: "Decode tok/s",
  ttft_s: "TTFT s (median)",
  first_answer_s: "First answer s (median)",
};

function factText(value: FactValue): string {
  return value ?? NOT_MEASURED;
}

/** "server capacity 2; quantization Q8_0": facts as the configuration list and the picture's legend say them. */
export function factList(facts: readonly [string, FactValue][]): string {
  return facts.map(([k, v]) => `${k} ${factText(v)}`).join("; ");
}

/** A metric's name and unit as the delta table and the picture say it. */
export const DELTA_NAMES: Readonly<Record<DeltaMetric, string>> = {
  prompt_tps: "prompt tok/s",
  decode_tps: "decode tok/s",
  ttft_s: "TTFT s",
  first_answer_s: "first answer s",
  round_aggregate_tps: "round aggregate tok/s",
};

/** "runs disagree: 0.120 | 0.480 (not pooled)" where a configuration's runs disagree, else null. */
function disagreement(sample: MetricSample | undefined, decimals: number): string | null {
  const medians = sample?.disagreeingRunMedians;
  if (medians === null || medians === undefined) return null;
  return `runs disagree: ${medians.map((m) => fixed(m, decimals)).join("; ")} (not pooled)`;
}

/**
 * "41.2 [39.8-42.0] n=6" for rates; "0.123 n=6" for the latency medians; "left out" / "not measured (n=0)"; each
 * run's median where the runs disagree.
 */
export function metricCell(range: ValueRange | null, metric: ComparedMetric, sample?: MetricSample): string {
  if (range === null) return "left out (*)";
  const split = disagreement(sample, metricDecimals(metric));
  if (split !== null) return split;
  if (range.median === null) return `${NOT_MEASURED} (n=${range.n})`;
  const d = metricDecimals(metric);
  return METRIC_UNITS[metric] === "s"
    ? `${fixed(range.median, d)} n=${range.n}`
    : `${fixed(range.median, d)} [${fixed(range.min, d)}-${fixed(range.max, d)}] n=${range.n}`;
}

/** The optional stage's aggregate per round: "160.2 [150.1-171.0] n=3 rounds", empty for a required case. */
export function aggregateCell(range: ValueRange | null, sample?: MetricSample): string {
  if (range === null) return "";
  const split = disagreement(sample, 1);
  if (split !== null) return split;
  if (range.median === null) return `${NOT_MEASURED} (n=0)`;
  return `${fixed(range.median, 1)} [${fixed(range.min, 1)}-${fixed(range.max, 1)}] n=${range.n} rounds`;
}

function caseName(row: ComparisonRow): string {
  return row.concurrency > 1 ? `${row.caseId} x${row.concurrency}` : row.caseId;
}

export function configName(label: string, simulated: boolean): string {
  return simulated ? `${label} (${SIMULATED})` : label;
}

const TABLE_HEAD = [
  "Config",
  "Case",
  "Input tokens",
  "Cached tokens",
  "Output tokens",
  "Runs",
  ...COMPARED_METRICS.map((m) => METRIC_HEADS[m]),
  "Round aggregate tok/s",
  "Capped",
  "Sanity",
  "Status",
];

function tableRow(row: ComparisonRow): string[] {
  return [
    configName(row.configuration, row.simulated),
    caseName(row),
    tokenRange(row.inputTokens),
    tokenRange(row.cachedTokens),
    tokenRange(row.outputTokens),
    String(row.runs),
    ...COMPARED_METRICS.map((m) => metricCell(row.metrics[m], m, row.samples[m])),
    aggregateCell(row.roundAggregateTps, row.samples.round_aggregate_tps),
    `${row.capped}/${row.records}`,
    row.sanity.join(", "),
    row.status,
  ];
}

function simulatedConfigurations(comparison: Comparison): ComparedConfiguration[] {
  return comparison.groups.flatMap((g) => g.configurations.filter((c) => c.simulated));
}

export function simulatedBanner(comparison: Comparison): string | null {
  const simulated = simulatedConfigurations(comparison).map((c) => c.label);
  if (simulated.length === 0) return null;
  return `${SIMULATED}: configuration${simulated.length > 1 ? "s" : ""} ${simulated.join(", ")} ran against the ` +
    "scripted test engine, not a real inference engine; their numbers say nothing about any hardware.";
}

/** "Comparison of 5 result folders: 1 compared, 4 refused" (or "of 3 result folders" when none was refused). */
function heading(comparison: Comparison, refused: readonly string[]): string {
  const compared = comparison.groups.flatMap((g) => g.configurations.flatMap((c) => c.runs)).length;
  const given = compared + refused.length;
  const folders = `${given} result folder${given === 1 ? "" : "s"}`;
  return refused.length === 0 ? `Comparison of ${folders}` : `Comparison of ${folders}: ${compared} compared, ` +
    `${refused.length} refused`;
}

function signedPercent(value: number): string {
  return `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)}%`;
}

export function deltaDecimals(metric: DeltaMetric): number {
  return metric === "round_aggregate_tps" ? 1 : metricDecimals(metric);
}

/** One delta as table cells: case, metric, A, B, B vs A, 95% interval, verdict. */
export function deltaCells(d: CaseDelta): string[] {
  const decimals = deltaDecimals(d.metric);
  return [
    d.concurrency > 1 ? `${d.caseId} x${d.concurrency}` : d.caseId,
    DELTA_NAMES[d.metric],
    d.disagreeing.includes(d.baseline) ? "runs disagree" : fixed(d.baselineMedian, decimals),
    d.disagreeing.includes(d.candidate) ? "runs disagree" : fixed(d.candidateMedian, decimals),
    d.delta === null ? "" : signedPercent(d.delta.estimate),
    d.delta === null ? "" : `${signedPercent(d.delta.lower)} to ${signedPercent(d.delta.upper)}`,
    d.verdict === "not resolved" ? `not resolved (${d.why})` : `${d.candidate} ${d.verdict}`,
  ];
}

/** How every interval of a comparison is computed (printed under its delta tables). */
export const DELTA_NOTE = "B vs A is median(B) / median(A) - 1; its 95% interval is a seeded (seed " +
  `${DELTA_SEED}) ${BOOTSTRAP_RESAMPLES}-resample percentile bootstrap over each side's repetitions (rounds for ` +
  'the round aggregate). "not resolved" where the interval includes 0: the data cannot tell A from B.';

/** The delta tables of a section, one per candidate configuration ("B vs A"). */
function deltaTables(deltas: readonly CaseDelta[]): string[] {
  const out: string[] = [];
  for (const candidate of [...new Set(deltas.map((d) => d.candidate))]) {
    const mine = deltas.filter((d) => d.candidate === candidate);
    const head = [
      "Case",
      "Metric",
      mine[0]!.baseline,
      candidate,
      `${candidate} vs ${mine[0]!.baseline}`,
      "95% interval",
      "Verdict",
    ];
    out.push(`#### ${candidate} against ${mine[0]!.baseline}, case by case`, "");
    out.push(...markdownTable(head, mine.map(deltaCells)), "");
  }
  return out;
}

/**
 * The comparison as Markdown: notes, then per group its shared facts, configurations and status sections, each
 * section's B-against-A tables first and the table of every metric after them. `full` false (a terminal) leaves
 * out the wide tables of sections that have B-against-A tables, and wraps prose at 100 columns; the caller says
 * where the rest is.
 */
export function renderComparisonMarkdown(
  comparison: Comparison,
  refused: readonly string[] = [],
  full = true,
): string {
  const out = [`# ${heading(comparison, refused)}`, ""];
  const banner = simulatedBanner(comparison);
  if (banner !== null) out.push(`> **${markdownText(banner)}**`, "");
  for (const note of comparison.notes) out.push(`> **${markdownText(note)}**`, "");
  if (refused.length > 0) {
    out.push("Refused (not compared):", "");
    for (const line of refused) out.push(`- ${markdownText(line)}`);
    out.push("");
  }
  comparison.groups.forEach((group, index) => {
    out.push(`## Group ${index + 1}: ${markdownText(group.label)}`, "");
    // A terminal gets the facts that name the group; a file gets all of them.
    const shared = full || group.shared.length <= 3 ? group.shared : group.shared.slice(0, 3);
    const more = group.shared.length - shared.length;
    const rest = more > 0 ? ` (and ${more} more: in the full report)` : "";
    out.push(`Shared by every configuration: ${markdownText(factList(shared))}${rest}.`, "");
    for (const config of group.configurations) {
      const differs = config.differs.length === 0 ? "" : `: ${factList(config.differs)}`;
      const folders = config.runs.map((r) => `${r.folder} (${r.status})`).join(", ");
      const label = config.simulated ? `**${config.label}** (**${SIMULATED} ENGINE**)` : `**${config.label}**`;
      out.push(`- ${label}${markdownText(differs)} (${config.runs.length} run(s): ${markdownText(folders)})`);
    }
    out.push("");
    for (const section of group.sections) {
      out.push(`### ${SECTION_TITLES[section.status]}`, "", ...deltaTables(section.deltas));
      // A section of one configuration has no B against A: its one table is what it says, even on a terminal.
      if (!full && section.deltas.length > 0) continue;
      const heading = section.deltas.length === 0 ? [] : ["#### Every metric of every configuration", ""];
      out.push(...heading, ...markdownTable(TABLE_HEAD, section.rows.map(tableRow)), "");
    }
  });
  if (!full) {
    if (comparison.groups.some((g) => g.sections.some((section) => section.deltas.length > 0))) {
      out.push(markdownText(DELTA_NOTE));
    }
    return `${out.map((line) => (line.startsWith("|") ? line : wrapProse(line))).join("\n")}\n`;
  }
  out.push(
    "Token counts are the engine's, median [min-max] over the measured requests; rates are median [min-max] n and " +
      "latencies median n over the requests each run's summaries included, the runs of one configuration read " +
      "together. The round aggregate is each concurrency round's output tokens over its wall time, median " +
      `[min-max] over the rounds. ${markdownText(LEFT_OUT_NOTE)} Runs of one configuration whose ranges do not ` +
      `overlap and whose medians differ by more than ${
        RUN_DISAGREEMENT * 100
      }% are not pooled: each run's median is shown. ${markdownText(DELTA_NOTE)}`,
  );
  return `${out.join("\n")}\n`;
}

/**
 * One CSV cell: quoted when needed; text a spreadsheet would evaluate (= + - @, tab, CR) gets a leading '; a sanity
 * score is written "11 of 12", which no spreadsheet reads as a date (as it would "11/12").
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const CSV_HEAD = [
  "group",
  "status",
  "config",
  "simulated",
  "differs",
  "folders",
  "case",
  "concurrency",
  "runs",
  ...["input_tokens", "cached_tokens", "output_tokens"].flatMap((t) => [`${t}_median`, `${t}_min`, `${t}_max`]),
  ...COMPARED_METRICS.flatMap((m) => [`${m}_median`, `${m}_min`, `${m}_max`, `${m}_n`]),
  ...["median", "min", "max", "n"].map((s) => `round_aggregate_tps_${s}`),
  ...DELTA_METRICS.flatMap((m) => ["delta", "delta_lower", "delta_upper", "verdict"].map((c) => `${m}_${c}`)),
  "capped",
  "records",
  "sanity",
];

/**
 * The comparison as CSV (RFC 4180 quoting, LF line ends, which every spreadsheet reads and a terminal prints as
 * they are): one line per row, every statistic in its own column; a row of a configuration other than its section's
 * first carries its delta against that first one per metric (relative, 95% interval, verdict).
 */
export function renderComparisonCsv(comparison: Comparison): string {
  const lines = [CSV_HEAD.join(",")];
  const stats = (r: ValueRange | null) => (r === null ? [null, null, null] : [r.median, r.min, r.max]);
  for (const group of comparison.groups) {
    for (const section of group.sections) {
      for (const row of section.rows) {
        const config = group.configurations.find((c) => c.label === row.configuration)!;
        const aggregate = row.roundAggregateTps;
        lines.push(
          [
            group.label,
            section.status,
            row.configuration,
            row.simulated ? "yes" : "no",
            factList(config.differs),
            config.runs.filter((r) => r.status === section.status).map((r) => r.folder).join(" "),
            row.caseId,
            row.concurrency,
            row.runs,
            ...stats(row.inputTokens),
            ...stats(row.cachedTokens),
            ...stats(row.outputTokens),
            ...COMPARED_METRICS.flatMap((m) => [...stats(row.metrics[m]), row.metrics[m]?.n ?? null]),
            ...stats(aggregate),
            aggregate?.n ?? null,
            ...DELTA_METRICS.flatMap((m) => {
              const d = section.deltas.find((x) =>
                x.candidate === row.configuration && x.caseId === row.caseId &&
                x.metric === m
              );
              return d === undefined ? [null, null, null, null] : [
                d.delta?.estimate ?? null,
                d.delta?.lower ?? null,
                d.delta?.upper ?? null,
                d.verdict === "not resolved" ? `not resolved: ${d.why}` : `${d.candidate} ${d.verdict}`,
              ];
            }),
            row.capped,
            row.records,
            row.sanity.map((s) => s.replace("/", " of ")).join("; "),
          ].map(csvCell).join(","),
        );
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

/** A range with snake_case keys (it already is), or null. */
function range(r: ValueRange | null): ValueRange | null {
  return r === null ? null : { median: r.median, min: r.min, max: r.max, n: r.n };
}

function factObject(facts: readonly [string, FactValue][] | Record<string, FactValue>): Record<string, FactValue> {
  const entries = Array.isArray(facts) ? facts : Object.entries(facts);
  return Object.fromEntries(entries.map(([k, v]) => [k.replaceAll(" ", "_").toLowerCase(), v]));
}

function rowJson(row: ComparisonRow) {
  return {
    configuration: row.configuration,
    simulated: row.simulated,
    case_id: row.caseId,
    concurrency: row.concurrency,
    runs: row.runs,
    input_tokens: range(row.inputTokens),
    cached_tokens: range(row.cachedTokens),
    output_tokens: range(row.outputTokens),
    metrics: Object.fromEntries(COMPARED_METRICS.map((m) => [m, range(row.metrics[m])])),
    disagreeing_run_medians: Object.fromEntries(
      Object.entries(row.samples).flatMap((
        [m, s],
      ) => (s.disagreeingRunMedians === null ? [] : [[m, s.disagreeingRunMedians]])),
    ),
    round_aggregate_tps: range(row.roundAggregateTps),
    capped: row.capped,
    records: row.records,
    sanity: row.sanity.map((s) => ({ passed: Number(s.split("/")[0]), total: Number(s.split("/")[1]) })),
    status: row.status,
  };
}

/**
 * The comparison as one JSON document (two-space indented, newline at the end), with its format and schema
 * version like the result files: snake_case keys, and null (never "not measured") for what no result measured.
 */
export function renderComparisonJson(comparison: Comparison, refused: readonly string[] = []): string {
  const document = {
    format: COMPARISON_FORMAT,
    schema_version: COMPARISON_SCHEMA_VERSION,
    notes: comparison.notes,
    refused,
    groups: comparison.groups.map((group) => ({
      label: group.label,
      shared: factObject(group.shared),
      configurations: group.configurations.map((c) => ({
        label: c.label,
        simulated: c.simulated,
        facts: factObject(c.facts),
        differs: factObject(c.differs),
        runs: c.runs.map((r) => ({
          folder: r.folder,
          run_id: r.runId,
          started_at: r.startedAt,
          status: r.status,
          sanity: { passed: r.sanity.passed, total: r.sanity.total },
          simulated: r.simulated,
        })),
      })),
      sections: group.sections.map((s) => ({
        status: s.status,
        rows: s.rows.map(rowJson),
        deltas: s.deltas.map((d) => ({
          case_id: d.caseId,
          concurrency: d.concurrency,
          metric: d.metric,
          baseline: d.baseline,
          candidate: d.candidate,
          baseline_median: d.baselineMedian,
          candidate_median: d.candidateMedian,
          delta: d.delta,
          verdict: d.verdict,
          why: d.why,
        })),
      })),
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
