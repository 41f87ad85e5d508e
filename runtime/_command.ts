/**
 * Runs a program with a deadline and captures its output as text. Never throws: a missing program, a refused
 * run permission, a timeout or a failure to start comes back as a Refusal naming the cause.
 *
 * Both bounds hold against a hostile or hung tool: at the deadline the program is killed and the call returns at
 * once, without waiting for its pipes to close (a child it started, such as `sleep` behind a shell script, may
 * hold them open; the runtime's own `output()` waited on those for as long as the child lived). Each stream keeps
 * at most MAX_COMMAND_OUTPUT_BYTES; the rest is read and counted, never kept, and `cutBytes` says how much was
 * dropped. A child the program started is not killed with it: Deno's narrow --allow-run cannot signal a process
 * group, so such a grandchild runs on to its own end, but nothing here waits for it.
 */
import { spawn } from "node:child_process";
import { type Outcome, type Refusal, refusalFrom } from "./_refusal.ts";

/** The most bytes of each of stdout and stderr kept (a tool's useful output is a few KiB). */
export const MAX_COMMAND_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Exit status and output of a finished program. A nonzero code is still ok: the caller decides. */
export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
  /** Bytes of stdout and stderr past MAX_COMMAND_OUTPUT_BYTES that were read and dropped (absent: none). */
  cutBytes?: number;
}

/** Options of runCommand. */
export interface RunCommandOptions {
  /** Kill the program after this many milliseconds (default 10,000). */
  timeoutMs?: number;
}

interface DenoChild {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number }>;
  kill(signal: string): void;
}
interface DenoCommandApi {
  Command: new (
    cmd: string,
    options: { args: string[]; stdout: "piped"; stderr: "piped"; stdin: "null" },
  ) => { spawn(): DenoChild };
}

/** Bytes of one stream, kept up to the cap and counted past it. */
class Capped {
  readonly parts: Uint8Array[] = [];
  kept = 0;
  cut = 0;
  add(chunk: Uint8Array): void {
    const room = MAX_COMMAND_OUTPUT_BYTES - this.kept;
    if (room >= chunk.length) {
      this.parts.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (room > 0) this.parts.push(chunk.subarray(0, room));
    this.kept += Math.max(room, 0);
    this.cut += chunk.length - Math.max(room, 0);
  }
  text(): string {
    const all = new Uint8Array(this.kept);
    let at = 0;
    for (const part of this.parts) {
      all.set(part, at);
      at += part.length;
    }
    return new TextDecoder().decode(all);
  }
}

function output(code: number, out: Capped, err: Capped): Outcome<CommandOutput> {
  const cut = out.cut + err.cut;
  return { ok: true, value: { code, stdout: out.text(), stderr: err.text(), ...(cut > 0 ? { cutBytes: cut } : {}) } };
}

/** Runs `command args...` and returns its exit code and output, or why it could not. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<Outcome<CommandOutput>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deno = (globalThis as { Deno?: DenoCommandApi }).Deno;
  return deno ? runWithDeno(deno, command, args, timeoutMs) : runWithNode(command, args, timeoutMs);
}

async function runWithDeno(
  deno: DenoCommandApi,
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<Outcome<CommandOutput>> {
  let child: DenoChild;
  try {
    child = new deno.Command(command, { args: [...args], stdout: "piped", stderr: "piped", stdin: "null" }).spawn();
  } catch (error) {
    return spawnRefusal(error, command);
  }
  const out = new Capped();
  const err = new Capped();
  const readers = [child.stdout.getReader(), child.stderr.getReader()];
  const pump = async (reader: ReadableStreamDefaultReader<Uint8Array>, into: Capped) => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        into.add(value);
      }
    } catch {
      // Cancelled at the deadline, or the pipe broke because the program died.
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  const finished = Promise.all([child.status, pump(readers[0]!, out), pump(readers[1]!, err)]);
  try {
    const first = await Promise.race([finished, deadline]);
    if (first !== "timeout") return output(first[0].code, out, err);
    try {
      child.kill("SIGKILL");
    } catch {
      // It ended between the deadline and the kill.
    }
    for (const reader of readers) reader.cancel().catch(() => {});
    child.status.catch(() => {});
    return timedOut(command, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

function runWithNode(command: string, args: readonly string[], timeoutMs: number): Promise<Outcome<CommandOutput>> {
  return new Promise((resolve) => {
    const out = new Capped();
    const err = new Capped();
    let settled = false;
    const settle = (outcome: Outcome<CommandOutput>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, [...args], { stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      return resolve(spawnRefusal(error, command));
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      child.stdout?.destroy();
      child.stderr?.destroy();
      settle(timedOut(command, timeoutMs));
    }, timeoutMs);
    child.stdout?.on("data", (chunk: Uint8Array) => out.add(chunk));
    child.stderr?.on("data", (chunk: Uint8Array) => err.add(chunk));
    child.on("error", (error) => settle(spawnRefusal(error, command)));
    // "close" waits for the pipes; a grandchild holding them is cut off by the timer above.
    child.on("close", (code) => settle(output(typeof code === "number" ? code : 1, out, err)));
  });
}

/** Why `command` could not be started: not found, or its run permission refused (naming the flag), or else. */
export function spawnRefusal(error: unknown, command: string): Refusal {
  const refusal = refusalFrom(error, `run ${command}`, "run");
  if (refusal.kind === "not_found") return { ...refusal, reason: `${command} not found` };
  if (refusal.kind === "permission") {
    const flag = `--allow-run=${command}`;
    return { ...refusal, flag, reason: `permission to run ${command} refused (add ${flag})` };
  }
  return refusal;
}

function timedOut(command: string, timeoutMs: number): Outcome<CommandOutput> {
  return {
    ok: false,
    kind: "timeout",
    reason: `${command} did not finish within ${timeoutMs} ms (killed; its output was not used)`,
  };
}
