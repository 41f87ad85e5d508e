/**
 * `load merge`: the shards of one fleet run joined into one result. Each shard's JSONL is read line by line (rows
 * go into compact columns, never all into memory as objects), checked to belong to the same schedule (schedule
 * hash, seed and workload inside it, shard count, toolkit version and commit), and every shard index must appear
 * exactly once; each shard's rows must give back its own summary's counts and distributions, and an open loop's rows
 * must sit at their seeded scheduled times (an edited row is refused, not merged). The result has a summary per shard, per host and pooled over all (labelled pooled_mixture, as the
 * methodology labels multi-endpoint aggregates), each computed from the union of the rows it covers: exactly the
 * distributions one generator would give for those rows. Offsets count from each shard's epoch, which is the
 * common --start-at; the spread of the shards' wall clocks at their epochs is stated as the window's uncertainty.
 */
import { LOAD_LINE_FORMATS, type LoadMode } from "../contract/mod.ts";
import { LOAD_REQUEST_FORMAT, type LoadRequestRow } from "./metrics.ts";
import { LOAD_RUN_FORMAT } from "./load_run.ts";
import { LoadLines } from "./load_lines.ts";
import { RowStore } from "./row_store.ts";
import { ownIndex } from "./generator.ts";
import { arrivalOffsets } from "./schedule.ts";
import {
  type EndpointLoadSummary,
  LOAD_SUMMARY_FORMAT,
  type LoadSummaryOptions,
  POOLED_LABEL,
  type RowSelection,
  summarizeSelection,
} from "./summary.ts";

export const LOAD_MERGE_FORMAT = LOAD_LINE_FORMATS.merge;
/** Default bound on the spread of the shards' epoch wall clocks, seconds. */
export const DEFAULT_MAX_CLOCK_SPREAD_S = 0.1;

/** A file opened for sequential reading. */
export interface MergeReader {
  read(buffer: Uint8Array): Promise<number>;
  close(): Promise<void>;
}

export interface MergeDeps {
  openRead(path: string): Promise<MergeReader>;
}

/** One shard file, read. */
export interface MergedShard {
  path: string;
  index: number;
  count: number;
  hostId: string;
  hostLabel: string | null;
  scheduleSha256: string;
  toolkit: unknown;
  config: Record<string, unknown>;
  summary: Record<string, unknown> | null;
  clock: Record<string, unknown> | null;
  store: RowStore;
  rows: number;
}

/** A merge that cannot be made: the files do not form one complete fleet run. */
export class MergeRefusal extends Error {
  override name = "MergeRefusal";
}

/**
 * Reads one shard's JSONL.
 * @throws MergeRefusal for a file that is not a shard's load output.
 */
export async function readShardFile(path: string, deps: MergeDeps): Promise<MergedShard> {
  let summary: Record<string, unknown> | null = null;
  const store = new RowStore();
  let rows = 0;
  const lines = new LoadLines((value) => {
    if (value.format === LOAD_SUMMARY_FORMAT) summary = value;
    if (value.format !== LOAD_REQUEST_FORMAT) return;
    if (value.run !== 0) return `a row of run ${value.run}; a shard has one run`;
    if (value.phase !== "measure") return;
    store.add(value as unknown as LoadRequestRow);
    rows++;
  });
  const reader = await deps.openRead(path);
  try {
    await lines.readFrom(reader);
  } finally {
    await reader.close();
  }
  const problems = lines.problems.slice(0, 10);
  const cfg = lines.config;
  if (cfg !== null && cfg.format !== LOAD_RUN_FORMAT) problems.push("a compare result, not the --out of a load run");
  const shard = (cfg?.shard ?? null) as Record<string, unknown> | null;
  if (cfg !== null && shard === null) problems.push("the run was not a shard (no --shard): nothing to merge");
  const [index, count] = [shard?.index, shard?.count];
  if (shard !== null && !(Number.isInteger(count) && Number.isInteger(index) && 0 <= +index! && +index! < +count!)) {
    problems.push(
      `its config's shard ${JSON.stringify(index)} of ${JSON.stringify(count)} is not an index below a count`,
    );
  }
  if (problems.length > 0) throw new MergeRefusal(`Cannot merge ${path}: ${problems.join("; ")}`);
  const s = summary as Record<string, unknown> | null;
  return {
    path,
    index: shard!.index as number,
    count: shard!.count as number,
    hostId: String(shard!.host_id),
    hostLabel: (shard!.host_label as string | null) ?? null,
    scheduleSha256: String(shard!.schedule_sha256),
    toolkit: shard!.toolkit ?? null,
    config: cfg!,
    summary: s,
    clock: ((s?.shard as Record<string, unknown> | undefined)?.clock ?? null) as Record<string, unknown> | null,
    store,
    rows,
  };
}

/**
 * Refuses shards that are not one complete run: different schedules (which covers seeds, workloads and request
 * parameters), shard counts or toolkits, a shard missing or twice, a shard that did not finish, or rows outside
 * their shard's share.
 * @throws MergeRefusal listing every problem and what to do.
 */
