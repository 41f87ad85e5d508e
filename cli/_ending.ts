/**
 * The one screen every long command (run, demo, load, compare) ends with, from plain data: the status in one line,
 * the headline numbers, what kept the result from conforming (each with its fix), the missing values in three
 * groups, the next commands, and the folder (or file) on the last line, bare, so `tail -1` finds it. At most
 * `ENDING_MAX_LINES` lines, none wider than `ENDING_MAX_COLUMNS`; what does not fit is counted and left to the
 * folder's README.md and `report`.
 */
import { type StyledText, writeStdoutStyled } from "../runtime/mod.ts";

/** The most lines the ending takes. */
export const ENDING_MAX_LINES = 15;
/** The widest line of the ending. */
export const ENDING_MAX_COLUMNS = 100;

/** One thing that kept a result from conforming, and the flag or action that fixes it. */
export interface EndingProblem {
  problem: string;
  fix: string;
}

/** Values a result lacks, grouped by what a person can do about them. */
export interface EndingMissing {
  /** Flags to pass ("--model-id"): the person did not give the value. */
  notGiven: readonly string[];
  /** "what (why)": this machine or engine cannot measure it. */
  notMeasurable: readonly string[];
  /** "what (why)": measured, but it failed. */
  failed: readonly string[];
}

/** What an ending says: plain data any command can build. */
export interface Ending {
  /** "run: nonconforming (exit 1)" and the like: one line. */
  status: string;
  /** The headline numbers, one line each (up to eight are kept: a sweep's points). */
  numbers: readonly string[];
  problems: readonly EndingProblem[];
  /** The line above the problems (default "kept from conforming:"). */
  problemsHeading?: string;
  missing: EndingMissing;
  /** Commands to type next ("strata-bench report DIR"). */
  next: readonly string[];
  /** The result folder or file; null when nothing was written. */
  folder: string | null;
}

/** `text` cut to `width` columns, ending in "..." when cut. */
export function clip(text: string, width = ENDING_MAX_COLUMNS): string {
  const one = text.replace(/[\n\r\t]+/g, " ").trimEnd();
  return one.length <= width ? one : `${one.slice(0, Math.max(0, width - 3)).trimEnd()}...`;
}

/** `text` in lines of at most `width` columns, broken between words (a word longer than a line is cut). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.replace(/\s+/g, " ").trim().split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = "";
    }
    line = line === "" ? clip(word, width) : `${line} ${word}`;
  }
  return [...lines, line];
}

/**
 * "  problem -> fix" on one line where both fit whole; else the fix gets lines of its own under the problem
 * ("    -> fix", wrapped between words, never cut), and only a problem wider than the screen is cut.
 */
function problemLines(p: EndingProblem, width: number): string[] {
  const one = `  ${p.problem} -> ${p.fix}`;
  if (one.length <= width) return [one];
  const [first, ...rest] = wrapWords(p.fix, width - 7);
  return [`  ${p.problem}`, `    -> ${first}`, ...rest.map((line) => `       ${line}`)];
}

/**
 * Items joined with ", " as far as they fit in `width`, then "and N more", and `close`. A first item too long for
 * the line is never cut: it wraps between words onto lines indented under the head (at most three lines).
 */
function listFit(head: string, items: readonly string[], width: number, close = ""): string[] {
  let shown = Math.min(1, items.length);
  const text = (n: number) => {
    const more = items.length - n;
    return `${head}${items.slice(0, n).join(", ")}${more > 0 ? `${n > 0 ? "," : ""} and ${more} more` : ""}${close}`;
  };
  while (shown < items.length && text(shown + 1).length <= width) shown++;
  const one = text(shown);
  if (one.length <= width) return [one];
  const lines: string[] = [];
  let line = head.trimEnd();
  for (const word of one.slice(head.length).split(" ")) {
    if (line.trim() !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `  ${clip(word, width - 2)}`;
    } else line = `${line} ${word}`;
  }
  return [...lines, line].slice(0, 3);
}

