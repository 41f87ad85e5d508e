/**
 * Runs a program with a deadline and captures its output as text. Never throws: a missing program, a refused
 * run permission, a timeout or a failure to start comes back as a Refusal naming the cause.
 */
import { execFile } from "node:child_process";
import { type Outcome, type Refusal, refusalFrom } from "./_refusal.ts";

/** Exit status and output of a finished program. A nonzero code is still ok: the caller decides. */
export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of runCommand. */
export interface RunCommandOptions {
  /** Kill the program after this many milliseconds (default 10,000). */
  timeoutMs?: number;
}

interface DenoCommandApi {
  Command: new (
    cmd: string,
    options: { args: string[]; stdout: "piped"; stderr: "piped"; stdin: "null"; signal: AbortSignal },
  ) => {
    output(): Promise<{ code: number; stdout: Uint8Array; stderr: Uint8Array }>;
  };
}

const decoder = new TextDecoder();

/** Runs `command args...` and returns its exit code and output, or why it could not. */
export async function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<Outcome<CommandOutput>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deno = (globalThis as { Deno?: DenoCommandApi }).Deno;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    if (deno) {
      const result = await new deno.Command(command, {
        args: [...args],
        stdout: "piped",
        stderr: "piped",
        stdin: "null",
        signal: controller.signal,
      }).output();
      if (controller.signal.aborted) return timedOut(command, timeoutMs);
      return {
        ok: true,
        value: { code: result.code, stdout: decoder.decode(result.stdout), stderr: decoder.decode(result.stderr) },
      };
    }
    return await new Promise((resolve) => {
      execFile(
        command,
        [...args],
        { signal: controller.signal, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (controller.signal.aborted) return resolve(timedOut(command, timeoutMs));
          const code = (error as { code?: unknown } | null)?.code;
          if (error && typeof code !== "number") return resolve(spawnRefusal(error, command));
          resolve({
            ok: true,
            value: { code: typeof code === "number" ? code : 0, stdout: String(stdout), stderr: String(stderr) },
          });
        },
      );
    });
  } catch (error) {
    if (controller.signal.aborted) return timedOut(command, timeoutMs);
    return spawnRefusal(error, command);
  } finally {
    clearTimeout(timer);
  }
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
  return { ok: false, kind: "timeout", reason: `${command} did not finish within ${timeoutMs} ms` };
}
