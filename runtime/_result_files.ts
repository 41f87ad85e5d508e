import process from "node:process";
import { constants as fsConstants } from "node:fs";
import { access, lstat, mkdir, open, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { errnoOf, WRITE_FAILURE_WORDS } from "./_errno.ts";

/**
 * File writes the result folder needs: a folder, lines appended and flushed one request at a time, and whole files
 * written atomically (temporary file, flush, rename) so a reader never sees half a results.json.
 */
export interface ResultFiles {
  /** Absolute path of the current working folder. */
  cwd(): string;
  /** Whether a path exists and is a folder (false when missing or not readable). */
  isDirectory(path: string): Promise<boolean>;
  /** Creates a folder and its parents. */
  makeDirectory(path: string): Promise<void>;
  /**
   * Appends bytes to a file (creating it) and flushes them to the disk before resolving. All or nothing: when the
   * write or the flush fails (a full disk, an I/O error), the file is cut back to its length before the call and the
   * error is rethrown, so a reader never sees part of the bytes.
   */
  appendDurable(path: string, bytes: Uint8Array): Promise<void>;
  /** Writes a whole file through a temporary sibling and a rename, flushed before the rename. */
  writeAtomic(path: string, bytes: Uint8Array): Promise<void>;
  /**
   * Checks, before anything is measured, that results can be written under `root`: the folder (created when
   * absent) is a folder, its real place (every link resolved) is one this process is permitted to write (Deno's
   * write permission, asked of the resolved path; Bun has none to ask), and a file can be created and removed
   * there (not a read-only or full disk).
   */
  checkRoot(root: string): Promise<RootCheck>;
  /**
   * The folder at `path` as the file system knows it (device and inode), not following a link; null when a link,
   * anything but a folder, or nothing stands there. Equal answers mean the same folder.
   */
  folderIdentity(path: string): Promise<string | null>;
}

/** Where a results root really is, or why results cannot be written there. */
export type RootCheck = { ok: true; resolved: string } | { ok: false; reason: string };

/** `path` with every link resolved, also when its last parts do not exist yet. */
async function resolvedPath(path: string): Promise<string> {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
  return join(await realpath(existing), ...rest);
}

type PermissionState = "granted" | "prompt" | "denied";

/** Deno's answer to "may this process write `path`?", or null where the runtime has no permissions (Bun). */
function writePermission(path: string): PermissionState | null {
  const deno = (globalThis as {
    Deno?: { permissions: { querySync(d: { name: "write"; path: string }): { state: PermissionState } } };
  }).Deno;
  if (!deno) return null;
  try {
    return deno.permissions.querySync({ name: "write", path }).state;
  } catch {
    return null;
  }
}

/** The longest leading part of an absolute path that exists. */
async function existingAncestor(path: string): Promise<string> {
  let at = path;
  for (;;) {
    try {
      await lstat(at);
      return at;
    } catch {
      const parent = dirname(at);
      if (parent === at) return at;
      at = parent;
    }
  }
}

function rootWriteProblem(code: string): string {
  return WRITE_FAILURE_WORDS[code] ?? `writing failed (${code})`;
}

async function checkRoot(root: string): Promise<RootCheck> {
  let resolved: string;
  try {
    resolved = await resolvedPath(root);
  } catch (error) {
    return { ok: false, reason: `cannot resolve "${root}" (${errnoOf(error) || "error"})` };
  }
  for (const path of new Set([resolve(root), resolved])) {
    const state = writePermission(path);
    if (state !== null && state !== "granted") {
      const where = path === resolve(root) ? "" : ` (it resolves to "${resolved}": a link leads out)`;
      return {
        ok: false,
        reason: `"${root}"${where} is outside the folders this command is permitted to write; pass --out with a ` +
          "folder inside them, or run with --allow-write for that folder",
      };
    }
  }
  // An existing root gets a probe file (created and removed: this finds a full disk too); an absent one is not
  // created here (a refused run leaves nothing behind), so its nearest existing folder is asked for write access.
  const existing = await existingAncestor(resolved);
  // Unique per call: two runs of one process checking the same root in the same millisecond collided on it.
  const probe = join(resolved, `.strata-bench-write-check-${process.pid}-${crypto.randomUUID()}`);
  try {
    if (existing !== resolved) {
      if (!(await stat(existing)).isDirectory()) return { ok: false, reason: `a part of "${root}" is a file` };
      await access(existing, fsConstants.W_OK);
      return { ok: true, resolved };
    }
    if (!(await stat(resolved)).isDirectory()) return { ok: false, reason: `"${root}" is not a folder` };
    await writeFlushed(probe, "wx", new Uint8Array([10]));
  } catch (error) {
    await unlink(probe).catch(() => undefined);
    return { ok: false, reason: `cannot write into "${root}": ${rootWriteProblem(errnoOf(error) || "error")}` };
  }
  await unlink(probe).catch(() => undefined);
  return { ok: true, resolved };
}

async function writeFlushed(path: string, flags: "a" | "wx", bytes: Uint8Array): Promise<void> {
  const handle = await open(path, flags);
  // The length before an append: a failed append is cut back to it.
  const before = flags === "a" ? (await handle.stat()).size : 0;
  try {
    let written = 0;
    while (written < bytes.length) {
      written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten;
    }
    await handle.datasync();
  } catch (error) {
    if (flags === "a") {
      await handle.truncate(before).catch(() => undefined);
      await handle.datasync().catch(() => undefined);
    }
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close();
}

/** The runtime's implementation of ResultFiles (node:fs, native in Deno and Bun). */
export const resultFiles: ResultFiles = {
  cwd: () => process.cwd(),
  async isDirectory(path) {
    try {
      return (await stat(path)).isDirectory();
    } catch {
      return false;
    }
  },
  async makeDirectory(path) {
    await mkdir(path, { recursive: true });
  },
  appendDurable: (path, bytes) => writeFlushed(path, "a", bytes),
  checkRoot,
  async folderIdentity(path) {
    try {
      const found = await lstat(path);
      return found.isDirectory() ? `${found.dev}:${found.ino}` : null;
    } catch {
      return null;
    }
  },
  async writeAtomic(path, bytes) {
    const temporary = `${path}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
    try {
      await writeFlushed(temporary, "wx", bytes);
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => {});
      throw error;
    }
  },
};
