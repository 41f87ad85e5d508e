/**
 * One generator's share of a fleet run: which shard it is, the hash of the schedule every shard shares, the host
 * it runs on (as a stable id, not its name), and the absolute start. Each shard reads the wall clock once, turns the
 * start time into a reading of its monotonic clock, and waits on that clock; the evidence of both readings (and the
 * wall clock again at the epoch) is recorded so that the merge can state how far the shards' starts may differ.
 */
import { sha256Hex } from "../contract/mod.ts";
import type { LoadPlan } from "./load_plan_bounds.ts";
import type { PreparedWorkload } from "./prepare.ts";

/** What of a load test fixes its schedule: the unsharded plan, the seed and the repeat count. */
export interface ScheduleInput {
  plan: Omit<LoadPlan, "endpoints" | "requestFor" | "seed">;
  seed: number;
  repeat: number;
}

/** The start of a shard, on its monotonic clock, with the readings that chose it. */
export interface ShardStart {
  startAtS: number;
  evidence: Record<string, unknown>;
}

/** What `load --shard I/N --start-at T` asks for. */
export interface ShardRun {
  index: number;
  count: number;
  /** Absolute start of the measurement epoch, epoch milliseconds (UTC). */
  startAtEpochMs: number;
  /** A shard whose epoch starts later than this after the start time is flagged (seconds). */
  maxStartLateS: number;
  /** Stable id of this host (a hash of its name) and an optional human label. */
  hostId: string;
  hostLabel: string | null;
  /** Where the shard index came from: the flag, SLURM_PROCID, or JOB_COMPLETION_INDEX. */
  from: string;
  /** Reads both clocks once and returns the monotonic start (called when the run begins). */
  startAt(deps: { nowS(): number; wallMs?(): number }): ShardStart;
}

/** Earliest and latest acceptable start, relative to now, seconds. */
export const START_WINDOW_S = { minAhead: 0, maxAhead: 24 * 3600 };

/**
 * A shard's start from one reading of each clock: monotonic target = monotonic now + (start - wall now).
 * @throws RangeError when the start is in the past or more than a day ahead.
 */
export function shardStartFrom(startAtEpochMs: number, wallMs: number, monoS: number): ShardStart {
  const aheadS = (startAtEpochMs - wallMs) / 1000;
  if (aheadS < START_WINDOW_S.minAhead) {
    throw new RangeError(
      `Cannot start shard: --start-at ${new Date(startAtEpochMs).toISOString()} is ${(-aheadS).toFixed(3)} s in ` +
        "the past on this host's clock; choose a start far enough ahead for every shard to launch and warm up",
    );
  }
  if (aheadS > START_WINDOW_S.maxAhead) {
    throw new RangeError(
      `Cannot start shard: --start-at is ${(aheadS / 3600).toFixed(1)} h ahead (at most 24 h); check the time zone ` +
        "(a UTC ISO time ends in Z) or the epoch unit (milliseconds)",
    );
  }
  return {
    startAtS: monoS + aheadS,
    evidence: {
      start_at_ms: startAtEpochMs,
      start_at_iso: new Date(startAtEpochMs).toISOString(),
      wall_read_ms: wallMs,
      mono_read_s: monoS,
      epoch_mono_s: monoS + aheadS,
      wait_s: aheadS,
      wall_at_epoch_ms: null,
      clock_sync: "not measured: hosts' wall clocks are trusted as NTP-synchronized; each shard records its own " +
        "wall clock at the epoch, and the merge states their spread as the window's uncertainty",
    },
  };
}

/** Fields of the unsharded plan that make two shards' schedules the same one. */
export function scheduleIdentity(options: ScheduleInput, workload: PreparedWorkload): Record<string, unknown> {
  const p = options.plan;
  return {
    mode: p.mode,
    concurrency: p.concurrency ?? null,
    rate_per_s: p.ratePerS ?? null,
    arrival: p.mode === "open" ? p.arrival ?? "poisson" : null,
    max_concurrency: p.maxConcurrency ?? null,
    requests: p.requests ?? null,
    duration_s: p.durationS ?? null,
    warmup_requests: p.warmupRequests,
    warmup_s: p.warmupS ?? null,
    drain_limit_s: p.drainLimitS ?? null,
    seed: options.seed,
    repeat: options.repeat,
    prompt_set_sha256: workload.stamp.prompt_set_sha256,
    selection_sha256: workload.stamp.selection_sha256,
    request: {
      max_tokens: workload.stamp.max_tokens,
      min_tokens: workload.stamp.min_tokens,
      temperature: workload.stamp.temperature,
      request_seed: workload.stamp.request_seed,
      ignore_eos: workload.stamp.ignore_eos,
      stream: workload.stamp.stream,
    },
  };
}

/** SHA-256 of the canonical JSON of the schedule identity (keys in the order scheduleIdentity writes them). */
export function scheduleSha256(options: ScheduleInput, workload: PreparedWorkload): string {
  return sha256Hex(JSON.stringify(scheduleIdentity(options, workload)));
}

/** The shard line of a run's config and summary. */
export function shardStamp(
  options: ScheduleInput & { shard: ShardRun },
  workload: PreparedWorkload,
  toolkit: { version: string; commit: string | null } | null,
): Record<string, unknown> & { index: number; count: number } {
  const s = options.shard;
  return {
    index: s.index,
    count: s.count,
    from: s.from,
    rule: options.plan.mode === "open"
      ? "arrival index modulo count: shard I sends arrivals I, I+N, ... at their unsharded times (rate R/N each)"
      : "closed loop: shard I runs floor(C/N) workers (+1 for I < C mod N) on request indices I, I+N, ...",
    host_id: s.hostId,
    host_label: s.hostLabel,
    schedule_sha256: scheduleSha256(options, workload),
    schedule: scheduleIdentity(options, workload),
    toolkit,
    start_at_ms: s.startAtEpochMs,
    max_start_late_s: s.maxStartLateS,
  };
}
