/** The effects a probe needs, passed in so tests can feed captured tool output. */
import type { CommandOutput, FileFacts, FileReader, Outcome } from "../runtime/mod.ts";
import type { StartHashWorker } from "./_hash_pool.ts";

export type { CommandOutput, FileFacts, FileReader, Outcome };

/** Everything the probes read from the machine. `defaultProbeDeps()` in mod.ts wires the real runtime. */
export interface ProbeDeps {
  runCommand(
    command: string,
    args: readonly string[],
    options?: { timeoutMs?: number },
  ): Promise<Outcome<CommandOutput>>;
  readText(path: string): Promise<Outcome<string>>;
  readDir(path: string): Promise<Outcome<string[]>>;
  stat(path: string): Promise<Outcome<FileFacts>>;
  realPath(path: string): Promise<Outcome<string>>;
  openReader(path: string): Promise<Outcome<FileReader>>;
  writeText(path: string, text: string): Promise<Outcome<true>>;
  fetch: typeof fetch;
  /** linux, darwin, win32, ... */
  platform: string;
  /** x64, arm64, ... */
  arch: string;
  osRelease(): Outcome<string>;
  totalMemBytes(): Outcome<number>;
  cpuModel(): Outcome<string>;
  cpuCount(): number;
  env(name: string): Outcome<string>;
  homeDir(): Outcome<string>;
  execPath(): Outcome<string>;
  /** Monotonic milliseconds (progress rates only). */
  nowMs(): number;
  /** Starts a SHA-256 worker, so several model files hash in parallel; absent: every file hashes in this thread. */
  startHashWorker?: StartHashWorker;
}

/** JSON Pointer (RFC 6901) -> why the value there is null. */
export type MissingMap = Record<string, string>;
