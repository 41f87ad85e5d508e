/**
 * The one reader of the load and compare JSONL lines, used by every command that reads one back: saved results
 * (`report FILE.jsonl`, `compare --from`), `load merge` and the recorded noise floor (`compare --noise-floor-from`).
 * A line passes when it is UTF-8 (fatal), at most MAX_LOAD_LINE_BYTES, strict JSON (duplicate keys, NaN, trailing
 * text refused; bounded depth), an object whose format is one this toolkit writes, at that format's version, and
 * shaped as its kind must be (a request row's columns, a summary's rates and distributions, a verdict's points).
 * The first line must be a load or compare config line and no other line may be one. Every problem is kept with its
 * line number; a reader refuses a file with any, so nothing refused is merged, gated or drawn.
 */
import {
  isJsonObject,
  LOAD_LINE_FORMATS as F,
  LOAD_LINE_SCHEMAS,
  LOAD_LINE_VERSIONS,
  NUMERIC_COLUMNS,
} from "../contract/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import { MAX_INPUT_DEPTH, schemaProblems } from "./_strict_input.ts";

/** Longest line any load or compare JSONL may hold (a request row is a few KiB). */
export const MAX_LOAD_LINE_BYTES = 16 * 1024 * 1024;
/** Problems kept per file; reading stops after them. */
export const KEPT_LINE_PROBLEMS = 50;

/** The formats a load or compare JSONL holds, at the version this toolkit writes and reads. */
const FILE_FORMATS = [F.run, F.request, F.summary, F.aggregate, F.compareRun, F.compare] as const;
export const LINE_VERSIONS: Readonly<Record<string, number>> = Object.fromEntries(
  FILE_FORMATS.map((format) => [format, LOAD_LINE_VERSIONS[format]]),
);

export type LineFields = Record<string, unknown>;

/**
 * What a run cannot have measured, in a row of the contract's shape: a time before its start or an end before its
 * send (the drawings would follow such a row backwards), a negative duration or a token count that is not a count.
 * Lateness alone may carry a rounding sign.
 */
function implausible(row: LineFields): string[] {
  const out: string[] = [];
  for (const key of NUMERIC_COLUMNS) {
    const value = row[key];
    if (key === "lateness_s" || typeof value !== "number") continue;
    if (value < 0) out.push(`${key}: ${value} is negative`);
    else if (key.endsWith("_tokens") && !Number.isInteger(value)) out.push(`${key}: ${value} is not a count`);
  }
  const [send, end] = [row.send_offset_s, row.end_offset_s];
  if (typeof send === "number" && typeof end === "number" && end < send) {
    out.push(`end_offset_s: ${end} is before send_offset_s ${send}`);
  }
  return out;
}

/** Problems of a request row: its shape by the contract (contract/load_lines.ts), then what it cannot have measured. */
export function rowProblems(row: LineFields): string[] {
  const shape = problemsBy(LOAD_LINE_SCHEMAS[F.request], row);
  return shape.length > 0 ? shape : implausible(row);
}

/** A schema's problems in the reader's words, each once (every branch of a union of values fails alike). */
function problemsBy(schema: Parameters<typeof schemaProblems>[0], value: LineFields): string[] {
  return [...new Set(schemaProblems(schema, value, { const: "not a value this format allows" }))];
}

/** Problems of a checked line's shape by its format's schema (its format and version already known good). */
function shapeProblems(value: LineFields): string[] {
  if (value.format === F.request) return rowProblems(value);
  return problemsBy(LOAD_LINE_SCHEMAS[value.format as typeof F.run], value);
}

/**
 * What a reader does with a line that passed: nothing, or a problem of its own (a request row where its file
 * has none, a shard row of another run).
 */
export type OnLoadLine = (value: LineFields, line: number) => string | void;

/** How a reader reads. */
export interface LoadLinesOptions {
  /** A line for which this is true is counted and skipped unread (a page needs no request rows). */
  skip?: (text: string) => boolean;
}

/** A source read in chunks (a file handle). */
export interface ChunkReader {
  read(buffer: Uint8Array): Promise<number>;
}

const CONFIG_FIRST = "the first line is not a load or compare config line: not the --out of load or compare (for " +
  "a result folder's outputs.jsonl, pass the folder)";

