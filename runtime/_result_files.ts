import process from "node:process";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";

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
  /** Appends bytes to a file (creating it) and flushes them to the disk before resolving. */
  appendDurable(path: string, bytes: Uint8Array): Promise<void>;
  /** Writes a whole file through a temporary sibling and a rename, flushed before the rename. */
  writeAtomic(path: string, bytes: Uint8Array): Promise<void>;
}

async function writeFlushed(path: string, flags: "a" | "wx", bytes: Uint8Array): Promise<void> {
  const handle = await open(path, flags);
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
