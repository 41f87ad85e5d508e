/**
 * Renders a validated result for people: the README.md of a result folder (Markdown) and the console summary
 * (plain text). Both print the first screen (`_report_head.ts`) and the same sections (`_report_sections.ts`);
 * neither computes a statistic, and every null of the result reads "not measured".
 */
import type { Result } from "../contract/mod.ts";
import { escapeTerminalText } from "../runtime/mod.ts";
import { markdownLine, markdownTable, markdownText } from "./_markdown.ts";
import { LEFT_OUT_NOTE } from "../score/mod.ts";
import { type ReportHead, reportHead, SIMULATED_LABEL } from "./_report_head.ts";
import { reportSections, skippedLines } from "./_report_sections.ts";
import type { Cell, Section } from "./_section.ts";
import { energySection } from "./_energy_section.ts";

/** The sections in reading order: the per-case table, then the energy table where power was sampled, then the rest. */
function sectionsOf(result: Result): Section[] {
  const [first, ...rest] = reportSections(result);
  const energy = energySection(result);
  return [...(first ? [first] : []), ...(energy ? [energy] : []), ...rest];
}

/** A relative file link whose path segments are percent-encoded. */
function href(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

function markdownCell(cell: Cell): string {
  if (typeof cell === "string") return markdownText(cell);
  return `[${markdownText(cell.text)}](${href(cell.href)})`;
}

function markdownSection(section: Section): string {
  const out: string[] = [`## ${markdownText(section.title)}`, ""];
  for (const paragraph of section.paragraphs ?? []) out.push(markdownLine(paragraph), "");
  if (section.pairs) {
    for (const [label, value] of section.pairs) out.push(`- **${markdownText(label)}:** ${markdownText(value)}`);
    out.push("");
  }
  if (section.table) out.push(...markdownTable(section.table.head, section.table.rows, markdownCell), "");
  if (section.items) {
    for (const item of section.items) out.push(`- ${markdownText(item)}`);
    out.push("");
  }
  for (const image of section.images ?? []) {
    out.push(`![${markdownText(image.caption)}](${href(image.file)})`, "");
  }
  for (const note of section.notes ?? []) out.push(markdownLine(note), "");
  return out.join("\n");
}

/**
 * The first screen in Markdown: title, simulated label, five facts, headline table (15 lines with the label,
 * 13 without).
 */
function markdownHead(head: ReportHead): string[] {
  const out = [`# Standard benchmark: ${markdownText(head.title)}`, ""];
  if (head.simulated) out.push(`> **${markdownText(SIMULATED_LABEL)}**`, "");
  for (const [label, value] of head.facts) out.push(`- **${markdownText(label)}:** ${markdownText(value)}`);
  out.push("", ...markdownTable(head.headline.head, head.headline.rows, markdownCell), "");
  out.push(`${markdownText(LEFT_OUT_NOTE)} Details, pictures and every value not measured follow.`, "");
  return out;
}

/** README.md of a result folder: the first screen, then every section in reading order. */
export function renderReadme(result: Result): string {
  const head = markdownHead(reportHead(result, skippedLines(result)));
  return [head.join("\n"), ...sectionsOf(result).map(markdownSection)].join("\n").replace(/\n+$/, "\n");
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
}

function consoleTable(head: readonly string[], body: readonly (readonly Cell[])[]): string[] {
  const rows = [head, ...body.map((row) => row.map((c) => (typeof c === "string" ? c : c.text)))];
  const widths = head.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  return rows.map((row) => `  ${pad([...row], widths)}`);
}

function consoleSection(section: Section): string {
  const out: string[] = [section.title, "-".repeat(section.title.length)];
  for (const paragraph of section.paragraphs ?? []) out.push(paragraph);
  if (section.pairs) {
    const width = Math.max(...section.pairs.map(([label]) => label.length));
    for (const [label, value] of section.pairs) out.push(`  ${`${label}:`.padEnd(width + 1)} ${value}`);
  }
  if (section.table) out.push(...consoleTable(section.table.head, section.table.rows));
  for (const item of section.items ?? []) out.push(`  - ${item}`);
  for (const image of section.images ?? []) out.push(`  ${image.file}: ${image.caption}`);
  for (const note of section.notes ?? []) out.push(note);
  return out.join("\n");
}

/** Plain-text summary of a result for the terminal: the same facts as the README, without Markdown. */
/** The widest a line of prose is printed; table rows keep their width, so that their columns stay aligned. */
export const CONSOLE_PROSE_COLUMNS = 100;

/**
 * `text` with each prose line longer than `width` broken between words, its continuation indented under its
 * value ("  Status:  " facts) or by two spaces. A table row (two or more column gaps) is left whole.
 */
export function wrapProse(text: string, width = CONSOLE_PROSE_COLUMNS): string {
  return text.split("\n").flatMap((line) => {
    const indent = /^ */.exec(line)![0];
    const body = line.slice(indent.length);
    if (line.length <= width || (body.match(/\S {2,}(?=\S)/g) ?? []).length >= 2) return [line];
    const hang = indent + " ".repeat(/^[A-Za-z ]+: +/.exec(body)?.[0].length ?? 2);
    const out: string[] = [];
    let current = indent;
    for (const word of body.split(" ")) {
      const start = current.trim() === "";
      if (!start && current.length + 1 + word.length > width) {
        out.push(current);
        current = hang + word;
      } else current = start ? `${current}${word}` : `${current} ${word}`;
    }
    return [...out, current];
  }).join("\n");
}

export function renderConsoleSummary(result: Result): string {
  const head = reportHead(result, skippedLines(result));
  const lines = [`Standard benchmark: ${head.title}`];
  if (head.simulated) lines.push(SIMULATED_LABEL);
  const width = Math.max(...head.facts.map(([label]) => label.length));
  for (const [label, value] of head.facts) lines.push(`  ${`${label}:`.padEnd(width + 1)} ${value}`);
  lines.push(...consoleTable(head.headline.head, head.headline.rows));
  const text = [lines.join("\n"), ...sectionsOf(result).map(consoleSection)].join("\n\n");
  return `${escapeTerminalText(wrapProse(text))}\n`;
}
