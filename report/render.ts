/**
 * Renders a validated result for people: the README.md of a result folder (Markdown) and the console summary
 * (plain text). Both print the same sections from `_report_sections.ts`; neither computes a statistic, and every
 * null of the result reads "not measured".
 */
import type { Result } from "../contract/mod.ts";
import { type Cell, gpuTitle, isSimulated, reportSections, type Section, SIMULATED_LABEL } from "./_report_sections.ts";
import { NOT_MEASURED, text } from "./_format.ts";
import { markdownLine, markdownText } from "./_markdown.ts";

function markdownCell(cell: Cell): string {
  if (typeof cell === "string") return markdownText(cell);
  const href = cell.href.split("/").map(encodeURIComponent).join("/");
  return `[${markdownText(cell.text)}](${href})`;
}

function markdownSection(section: Section): string {
  const out: string[] = [`## ${markdownText(section.title)}`, ""];
  for (const paragraph of section.paragraphs ?? []) out.push(markdownLine(paragraph), "");
  if (section.pairs) {
    for (const [label, value] of section.pairs) out.push(`- **${markdownText(label)}:** ${markdownText(value)}`);
    out.push("");
  }
  if (section.table) {
    out.push(`| ${section.table.head.map(markdownText).join(" | ")} |`);
    out.push(`|${section.table.head.map(() => " --- |").join("")}`);
    for (const row of section.table.rows) out.push(`| ${row.map(markdownCell).join(" | ")} |`);
    out.push("");
  }
  if (section.items) {
    for (const item of section.items) out.push(`- ${markdownText(item)}`);
    out.push("");
  }
  for (const note of section.notes ?? []) out.push(markdownLine(note), "");
  return out.join("\n");
}

/** Title line: GPU / model / quantization / protocol. */
function title(result: Result): string {
  return `${gpuTitle(result)} / ${text(result.model.id)} / ${text(result.model.quantization)} / ${result.protocol.id}`;
}

/** README.md of a result folder: protocol and status, hardware, model, configuration, durations, counts, performance with a Capped column, passed/12 with failing reasons, failures, limitations, evidence. */
export function renderReadme(result: Result): string {
  const head = [`# Standard benchmark: ${markdownText(title(result))}`, ""];
  if (isSimulated(result)) head.push(`> **${markdownText(SIMULATED_LABEL)}**`, "");
  head.push(
    `Status **${markdownText(String(result.run.status))}**, sanity ${result.quality.passed}/${result.quality.total}. ` +
      `Values the run could not measure read "${NOT_MEASURED}" here and are null with a reason in results.json.`,
    "",
  );
  return [...head, ...reportSections(result).map(markdownSection)].join("\n").replace(/\n+$/, "\n");
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
}

function consoleSection(section: Section): string {
  const out: string[] = [section.title, "-".repeat(section.title.length)];
  for (const paragraph of section.paragraphs ?? []) out.push(paragraph);
  if (section.pairs) {
    const width = Math.max(...section.pairs.map(([label]) => label.length));
    for (const [label, value] of section.pairs) out.push(`  ${`${label}:`.padEnd(width + 1)} ${value}`);
  }
  if (section.table) {
    const rows = [
      section.table.head,
      ...section.table.rows.map((row) => row.map((c) => (typeof c === "string" ? c : c.text))),
    ];
    const widths = section.table.head.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
    for (const row of rows) out.push(`  ${pad(row, widths)}`);
  }
  for (const item of section.items ?? []) out.push(`  - ${item}`);
  for (const note of section.notes ?? []) out.push(note);
  return out.join("\n");
}

/** Plain-text summary of a result for the terminal: the same facts as the README, without Markdown. */
export function renderConsoleSummary(result: Result): string {
  const head = [`Standard benchmark: ${title(result)}`];
  if (isSimulated(result)) head.push(SIMULATED_LABEL);
  head.push(`Status ${result.run.status}, sanity ${result.quality.passed}/${result.quality.total}.`);
  return `${[head.join("\n"), ...reportSections(result).map(consoleSection)].join("\n\n")}\n`;
}
