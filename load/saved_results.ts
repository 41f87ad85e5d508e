/**
 * Saved load and compare results (the JSONL `load` and `compare` write to --out), read after the fact: by `report
 * FILE.jsonl` (print, CSV, HTML, pictures) and `compare --from` (the gate again, offline). The file is someone
 * else's: it is read through runtime's SafeFolder (a regular file, no link followed, at most SAVED_JSONL_CAP_BYTES),
 * every line is strict JSON (duplicate keys, NaN, trailing text refused), and every line's format and version must
 * be one this toolkit writes. Every problem is collected with its line number; a file with any is refused whole.
 * Nothing is recomputed from the rows that the file's own summaries already state, except the row store the
 * pictures draw from (rows into the same compact columns the live run used).
 */
import { basename, dirname } from "node:path";
import Type from "typebox";
import { openSafeFolder } from "../runtime/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import { LOAD_AGGREGATE_FORMAT, type LoadAggregate } from "./aggregate.ts";
import { COMPARE_FORMAT_LINE, COMPARE_RUN_VERSION } from "./_compare_types.ts";
import { type CompareResult, DEFAULT_WORKLOAD, LOAD_COMPARE_FORMAT, LOAD_COMPARE_VERSION, pointKey } from "./gate.ts";
import { LOAD_RUN_FORMAT, LOAD_RUN_VERSION } from "./load_run.ts";
import { LOAD_FORMAT_VERSION, LOAD_REQUEST_FORMAT, type LoadRequestRow } from "./metrics.ts";
import { NUMERIC_COLUMNS, RowStore } from "./row_store.ts";
import { LOAD_SUMMARY_FORMAT, type LoadSummary } from "./summary.ts";
import { schemaProblems } from "./_strict_input.ts";

/** The most a saved JSONL may hold: 1 KiB a request row, a million requests and their summaries. */
export const SAVED_JSONL_CAP_BYTES = 1024 * 1024 * 1024;
/** Problems kept per file; the rest are counted. */
const KEPT_PROBLEMS = 50;

/** Versions of the line formats this toolkit reads (the ones it writes). */
const VERSIONS: Readonly<Record<string, number>> = {
  [LOAD_RUN_FORMAT]: LOAD_RUN_VERSION,
  [LOAD_REQUEST_FORMAT]: LOAD_FORMAT_VERSION,
  [LOAD_SUMMARY_FORMAT]: LOAD_FORMAT_VERSION,
  [LOAD_AGGREGATE_FORMAT]: 3,
  [COMPARE_FORMAT_LINE]: COMPARE_RUN_VERSION,
  [LOAD_COMPARE_FORMAT]: LOAD_COMPARE_VERSION,
};

/** A run's summary as saved: a compare's carries its side, workload, concurrency point and round. */
export type SavedSummary = LoadSummary & {
  run?: number;
  side?: "baseline" | "candidate";
  workload?: string;
  concurrency?: number;
  round?: number;
};

/** One measured run of a saved load result: its summary and its measured rows in compact columns. */
export interface SavedRun {
  summary: SavedSummary;
  store: RowStore;
}

/** A saved result, read and checked. */
export interface SavedResults {
  kind: "load" | "compare";
  path: string;
  /** The config line (what was run). */
  config: Record<string, unknown>;
  /** Every summary line, in file order. */
  summaries: SavedSummary[];
  /** A load result's runs (summaries with their rows); empty for a compare result (it saves no rows). */
  runs: SavedRun[];
  /** A load result's cross-run aggregate (with --repeat), else null. */
  aggregate: LoadAggregate | null;
  /** A compare result's verdict; null for a load result or an interrupted comparison. */
  verdict: CompareResult | null;
  /** The interrupted line, when a signal stopped the command. */
  interrupted: Record<string, unknown> | null;
}

