/**
 * Starts a long-running program (an inference engine, a compiler) whose output is streamed to a callback while
 * it runs, and which the caller can signal and await. Under Deno it uses Deno.Command: its child can be signalled
 * twice (SIGTERM, then SIGKILL) with only the narrow --allow-run for that program, and passing extra variables
 * does not need the env permission. (node:child_process under Deno needs all of --allow-run to send a second
 * signal and all of --allow-env to spawn.) Under Bun it uses node:child_process. Starting never throws: a missing
 * program or a refused run permission comes back as a Refusal.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { spawnRefusal } from "./_command.ts";
import { type Outcome, refusalFrom } from "./_refusal.ts";

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

interface DenoChild {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal: string): void;
}
interface DenoCommandApi {
  Command: new (command: string, options: {
    args: string[];
    env?: Record<string, string>;
    cwd?: string;
    stdin: "null";
    stdout: "piped";
    stderr: "piped";
  }) => { spawn(): DenoChild };
}

/** Starts `command args...` with stdin closed and stdout/stderr piped to `onOutput`. */
export function spawnProcess(
  command: string,
  args: readonly string[],
  options: SpawnProcessOptions = {},
): Promise<Outcome<SpawnedProcess>> {
  const deno = (globalThis as { Deno?: DenoCommandApi }).Deno;
  if (deno) return Promise.resolve(spawnWithDeno(deno, command, args, options));
  return spawnWithNode(command, args, options);
}

function spawnWithDeno(
  deno: DenoCommandApi,
  command: string,
  args: readonly string[],
  options: SpawnProcessOptions,
): Outcome<SpawnedProcess> {
  let child: DenoChild;
  try {
    child = new deno.Command(command, {
      args: [...args],
      ...(options.env === undefined ? {} : { env: { ...options.env } }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    return spawnRefusal(error, command);
  }
  const pump = async (stream: ReadableStream<Uint8Array>, name: "stdout" | "stderr") => {
    try {
      for await (const chunk of stream) options.onOutput?.(chunk, name);
    } catch {
      // The pipe broke because the program died; its exit status says how.
    }
  };
  let status: ProcessExit | null = null;
  const exited = Promise.all([child.status, pump(child.stdout, "stdout"), pump(child.stderr, "stderr")]).then(
    ([s]) => {
      status = { code: s.signal === null ? s.code : null, signal: s.signal };
      return status;
    },
  );
  return {
    ok: true,
    value: {
      pid: child.pid,
      exited,
      exitStatus: () => status,
      kill(signal) {
        if (status !== null) return false;
        try {
          child.kill(signal);
          return true;
        } catch {
          return false;
        }
      },
    },
  };
}

function spawnWithNode(
  command: string,
  args: readonly string[],
  options: SpawnProcessOptions,
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
            try {
              process.kill(pid, signal);
              return true;
            } catch {
              return child.kill(signal);
            }
          },
        },
      });
    });
  });
}
