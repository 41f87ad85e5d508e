/**
 * Where load, compare and load merge write: a new file in the --out folder, named `<UTC-date>-<kind>-<run-id>`
 * (the same run-id form as a result folder: compact UTC time and six random characters), with the JSONL, the page
 * and the prompt-mix report sharing that stem. The command prints the names.
 */
import { join } from "node:path";
import { writeStderr } from "../runtime/mod.ts";
import { newRunId } from "../report/mod.ts";
import { EXIT } from "./exit_codes.ts";

/** Where load and compare write by default (inside the write permission of their tasks). */
export const DEFAULT_OUT = "bench-results";

/** The switches that once took a file (load and compare): refused with a value, with what to write now. */
export const OLD_FILE_SWITCHES = {
  "--html": "the page is written into the --out folder beside the JSONL, with the same name (--out DIR --html)",
  "--prompt-mix-report":
    "the report is written into the --out folder beside the JSONL, with the same name (--out DIR --prompt-mix-report)",
} as const;

/** The stem of a command's new files in `folder` ("bench-results/2026-01-31-load-20260131T120000Z-k3x9q2"). */
export function outputStem(folder: string, kind: "load" | "compare" | "merge" | "comparison", now: Date): string {
  const date = now.toISOString().slice(0, 10);
  return join(folder, `${date}-${kind}-${newRunId(now)}`);
}

/** Writes a page to `path`; returns the exit code and says where on stderr. */
export async function writePage(
  path: string,
  html: string,
  write: (path: string, text: string) => Promise<{ ok: true } | { ok: false; reason: string }>,
): Promise<number> {
  const written = await write(path, html);
  if (!written.ok) {
    writeStderr(`Cannot write "${path}": ${written.reason}\n`);
    return EXIT.environment;
  }
  writeStderr(`page written to ${path} (self-contained; opens offline)\n`);
  return EXIT.ok;
}
