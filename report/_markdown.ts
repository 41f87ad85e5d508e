/**
 * Markdown-safe text for README files: a value from an engine or a result file must render as the characters it
 * holds, never as markup. Terminal controls and bidi overrides are escaped first (runtime's escapeTerminalText,
 * the one escaping layer), then every ASCII punctuation character that Markdown (CommonMark, GitHub's tables,
 * strikethrough, math and HTML) gives a meaning inline gets a backslash, whitespace runs become one space (a value
 * stays inside its table cell or list item), and a block marker at the start (list, heading, quote, ordered list)
 * is escaped too.
 */
import { escapeTerminalText } from "../runtime/mod.ts";

/** Inline-active ASCII punctuation: emphasis, code, links and images, HTML and entities, tables, math. */
const INLINE_ACTIVE = /[\\`*_[\]<>|#~&!$]/g;
/** What opens a block when it starts a line: a list item or thematic break, a setext underline, an ordered item. */
const BLOCK_START = /^(?:[-+=]|\d{1,9}[.)](?=\s|$))/;

/** `value` as literal Markdown text on one line, for a place inside a line (a table cell, after a list marker). */
export function markdownText(value: string): string {
  return escapeTerminalText(value).replace(INLINE_ACTIVE, (c) => `\\${c}`).replace(/\s+/g, " ");
}

/** `value` as literal Markdown text that starts a line of its own (a paragraph): a leading block marker is escaped. */
export function markdownLine(value: string): string {
  return markdownText(value).replace(BLOCK_START, (marker) => `${marker.slice(0, -1)}\\${marker.slice(-1)}`);
}

/** A Markdown table: the head as literal text, each row's cells as `cell` writes them (literal text by default). */
export function markdownTable<C = string>(
  head: readonly string[],
  rows: readonly (readonly C[])[],
  cell: (value: C) => string = markdownText as (value: C) => string,
): string[] {
  return [
    `| ${head.map(markdownText).join(" | ")} |`,
    `|${head.map(() => " --- |").join("")}`,
    ...rows.map((row) => `| ${row.map((value) => cell(value)).join(" | ")} |`),
  ];
}
