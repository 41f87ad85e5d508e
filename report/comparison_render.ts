/**
 * A comparison (comparison.ts) as Markdown, CSV, JSON, and a picture spec. Every format holds the same rows in
 * the same order, so a test can pin the output byte for byte. Text that came from result files is escaped for its
 * format: Markdown metacharacters, CSV quoting plus a leading apostrophe for cells a spreadsheet would run as a
 * formula.
 */
import { METRIC_UNITS } from "../contract/mod.ts";
import type { ValueRange } from "../score/mod.ts";
import type { ChartSpec } from "./charts.ts";
import { COMPARED_METRICS, type ComparedMetric, type Comparison, type ComparisonRow } from "./comparison.ts";
import { fixed, markdownText, metricDecimals, NOT_MEASURED, oneLine, tokenRange } from "./_format.ts";

/** Format name and version of `--format json`. */
export const COMPARISON_FORMAT = "strata-bench-comparison" as const;

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

/** "41.2 [39.8-42.0] n=6" for rates; "0.123 n=6" for the latency medians; "left out" / "not measured (n=0)". */
function metricCell(range: ValueRange | null, metric: ComparedMetric): string {
  if (range === null) return "left out (*)";
  if (range.median === null) return `${NOT_MEASURED} (n=${range.n})`;
  const d = metricDecimals(metric);
  return METRIC_UNITS[metric] === "s"
    ? `${fixed(range.median, d)} n=${range.n}`
    : `${fixed(range.median, d)} [${fixed(range.min, d)}-${fixed(range.max, d)}] n=${range.n}`;
}

function caseName(row: ComparisonRow): string {
  return row.concurrency > 1 ? `${row.caseId} x${row.concurrency}` : row.caseId;
}

const TABLE_HEAD = [
  "Config",
  "Case",
  "Input tokens",
  "Cached tokens",
  "Output tokens",
  "Runs",
  ...COMPARED_METRICS.map((m) => METRIC_HEADS[m]),
  "Capped",
  "Sanity",
  "Status",
];

function tableRow(row: ComparisonRow): string[] {
  return [
    row.configuration,
    caseName(row),
    tokenRange(row.inputTokens),
    tokenRange(row.cachedTokens),
    tokenRange(row.outputTokens),
    String(row.runs),
    ...COMPARED_METRICS.map((m) => metricCell(row.metrics[m], m)),
    `${row.capped}/${row.records}`,
    row.sanity.join(", "),
    row.status,
  ];
}

/** The comparison as Markdown: notes, then per group its shared facts, configurations and status sections. */
export function renderComparisonMarkdown(comparison: Comparison, refused: readonly string[] = []): string {
  const runs = comparison.groups.flatMap((g) => g.configurations.flatMap((c) => c.runs)).length;
  const out = [`# Comparison of ${runs} result folder(s)`, ""];
  for (const note of comparison.notes) out.push(`> **${markdownText(note)}**`, "");
  if (refused.length > 0) {
    out.push("Refused (not compared):", "");
    for (const line of refused) out.push(`- ${markdownText(line)}`);
    out.push("");
  }
  comparison.groups.forEach((group, index) => {
    out.push(`## Group ${index + 1}: ${markdownText(group.label)}`, "");
    out.push(
      `Shared by every configuration: ${markdownText(group.shared.map(([k, v]) => `${k} ${v}`).join("; "))}.`,
      "",
    );
    for (const config of group.configurations) {
      const differs = config.differs.length === 0 ? "" : `: ${config.differs.map(([k, v]) => `${k} ${v}`).join("; ")}`;
      const folders = config.runs.map((r) => `${r.folder} (${r.status})`).join(", ");
      out.push(
        `- **${config.label}**${markdownText(differs)} (${config.runs.length} run(s): ${markdownText(folders)})`,
      );
    }
    out.push("");
    for (const section of group.sections) {
      out.push(`### ${SECTION_TITLES[section.status]}`, "");
      out.push(`| ${TABLE_HEAD.join(" | ")} |`, `|${TABLE_HEAD.map(() => " --- |").join("")}`);
      for (const row of section.rows) out.push(`| ${tableRow(row).map(markdownText).join(" | ")} |`);
      out.push("");
    }
  });
  out.push(
    "Token counts are the engine's, median [min-max] over the measured requests; rates are median [min-max] n and " +
      "latencies median n over the requests each run's summaries included, the runs of one configuration read " +
      "together. (*) The short prompt's prompt rate measures the fixed cost of a request and is left out.",
  );
  return `${out.join("\n")}\n`;
}

