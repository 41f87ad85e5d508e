/**
 * Starts a long-running program (an inference engine, a compiler) whose output is streamed to a callback while
 * it runs, and which the caller can signal and await. node:child_process is native in Deno and Bun, so one
 * implementation serves both. Starting never throws: a missing program or a refused run permission comes back
 * as a Refusal.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import type { Outcome } from "./_refusal.ts";
import { refusalFrom } from "./_refusal.ts";

/** How a spawned program ended: an exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

/** Options of spawnProcess. */
export interface SpawnProcessOptions {
  /** Extra environment variables on top of the parent's environment. */
  env?: Readonly<Record<string, string>>;
  /** Working folder of the program (default: the current one). */
  cwd?: string;
  /** Receives every chunk the program writes to stdout or stderr, in arrival order. */
  onOutput?: (chunk: Uint8Array, stream: "stdout" | "stderr") => void;
}

/** A running program. */
export interface SpawnedProcess {
  /** Operating-system process id. */
  readonly pid: number;
  /** Resolves once the program has ended and its output has been delivered. */
  readonly exited: Promise<ProcessExit>;
  /** The exit once known, else null. */
  exitStatus(): ProcessExit | null;
  /** Sends a signal; false when the program has already ended. */
  kill(signal: "SIGTERM" | "SIGKILL" | "SIGINT"): boolean;
}

/** Starts `command args...` with stdin closed and stdout/stderr piped to `onOutput`. */
export function spawnProcess(
  command: string,
  args: readonly string[],
  options: SpawnProcessOptions = {},
): Promise<Outcome<SpawnedProcess>> {
  let env: Record<string, string | undefined> | undefined;
  if (options.env !== undefined && Object.keys(options.env).length > 0) {
    try {
      env = { ...process.env, ...options.env };
    } catch (error) {
      return Promise.resolve(refusalFrom(error, "read the environment to pass it on", "env"));
    }
  }
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, [...args], {
        stdio: ["ignore", "pipe", "pipe"],
        ...(env === undefined ? {} : { env }),
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      });
    } catch (error) {
      resolve(spawnRefusal(error, command));
      return;
    }
    let status: ProcessExit | null = null;
    let started = false;
    const exited = new Promise<ProcessExit>((resolveExit) => {
      child.on("close", (code: number | null, signal: string | null) => {
        status = { code, signal };
        resolveExit(status);
      });
    });
    child.stdout?.on("data", (chunk: Uint8Array) => options.onOutput?.(chunk, "stdout"));
    child.stderr?.on("data", (chunk: Uint8Array) => options.onOutput?.(chunk, "stderr"));
    child.on("error", (error: unknown) => {
      if (!started) resolve(spawnRefusal(error, command));
    });
    child.on("spawn", () => {
      started = true;
      const pid = child.pid ?? -1;
      resolve({
        ok: true,
        value: {
          pid,
          exited,
          exitStatus: () => status,
          kill(signal) {
            if (status !== null) return false;
            // process.kill, not child.kill: Deno's child_process refuses a second kill (SIGKILL after SIGTERM)
            // once the first one was sent.
            try {
              process.kill(pid, signal);
              return true;
            } catch {
              return false;
            }
          },
        },
      });
    });
  });
}

function spawnRefusal(error: unknown, command: string): Outcome<SpawnedProcess> {
  const refusal = refusalFrom(error, `run ${command}`, "run");
  if (refusal.kind === "not_found") return { ...refusal, reason: `${command} not found` };
  if (refusal.kind === "permission") {
    return { ...refusal, reason: `permission to run ${command} refused (add --allow-run for it)` };
  }
  return refusal;
}
