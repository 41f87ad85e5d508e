/**
 * Writing and removing files inside a folder a command owns but someone else may have prepared (a site's --out):
 * the write side of `SafeFolder`. Every component of a path below the folder is checked with lstat before a file
 * is written, removed or a folder made, so no symbolic link is followed anywhere: a linked subfolder or file is
 * refused, never written through or removed through (a link at <out>/evidence would otherwise let a build write
 * or delete outside the folder). A file is written to a temporary sibling opened exclusively without following a
 * link, flushed, and renamed over the name (rename replaces a name, it never follows one). The folder itself may
 * be a link (the person named it) unless the caller refuses one: a command's output folder (load, compare, report's
 * files) is refused as a link, so a folder swapped for a link between two writes sends nothing elsewhere.
 */
import fs from "node:fs";
import { type FileHandle, lstat, mkdir, open, readdir, realpath, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errnoKind, errnoOf } from "./_errno.ts";
import { components, FolderFileError } from "./_folder_files.ts";
import { refusedPermissionFlag } from "./_refusal.ts";

/** A folder opened for safe writing. */
export interface FolderWriter {
  /** The folder's real path. */
  readonly root: string;
  /** Names at the folder's top level, sorted. */
  list(): Promise<string[]>;
  /**
   * The bytes of a regular file at `relativePath`, or null when there is none.
   * @throws {FolderFileError} when a component is a link or not a folder, or the file is over `maxBytes`.
   */
  read(relativePath: string, maxBytes: number): Promise<Uint8Array | null>;
  /**
   * Writes a whole file, making its folders.
   * @throws {FolderFileError} when a component is a link or not a folder.
   */
  write(relativePath: string, bytes: Uint8Array): Promise<void>;
  /**
   * Creates a new file to be written as it grows (never over an existing name, never through a link).
   * @throws {FolderFileError} when a component is a link or not a folder; the runtime's error when the name exists.
   */
  create(relativePath: string): Promise<FileHandle>;
  /**
   * Removes a regular file; nothing when it is absent.
   * @throws {FolderFileError} when a component is a link, or the name is a folder or a link.
   */
  remove(relativePath: string): Promise<void>;
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW;

/** lstat, or null when the name does not exist. */
async function lstatOrNull(path: string): Promise<fs.Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if (errnoKind(error) === "not_found") return null;
    throw error;
  }
}

function linkRefused(relativePath: string, shown: string): FolderFileError {
  return new FolderFileError(
    relativePath,
    "symlink",
    `"${shown}" is a symbolic link; nothing is written or removed through a link, so the folder cannot be used`,
  );
}

/**
 * Checks the folders above the last component (each a real folder or absent; `make` creates the absent ones) and
 * returns the last component's lstat (null when absent).
 */
async function walk(
  root: string,
  relativePath: string,
  make: boolean,
): Promise<{ path: string; stats: fs.Stats | null }> {
  const names = components(relativePath);
  let at = root;
  for (const [i, name] of names.entries()) {
    at = join(at, name);
    const shown = names.slice(0, i + 1).join("/");
    let stats = await lstatOrNull(at);
    if (stats?.isSymbolicLink()) throw linkRefused(relativePath, shown);
    if (i === names.length - 1) return { path: at, stats };
    if (stats === null) {
      if (!make) return { path: join(at, ...names.slice(i + 1)), stats: null };
      await mkdir(at).catch((error) => {
        if (errnoKind(error) !== "exists") throw error;
      });
      stats = await lstat(at);
      if (stats.isSymbolicLink()) throw linkRefused(relativePath, shown);
    }
    if (!stats.isDirectory()) {
      throw new FolderFileError(
        relativePath,
        "not_folder",
        `"${shown}" is not a folder, so "${relativePath}" cannot be there`,
      );
    }
  }
  throw new FolderFileError(relativePath, "bad_path", `"${relativePath}" is not a plain path inside the folder`);
}

async function writeFlushed(path: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(path, CREATE_NEW);
  try {
    let written = 0;
    while (written < bytes.length) {
      written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten;
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Opens `dir` for safe writing, creating it (and its parents) when absent.
 * @throws {FolderFileError} (path ".") when `dir` is not a folder or cannot be made, or with `refuseLink` is a link.
 */
export async function openFolderWriter(dir: string, options: { refuseLink?: boolean } = {}): Promise<FolderWriter> {
  const root = await folderRoot(dir, options.refuseLink === true);
  return {
    root,
    async list() {
      return (await readdir(root)).map(String).sort();
    },
    async read(relativePath, maxBytes) {
      const { path, stats } = await walk(root, relativePath, false);
      if (stats === null) return null;
      if (!stats.isFile()) {
        throw new FolderFileError(relativePath, "not_regular", `"${relativePath}" is not a regular file`);
      }
      if (stats.size > maxBytes) {
        throw new FolderFileError(relativePath, "too_large", `"${relativePath}" is over ${maxBytes} bytes`, stats.size);
      }
      const handle = await open(path, fs.constants.O_RDONLY | O_NOFOLLOW);
      try {
        const buffer = new Uint8Array(stats.size);
        let filled = 0;
        while (filled < buffer.length) {
          const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        return buffer.subarray(0, filled);
      } finally {
        await handle.close();
      }
    },
    async write(relativePath, bytes) {
      const { path, stats } = await walk(root, relativePath, true);
      if (stats !== null && !stats.isFile()) {
        throw new FolderFileError(relativePath, "not_regular", `"${relativePath}" exists and is not a regular file`);
      }
      const temporary = `${path}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
      try {
        await writeFlushed(temporary, bytes);
        await rename(temporary, path);
      } catch (error) {
        await unlink(temporary).catch(() => {});
        throw error;
      }
    },
    async create(relativePath) {
      const { path } = await walk(root, relativePath, true);
      return await open(path, CREATE_NEW);
    },
    async remove(relativePath) {
      const { path, stats } = await walk(root, relativePath, false);
      if (stats === null) return;
      if (!stats.isFile()) {
        throw new FolderFileError(relativePath, "not_regular", `"${relativePath}" is not a regular file; not removed`);
      }
      await unlink(path).catch((error) => {
        if (errnoKind(error) !== "not_found") throw error;
      });
    },
  };
}

/**
 * The folder made (with its parents) and resolved. @throws {FolderFileError} "permission_denied" (with the flag to
 * add), "not_folder" when it cannot be made or is not a folder, or a link refused.
 */
async function folderRoot(dir: string, refuseLink: boolean): Promise<string> {
  try {
    if (refuseLink && (await lstatOrNull(dir))?.isSymbolicLink()) throw linkRefused(".", dir);
    await mkdir(dir, { recursive: true });
    return await realpath(dir);
  } catch (error) {
    if (error instanceof FolderFileError) throw error;
    const flag = refusedPermissionFlag(error);
    if (flag !== null) {
      throw new FolderFileError(
        ".",
        "permission_denied",
        `permission to write "${dir}" refused (add ${flag})`,
        null,
        error,
      );
    }
    const kind = errnoKind(error);
    const why = kind === "exists" || kind === "not_folder"
      ? "it is not a folder"
      : `cannot make it (${errnoOf(error) || error})`;
    throw new FolderFileError(".", "not_folder", `Cannot use "${dir}": ${why}`, null, error);
  }
}
