/**
 * Where load, compare and load merge write: a new file in the --out folder, named `<UTC-date>-<kind>-<run-id>`
 * (the same run-id form as a result folder: compact UTC time and six random characters), with the JSONL, the page
 * and the prompt-mix report sharing that stem. The command prints the names.
 */
import { join } from "node:path";
import { newRunId } from "../report/mod.ts";

/** The stem of a command's new files in `folder` ("bench-results/2026-01-31-load-20260131T120000Z-k3x9q2"). */
export function outputStem(folder: string, kind: "load" | "compare" | "merge" | "comparison", now: Date): string {
  const date = now.toISOString().slice(0, 10);
  return join(folder, `${date}-${kind}-${newRunId(now)}`);
}
