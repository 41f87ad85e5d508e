/**
 * The result folder of one run: its name and place, outputs.jsonl appended and flushed per request, sanitized
 * artifacts hashed over their final bytes, and results.json written last through a temporary file and a rename.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { refusalFrom, type ResultFiles } from "../runtime/mod.ts";
import {
  type Artifact,
  type ArtifactKind,
  EVIDENCE_VERSION,
  type EvidenceLine,
  type ExecutedRequest,
  LINE_NAMES,
  type RequestStatus,
  RESULT_FILES,
  sha256Hex,
} from "../contract/mod.ts";

/**
 * Slug of the first GPU name for the folder name: lowercase ASCII letters, digits and single dashes.
 * An empty list (the probe found none) gives "nogpu"; null (unknown) or a name with no usable characters gives
 * "unknown-gpu".
 */
export function gpuSlug(gpuNames: readonly string[] | null): string {
  if (gpuNames === null) return "unknown-gpu";
  const first = gpuNames[0];
  if (first === undefined) return "nogpu";
  const slug = first.toLowerCase().replace(/\b(nvidia|amd|intel|corporation|geforce)\b/g, " ")
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/, "");
  return slug === "" ? "unknown-gpu" : slug;
}

/**
 * `<UTC-date>-standard-<gpu>-<run-id>` for a run started at `startedAt` (UTC ISO 8601).
 * @throws {RangeError} when startedAt is not an ISO timestamp or the run id is not a safe folder name part.
 */
export function resultFolderName(startedAt: string, gpu: string, runId: string): string {
  const date = /^(\d{4}-\d{2}-\d{2})T/.exec(startedAt)?.[1];
  if (!date) throw new RangeError(`Cannot name the result folder: "${startedAt}" is not a UTC ISO timestamp`);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(runId)) {
    throw new RangeError(`Cannot name the result folder: run id "${runId}" has characters unsafe in a path`);
  }
  return `${date}-standard-${gpu}-${runId}`;
}

/** A unique run id: compact UTC start time plus six random base-36 characters ("20261129T140307Z-k3x9q2"). */
export function newRunId(startedAt: Date, random: () => number = Math.random): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}Z$/, "Z");
  let suffix = "";
  while (suffix.length < 6) suffix += Math.floor(random() * 36).toString(36);
  return `${stamp}-${suffix}`;
}

/** Where result folders go: `--out`, else `<cwd>/bench/results` when it exists, else `<cwd>/bench-results`. */
export async function chooseResultsRoot(files: ResultFiles, outOverride?: string): Promise<string> {
  if (outOverride !== undefined) return outOverride;
  const benchResults = join(files.cwd(), "bench", "results");
  return (await files.isDirectory(benchResults)) ? benchResults : join(files.cwd(), "bench-results");
}

/** Sanitizers applied to everything written into the folder. */
export interface Sanitizers {
  text(text: string): string;
  json(value: unknown): unknown;
}

