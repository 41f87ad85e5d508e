import { readFile as nodeReadFile } from "node:fs/promises";
import { errnoKind } from "./_errno.ts";

/** Why a file could not be read, in words a person can act on. */
export type FileProblem = "not_found" | "permission_denied" | "is_directory" | "not_utf8" | "other";

/** Error thrown by the file readers below: `code` names the problem, `cause` keeps the runtime's own error. */
export class FileReadError extends Error {
  readonly code: FileProblem;
  readonly path: string;
  constructor(path: string, code: FileProblem, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "FileReadError";
    this.code = code;
    this.path = path;
  }
}

function classify(error: unknown): FileProblem {
  const kind = errnoKind(error);
  if (kind === "not_found" || kind === "not_folder") return "not_found";
  return kind === "permission_denied" || kind === "is_directory" ? kind : "other";
}

/**
 * Reads a whole file as bytes.
 * @throws {FileReadError} when the file is missing, not permitted, a directory, or unreadable.
 */
export async function readFile(path: string): Promise<Uint8Array> {
  try {
    const buffer = await nodeReadFile(path);
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } catch (error) {
    const code = classify(error);
    const detail = error instanceof Error ? error.message : String(error);
    throw new FileReadError(path, code, `Cannot read "${path}": ${code.replaceAll("_", " ")} (${detail})`, error);
  }
}

/**
 * Reads a whole file as strict UTF-8 text (invalid bytes are an error, never replaced; a BOM is kept as U+FEFF).
 * @throws {FileReadError} as readFile, plus code "not_utf8".
 */
export async function readTextFile(path: string): Promise<string> {
  const bytes = await readFile(path);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new FileReadError(path, "not_utf8", `Cannot read "${path}": not valid UTF-8 text`, error);
  }
}