/** The next commands: on one line where they fit, else one a line; each is named, never counted away. */
function nextLines(items: readonly string[], width: number): string[] {
  if (items.length === 0) return [];
  const one = `next: ${items.join(", ")}`;
  return one.length <= width ? [one] : items.map((item, i) => `${i === 0 ? "next: " : "      "}${item}`);
}

function missingLines(missing: EndingMissing, width: number): string[] {
  const out: string[] = [];
  if (missing.notGiven.length > 0) out.push(...listFit("not given (pass ", missing.notGiven, width, ")"));
  if (missing.notMeasurable.length > 0) out.push(...listFit("not measurable here: ", missing.notMeasurable, width));
  if (missing.failed.length > 0) out.push(...listFit("failed: ", missing.failed, width));
  return out;
}

/**
 * The ending as text (newline-terminated): status, numbers, "kept from conforming:" with one problem per line
 * ("problem -> fix"), the missing groups, "next:", and the folder. Problems and numbers give way first when the
 * screen is full; a cut is said ("and 3 more: see README.md").
 */
export function renderEnding(ending: Ending, width = ENDING_MAX_COLUMNS, maxLines = ENDING_MAX_LINES): string {
  const missing = missingLines(ending.missing, width);
  const next = nextLines(ending.next, width);
  const tail = [...missing, ...next, ...(ending.folder === null ? [] : [ending.folder])];
  const room = maxLines - 1 - tail.length;
  // Problems first (the header, up to three, and a count of the rest), then the numbers, then more problems.
  const wanted = ending.problems.length === 0 ? 0 : 1 + Math.min(ending.problems.length, 3);
  const numbers = ending.numbers.slice(0, Math.max(0, Math.min(ending.numbers.length, 8, room - wanted)));
  const problemRoom = room - numbers.length;
  const problems: string[] = [];
  if (ending.problems.length > 0 && problemRoom >= 2) {
    const blocks = ending.problems.map((p) => problemLines(p, width));
    let fit = 0, used = 1;
    while (fit < blocks.length) {
      const after = used + blocks[fit]!.length;
      // The last problem needs no "and N more" line after it; any other does.
      if (after + (fit + 1 < blocks.length ? 1 : 0) > problemRoom) break;
      used = after;
      fit++;
    }
    problems.push(ending.problemsHeading ?? "kept from conforming:", ...blocks.slice(0, fit).flat());
    if (fit < blocks.length) problems.push(`  and ${blocks.length - fit} more: see README.md in the folder`);
  }
  const lines = [ending.status, ...numbers.map((n) => `  ${n}`), ...problems, ...tail];
  // The folder is a path a script reads back: it is never cut, only the words around it.
  return lines.map((line, i) => (i === lines.length - 1 && ending.folder !== null ? line : clip(line, width)))
    .join("\n") + "\n";
}

/** Verdict words of a status line and their SGR colour: green for a pass, red for a failure, yellow for partial. */
const VERDICTS =
  /\b(ok|PASS|complete)\b|\b(FAIL|SLO MISSED|REFUSED|UNREACHABLE|INTERRUPTED|INVALID|[A-Z]+-[A-Z-]+|nonconforming)\b|\b(partial)\b/;

/** The rendered ending in pieces: its status line's first verdict word styled (green pass, red failure, yellow). */
export function verdictPieces(text: string): StyledText[] {
  const end = text.indexOf("\n");
  const status = end === -1 ? text : text.slice(0, end);
  const m = VERDICTS.exec(status);
  if (m === null) return [{ text }];
  const style = m[1] !== undefined ? "green" : m[2] !== undefined ? "red" : "yellow";
  return [{ text: status.slice(0, m.index) }, { text: m[0], style }, { text: text.slice(m.index + m[0].length) }];
}

/** Prints the ending on stdout, its verdict coloured on a terminal (never with NO_COLOR or when piped). */
export function printEnding(ending: Ending): void {
  writeStdoutStyled(verdictPieces(renderEnding(ending)));
}
