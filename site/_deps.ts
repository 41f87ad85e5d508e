/**
 * The real dependencies of the site's commands, from runtime/: git through spawnProcess (bytes kept as bytes),
 * files of a folder read only when they are regular files inside it, and the output folder's operations.
 */
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import {
  FileReadError,
  lstatOutcome,
  openFolderWriter,
  openSafeFolder,
  readFile,
  realPathOutcome,
  spawnProcess,
} from "../runtime/mod.ts";
import type { GitRunner } from "./_git.ts";
import type { OutputFiles } from "./_output.ts";

/** The most bytes one git answer may print: the largest file a result folder may hold (outputs.jsonl's cap). */
const GIT_STDOUT_CAP = 256 * 1024 * 1024;
const GIT_STDERR_CAP = 1024 * 1024;
/** The longest one git call may take (a local repository answers in milliseconds to seconds). */
const GIT_TIMEOUT_MS = 300_000;

/**
 * Runs git in `dir`, collecting stdout as bytes and stderr as text, bounded in time and bytes: a git that prints
 * past its cap or outlives its deadline (a hung or hostile one first on PATH) is killed and reported, never waited
 * on past it (a child holding its pipes open is not awaited).
 */
export function gitRunner(dir: string, limits = { timeoutMs: GIT_TIMEOUT_MS, stdoutCap: GIT_STDOUT_CAP }): GitRunner {
  return async (args) => {
    const stdout: Uint8Array[] = [];
    const stderr: Uint8Array[] = [];
    const size = { stdout: 0, stderr: 0 };
    let stop: (why: string) => void = () => {};
    const stopped = new Promise<string>((resolve) => stop = resolve);
    const started = await spawnProcess("git", ["-c", "core.quotePath=false", ...args], {
      cwd: dir,
      onOutput: (chunk, stream) => {
        size[stream] += chunk.length;
        const cap = stream === "stdout" ? limits.stdoutCap : GIT_STDERR_CAP;
        if (size[stream] > cap) return stop(`git ${args[0] ?? ""} printed more than ${cap} bytes on ${stream}`);
        (stream === "stdout" ? stdout : stderr).push(chunk);
      },
    });
    if (!started.ok) return { error: started.reason };
    const timer = setTimeout(
      () => stop(`git ${args[0] ?? ""} did not finish within ${limits.timeoutMs} ms`),
      limits.timeoutMs,
    );
    try {
      const first = await Promise.race([started.value.exited, stopped]);
      if (typeof first === "string") {
        started.value.kill("SIGKILL");
        return { error: `${first} (killed)` };
      }
      return { code: first.code ?? 128, stdout: concat(stdout), stderr: new TextDecoder().decode(concat(stderr)) };
    } finally {
      clearTimeout(timer);
    }
  };
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Reads a file of a folder by relative path (null when it is not a regular file there); `list` names its files. */
export type FolderRead = ((relativePath: string) => Promise<Uint8Array | null>) & {
  /** The folder's entries by name (a subfolder as "name/"), or null when the folder cannot be listed. */
  list?: () => Promise<string[] | null>;
};

/**
 * Reads files of `dir` by relative path: null unless the path resolves, without following a symbolic link at
 * any step, to a regular file inside the folder.
 */
export function folderReader(dir: string): FolderRead {
  let root: Promise<string | null> | null = null;
  const list = async () => {
    try {
      const entries = await (await openSafeFolder(dir)).list();
      return entries.map((e) => (e.kind === "folder" ? `${e.name}/` : e.name));
    } catch {
      return null;
    }
  };
  return Object.assign(async (relativePath: string) => {
    root ??= realPathOutcome(dir).then((r) => (r.ok ? r.value : null));
    const base = await root;
    if (base === null) return null;
    const path = resolve(base, relativePath);
    if (!path.startsWith(base + sep)) return null;
    const real = await realPathOutcome(path);
    if (!real.ok || real.value !== path) return null;
    const facts = await lstatOutcome(path);
    if (!facts.ok || !facts.value.isFile || facts.value.isSymlink) return null;
    return await readIfPresent(path);
  }, { list });
}

/** The bytes of the file at `path`, or null when there is none. */
export async function readIfPresent(path: string): Promise<Uint8Array | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if (error instanceof FileReadError && error.code === "not_found") return null;
    throw error;
  }
}

/** The runtime's safe folder writer for the output folder. */
export const outputFiles: OutputFiles = { open: openFolderWriter };

/** Reads one file of site/web/, the browser code this module ships with. */
export function readWebFile(name: string): Promise<Uint8Array> {
  return readFile(join(fileURLToPath(new URL("./web/", import.meta.url)), name));
}
