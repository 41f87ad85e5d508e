import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { errnoKind, errorMessage } from "./_errno.ts";

/** Why a file could not be read, in words a person can act on. */
export type FileProblem =
  | "not_found"
  | "permission_denied"
  | "is_directory"
  | "not_regular"
  | "too_large"
  | "not_utf8"
  | "other";

/** Most bytes an input file may hold unless the caller says otherwise (a larger one is refused, not read). */
export const DEFAULT_MAX_READ_BYTES = 512 * 1024 * 1024;

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
 * Reads a whole regular file (a link to one is followed), at most `maxBytes`. The file is opened without blocking
 * and checked on its handle: a FIFO, a device (/dev/zero), a socket or a folder is refused before any byte is read,
 * so no input can hang the reader or feed it without end.
 * @throws {FileReadError} when the file is missing, not permitted, not a regular file, larger than the cap, or
 * unreadable.
 */
export async function readFile(path: string, options: { maxBytes?: number } = {}): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  const refuse = (code: FileProblem, detail: string, cause?: unknown): never => {
    throw new FileReadError(path, code, `Cannot read "${path}": ${detail}`, cause);
  };
  const failed = (error: unknown): never => {
    const code = classify(error);
    return refuse(
      code,
      `${code.replaceAll("_", " ")} (${errorMessage(error)})`,
      error,
    );
  };
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one (0 where unknown).
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return failed(error);
  }
  try {
    const facts = await handle.stat();
    if (facts.isDirectory()) refuse("is_directory", "is a directory; give a file");
    if (!facts.isFile()) refuse("not_regular", "not a regular file (a FIFO, device or socket is refused); give a file");
    if (facts.size > maxBytes) {
      refuse("too_large", `${facts.size} bytes, more than the ${maxBytes} this input may hold`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const chunk = new Uint8Array(Math.min(1 << 20, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) refuse("too_large", `it grew past the ${maxBytes} bytes this input may hold while read`);
    }
    return concatBytes(chunks);
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    return failed(error);
  } finally {
    await handle.close();
  }
}

/** The chunks joined into one array of bytes. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * Reads a whole file as strict UTF-8 text (invalid bytes are an error, never replaced; a BOM is kept as U+FEFF).
 * @throws {FileReadError} as readFile, plus code "not_utf8".
 */
export async function readTextFile(path: string, options: { maxBytes?: number } = {}): Promise<string> {
  const bytes = await readFile(path, options);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new FileReadError(path, "not_utf8", `Cannot read "${path}": not valid UTF-8 text`, error);
  }
}
