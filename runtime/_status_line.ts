/**
 * The one in-place status line of an interactive terminal: the text the toolkit redraws (progress), built from
 * plain text segments that may carry a style. Every segment is escaped (escapeTerminalText) before any escape code
 * of the toolkit's own is added, so the only raw control sequences written are the carriage return, erase-line and
 * SGR colour codes made here. The line is cut to the terminal's width (less one column, so the terminal never
 * wraps it: a wrapped line could not be erased by a carriage return).
 */
import { escapeTerminalText } from "./_terminal_text.ts";

/** The styles a status segment may ask for (SGR codes; shown only when colour is on). */
export const TEXT_STYLES = {
  bold: "1",
  dim: "2",
  red: "31",
  green: "32",
  yellow: "33",
  cyan: "36",
} as const;
export type TextStyle = keyof typeof TEXT_STYLES;

/** One piece of a status line: text, and optionally how to show it. */
export interface StyledText {
  text: string;
  style?: TextStyle;
}

/** How a status line is drawn. */
export interface StatusLineLook {
  /** Terminal columns; the line is cut to columns - 1 visible characters. */
  columns: number;
  /** Whether SGR colour codes may be written (a terminal, NO_COLOR unset). */
  color: boolean;
}

/** Erases the terminal line the cursor is on: carriage return, then erase to the end of the line. */
export const ERASE_LINE = "\r\x1b[K";

/**
 * The bytes that draw `parts` over the current terminal line: ERASE_LINE, then each segment escaped, cut to the
 * width (with "…" where cut), in colour when `look.color`.
 */
export function renderStatusLine(parts: readonly StyledText[] | string, look: StatusLineLook): string {
  const segments = typeof parts === "string" ? [{ text: parts }] : parts;
  const room = Math.max(8, Math.floor(look.columns) - 1);
  let used = 0;
  let out = ERASE_LINE;
  for (const segment of segments) {
    // Escaped first: a newline or tab inside a segment would break the one-line picture too.
    let text = [...escapeTerminalText(segment.text).replace(/[\n\t]/g, " ")];
    if (text.length === 0) continue;
    let cut = false;
    if (used + text.length > room) {
      text = text.slice(0, Math.max(0, room - used - 1));
      cut = true;
    }
    const shown = text.join("") + (cut ? "…" : "");
    used += text.length + (cut ? 1 : 0);
    const code = segment.style === undefined ? undefined : TEXT_STYLES[segment.style];
    out += look.color && code !== undefined ? `\x1b[${code}m${shown}\x1b[0m` : shown;
    if (cut) break;
  }
  return out;
}
