import process from "node:process";
import { env } from "./_env.ts";
import { escapeTerminalText } from "./_terminal_text.ts";
import { ERASE_LINE, renderStatusLine, type StyledText, TEXT_STYLES } from "./_status_line.ts";

/** Name and version of the JavaScript runtime executing the toolkit. */
export function runtimeName(): { name: "deno" | "bun" | "node"; version: string } {
  const g = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string } };
  if (g.Deno) return { name: "deno", version: g.Deno.version.deno };
  if (g.Bun) return { name: "bun", version: g.Bun.version };
  return { name: "node", version: process.versions.node };
}

/**
 * A full garbage collection now, where the runtime allows one (Bun; Deno and Node started with --expose-gc, as the
 * measuring tasks are); false where it does not. Load runs one between the warm-up and the measured schedule.
 */
export function collectGarbage(): boolean {
  const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (g.Bun) g.Bun.gc(true);
  else if (typeof g.gc === "function") g.gc();
  else return false;
  return true;
}

/** Command-line arguments after the script name. */
export function args(): string[] {
  const g = globalThis as { Deno?: { args: string[] } };
  if (g.Deno) return [...g.Deno.args];
  return process.argv.slice(2);
}

/** Ends the process with the given exit code (erasing a status line still drawn, so the prompt starts clean). */
export function exit(code: number): never {
  clearStatusLine();
  process.exit(code);
}

const encoder = new TextEncoder();

/** Streams whose reader has gone (a closed pipe): later writes to them are dropped instead of failing. */
const broken = new Set<1 | 2>();
/** Streams whose asynchronous write errors (Node and Bun) are already heard. */
const hooked = new Set<1 | 2>();

/**
 * Writes all of `text`; never throws. When the reader of stdout or stderr is gone (the pipe to a parent that died),
 * the write fails with a broken pipe: the text is dropped and so is everything after it on that stream, so the run
 * can still write its result.
 */
function writeAll(fd: 1 | 2, text: string): void {
  if (broken.has(fd)) return;
  const g = globalThis as {
    Deno?: { stdout: { writeSync(b: Uint8Array): number }; stderr: { writeSync(b: Uint8Array): number } };
  };
  try {
    if (g.Deno) {
      const stream = fd === 1 ? g.Deno.stdout : g.Deno.stderr;
      let bytes = encoder.encode(text);
      while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
      return;
    }
    const stream = fd === 1 ? process.stdout : process.stderr;
    if (!hooked.has(fd)) {
      hooked.add(fd);
      stream.on("error", () => broken.add(fd));
    }
    stream.write(text);
  } catch {
    broken.add(fd);
  }
}

/**
 * The status line drawn on stderr (an interactive terminal only), or null. `drawn` is false after text without a
 * final newline was written over it: it is drawn again at the next showStatusLine.
 */
let status: { bytes: string; drawn: boolean } | null = null;

/** Erases the status line before other output; true when one was drawn. */
function eraseStatus(): boolean {
  if (status === null || !status.drawn) return false;
  writeAll(2, ERASE_LINE);
  return true;
}

/** Draws the status line again after other output that ended a line. */
function restoreStatus(text: string): void {
  if (status === null) return;
  if (text.endsWith("\n")) writeAll(2, status.bytes);
  status.drawn = text.endsWith("\n");
}

/**
 * Writes text to standard output (results). Control characters, C1 codes and bidi overrides are escaped
 * (escapeTerminalText): nothing an engine or a result file says can act on the terminal. A status line on the
 * same terminal is erased first and drawn again below, so the two never share a line.
 */
export function writeStdout(text: string): void {
  const over = status !== null && status.drawn && stdoutIsTerminal();
  if (over) eraseStatus();
  writeAll(1, escapeTerminalText(text));
  if (over) restoreStatus(text);
}

/**
 * Writes pieces of text to standard output, each escaped like writeStdout; a styled piece gets its SGR colour code
 * (the toolkit's own, added after escaping) where stdout shows colour (stdoutColorAllowed), else it is plain.
 */
export function writeStdoutStyled(parts: readonly StyledText[]): void {
  const color = stdoutColorAllowed();
  const over = status !== null && status.drawn && stdoutIsTerminal();
  if (over) eraseStatus();
  const text = parts.map((p) => {
    const shown = escapeTerminalText(p.text);
    return color && p.style !== undefined ? `\x1b[${TEXT_STYLES[p.style]}m${shown}\x1b[0m` : shown;
  }).join("");
  writeAll(1, text);
  if (over) restoreStatus(text);
}

/** Writes text to standard error (progress and diagnostics), escaped like writeStdout, above any status line. */
export function writeStderr(text: string): void {
  const erased = eraseStatus();
  writeAll(2, escapeTerminalText(text));
  if (erased || status !== null) restoreStatus(text);
}

/**
 * Replaces the current line of standard error with `line` (escaped like writeStderr): the toolkit's own
 * carriage return and erase-line sequence, for progress on an interactive terminal; `final` ends the line and
 * keeps it (it is no status line any more).
 */
export function rewriteStderrLine(line: string | readonly StyledText[], final: boolean): void {
  const bytes = renderStatusLine(line, { columns: terminalColumns(), color: colorAllowed() });
  writeAll(2, final ? `${bytes}\n` : bytes);
  status = final ? null : { bytes, drawn: true };
}

/** Erases the status line, if one is drawn, and forgets it. */
export function clearStatusLine(): void {
  eraseStatus();
  status = null;
}

/** Whether standard error is an interactive terminal (progress bars, colour). */
export function stderrIsTerminal(): boolean {
  const g = globalThis as { Deno?: { stderr: { isTerminal(): boolean } } };
  if (g.Deno) return g.Deno.stderr.isTerminal();
  return Boolean(process.stderr.isTTY);
}

/** Whether standard output is an interactive terminal. */
export function stdoutIsTerminal(): boolean {
  const g = globalThis as { Deno?: { stdout: { isTerminal(): boolean } } };
  if (g.Deno) return g.Deno.stdout.isTerminal();
  return Boolean(process.stdout.isTTY);
}

/** Columns of the terminal (80 when unknown). */
export function terminalColumns(): number {
  const g = globalThis as { Deno?: { consoleSize(): { columns: number } } };
  try {
    const columns = g.Deno ? g.Deno.consoleSize().columns : process.stderr.columns;
    if (typeof columns === "number" && columns > 0) return columns;
  } catch {
    // no terminal to ask
  }
  return 80;
}

/**
 * Whether stderr is a terminal that redraws a line in place: a TTY whose TERM is not "dumb" (a dumb terminal
 * ignores the erase-line sequence).
 */
export function stderrRedraws(): boolean {
  return stderrIsTerminal() && env("TERM") !== "dumb";
}

/** Whether colour may be shown on stderr: it redraws, and NO_COLOR (no-color.org) is unset or empty. */
export function colorAllowed(): boolean {
  const noColor = env("NO_COLOR");
  return stderrRedraws() && (noColor === undefined || noColor === "");
}

/** Whether colour may be shown on stdout: a terminal whose TERM is not "dumb", and NO_COLOR unset or empty. */
export function stdoutColorAllowed(): boolean {
  const noColor = env("NO_COLOR");
  return stdoutIsTerminal() && env("TERM") !== "dumb" && (noColor === undefined || noColor === "");
}