/** Reads the lines of one load or compare JSONL, checking each; see the module's comment. */
export class LoadLines {
  readonly problems: string[] = [];
  /** The config line, once the first line passed. */
  config: LineFields | null = null;
  private count = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });

  constructor(private readonly onLine: OnLoadLine, private readonly options: LoadLinesOptions = {}) {}

  /** Lines seen so far. */
  get lines(): number {
    return this.count;
  }

  /** Whether enough problems are kept that reading on would add nothing. */
  get full(): boolean {
    return this.problems.length >= KEPT_LINE_PROBLEMS;
  }

  private problem(line: number, what: string): void {
    if (!this.full) this.problems.push(`line ${line}: ${what}`);
  }

  /** Checks one line (its bytes, without the newline) and hands it on when it passes. */
  next(bytes: Uint8Array): void {
    const n = ++this.count;
    if (this.full) return;
    if (bytes.length > MAX_LOAD_LINE_BYTES) return this.problem(n, `longer than ${MAX_LOAD_LINE_BYTES} bytes`);
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch {
      return this.problem(n, "not UTF-8 text");
    }
    if (n > 1 && this.options.skip?.(text)) return;
    const parsed = parseStrictJsonPlain(text, { maxDepth: MAX_INPUT_DEPTH });
    if (!parsed.ok) return this.problem(n, `not strict JSON (${parsed.reason} at column ${parsed.offset + 1})`);
    const value = parsed.value;
    if (!isJsonObject(value) || typeof value.format !== "string") return this.problem(n, "not an object with a format");
    const expected = LINE_VERSIONS[value.format];
    if (expected === undefined) return this.problem(n, `format "${value.format}" is not a load or compare line`);
    if (value.version !== expected) {
      return this.problem(
        n,
        `${value.format} version ${JSON.stringify(value.version)}; this strata-bench reads ${expected}`,
      );
    }
    const isConfig = value.kind === "config" &&
      (value.format === F.run || value.format === F.compareRun);
    if (n === 1 && !isConfig) return this.problem(n, CONFIG_FIRST);
    if (n > 1 && value.kind === "config") return this.problem(n, "a second config line");
    if (n === 1) this.config = value;
    const shape = shapeProblems(value);
    if (shape.length > 0) return shape.forEach((p) => this.problem(n, p));
    const own = this.onLine(value, n);
    if (typeof own === "string") this.problem(n, own);
  }

  /** The end of the file: `cut` when its last line has no newline; an empty file is a problem. */
  private end(cut: boolean): void {
    if (cut) this.problems.unshift(`line ${this.count}: the last line is cut (no newline at its end)`);
    if (this.count === 0) this.problems.push("the file is empty: not the --out of load or compare");
  }

  /** Reads every line of bytes held in memory. */
  readBytes(bytes: Uint8Array): void {
    let start = 0;
    while (start < bytes.length && !this.full) {
      const stop = bytes.indexOf(0x0a, start);
      this.next(bytes.subarray(start, stop === -1 ? bytes.length : stop));
      if (stop === -1) return this.end(true);
      start = stop + 1;
    }
    this.end(false);
  }

  /** Reads every line of a source in chunks of 1 MiB, never holding more than one line and one chunk. */
  async readFrom(reader: ChunkReader): Promise<void> {
    const buffer = new Uint8Array(1 << 20);
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    for (;;) {
      const n = await reader.read(buffer);
      if (n === 0 || this.full) break;
      const chunk = buffer.subarray(0, n);
      let start = 0;
      for (let stop = chunk.indexOf(0x0a); stop !== -1; stop = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, stop);
        this.next(pendingBytes === 0 ? piece : joined([...pending, piece], pendingBytes + piece.length));
        [pending, pendingBytes, start] = [[], 0, stop + 1];
      }
      if (start < n) {
        pending.push(chunk.slice(start));
        pendingBytes += n - start;
      }
      if (pendingBytes > MAX_LOAD_LINE_BYTES) {
        this.problem(this.count + 1, `longer than ${MAX_LOAD_LINE_BYTES} bytes`);
        return;
      }
    }
    if (pendingBytes > 0 && !this.full) this.next(joined(pending, pendingBytes));
    this.end(pendingBytes > 0);
  }
}

function joined(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
