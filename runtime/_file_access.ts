/**
 * File access that never throws: every call returns an Outcome, so a probe can record "null + reason" when a
 * file is missing or the read permission is refused. (runtime/_files.ts is the throwing reader for inputs that
 * must exist; this one is for facts that may be absent.)
 */
import type { Stats } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, realpath, rename, stat, writeFile } from "node:fs/promises";
import { type Outcome, refusalFrom } from "./_refusal.ts";

/** What a probe needs to know about one file system entry. */
export interface FileFacts {
  sizeBytes: number;
  /** Modification time in milliseconds since the epoch. */
  mtimeMs: number;
  /** Inode number (0 where the platform has none). */
  ino: number;
  isFile: boolean;
  isDirectory: boolean;
}

/** FileFacts of the entry itself, which may be a symbolic link. */
export interface LinkFacts extends FileFacts {
  isSymlink: boolean;
}

/** An open file read sequentially into caller-owned buffers. */
export interface FileReader {
  /** Reads up to `buffer.length` bytes into `buffer`; returns the count, 0 at end of file. */
  read(buffer: Uint8Array): Promise<number>;
  close(): Promise<void>;
}

/** The value `run` resolves with, or the refusal its error means (`action` names what was tried, for the reason). */
async function attempt<T>(action: string, kind: "read" | "write", run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return refusalFrom(error, action, kind);
  }
}

function factsOf(s: Stats): FileFacts {
  return {
    sizeBytes: s.size,
    mtimeMs: s.mtimeMs,
    ino: typeof s.ino === "number" ? s.ino : 0,
    isFile: s.isFile(),
    isDirectory: s.isDirectory(),
  };
}

/** Reads a text file (UTF-8, invalid bytes replaced). */
export function readTextOutcome(path: string): Promise<Outcome<string>> {
  return attempt(`read ${path}`, "read", () => readFile(path, "utf8"));
}

/** Stats a path, following symbolic links. */
export function statOutcome(path: string): Promise<Outcome<FileFacts>> {
  return attempt(`stat ${path}`, "read", async () => factsOf(await stat(path)));
}

/** Stats a path without following a symbolic link: a link is reported as one, never as its target. */
export function lstatOutcome(path: string): Promise<Outcome<LinkFacts>> {
  return attempt(`stat ${path}`, "read", async () => {
    const s = await lstat(path);
    return { ...factsOf(s), isSymlink: s.isSymbolicLink() };
  });
}

/** Lists the names in a folder, sorted. */
export function readDirOutcome(path: string): Promise<Outcome<string[]>> {
  return attempt(`list ${path}`, "read", async () => (await readdir(path)).map(String).sort());
}

/** Resolves symbolic links to an absolute path. */
export function realPathOutcome(path: string): Promise<Outcome<string>> {
  return attempt(`resolve ${path}`, "read", () => realpath(path));
}

/** Opens a file for sequential reading. */
export function openReaderOutcome(path: string): Promise<Outcome<FileReader>> {
  return attempt(`open ${path}`, "read", async () => {
    const handle = await open(path, "r");
    return {
      read: async (buffer: Uint8Array) => (await handle.read(buffer, 0, buffer.length, null)).bytesRead,
      close: () => handle.close(),
    };
  });
}

/** Writes a text file atomically (temporary file + rename), creating its folder. */
export function writeTextOutcome(path: string, text: string): Promise<Outcome<true>> {
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  const temporary = `${path}.${Date.now().toString(36)}.tmp`;
  return attempt(`write ${path}`, "write", async () => {
    if (slash > 0) await mkdir(path.slice(0, slash), { recursive: true });
    await writeFile(temporary, text, "utf8");
    await rename(temporary, path);
    return true as const;
  });
}
