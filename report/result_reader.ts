/**
 * What `report` (and the run's own self-check) may read of a result folder, and how much of it: the size cap of
 * each file, the artifact reader the validator gets, and the reading of a folder that a run left without
 * results.json. The file-system side (lstat of every path component, no link followed, regular files only) is
 * runtime's SafeFolder; this file is the policy on top of it.
 *
 * Caps, from what a genuine run can write: results.json holds records, reasons and engine options, never the
 * streamed text (well under 1 MiB for a real run; capped at 16 MiB: its largest part, the records' ITL gaps, is
 * bounded by contract's MAX_CHUNK_STAMPS per request, under 7 MiB for 34 requests); outputs.jsonl holds each request's body and
 * its streamed text, which the client caps per request (contract's MAX_STREAM_BODY_BYTES, 4 MiB; and the bytes that
 * are not UTF-8, which cost about 11 bytes of evidence each, by MAX_INVALID_UTF8_SEQUENCES; the texts of the
 * chunks that carried usage and timings, kept apart and escaped once more, by MAX_USAGE_CHUNK_CHARS: a line is at
 * most about 5.3 MB), so 34 requests stay under 256 MiB; every other file (config, engine log, template) is capped at 64 MiB.
 */
import { RESULT_FILES } from "../contract/mod.ts";
import { FolderFileError } from "../runtime/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import type { ArtifactReader } from "./checks/_artifacts.ts";

/** Size caps of the files of a result folder, in bytes. */
export const RESULT_FILE_CAPS = {
  results: 16 * 1024 * 1024,
  outputs: 256 * 1024 * 1024,
  other: 64 * 1024 * 1024,
} as const;

/** The cap of a file of the result folder, by its path. */
export function capOf(relativePath: string): number {
  if (relativePath === RESULT_FILES.results) return RESULT_FILE_CAPS.results;
  if (relativePath === RESULT_FILES.outputs) return RESULT_FILE_CAPS.outputs;
  return RESULT_FILE_CAPS.other;
}

/** What reads files of the folder (runtime's SafeFolder). */
export interface FolderFiles {
  read(relativePath: string, maxBytes: number): Promise<Uint8Array>;
}

/**
 * The validator's artifact reader over a safe folder: a file that is not there is null (the validator says so);
 * a link, a non-regular file or one over its cap is thrown, and the validator reports the message.
 */
export function artifactReaderOf(folder: FolderFiles): ArtifactReader {
  return async (relativePath) => {
    try {
      return await folder.read(relativePath, capOf(relativePath));
    } catch (error) {
      if (error instanceof FolderFileError && error.code === "not_found") return null;
      throw error;
    }
  };
}

/** What the outputs.jsonl of an interrupted run holds. */
export interface InterruptedEvidence {
  /** Complete lines that parse as a request's evidence (an object with a string request_id), by request id once. */
  requests: number;
  /** Of those, how many were sent (any status but skipped). */
  sent: number;
  /** Lines that are not a request's evidence (cut, not JSON, repeated id). */
  unreadableLines: number;
  /** Whether the file ends inside a line (the process died while writing it). */
  lastLineCut: boolean;
}

/** Reads the evidence a killed run left: how many requests it holds, never quoting a line. */
export function interruptedEvidence(bytes: Uint8Array): InterruptedEvidence {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  const lastLineCut = text !== "" && !text.endsWith("\n");
  const lines = text.split("\n");
  if (lines.at(-1) === "" || lastLineCut) lines.pop();
  const ids = new Set<string>();
  let sent = 0;
  let unreadableLines = lastLineCut ? 1 : 0;
  for (const line of lines) {
    const parsed = parseStrictJsonPlain(line);
    const fields = parsed.ok ? parsed.value : null;
    const id = fields !== null && typeof fields === "object" && !Array.isArray(fields)
      ? (fields as Record<string, unknown>)["request_id"]
      : undefined;
    if (typeof id !== "string" || ids.has(id)) {
      unreadableLines++;
      continue;
    }
    ids.add(id);
    if ((fields as Record<string, unknown>)["status"] !== "skipped") sent++;
  }
  return { requests: ids.size, sent, unreadableLines, lastLineCut };
}
