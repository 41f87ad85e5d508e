/**
 * `load --plan`: what a load test would do, without sending anything: the workload (read, pinned, selected, its
 * targets checked), the plan with its defaults filled in, the schedule's hash that every shard of a fleet run
 * shares, and, when asked, every request this generator would issue (index, scheduled offset of the open loop, and
 * prompt), which is how shard schedules are shown to be disjoint parts of the unsharded one.
 */
import { LOAD_LINE_FORMATS } from "../contract/mod.ts";
import { ownIndex, shardShare } from "./generator.ts";
import { prepareLoadTest } from "./load_run.ts";
import type { LoadTestDeps, LoadTestOptions } from "./_load_types.ts";
import { arrivalOffsets } from "./schedule.ts";
import { scheduleIdentity, scheduleSha256 } from "./shard.ts";

export const LOAD_PLAN_FORMAT = LOAD_LINE_FORMATS.plan;

/** One request the plan issues. */
export interface PlannedRequest {
  index: number;
  /** Open loop: seconds from the epoch; closed loop: null (there is no schedule). */
  scheduled_offset_s: number | null;
  prompt_index: number;
}

/** The most requests `--print-schedule` lists. */
export const MAX_LISTED_REQUESTS = 1_000_000;

/** The measured requests of this generator's share, in index order (bounded by requests or duration). */
export function plannedRequests(
  options: LoadTestOptions,
  promptIndexOf: (index: number) => number,
  limit = MAX_LISTED_REQUESTS,
): { requests: PlannedRequest[]; truncated: boolean } {
  const p = options.plan;
  const out: PlannedRequest[] = [];
  const max = p.requests ?? Infinity;
  if (p.mode === "open") {
    const schedule = arrivalOffsets({
      ratePerS: p.ratePerS as number,
      process: p.arrival ?? "poisson",
      seed: options.workload.seed,
    });
    for (let i = 0; i < max; i++) {
      const t = schedule.next().value;
      if (p.durationS !== undefined && t >= p.durationS) break;
      if (!ownIndex(options.shard, i)) continue;
      if (out.length >= limit) return { requests: out, truncated: true };
      out.push({ index: i, scheduled_offset_s: t, prompt_index: promptIndexOf(i) });
    }
    return { requests: out, truncated: false };
  }
  if (p.requests === undefined) return { requests: out, truncated: true };
  for (let i = 0; i < max; i++) {
    if (!ownIndex(options.shard, i)) continue;
    if (out.length >= limit) return { requests: out, truncated: true };
    out.push({ index: i, scheduled_offset_s: null, prompt_index: promptIndexOf(i) });
  }
  return { requests: out, truncated: false };
}

/**
 * The plan of a load test as data; `withSchedule` adds every planned request.
 * @throws like runLoadTest's preparation (pin mismatch, infeasible target, repeated prompt, unreadable file).
 */
export async function describeLoadPlan(
  options: LoadTestOptions,
  deps: Pick<LoadTestDeps, "readText">,
  withSchedule: boolean,
): Promise<{ plan: Record<string, unknown>; requests: PlannedRequest[] | null; truncated: boolean }> {
  const { workload, osl } = await prepareLoadTest(options, deps);
  const input = { plan: options.plan, seed: options.workload.seed, repeat: options.repeat };
  const listed = withSchedule
    ? plannedRequests(options, (i) => workload.requestFor("measure", i).promptIndex)
    : { requests: null, truncated: false };
  const p = options.plan;
  return {
    plan: {
      format: LOAD_PLAN_FORMAT,
      version: 1,
      kind: "plan",
      urls: options.selfCheck ? ["(the in-process scripted engine)"] : options.urls,
      mode: p.mode,
      plan: p,
      sweep: options.sweep ?? null,
      this_shard: options.shard === undefined ? null : {
        index: options.shard.index,
        count: options.shard.count,
        from: options.shard.from,
        start_at_iso: new Date(options.shard.startAtEpochMs).toISOString(),
        workers: p.mode === "closed" ? shardShare(p.concurrency as number, options.shard) : null,
        warmup_requests: shardShare(p.warmupRequests, options.shard),
      },
      schedule_sha256: scheduleSha256(input, workload),
      schedule: scheduleIdentity(input, workload),
      workload: workload.stamp,
      isl: options.isl ?? null,
      osl: osl ?? null,
      strict: options.strict === true,
      ci_safety: options.ciSafety === true,
      headroom: options.headroom ?? null,
      listed_requests: listed.requests?.length ?? null,
      listed_truncated: listed.truncated,
    },
    requests: listed.requests,
    truncated: listed.truncated,
  };
}
