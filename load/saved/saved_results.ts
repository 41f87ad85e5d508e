/**
 * Saved load and compare results (the JSONL `load` and `compare` write to --out), read after the fact: by `report
 * FILE.jsonl` (print, CSV, HTML, pictures) and `compare --from` (the gate again, offline). The file is someone
 * else's: it is read through runtime's SafeFolder (a regular file, no link followed, at most SAVED_JSONL_CAP_BYTES)
 * and every line is checked by load_lines.ts, the reader `load merge` and the noise floor use too. Every problem is
 * collected with its line number; a file with any is refused whole.
 * Nothing is recomputed from the rows that the file's own summaries already state, except the row store the
 * pictures draw from (rows into the same compact columns the live run used).
 */
import { basename, dirname } from "node:path";
import { openSafeFolder } from "../../runtime/mod.ts";
import { LOAD_AGGREGATE_FORMAT, type LoadAggregate } from "../aggregate.ts";
import { type CompareResult, DEFAULT_WORKLOAD, LOAD_COMPARE_FORMAT, pointKey } from "../gate/gate.ts";
import { LOAD_RUN_FORMAT } from "../load_run.ts";
import { LOAD_REQUEST_FORMAT, type LoadRequestRow } from "../metrics.ts";
import { RowStore } from "../row_store.ts";
import { LOAD_SUMMARY_FORMAT, type LoadSummary, summarizeStore } from "../summary.ts";
import { LoadLines } from "../load_lines.ts";

/** The most a saved JSONL may hold: 1 KiB a request row, a million requests and their summaries. */
export const SAVED_JSONL_CAP_BYTES = 1024 * 1024 * 1024;

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
  /** A compare result's noise-floor line, when it measured one. */
  noiseFloor: Record<string, unknown> | null;
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

/** The bytes of the file, read safely. @throws the SafeFolder's FolderFileError (unreadable, a link, too large). */
async function readSaved(path: string): Promise<Uint8Array> {
  const folder = await openSafeFolder(dirname(path));
  return await folder.read(basename(path), SAVED_JSONL_CAP_BYTES);
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
  const summaries: SavedSummary[] = [];
  const stores = new Map<number, RowStore>();
  let verdict: CompareResult | null = null;
  let aggregate: LoadAggregate | null = null;
  let interrupted: Fields | null = null;
  let noiseFloor: Fields | null = null;
  const reader = new LoadLines((value) => {
    if (value.kind === "config") return;
    if (value.kind === "interrupted") interrupted = value;
    else if (value.kind === "noise-floor") noiseFloor = value;
    else if (value.format === LOAD_SUMMARY_FORMAT) summaries.push(value as unknown as SavedSummary);
    else if (value.format === LOAD_REQUEST_FORMAT) {
      if (reader.config?.format !== LOAD_RUN_FORMAT) return "a request row in a compare result";
      if (value.phase !== "measure") return;
      const store = stores.get(value.run as number) ?? new RowStore();
      store.add(value as unknown as LoadRequestRow);
      stores.set(value.run as number, store);
    } else if (value.format === LOAD_AGGREGATE_FORMAT) aggregate = value as unknown as LoadAggregate;
    else if (value.format === LOAD_COMPARE_FORMAT) verdict = value as unknown as CompareResult;
  }, options.rows === false ? { skip: (line) => ROW_LINE.test(line) } : {});
  reader.readBytes(bytes);
  const config = reader.config;
  if (reader.problems.length > 0 || config === null) throw new SavedResultsRefusal(path, reader.problems);
  const kind = config.format === LOAD_RUN_FORMAT ? "load" : "compare";
  const runs = kind === "load"
    ? summaries.map((summary, i) => ({ summary, store: stores.get(summary.run ?? i) ?? new RowStore() }))
    : [];
  const disagree = options.rows === false ? [] : runs.flatMap((r, i) => rowsDisagree(r, i));
  if (disagree.length > 0) throw new SavedResultsRefusal(path, disagree);
  return { kind, path, config, summaries, runs, aggregate, verdict, interrupted, noiseFloor };
}

/** The fields of a run's summary its measured rows must give again, exactly. */
const FROM_ROWS = ["counts", "distributions", "window_s", "requests_per_s", "output_tokens_per_s"] as const;

/**
 * Why a saved run's rows do not give its own summary (recomputed with the summary's own settings: mode, cap, SLO,
 * length targets, bin width), naming the fields; empty when they agree, as in every file load writes.
 */
function rowsDisagree(run: SavedRun, i: number): string[] {
  const s = run.summary, o = s.overall;
  const target = (c: NonNullable<typeof o.isl>) => ({ target: c.target, tolerance: c.tolerance, stat: c.stat });
  const again = summarizeStore(run.store, {
    mode: s.mode,
    effectiveMaxConcurrency: s.effective_max_concurrency,
    binWidthS: o.bin_width_s,
    slo: s.slo,
    ...(o.isl !== null && { isl: target(o.isl) }),
    ...(o.osl !== null && { osl: target(o.osl) }),
  }).overall as unknown as Record<string, unknown>;
  const own = o as unknown as Record<string, unknown>;
  const differ = FROM_ROWS.filter((k) => JSON.stringify(own[k]) !== JSON.stringify(again[k]));
  return differ.length === 0 ? [] : [
    `run ${s.run ?? i}: its request rows do not give its own summary's ${differ.join(", ")}: the file was edited ` +
    "or is not one load's output",
  ];
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

/**
 * The noise floors an earlier compare recorded (its noise-floor line), read for `compare --noise-floor-from`.
 * @throws SyntaxError when the result has no such line, or a floor that is neither null nor a number >= 0.
 */
export function recordedNoiseFloor(saved: SavedResults): Record<string, number> {
  const floors = saved.noiseFloor?.noise_floor;
  if (floors === null || typeof floors !== "object" || Array.isArray(floors)) {
    throw new SyntaxError(
      `Cannot reuse a noise floor: ${saved.path} has no compare noise-floor line (write one with compare --out FILE)`,
    );
  }
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(floors as Fields)) {
    if (value === null) continue; // no finite floor for that metric (JSON writes a non-finite number as null)
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new SyntaxError(
        `Cannot reuse a noise floor: ${saved.path} records ${JSON.stringify(value)} for ${key}, not a fraction >= 0`,
      );
    }
    out[key] = value;
  }
  return out;
}