/** Writer of one result folder. */
export interface ResultFolder {
  /** The folder's path (as given: relative stays relative). */
  readonly path: string;
  /**
   * Appends a line that is already sanitized (report/publish.ts made it consistent with its published record) to
   * outputs.jsonl, exactly as given, and flushes it; calls are serialized.
   */
  appendSanitizedOutput(line: Record<string, unknown>): Promise<void>;
  /** The outputs artifact over the bytes appended so far (call after the last append). */
  outputsArtifact(): Artifact;
  /** Writes a sanitized artifact and returns its entry (SHA-256 of the bytes written). */
  writeArtifact(kind: ArtifactKind, name: string, content: string): Promise<Artifact>;
  /**
   * Writes a JSON value as an artifact (two-space indent, final newline), sanitized value by value as results.json
   * is: a text pass over JSON text would see a Windows path with its backslashes doubled and miss it.
   */
  writeJsonArtifact(kind: ArtifactKind, name: string, value: unknown): Promise<Artifact>;
  /**
   * Writes a file drawn only from the already sanitized result (the pictures) as an artifact, without passing it
   * through the sanitizer again (which could take a drawing's path data for a host name); returns its entry.
   */
  writeDerivedArtifact(kind: ArtifactKind, name: string, content: string): Promise<Artifact>;
  /** Writes a sanitized file that is not an artifact (README.md); resolves with the SHA-256 of the bytes written. */
  writeFile(name: string, content: string): Promise<string>;
  /** Writes results.json atomically; call last. The text must already be final (sanitized, hashed artifacts in). */
  writeResults(text: string): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * A check to call before each write: every write goes through `path`, and the folder it names must stay the one
 * created there. A swap for a link mid-run (to write the result elsewhere) stops the writes instead of following
 * it (error code FOLDER_REPLACED). A swap between the check and the write is not caught: the runtime has no
 * descriptor-relative writes.
 */
async function sameFolderGuard(files: ResultFiles, path: string): Promise<() => Promise<void>> {
  const identity = await files.folderIdentity(path);
  return async () => {
    if (identity !== null && (await files.folderIdentity(path)) === identity) return;
    throw Object.assign(new Error(`the result folder "${path}" is no longer the folder this run created`), {
      code: "FOLDER_REPLACED",
    });
  };
}

/**
 * Creates the folder (and parents) and returns its writer.
 * @throws {Error} when the folder cannot be created (permission, read-only disk); the message names the path.
 */
export async function openResultFolder(
  files: ResultFiles,
  root: string,
  name: string,
  sanitize: Sanitizers,
): Promise<ResultFolder> {
  const path = join(root, name);
  try {
    await files.makeDirectory(path);
  } catch (error) {
    // The runtime's refusal words name the write flag (or, under /proc and /sys, say no narrow flag helps);
    // Deno's own message would suggest --allow-all for those folders.
    const refusal = refusalFrom(error, "write there", "write");
    const detail = refusal.kind === "permission"
      ? refusal.reason
      : error instanceof Error
      ? error.message
      : String(error);
    throw new Error(`Cannot create the result folder "${path}": ${detail}; pass --out DIR to write elsewhere`, {
      cause: error,
    });
  }
  const unchanged = await sameFolderGuard(files, path);
  const outputsHash = createHash("sha256");
  let appended: Promise<void> = Promise.resolve();
  const append = (line: unknown): Promise<void> => {
    const bytes = encoder.encode(`${JSON.stringify(line)}\n`);
    appended = appended.then(async () => {
      await unchanged();
      await files.appendDurable(join(path, RESULT_FILES.outputs), bytes);
      outputsHash.update(bytes);
    });
    return appended;
  };
  // Every file but outputs.jsonl: written whole through a rename, into the folder the run created; its SHA-256.
  const put = async (name: string, text: string): Promise<string> => {
    const bytes = encoder.encode(text);
    await unchanged();
    await files.writeAtomic(join(path, name), bytes);
    return sha256Hex(bytes);
  };
  return {
    path,
    appendSanitizedOutput(line) {
      return append(line);
    },
    outputsArtifact() {
      return { kind: "outputs", path: RESULT_FILES.outputs, sha256: outputsHash.copy().digest("hex") };
    },
    async writeArtifact(kind, name, content) {
      return { kind, path: name, sha256: await put(name, sanitize.text(content)) };
    },
    async writeJsonArtifact(kind, name, value) {
      return { kind, path: name, sha256: await put(name, `${JSON.stringify(sanitize.json(value), null, 2)}\n`) };
    },
    async writeDerivedArtifact(kind, name, content) {
      return { kind, path: name, sha256: await put(name, content) };
    },
    writeFile(name, content) {
      return put(name, sanitize.text(content));
    },
    async writeResults(text) {
      await appended;
      await unchanged();
      await files.writeAtomic(join(path, RESULT_FILES.results), encoder.encode(text));
    },
  };
}

/**
 * One outputs.jsonl line (contract/'s EvidenceLine): the request's facts, the stream outcome's fields under the
 * line's names (`LINE_NAMES`); for skipped work only the id and the skip reason.
 */
export function outputLine(request: ExecutedRequest, status: RequestStatus): EvidenceLine {
  const common = { evidence_version: EVIDENCE_VERSION, request_id: request.fixture.id };
  if (request.kind === "skipped") return { ...common, status: "skipped", skip_reason: request.reason };
  if (status === "skipped") throw new TypeError(`Cannot write the line of "${request.fixture.id}": it was sent`);
  const o = request.outcome;
  return {
    ...common,
    status,
    concurrency: request.concurrency,
    request: request.body,
    dispatch_offset_s: request.dispatchOffsetS,
    dispatched_at_epoch_ms: o.dispatched_at_epoch_ms,
    end: o.end,
    http_status: o.http_status,
    finish_reason: o.finish_reason,
    first_delta_kind: o.first_delta_kind,
    [LINE_NAMES.answer_text]: o.answer_text,
    reasoning_text: o.reasoning_text,
    tool_calls: o.tool_calls,
    // The exact texts the counts are read from; a client that kept none leaves the parsed objects instead.
    ...(o.usage_chunk === undefined ? { usage: o.usage } : { usage_chunk: o.usage_chunk }),
    ...(o.timings_chunk === undefined ? { timings: o.timings } : { timings_chunk: o.timings_chunk }),
    invalid_utf8: o.invalid_utf8 ?? [],
    slot_reading: request.slot ?? { kind: "none", reason: "the run read no /slots for this request" },
    error: o.end === "finished" ? null : { kind: o.end, message: o.error_message ?? o.end },
    [LINE_NAMES.offsets]: o.offsets,
    [LINE_NAMES.events]: o.events,
    keepalives: o.keepalives,
    ...(o.chunk_offsets_s === undefined ? {} : { chunk_offsets_s: o.chunk_offsets_s }),
    ...(o.reasoning_chunk_offsets_s === undefined ? {} : { reasoning_chunk_offsets_s: o.reasoning_chunk_offsets_s }),
    ...(o.unstamped_chunks === undefined ? {} : { unstamped_chunks: o.unstamped_chunks }),
    ...(o.finish_reason_cut_chars === undefined ? {} : { finish_reason_cut_chars: o.finish_reason_cut_chars }),
    ...(o.usage_chunk_cut_chars === undefined ? {} : { usage_chunk_cut_chars: o.usage_chunk_cut_chars }),
    ...(o.timings_chunk_cut_chars === undefined ? {} : { timings_chunk_cut_chars: o.timings_chunk_cut_chars }),
    resent_on_fresh_connection: o.resent_on_fresh_connection === true,
  };
}
