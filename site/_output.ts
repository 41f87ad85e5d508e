/**
 * The folder a site is built into. It must be new, empty, or a previous site build: a build leaves a marker
 * listing every file it wrote, and the next build removes exactly those files first (so a withdrawn entry's page
 * does not linger). A folder holding anything else is refused rather than overwritten.
 */
import { join } from "node:path";
import type { SiteWriter } from "./_build.ts";

/** The file operations the output folder needs; site/_deps.ts wires the runtime's. */
export interface OutputFiles {
  /** Names in a folder, or null when it does not exist. */
  list(dir: string): Promise<string[] | null>;
  /** A file's bytes, or null when it does not exist. */
  read(path: string): Promise<Uint8Array | null>;
  remove(path: string): Promise<void>;
  makeDirectory(path: string): Promise<void>;
  write(path: string, bytes: Uint8Array): Promise<void>;
}

/** Why the output folder cannot be used. */
export class SiteOutputError extends Error {
  override readonly name = "SiteOutputError";
}

/** The marker a build leaves in its folder. */
export const BUILD_MARKER = ".strata-site-files.json";

/** A writer into the prepared folder, and `finish` to leave the marker. */
export interface SiteOutput extends SiteWriter {
  finish(files: readonly string[]): Promise<void>;
}

function safeListed(path: unknown): path is string {
  return typeof path === "string" && path !== "" && !path.startsWith("/") && !path.includes("\\") &&
    path.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

/**
 * Prepares `dir` for a build.
 * @throws {SiteOutputError} when it holds files that no site build wrote.
 */
export async function openSiteOutput(files: OutputFiles, dir: string): Promise<SiteOutput> {
  const names = await files.list(dir);
  if (names !== null && names.length > 0) {
    const marker = await files.read(join(dir, BUILD_MARKER));
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
    const previous = (listed as { files?: unknown }).files;
    if (!Array.isArray(previous) || !previous.every(safeListed)) {
      throw new SiteOutputError(
        `Cannot build into "${dir}": its ${BUILD_MARKER} is malformed; remove the folder first`,
      );
    }
    for (const path of previous) await files.remove(join(dir, path));
    await files.remove(join(dir, BUILD_MARKER));
  }
  await files.makeDirectory(dir);
  const made = new Set<string>();
  return {
    async write(path, bytes) {
      const slash = path.lastIndexOf("/");
      if (slash > 0) {
        const folder = path.slice(0, slash);
        if (!made.has(folder)) {
          await files.makeDirectory(join(dir, folder));
          made.add(folder);
        }
      }
      await files.write(join(dir, path), bytes);
    },
    async finish(written) {
      const text = `${JSON.stringify({ format: "strata-site-files", files: written }, null, 1)}\n`;
      await files.write(join(dir, BUILD_MARKER), new TextEncoder().encode(text));
    },
  };
}
