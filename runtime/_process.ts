import process from "node:process";

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

function writeAll(fd: 1 | 2, text: string): void {
  const g = globalThis as {
    Deno?: { stdout: { writeSync(b: Uint8Array): number }; stderr: { writeSync(b: Uint8Array): number } };
  };
  if (g.Deno) {
    const stream = fd === 1 ? g.Deno.stdout : g.Deno.stderr;
    let bytes = encoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
    return;
  }
  (fd === 1 ? process.stdout : process.stderr).write(text);
}

/** Writes text to standard output (results). */
export function writeStdout(text: string): void {
  writeAll(1, text);
}

/** Writes text to standard error (progress and diagnostics). */
export function writeStderr(text: string): void {
  writeAll(2, text);
}

/** Whether standard error is an interactive terminal (progress bars, colour). */
export function stderrIsTerminal(): boolean {
  const g = globalThis as { Deno?: { stderr: { isTerminal(): boolean } } };
  if (g.Deno) return g.Deno.stderr.isTerminal();
  return Boolean(process.stderr.isTTY);
}
