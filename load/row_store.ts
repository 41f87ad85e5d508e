/**
 * Compact storage of a run's measured request rows: what the summary needs, in typed columns (about 120 bytes a
 * request), and the ITL samples of each endpoint as a histogram of exact microsecond values (a fixed 4 MiB, not
 * growing with the run). The full rows go to the JSONL as they
 * complete and are not kept; exact distributions are computed from these columns (score/describeSortedRuns),
 * so an hour of load fits in bounded memory with the same numbers a list of rows would give.
 */
import { NUMERIC_COLUMNS } from "../contract/mod.ts";
import { Column } from "./_columns.ts";
import { type AnswerState, DRAIN_MESSAGE_PREFIX, type LoadRequestRow, type LoadRowStatus } from "./metrics.ts";

const STATUS: readonly LoadRowStatus[] = ["success", "failed", "dropped", "cancelled"];
const ANSWER: readonly (AnswerState | null)[] = [null, "answered", "reasoning_truncated", "no_output_token"];

export { NUMERIC_COLUMNS };
export type NumericColumn = typeof NUMERIC_COLUMNS[number];

/** The reasoning cadence's scalar columns, kept only for successes that streamed reasoning (other rows add none). */
export const CADENCE_COLUMNS = ["thinking_s", "reasoning_tpot_s", "answer_tpot_s"] as const;
export type CadenceColumn = typeof CADENCE_COLUMNS[number];

const FLAG_LATE = 1, FLAG_DRAIN = 2, FLAG_ITL = 4;

/** ITL samples below this many microseconds are counted in a dense array; longer gaps in a map. */
const DENSE_US = 1 << 20;

/**
 * The ITL samples of one endpoint's successes as a histogram of exact microsecond values (rows carry ITL rounded to
 * the microsecond, see metrics.ts): 4 MiB of counts for gaps under about a second, a map for longer ones. Its
 * memory does not grow with the run; the summary reads it as one run-length sorted run, so its percentiles, mean,
 * sd and MAD are exactly those of the rows' values.
 */
