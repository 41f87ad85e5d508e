/**
 * The folder a site is built into. It must be new, empty, or a previous site build: a build leaves a marker
 * listing every file it wrote, and the next build removes exactly those files first (so a withdrawn entry's page
 * does not linger). A folder holding anything else is refused rather than overwritten. Every write and removal
 * goes through runtime's FolderWriter, which follows no symbolic link below the folder: a link planted in it (at
 * evidence/, or named by a crafted marker) refuses the build instead of letting it write or delete elsewhere.
 */
import { errorMessage } from "../runtime/mod.ts";
import type { FolderWriter } from "../runtime/mod.ts";
import type { SiteWriter } from "./_build.ts";
import { isSafeRelativePath } from "./web/mod.js";

/** Opens the output folder for writing; site/_deps.ts wires runtime's `openFolderWriter`. */
export interface OutputFiles {
  open(dir: string): Promise<FolderWriter>;
}

/** Why the output folder cannot be used. */
export class SiteOutputError extends Error {
  override readonly name = "SiteOutputError";
}

/** The marker a build leaves in its folder. */
const BUILD_MARKER = ".strata-site-files.json";

/** A marker lists paths; its size is bounded by what a build of any manifest writes. */
const MAX_MARKER_BYTES = 64 * 1024 * 1024;

/** A writer into the prepared folder, and `finish` to leave the marker. */
export interface SiteOutput extends SiteWriter {
  finish(files: readonly string[]): Promise<void>;
}

/** The files the previous build listed in its marker. @throws {SiteOutputError} */
async function previousFiles(folder: FolderWriter, dir: string): Promise<string[]> {
  const marker = await folder.read(BUILD_MARKER, MAX_MARKER_BYTES);
  if (marker === null) {
    throw new SiteOutputError(
      `Cannot build into "${dir}": it holds files that no site build wrote; give a new or empty folder`,
    );
  }
  let listed: unknown;
  try {
    listed = JSON.parse(new TextDecoder().decode(marker));
  } catch {
    throw new SiteOutputError(`Cannot build into "${dir}": its ${BUILD_MARKER} is not JSON; remove the folder first`);
  }
  const previous = (listed as { files?: unknown } | null)?.files;
  if (!Array.isArray(previous) || !previous.every(isSafeRelativePath)) {
    throw new SiteOutputError(`Cannot build into "${dir}": its ${BUILD_MARKER} is malformed; remove the folder first`);
  }
  return previous;
}

/**
 * Prepares `dir` for a build.
 * @throws {SiteOutputError} when it holds files that no site build wrote, or a symbolic link below it.
 */
export async function openSiteOutput(files: OutputFiles, dir: string): Promise<SiteOutput> {
  let folder: FolderWriter;
  try {
    folder = await files.open(dir);
    const names = await folder.list();
    if (names.length > 0) {
      for (const path of await previousFiles(folder, dir)) await folder.remove(path);
      await folder.remove(BUILD_MARKER);
    }
  } catch (error) {
    if (error instanceof SiteOutputError) throw error;
    const refused = (error as { code?: unknown }).code === "permission_denied";
    throw new SiteOutputError(
      `Cannot build into "${dir}": ${errorMessage(error)}${refused ? "" : "; remove the folder first"}`,
    );
  }
  const guarded = async (path: string, bytes: Uint8Array) => {
    try {
      await folder.write(path, bytes);
    } catch (error) {
      throw new SiteOutputError(`Cannot write "${path}" into "${dir}": ${errorMessage(error)}`);
    }
  };
  return {
    write: guarded,
    async finish(written) {
      const text = `${JSON.stringify({ format: "strata-site-files", files: written }, null, 1)}\n`;
      await guarded(BUILD_MARKER, new TextEncoder().encode(text));
    },
  };
}
