/**
 * File access that never throws: every call returns an Outcome, so a probe can record "null + reason" when a
 * file is missing or the read permission is refused. (runtime/_files.ts is the throwing reader for inputs that
 * must exist; this one is for facts that may be absent.)
 */
import { lstat, open, readdir, realpath, stat } from "node:fs/promises";
import { constants, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { errnoKind } from "./_errno.ts";
import { FileReadError, readFile } from "./_files.ts";
import { FolderFileError } from "./_folder_files.ts";
import { openFolderWriter } from "./_folder_writer.ts";
import { type Outcome, type Refusal, refusalFrom } from "./_refusal.ts";

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

/** Reads a regular text file of at most `maxBytes` (UTF-8, invalid bytes replaced), as _files.ts readFile does. */
export async function readTextOutcome(path: string, options: { maxBytes?: number } = {}): Promise<Outcome<string>> {
  try {
    return { ok: true, value: new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFile(path, options)) };
  } catch (error) {
    if (error instanceof FileReadError && (error.code === "not_regular" || error.code === "too_large")) {
      return { ok: false, kind: "failed", reason: error.message };
    }
    return refusalFrom(error instanceof FileReadError ? error.cause : error, `read ${path}`, "read");
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

/** Stats a path, following symbolic links. */
export async function statOutcome(path: string): Promise<Outcome<FileFacts>> {
  try {
    return { ok: true, value: factsOf(await stat(path)) };
  } catch (error) {
    return refusalFrom(error, `stat ${path}`, "read");
  }
}

/** Stats a path without following a symbolic link: a link is reported as one, never as its target. */
export async function lstatOutcome(path: string): Promise<Outcome<LinkFacts>> {
  try {
    const s = await lstat(path);
    return { ok: true, value: { ...factsOf(s), isSymlink: s.isSymbolicLink() } };
  } catch (error) {
    return refusalFrom(error, `stat ${path}`, "read");
  }
}

/** Lists the names in a folder, sorted. */
export async function readDirOutcome(path: string): Promise<Outcome<string[]>> {
  try {
    return { ok: true, value: (await readdir(path)).map(String).sort() };
  } catch (error) {
    return refusalFrom(error, `list ${path}`, "read");
  }
}

/** Resolves symbolic links to an absolute path. */
export async function realPathOutcome(path: string): Promise<Outcome<string>> {
  try {
    return { ok: true, value: await realpath(path) };
  } catch (error) {
    return refusalFrom(error, `resolve ${path}`, "read");
  }
}

/**
 * Opens a regular file for sequential reading (a link to one is followed). Opened without blocking and checked on
 * its handle, so a FIFO, a device or a folder is refused at once instead of hanging or streaming without end.
 */
export async function openReaderOutcome(path: string): Promise<Outcome<FileReader>> {
  try {
    const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      return {
        ok: false,
        kind: "failed",
        reason: `Cannot read "${path}": not a regular file (a FIFO, device, socket or folder is refused)`,
      };
    }
    return {
      ok: true,
      value: {
        read: async (buffer) => (await handle.read(buffer, 0, buffer.length, null)).bytesRead,
        close: () => handle.close(),
      },
    };
  } catch (error) {
    return refusalFrom(error, `open ${path}`, "read");
  }
}

/**
 * Writes a text file atomically (temporary file + rename) through the folder writer, creating its folder: a link in
 * place of the file or of its folder is refused, never written through.
 */
export async function writeTextOutcome(path: string, text: string): Promise<Outcome<true>> {
  try {
    const folder = await openFolderWriter(dirname(path), { refuseLink: true });
    await folder.write(basename(path), new TextEncoder().encode(text));
    return { ok: true, value: true };
  } catch (error) {
    return outputRefusal(error, path);
  }
}

/**
 * Writes a text file that must be new (exclusive create, never through a link, creating its folder): an existing
 * name is refused ("already exists"), never replaced.
 */
export async function writeNewTextOutcome(path: string, text: string): Promise<Outcome<true>> {
  try {
    const folder = await openFolderWriter(dirname(path), { refuseLink: true });
    const handle = await folder.create(basename(path));
    try {
      await handle.writeFile(text);
    } catch (error) {
      await handle.close();
      await folder.remove(basename(path)).catch(() => {}); // a full disk leaves no half-written file behind
      throw error;
    }
    await handle.close();
    return { ok: true, value: true };
  } catch (error) {
    if (errnoKind(error) === "exists") return { ok: false, kind: "failed", reason: `${path} already exists` };
    return outputRefusal(error, path);
  }
}

/** Why an output could not be written: a link or non-folder in its way in the folder writer's words, else the runtime's. */
export function outputRefusal(error: unknown, path: string): Refusal {
  if (error instanceof FolderFileError && error.cause === undefined) {
    return { ok: false, kind: "failed", reason: error.message };
  }
  return refusalFrom(error instanceof FolderFileError ? error.cause : error, `write ${path}`, "write");
}
