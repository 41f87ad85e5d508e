/**
 * The fleet flags of `load`: which shard of one seeded schedule this generator runs (`--shard I/N`, or `--shard
 * auto` from the launcher's own variables: Slurm's SLURM_PROCID / SLURM_NTASKS, a Kubernetes Indexed Job's
 * JOB_COMPLETION_INDEX with --shards N), the absolute start time every shard waits for, and this host's id.
 */
import { sha256Hex } from "../contract/mod.ts";
import { LOAD_LIMITS, type ShardRun, shardStartFrom, START_WINDOW_S } from "../load/mod.ts";
import { numberFlag, UsageError } from "./_args.ts";

export const SHARD_HELP = `Fleet (one generator per serving host, see docs/scaling.md):
  --shard I/N               run shard I (0-based) of N of the same seeded schedule: open loop, arrivals I, I+N, ...
                            at their unsharded times (rate R/N each); closed loop, floor(C/N) workers (+1 for
                            I < C mod N) on request indices I, I+N, ...; warm-up split the same way
  --shard auto              take I and N from SLURM_PROCID and SLURM_NTASKS (srun), or from JOB_COMPLETION_INDEX
                            (Kubernetes Indexed Job) with --shards N
  --shards N                the shard count for JOB_COMPLETION_INDEX
  --start-at T              the measurement epoch of every shard: a UTC ISO time (2026-01-31T12:00:00Z) or epoch
                            milliseconds; warm-up runs before it. Refused in the past or more than 24 h ahead
  --max-start-late-ms MS    flag a shard whose epoch began more than MS after T (default 500)
  --host-label NAME         a readable name for this host in merged summaries (default: a hash of the host name)
  --workers N               run the plan as N shards in N processes on this host (2-64; the same runtime and
                            permissions), started together a few seconds ahead, and merge them into one result:
                            the shards' JSONL in --out's <stem>-workers/, the merge as <UTC-date>-merge-<run-id>.json
  --worker-of PID           (set by --workers for each worker) stop as interrupted once process PID is not this
                            one's parent, even if it died before this process started
  load merge FILE... [--out FILE] [--max-clock-spread-ms MS]   merge the shards' JSONL (see load merge --help)`;

export const SHARD_OPTIONS = {
  shard: { type: "string" },
  shards: { type: "string" },
  "start-at": { type: "string" },
  "max-start-late-ms": { type: "string" },
  "host-label": { type: "string" },
  "worker-of": { type: "string" },
} as const;

/** Parses --start-at: a UTC ISO time with Z or an offset, or epoch milliseconds. @throws UsageError. */
export function parseStartAt(text: string): number {
  if (/^\d+$/.test(text)) {
    const ms = Number(text);
    if (text.length <= 10) {
      throw new UsageError(
        `Cannot use --start-at "${text}": it looks like epoch seconds; pass epoch milliseconds (${text}000)`,
      );
    }
    if (!Number.isSafeInteger(ms)) throw new UsageError(`Cannot use --start-at "${text}": not a safe integer`);
    return ms;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    throw new UsageError(
      `Cannot use --start-at "${text}": expected a UTC ISO time such as 2026-01-31T12:00:00Z (with Z or an offset) ` +
        "or epoch milliseconds",
    );
  }
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new UsageError(`Cannot use --start-at "${text}": not a valid time`);
  return ms;
}

/** Where the shard comes from. */
export interface ShardEnvironment {
  env(name: string): string | undefined;
  hostname: string | null;
  wallMs: number;
}

function envIndex(env: ShardEnvironment, name: string): number {
  const raw = env.env(name);
  if (raw === undefined || !/^\d+$/.test(raw)) {
    throw new UsageError(`Cannot use --shard auto: ${name} is ${raw === undefined ? "unset" : `"${raw}"`}`);
  }
  return Number(raw);
}

/** Reads the fleet flags; undefined when this generator is not a shard. @throws UsageError. */
export function parseShardFlags(values: Record<string, unknown>, environment: ShardEnvironment): ShardRun | undefined {
  const spec = values.shard as string | undefined;
  const others = ["shards", "start-at", "max-start-late-ms", "host-label"].filter((k) => values[k] !== undefined);
  if (spec === undefined) {
    if (others.length > 0) throw new UsageError(`Cannot use --${others[0]} without --shard I/N (or --shard auto)`);
    return undefined;
  }
  let index: number, count: number, from: string;
  if (spec === "auto") {
    if (environment.env("SLURM_PROCID") !== undefined) {
      index = envIndex(environment, "SLURM_PROCID");
      count = envIndex(environment, "SLURM_NTASKS");
      from = "SLURM_PROCID/SLURM_NTASKS";
    } else if (environment.env("JOB_COMPLETION_INDEX") !== undefined) {
      index = envIndex(environment, "JOB_COMPLETION_INDEX");
      const n = numberFlag("load", values, "shards", { integer: true, min: 1, max: LOAD_LIMITS.maxShards });
      if (n === undefined) {
        throw new UsageError("Cannot use JOB_COMPLETION_INDEX without --shards N (the Job's completions)");
      }
      count = n;
      from = "JOB_COMPLETION_INDEX";
    } else {
      throw new UsageError(
        "Cannot use --shard auto: neither SLURM_PROCID (srun) nor JOB_COMPLETION_INDEX (Kubernetes Indexed Job) is set; " +
          "pass --shard I/N",
      );
    }
  } else {
    const m = /^(\d+)\/(\d+)$/.exec(spec);
    if (m === null) {
      throw new UsageError(`Cannot use --shard "${spec}": expected I/N (0-based index, shard count) or auto`);
    }
    index = Number(m[1]);
    count = Number(m[2]);
    from = "--shard";
    if (values.shards !== undefined) throw new UsageError("Cannot use --shards with --shard I/N (N is given there)");
  }
  if (!(count >= 1 && count <= LOAD_LIMITS.maxShards)) {
    throw new UsageError(`Cannot use shard count ${count}: it must lie in [1, ${LOAD_LIMITS.maxShards}]`);
  }
  if (!(index >= 0 && index < count)) {
    throw new UsageError(`Cannot use shard index ${index}: it must lie in [0, ${count - 1}] for ${count} shards`);
  }
  const startText = values["start-at"] as string | undefined;
  if (startText === undefined) {
    throw new UsageError("Cannot shard without --start-at T: every shard must start its measurement at one time");
  }
  const startAtEpochMs = parseStartAt(startText);
  try {
    shardStartFrom(startAtEpochMs, environment.wallMs, 0);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const lateMs = numberFlag("load", values, "max-start-late-ms", { min: 0, max: START_WINDOW_S.maxAhead * 1000 }) ??
    500;
  const label = values["host-label"] as string | undefined;
  if (label !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(label)) {
    throw new UsageError(`Cannot use --host-label "${label}": letters, digits, . _ - only (at most 64)`);
  }
  return {
    index,
    count,
    startAtEpochMs,
    maxStartLateS: lateMs / 1000,
    hostId: `host-${sha256Hex(environment.hostname ?? "unknown").slice(0, 12)}`,
    hostLabel: label ?? null,
    from,
    startAt: (deps) => shardStartFrom(startAtEpochMs, deps.wallMs?.() ?? Date.now(), deps.nowS()),
  };
}