/** A saved file that cannot be used: every problem, by line. */
export class SavedResultsRefusal extends Error {
  override name = "SavedResultsRefusal";
  readonly problems: string[];
  constructor(path: string, problems: string[]) {
    super(`Cannot use "${path}": ${problems.length} problem(s); first: ${problems[0]}`);
    this.problems = problems;
  }
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const numberOrNull = (value: unknown) => value === null || (typeof value === "number" && Number.isFinite(value));

const NUMBER_OR_NULL = Type.Union([Type.Number(), Type.Null()]);
const ENDPOINT_SUMMARY = Type.Object({
  counts: Type.Object({}),
  distributions: Type.Record(
    Type.String(),
    Type.Object({ p50: NUMBER_OR_NULL, p90: NUMBER_OR_NULL, p99: NUMBER_OR_NULL, max: NUMBER_OR_NULL }),
  ),
  bins: Type.Array(Type.Unknown()),
  output_tokens_per_s: NUMBER_OR_NULL,
  requests_per_s: NUMBER_OR_NULL,
  error_rate: NUMBER_OR_NULL,
  goodput_requests_per_s: NUMBER_OR_NULL,
  window_s: NUMBER_OR_NULL,
});
/** What a summary's readers use (other fields pass): every rate a number or null, every distribution's percentiles. */
const SUMMARY_SCHEMA = Type.Object({ overall: ENDPOINT_SUMMARY, endpoints: Type.Array(ENDPOINT_SUMMARY) });

/** Problems of a request row that the row store would misread. */
function rowProblems(row: Fields): string[] {
  const out: string[] = [];
  for (const key of NUMERIC_COLUMNS) if (!numberOrNull(row[key])) out.push(`${key}: not a number or null`);
  if (!["success", "failed", "dropped", "cancelled"].includes(row.status as string)) out.push("status: unknown");
  if (typeof row.endpoint_index !== "number" || !Number.isInteger(row.endpoint_index)) {
    out.push("endpoint_index: not an integer");
  }
  if (row.itl_s !== null && !(Array.isArray(row.itl_s) && row.itl_s.every((v) => typeof v === "number"))) {
    out.push("itl_s: not a list of numbers or null");
  }
  // What a run cannot have measured: a time before its start or an end before its send (the drawings would
  // follow such a row backwards), a negative duration or a token count that is not a count. Lateness alone may
  // carry a rounding sign.
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

/** The bytes of the file, read safely. @throws the SafeFolder's FolderFileError (unreadable, a link, too large). */
async function readSaved(path: string): Promise<Uint8Array> {
  const folder = await openSafeFolder(dirname(path));
  return await folder.read(basename(path), SAVED_JSONL_CAP_BYTES);
}

/**
 * The lines of the bytes, each decoded on its own (a whole file of a gigabyte would pass the longest string a
 * JavaScript engine holds); null for a line that is not UTF-8. `cut`: the last line has no newline.
 */
function linesOf(bytes: Uint8Array): { lines: (string | null)[]; cut: boolean } {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const lines: (string | null)[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end === -1 ? bytes.length : end;
    try {
      lines.push(decoder.decode(bytes.subarray(start, stop)));
    } catch {
      lines.push(null);
    }
    if (end === -1) return { lines, cut: true };
    start = end + 1;
  }
  return { lines, cut: false };
}

/** How much of a saved file to read. */
export interface SavedReadOptions {
  /**
   * false: request rows are skipped unread (a page of a run just written needs its config and summaries only);
   * `runs` then have empty row stores. Default true.
   */
  rows?: boolean;
}

/**
 * Reads and checks a saved load or compare JSONL.
 * @throws {SavedResultsRefusal} listing every problem; runtime's FolderFileError when the file cannot be read.
 */
export async function readSavedResults(path: string, options: SavedReadOptions = {}): Promise<SavedResults> {
  return parseSavedResults(path, await readSaved(path), options);
}

/** A row line as load writes it: `{"run":N,"format":"strata-load-request",...`. */
const ROW_LINE = /^\{"run":\d+,"format":"strata-load-request"/;

/**
 * Checks the bytes of a saved load or compare JSONL (`path` names it in messages).
 * @throws {SavedResultsRefusal} listing every problem.
 */
export function parseSavedResults(path: string, bytes: Uint8Array, options: SavedReadOptions = {}): SavedResults {
  const problems: string[] = [];
  const problem = (line: number, what: string) => problems.push(`line ${line}: ${what}`);
  let config: Fields | null = null;
  let kind: SavedResults["kind"] | null = null;
  const summaries: SavedSummary[] = [];
  const stores = new Map<number, RowStore>();
  let verdict: CompareResult | null = null;
  let aggregate: LoadAggregate | null = null;
  let interrupted: Fields | null = null;
  const { lines, cut } = linesOf(bytes);
  if (cut) problems.push(`line ${lines.length}: the last line is cut (no newline at its end)`);
  lines.forEach((line, i) => {
    const n = i + 1;
    if (problems.length >= KEPT_PROBLEMS || (options.rows === false && line !== null && ROW_LINE.test(line))) return;
    if (line === null) return problem(n, "not UTF-8 text");
    const parsed = parseStrictJsonPlain(line);
    if (!parsed.ok) return problem(n, `not strict JSON (${parsed.reason} at column ${parsed.offset + 1})`);
    const value = parsed.value;
    if (!isObject(value) || typeof value.format !== "string") return problem(n, "not an object with a format");
    const expected = VERSIONS[value.format];
    if (expected === undefined) return problem(n, `format "${value.format}" is not a load or compare line`);
    if (value.version !== expected) {
      return problem(
        n,
        `${value.format} version ${JSON.stringify(value.version)}; this strata-bench reads ${expected}`,
      );
    }
    if (i === 0) {
      if (value.kind !== "config" || (value.format !== LOAD_RUN_FORMAT && value.format !== COMPARE_FORMAT_LINE)) {
        return problem(
          n,
          "the first line is not a load or compare config line: not the --out of load or compare (for a result " +
            "folder's outputs.jsonl, pass the folder)",
        );
      }
      config = value;
      kind = value.format === LOAD_RUN_FORMAT ? "load" : "compare";
      return;
    }
    if (value.kind === "config") return problem(n, "a second config line");
    if (value.kind === "interrupted") interrupted = value;
    else if (value.format === LOAD_SUMMARY_FORMAT) {
      const found = schemaProblems(SUMMARY_SCHEMA, value);
      if (found.length > 0) return found.forEach((p) => problem(n, p));
      summaries.push(value as unknown as SavedSummary);
    } else if (value.format === LOAD_REQUEST_FORMAT) {
      if (kind !== "load") return problem(n, "a request row in a compare result");
      const found = rowProblems(value);
      if (found.length > 0) return found.forEach((p) => problem(n, p));
      const run = typeof value.run === "number" ? value.run : 0;
      if (value.phase !== "measure") return;
      const store = stores.get(run) ?? new RowStore();
      store.add(value as unknown as LoadRequestRow);
      stores.set(run, store);
    } else if (value.format === LOAD_AGGREGATE_FORMAT) {
      aggregate = value as unknown as LoadAggregate;
    } else if (value.format === LOAD_COMPARE_FORMAT) {
      if (!Array.isArray(value.points) || typeof value.pass !== "boolean") {
        return problem(n, "a verdict without points");
      }
      verdict = value as unknown as CompareResult;
    }
  });
  if (lines.length === 0) problems.push("the file is empty: not the --out of load or compare");
  if (problems.length > 0 || config === null || kind === null) throw new SavedResultsRefusal(path, problems);
  const runs = kind === "load"
    ? summaries.map((summary, i) => ({ summary, store: stores.get(summary.run ?? i) ?? new RowStore() }))
    : [];
  return { kind, path, config, summaries, runs, aggregate, verdict, interrupted };
}

/** The overall summaries of one side of a saved result, by (workload, concurrency point), in file order. */
export function savedPoints(
  saved: SavedResults,
  side: "baseline" | "candidate" | null,
): Map<string, { workload: string; concurrency: number; rounds: SavedSummary[] }> {
  const out = new Map<string, { workload: string; concurrency: number; rounds: SavedSummary[] }>();
  for (const s of saved.summaries) {
    if (side !== null && s.side !== side) continue;
    if (s.interrupted !== undefined) continue;
    const concurrency = s.concurrency ?? s.effective_max_concurrency;
    if (concurrency === null) continue;
    const workload = s.workload ?? DEFAULT_WORKLOAD;
    const key = pointKey(workload, concurrency);
    const entry = out.get(key) ?? { workload, concurrency, rounds: [] };
    entry.rounds.push(s);
    out.set(key, entry);
  }
  return out;
}
