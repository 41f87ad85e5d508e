/** The effects a probe needs, passed in so tests can feed captured tool output. */
import type { CommandOutput, FileFacts, FileReader, Outcome } from "../runtime/mod.ts";
import type { StartHashWorker } from "./_hash_pool.ts";
import { errorMessage } from "../runtime/mod.ts";

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

/** Reads up to `maxBytes` leading bytes of a file, or says why it cannot. */
export async function readPrefix(deps: ProbeDeps, path: string, maxBytes: number): Promise<Uint8Array | string> {
  const facts = await deps.stat(path);
  if (!facts.ok) return facts.reason;
  const opened = await deps.openReader(path);
  if (!opened.ok) return opened.reason;
  const reader = opened.value;
  const bytes = new Uint8Array(Math.min(maxBytes, facts.value.sizeBytes));
  let filled = 0;
  try {
    while (filled < bytes.length) {
      const n = await reader.read(bytes.subarray(filled));
      if (n === 0) break;
      filled += n;
    }
  } catch (error) {
    return `reading failed: ${errorMessage(error)}`;
  } finally {
    await reader.close().catch(() => undefined);
  }
  return bytes.subarray(0, filled);
}

/** JSON Pointer (RFC 6901) -> why the value there is null. */
export type MissingMap = Record<string, string>;