export function checkShards(shards: readonly MergedShard[]): void {
  const problems: string[] = [];
  if (shards.length === 0) throw new MergeRefusal("Cannot merge: no shard files given");
  const first = shards[0]!;
  for (const s of shards.slice(1)) {
    if (s.scheduleSha256 !== first.scheduleSha256) {
      problems.push(
        `${s.path} has schedule ${s.scheduleSha256.slice(0, 12)}, ${first.path} has ${
          first.scheduleSha256.slice(0, 12)
        }: ` +
          "different plans, seeds or workloads",
      );
    }
    if (s.count !== first.count) {
      problems.push(`${s.path} is one of ${s.count} shards, ${first.path} of ${first.count}`);
    }
    if (JSON.stringify(s.toolkit) !== JSON.stringify(first.toolkit)) {
      problems.push(
        `${s.path} was written by toolkit ${JSON.stringify(s.toolkit)}, ${first.path} by ${
          JSON.stringify(first.toolkit)
        }`,
      );
    }
  }
  const seen = new Map<number, string>();
  for (const s of shards) {
    const other = seen.get(s.index);
    if (other !== undefined) problems.push(`shard ${s.index} appears twice (${other}, ${s.path})`);
    seen.set(s.index, s.path);
    if (s.summary === null) problems.push(`${s.path} has no summary line: shard ${s.index} did not finish`);
    let foreign = 0;
    s.store.index.forEach((i) => {
      if (!ownIndex(s, i)) foreign++;
    });
    if (foreign > 0) problems.push(`${s.path} holds ${foreign} rows outside shard ${s.index}'s share`);
  }
  const missing = Array.from({ length: first.count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0) {
    problems.push(
      `shard${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of ${first.count} missing: give every shard's file`,
    );
  }
  if (problems.length > 0) throw new MergeRefusal(`Cannot merge:\n  ${problems.join("\n  ")}`);
}

/** The fields of a shard's own summary that its rows must reproduce exactly. */
const REPRODUCED = ["counts", "distributions", "window_s", "requests_per_s", "output_tokens_per_s"] as const;

/**
 * Problems of shards whose rows disagree with their own summary (recomputed from the rows as one generator would),
 * or, in an open loop, with the seeded schedule (row i scheduled at arrival i's offset). Empty: they agree.
 */
export function shardDisagreements(
  shards: readonly MergedShard[],
  perShard: readonly EndpointLoadSummary[],
): string[] {
  const problems: string[] = [];
  for (const [i, s] of shards.entries()) {
    const own = (s.summary?.overall ?? null) as Record<string, unknown> | null;
    const recomputed = perShard[i] as unknown as Record<string, unknown>;
    const differ = REPRODUCED.filter((k) => own === null || JSON.stringify(own[k]) !== JSON.stringify(recomputed[k]));
    if (differ.length > 0) {
      problems.push(
        `${s.path}: its rows do not give its own summary's ${differ.join(", ")}: the file was edited or is not one ` +
          "run's output; merge the files the shards wrote",
      );
    }
    const late = offScheduleRows(s);
    if (late > 0) {
      problems.push(`${s.path}: ${late} rows are not at their seeded scheduled time (edited, or another schedule)`);
    }
  }
  return problems;
}

/** Rows of an open-loop shard whose scheduled offset is not the seeded schedule's; 0 for a closed loop. */
function offScheduleRows(s: MergedShard): number {
  const plan = (s.config.plan ?? {}) as Record<string, unknown>;
  const seed = (s.config.workload as Record<string, unknown> | undefined)?.seed;
  if (plan.mode !== "open" || typeof plan.ratePerS !== "number" || typeof seed !== "number") return 0;
  const byIndex = new Map<number, number>();
  s.store.index.forEach((index, row) => byIndex.set(index, s.store.numeric.scheduled_offset_s.at(row)));
  const last = Math.max(-1, ...byIndex.keys());
  const schedule = arrivalOffsets({
    ratePerS: plan.ratePerS,
    process: plan.arrival === "constant" ? "constant" : "poisson",
    seed,
  });
  let off = 0;
  for (let index = 0; index <= last; index++) {
    const offset = schedule.next().value;
    const stored = byIndex.get(index);
    if (stored !== undefined && stored !== offset) off++;
  }
  return off;
}

/** The merged result. */
export interface MergeResult {
  format: typeof LOAD_MERGE_FORMAT;
  version: 1;
  schedule_sha256: string;
  shards: number;
  /** How many `load --workers` processes of one host wrote the shards; null: a fleet's own shards. */
  workers: number | null;
  inputs: { path: string; shard: number; host_id: string; host_label: string | null; rows: number }[];
  mode: LoadMode;
  /** Window from the earliest measured send to the latest terminal event across shards (in `pooled`). */
  window_uncertainty_s: number | null;
  clock: {
    spread_s: number | null;
    bound_s: number;
    within: boolean | null;
    per_shard: {
      shard: number;
      host_id: string;
      epoch_wall_minus_start_s: number | null;
      epoch_late_s: number | null;
    }[];
    note: string;
  };
  per_shard: EndpointLoadSummary[];
  per_host: EndpointLoadSummary[];
  pooled: EndpointLoadSummary;
}

/** How a merge is bounded and labelled: the clock-spread bound, and the worker count of `load --workers`. */
export interface MergeOptions {
  maxClockSpreadS?: number;
  workers?: number | null;
}

/** The summary settings of a merge, read from the first shard's config line (the shards' configs agree). */
function summaryOptionsOf(cfg: MergedShard["config"]): LoadSummaryOptions & { mode: LoadMode } {
  const plan = (cfg.plan ?? {}) as Record<string, unknown>;
  const mode = (plan.mode === "open" ? "open" : "closed") as LoadMode;
  const summaryOptions: LoadSummaryOptions & { mode: LoadMode } = {
    mode,
    effectiveMaxConcurrency: null,
    binWidthS: typeof cfg.bin_s === "number" ? cfg.bin_s : 1,
    slo: (cfg.slo ?? {}) as LoadSummaryOptions["slo"] & object,
  };
  if (cfg.isl && typeof cfg.isl === "object") summaryOptions.isl = cfg.isl as NonNullable<LoadSummaryOptions["isl"]>;
  if (cfg.osl && typeof cfg.osl === "object") summaryOptions.osl = cfg.osl as NonNullable<LoadSummaryOptions["osl"]>;
  return summaryOptions;
}

/** Each shard's wall clock at its epoch minus --start-at, and their spread (null where one is unknown). */
function shardClocks(sorted: readonly MergedShard[]) {
  const perShardClock = sorted.map((s) => {
    const c = s.clock ?? {};
    const wall = typeof c.wall_at_epoch_ms === "number" && typeof c.start_at_ms === "number"
      ? (c.wall_at_epoch_ms - c.start_at_ms) / 1000
      : null;
    return {
      shard: s.index,
      host_id: s.hostId,
      epoch_wall_minus_start_s: wall,
      epoch_late_s: typeof c.epoch_late_s === "number" ? c.epoch_late_s : null,
    };
  });
  const walls = perShardClock.map((c) => c.epoch_wall_minus_start_s);
  const spread = walls.every((w) => w !== null)
    ? Math.max(...(walls as number[])) - Math.min(...(walls as number[]))
    : null;
  return { perShardClock, spread };
}

/** Merges checked shards. */
export function mergeShards(shards: readonly MergedShard[], options: MergeOptions = {}): MergeResult {
  checkShards(shards);
  const sorted = [...shards].sort((a, b) => a.index - b.index);
  const summaryOptions = summaryOptionsOf(sorted[0]!.config);
  const mode = summaryOptions.mode;
  const selection = (s: MergedShard): RowSelection => ({ store: s.store, endpoints: s.store.endpoints() });
  const hostName = (s: MergedShard) => s.hostLabel ?? s.hostId;
  const perShard = sorted.map((s) =>
    summarizeSelection(`shard ${s.index}/${s.count} (${hostName(s)})`, [selection(s)], summaryOptions, null)
  );
  const disagreements = shardDisagreements(sorted, perShard);
  if (disagreements.length > 0) throw new MergeRefusal(`Cannot merge:\n  ${disagreements.join("\n  ")}`);
  const hosts = [...new Set(sorted.map((s) => s.hostId))];
  const perHost = hosts.map((h) => {
    const of = sorted.filter((s) => s.hostId === h);
    return summarizeSelection(
      `host ${hostName(of[0]!)} (shards ${of.map((s) => s.index).join(", ")})`,
      of.map(selection),
      summaryOptions,
      null,
    );
  });
  const pooled = summarizeSelection(POOLED_LABEL, sorted.map(selection), summaryOptions, null);
  const bound = options.maxClockSpreadS ?? DEFAULT_MAX_CLOCK_SPREAD_S;
  const { perShardClock, spread } = shardClocks(sorted);
  return {
    format: LOAD_MERGE_FORMAT,
    version: 1,
    schedule_sha256: sorted[0]!.scheduleSha256,
    shards: sorted.length,
    workers: options.workers ?? null,
    inputs: sorted.map((s) => ({
      path: s.path.split(/[\\/]/).pop() ?? s.path,
      shard: s.index,
      host_id: s.hostId,
      host_label: s.hostLabel,
      rows: s.rows,
    })),
    mode,
    window_uncertainty_s: spread,
    clock: {
      spread_s: spread,
      bound_s: bound,
      within: spread === null ? null : spread <= bound,
      per_shard: perShardClock,
      note: "each shard's wall clock at its epoch minus --start-at, as that host read it; offsets of every row count " +
        "from its shard's epoch, so the pooled window is uncertain by the spread of these values (plus any " +
        "inter-host clock offset, which is not measured here)",
    },
    per_shard: perShard,
    per_host: perHost,
    pooled,
  };
}

/** Reads and merges shard files. @throws MergeRefusal. */
export async function mergeShardFiles(
  paths: readonly string[],
  deps: MergeDeps,
  options: MergeOptions = {},
): Promise<MergeResult> {
  const shards: MergedShard[] = [];
  for (const path of paths) shards.push(await readShardFile(path, deps));
  return mergeShards(shards, options);
}