/** One CSV cell: quoted when needed; text a spreadsheet would evaluate (= + - @, tab, CR) gets a leading '. */
function csvCell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The comparison as CSV (RFC 4180 quoting, LF line ends, which every spreadsheet reads and a terminal prints as
 * they are): one line per row, every statistic in its own column.
 */
export function renderComparisonCsv(comparison: Comparison): string {
  const head = [
    "group",
    "status",
    "config",
    "differs",
    "folders",
    "case",
    "concurrency",
    "runs",
    ...["input_tokens", "cached_tokens", "output_tokens"].flatMap((t) => [`${t}_median`, `${t}_min`, `${t}_max`]),
    ...COMPARED_METRICS.flatMap((m) => [`${m}_median`, `${m}_min`, `${m}_max`, `${m}_n`]),
    "capped",
    "records",
    "sanity",
  ];
  const lines = [head.join(",")];
  for (const group of comparison.groups) {
    for (const section of group.sections) {
      for (const row of section.rows) {
        const config = group.configurations.find((c) => c.label === row.configuration)!;
        const stats = (r: ValueRange | null) => (r === null ? [null, null, null] : [r.median, r.min, r.max]);
        lines.push(
          [
            group.label,
            section.status,
            row.configuration,
            config.differs.map(([k, v]) => `${k} ${v}`).join("; "),
            config.runs.filter((r) => r.status === section.status).map((r) => r.folder).join(" "),
            row.caseId,
            row.concurrency,
            row.runs,
            ...stats(row.inputTokens),
            ...stats(row.cachedTokens),
            ...stats(row.outputTokens),
            ...COMPARED_METRICS.flatMap((m) => [...stats(row.metrics[m]), row.metrics[m]?.n ?? null]),
            row.capped,
            row.records,
            row.sanity.join(" "),
          ].map(csvCell).join(","),
        );
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The comparison as one JSON document (two-space indented, newline at the end). */
export function renderComparisonJson(comparison: Comparison, refused: readonly string[] = []): string {
  return `${JSON.stringify({ format: COMPARISON_FORMAT, version: 1, ...comparison, refused }, null, 2)}\n`;
}

/** The comparison picture: per group, prompt and decode tok/s per case and configuration, median and min-max. */
export function comparisonSpec(comparison: Comparison): ChartSpec {
  const panels = comparison.groups.flatMap((group, index) =>
    (["prompt_tps", "decode_tps"] as const).map((metric) => {
      const values = group.sections.flatMap((section) =>
        section.rows.flatMap((row) => {
          const range = row.metrics[metric];
          if (range === null) return [];
          return [{
            row: `${caseName(row)} · ${row.configuration}${
              section.status === "complete" ? "" : ` (${section.status})`
            }`,
            config: row.configuration,
            median: range.median,
            min: range.min,
            max: range.max,
            textAt: range.max ?? 0,
            text: metricCell(range, metric),
          }];
        })
      );
      const y = {
        field: "row",
        type: "nominal",
        sort: values.map((v) => v.row),
        title: null,
        axis: { labelLimit: 260 },
      };
      return {
        title: `Group ${index + 1}: ${oneLine(group.label)}: ${metric === "prompt_tps" ? "prompt" : "decode"} tokens/s`,
        width: 300,
        height: { step: 24 },
        data: { values },
        layer: [
          {
            mark: { type: "rule", strokeWidth: 2 },
            encoding: {
              y,
              x: { field: "min", type: "quantitative", title: null, scale: { zero: true } },
              x2: { field: "max" },
              color: { field: "config", type: "nominal", legend: null },
            },
          },
          {
            mark: { type: "point", filled: true, size: 60 },
            encoding: {
              y,
              x: { field: "median", type: "quantitative" },
              color: { field: "config", type: "nominal", title: "configuration" },
            },
          },
          {
            mark: { type: "text", align: "left", dx: 8, fontSize: 11 },
            encoding: { y, x: { field: "textAt", type: "quantitative" }, text: { field: "text" } },
          },
        ],
      };
    })
  );
  return {
    title: {
      text: "Comparison: prompt and decode tokens/s per case and configuration (median, min-max)",
      subtitle: comparison.notes.length > 0 ? comparison.notes : ["one protocol and model"],
    },
    vconcat: panels,
  } as unknown as ChartSpec;
}
