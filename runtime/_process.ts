import process from "node:process";
import { escapeTerminalText } from "./_terminal_text.ts";

/** Name and version of the JavaScript runtime executing the toolkit. */
export function runtimeName(): { name: "deno" | "bun" | "node"; version: string } {
  const g = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string } };
  if (g.Deno) return { name: "deno", version: g.Deno.version.deno };
  if (g.Bun) return { name: "bun", version: g.Bun.version };
  return { name: "node", version: process.versions.node };
}

/** Command-line arguments after the script name. */
export function args(): string[] {
  const g = globalThis as { Deno?: { args: string[] } };
  if (g.Deno) return [...g.Deno.args];
  return process.argv.slice(2);
}

/** Ends the process with the given exit code. */
export function exit(code: number): never {
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
 * Writes text to standard output (results). Control characters, C1 codes and bidi overrides are escaped
 * (escapeTerminalText): nothing an engine or a result file says can act on the terminal.
 */
export function writeStdout(text: string): void {
  writeAll(1, escapeTerminalText(text));
}

/** Writes text to standard error (progress and diagnostics), escaped like writeStdout. */
export function writeStderr(text: string): void {
  writeAll(2, escapeTerminalText(text));
}

/**
 * Replaces the current line of standard error with `line` (escaped like writeStderr): the toolkit's own
 * carriage return and erase-line sequence, for progress on an interactive terminal; `final` ends the line.
 */
export function rewriteStderrLine(line: string, final: boolean): void {
  writeAll(2, `\r\x1b[K${escapeTerminalText(line)}${final ? "\n" : ""}`);
}

/** Whether standard error is an interactive terminal (progress bars, colour). */
export function stderrIsTerminal(): boolean {
  const g = globalThis as { Deno?: { stderr: { isTerminal(): boolean } } };
  if (g.Deno) return g.Deno.stderr.isTerminal();
  return Boolean(process.stderr.isTTY);
}
