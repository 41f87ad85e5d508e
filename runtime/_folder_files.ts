/**
 * Reading files of a folder someone else made (a result folder handed to `report`): only regular files inside the
 * folder. Every component of a path below the folder is checked with lstat, so no symbolic link is followed
 * anywhere (a linked subfolder or file is refused, not read); devices, FIFOs and sockets are refused before they are
 * opened (a FIFO would block the reader forever, /dev/zero never ends); and a file is opened without following a
 * link and without blocking, checked again on the open handle (it must be the file lstat saw), and read only up to
 * its size cap. The folder itself may be a link: the person named it. Hard links are regular files and are read
 * (on systems with protected hard links a user cannot link a file they could not read).
 */
import fs from "node:fs";
import { lstat, open, readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { errnoKind } from "./_errno.ts";

/** Why a file of the folder was not read. */
export type FolderFileProblem =
  | "not_found"
  | "bad_path"
  | "symlink"
  | "not_regular"
  | "not_folder"
  | "too_large"
  | "permission_denied"
  | "other";

/** A file of the folder that was not read: `code` says why, `path` is the relative path asked for. */
export class FolderFileError extends Error {
  readonly code: FolderFileProblem;
  readonly path: string;
  /** The file's size in bytes, where it is known (too_large). */
  readonly sizeBytes: number | null;
  constructor(
    path: string,
    code: FolderFileProblem,
    message: string,
    sizeBytes: number | null = null,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = "FolderFileError";
    this.code = code;
    this.path = path;
    this.sizeBytes = sizeBytes;
  }
}

/** One entry of the folder's top level, as lstat sees it (links are not followed). */
export interface FolderEntry {
  name: string;
  kind: "file" | "folder" | "symlink" | "other";
  sizeBytes: number;
}

/** A folder opened for safe reading. */
export interface SafeFolder {
  /** The folder's real path (links in the path the person gave resolved). */
  readonly root: string;
  /**
   * Reads a regular file at `relativePath` ("/"-separated, no "..", no absolute path) of at most `maxBytes` bytes.
   * @throws {FolderFileError} when the path is unsafe, missing, a link, not a regular file, or over the cap.
   */
  read(relativePath: string, maxBytes: number): Promise<Uint8Array>;
  /** The entries of the folder's top level, sorted by name. */
  list(): Promise<FolderEntry[]>;
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

function kindOf(stats: fs.Stats): FolderEntry["kind"] {
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "folder";
  return "other";
}

function whatIs(stats: fs.Stats): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isDirectory()) return "a folder";
  return "not a regular file";
}

function failure(path: string, error: unknown, doing: string): FolderFileError {
  const kind = errnoKind(error);
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (kind === "not_found") {
    return new FolderFileError(path, "not_found", `"${path}" is not in the result folder`, null, error);
  }
  if (kind === "link") {
    return new FolderFileError(path, "symlink", `"${path}" is a symbolic link; links are not followed`, null, error);
  }
  if (kind === "permission_denied") {
    return new FolderFileError(path, "permission_denied", `cannot ${doing} "${path}": permission refused`, null, error);
  }
  return new FolderFileError(path, "other", `cannot ${doing} "${path}": ${detail}`, null, error);
}

/** The relative path's components, or a problem when it could leave the folder. */
export function components(relativePath: string): string[] {
  const parts = relativePath.split("/");
  const unsafe = relativePath === "" || relativePath.startsWith("/") || relativePath.includes("\\") ||
    relativePath.includes("\0") || /^[A-Za-z]:/.test(relativePath) ||
    parts.some((part) => part === "" || part === "." || part === "..");
  if (unsafe) {
    throw new FolderFileError(relativePath, "bad_path", `"${relativePath}" is not a plain path inside the folder`);
  }
  return parts;
}

async function readCapped(root: string, relativePath: string, maxBytes: number): Promise<Uint8Array> {
  const parts = components(relativePath);
  let at = root;
  let last: fs.Stats | null = null;
  for (const [i, part] of parts.entries()) {
    at = join(at, part);
    const shown = parts.slice(0, i + 1).join("/");
    try {
      last = await lstat(at);
    } catch (error) {
      throw failure(relativePath, error, "read");
    }
    if (last.isSymbolicLink()) {
      throw new FolderFileError(
        relativePath,
        "symlink",
        `"${shown}" is a symbolic link; report reads only files inside the result folder and follows no link`,
      );
    }
    if (i < parts.length - 1 && !last.isDirectory()) {
      throw new FolderFileError(
        relativePath,
        "not_folder",
        `"${shown}" is not a folder, so "${relativePath}" is absent`,
      );
    }
  }
  if (last === null || !last.isFile()) {
    throw new FolderFileError(
      relativePath,
      "not_regular",
      `"${relativePath}" is ${last === null ? "missing" : whatIs(last)}; only regular files are read`,
    );
  }
  if (last.size > maxBytes) {
    throw new FolderFileError(relativePath, "too_large", tooLarge(relativePath, last.size, maxBytes), last.size);
  }
  let handle: fs.promises.FileHandle;
  try {
    handle = await open(at, fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw failure(relativePath, error, "open");
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== last.ino || opened.dev !== last.dev) {
      throw new FolderFileError(relativePath, "not_regular", `"${relativePath}" changed while it was being opened`);
    }
    // One byte more than the cap tells a file that grew after lstat from one that fits.
    const buffer = new Uint8Array(Math.min(maxBytes, Math.max(opened.size, 0)) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) {
      throw new FolderFileError(relativePath, "too_large", tooLarge(relativePath, filled, maxBytes), filled);
    }
    return buffer.subarray(0, filled);
  } catch (error) {
    if (error instanceof FolderFileError) throw error;
    throw failure(relativePath, error, "read");
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function tooLarge(path: string, sizeBytes: number, maxBytes: number): string {
  return `"${path}" is ${sizeBytes} bytes, more than the ${maxBytes} bytes a result file may have; it is not read`;
}

/**
 * Opens `dir` for safe reading.
 * @throws {FolderFileError} (path ".") when `dir` does not exist, is not a folder, or cannot be read.
 */
export async function openSafeFolder(dir: string): Promise<SafeFolder> {
  let root: string;
  try {
    root = await realpath(dir);
  } catch (error) {
    throw failure(".", error, "open the folder");
  }
  let stats: fs.Stats;
  try {
    stats = await lstat(root);
  } catch (error) {
    throw failure(".", error, "open the folder");
  }
  if (!stats.isDirectory()) throw new FolderFileError(".", "not_folder", `"${dir}" is ${whatIs(stats)}`);
  return {
    root,
    read: (relativePath, maxBytes) => readCapped(root, relativePath, maxBytes),
    async list() {
      let names: string[];
      try {
        names = (await readdir(root)).map(String).sort();
      } catch (error) {
        throw failure(".", error, "list");
      }
      const entries: FolderEntry[] = [];
      for (const name of names) {
        try {
          const s = await lstat(join(root, name));
          entries.push({ name, kind: kindOf(s), sizeBytes: s.size });
        } catch {
          // Gone between readdir and lstat: not listed.
        }
      }
      return entries;
    },
  };
}