class ItlHistogram {
  #dense: Uint32Array | null = null;
  #sparse = new Map<number, number>();
  push(values: readonly number[]): void {
    for (const v of values) {
      const us = Math.round(v * 1e6);
      if (us >= 0 && us < DENSE_US) (this.#dense ??= new Uint32Array(DENSE_US))[us]!++;
      else this.#sparse.set(us, (this.#sparse.get(us) ?? 0) + 1);
    }
  }
  get allocatedBytes(): number {
    return (this.#dense?.byteLength ?? 0) + this.#sparse.size * 16;
  }
  /** Distinct values (seconds) ascending with their counts. */
  run(): { values: Float64Array; counts: Float64Array } {
    const values: number[] = [], counts: number[] = [];
    const negatives = [...this.#sparse.keys()].filter((k) => k < 0).sort((a, b) => a - b);
    for (const k of negatives) values.push(k / 1e6), counts.push(this.#sparse.get(k)!);
    const dense = this.#dense;
    if (dense !== null) {
      for (let us = 0; us < DENSE_US; us++) if (dense[us]! > 0) values.push(us / 1e6), counts.push(dense[us]!);
    }
    const large = [...this.#sparse.keys()].filter((k) => k >= DENSE_US).sort((a, b) => a - b);
    for (const k of large) values.push(k / 1e6), counts.push(this.#sparse.get(k)!);
    return { values: Float64Array.from(values), counts: Float64Array.from(counts) };
  }
}

/** Measured rows of one run (or one shard), column by column. */
export class RowStore {
  readonly index = new Column(Uint32Array);
  readonly endpoint = new Column(Uint16Array);
  readonly status = new Column(Uint8Array);
  readonly answer = new Column(Uint8Array);
  readonly flags = new Column(Uint8Array);
  readonly events = new Column(Uint32Array);
  readonly numeric: Record<NumericColumn, Column<Float64Array>>;
  /** Endpoint label by endpoint index (the URL, or a host/shard label in a merge). */
  readonly labels = new Map<number, string>();
  #itl = new Map<number, ItlHistogram>();
  #reasoningItl = new Map<number, ItlHistogram>();
  /** Endpoint of each success that streamed reasoning, and its cadence values (NaN for null). */
  readonly cadenceEndpoint = new Column(Uint16Array);
  readonly cadence: Record<CadenceColumn, Column<Float64Array>>;

  constructor() {
    this.numeric = Object.fromEntries(NUMERIC_COLUMNS.map((c) => [c, new Column(Float64Array)])) as Record<
      NumericColumn,
      Column<Float64Array>
    >;
    this.cadence = Object.fromEntries(CADENCE_COLUMNS.map((c) => [c, new Column(Float64Array)])) as Record<
      CadenceColumn,
      Column<Float64Array>
    >;
  }

  /** Every column of the store. */
  #columns(): { reserve(): void; readonly allocatedBytes: number }[] {
    const fixed = [this.index, this.endpoint, this.status, this.answer, this.flags, this.events, this.cadenceEndpoint];
    return [...fixed, ...Object.values(this.numeric), ...Object.values(this.cadence)];
  }

  /** Allocates every column's first chunk (before a schedule starts: not at its first row). */
  reserve(): void {
    for (const column of this.#columns()) column.reserve();
  }

  /** Rows stored. */
  get size(): number {
    return this.index.length;
  }

  /** Adds one measured row (warm-up rows are not summarized and are ignored here). */
  add(row: LoadRequestRow, events = 0): void {
    if (row.phase !== "measure") return;
    if (!this.labels.has(row.endpoint_index)) this.labels.set(row.endpoint_index, row.endpoint);
    this.index.push(row.index);
    this.endpoint.push(row.endpoint_index);
    this.status.push(STATUS.indexOf(row.status));
    this.answer.push(ANSWER.indexOf(row.answer));
    const drain = row.error?.kind === "cancelled" && row.error.message.startsWith(DRAIN_MESSAGE_PREFIX);
    this.flags.push((row.late ? FLAG_LATE : 0) | (drain ? FLAG_DRAIN : 0) | (row.itl_s !== null ? FLAG_ITL : 0));
    this.events.push(events);
    for (const c of NUMERIC_COLUMNS) this.numeric[c].push(row[c] ?? Number.NaN);
    if (row.status === "success" && row.reasoning_itl_s !== null && row.reasoning_itl_s !== undefined) {
      this.cadenceEndpoint.push(row.endpoint_index);
      for (const c of CADENCE_COLUMNS) this.cadence[c].push(row[c] ?? Number.NaN);
    }
    if (row.status === "success") {
      for (const [pools, samples] of [[this.#itl, row.itl_s], [this.#reasoningItl, row.reasoning_itl_s]] as const) {
        if (samples === null || samples === undefined || samples.length === 0) continue;
        let pool = pools.get(row.endpoint_index);
        if (pool === undefined) pools.set(row.endpoint_index, pool = new ItlHistogram());
        pool.push(samples);
      }
    }
  }

  /** Endpoint indices present, ascending. */
  endpoints(): number[] {
    return [...this.labels.keys()].sort((a, b) => a - b);
  }

  statusAt(i: number): LoadRowStatus {
    return STATUS[this.status.at(i)] as LoadRowStatus;
  }

  /** The ITL samples of one endpoint's successes as one run-length sorted run (none without samples). */
  itlRuns(endpoint: number): { values: Float64Array; counts: Float64Array }[] {
    const pool = this.#itl.get(endpoint);
    return pool === undefined ? [] : [pool.run()];
  }

  /** The reasoning ITL samples of one endpoint's successes, as itlRuns. */
  reasoningItlRuns(endpoint: number): { values: Float64Array; counts: Float64Array }[] {
    const pool = this.#reasoningItl.get(endpoint);
    return pool === undefined ? [] : [pool.run()];
  }

  /** Bytes of typed storage this store holds (rows and ITL samples). */
  get allocatedBytes(): number {
    let total = 0;
    for (const column of this.#columns()) total += column.allocatedBytes;
    for (const pool of [...this.#itl.values(), ...this.#reasoningItl.values()]) total += pool.allocatedBytes;
    return total;
  }

  static isLate(flags: number): boolean {
    return (flags & FLAG_LATE) !== 0;
  }
  static isDrainCancelled(flags: number): boolean {
    return (flags & FLAG_DRAIN) !== 0;
  }
  static hasItl(flags: number): boolean {
    return (flags & FLAG_ITL) !== 0;
  }

  /** A store of the given rows (tests, merges of files). */
  static of(rows: Iterable<LoadRequestRow>): RowStore {
    const store = new RowStore();
    for (const row of rows) store.add(row);
    return store;
  }
}
