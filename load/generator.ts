/**
 * Load generator: issues streamed chat requests in a closed loop (N workers, each sends its next request when the
 * previous one ends) or an open loop (an absolute seeded schedule of arrivals, capped by --max-concurrency).
 * Warm-up requests run and complete first; the measurement epoch starts right after them, with no pause but a full
 * garbage collection where the deps offer one.
 * In the open loop a request that cannot go out on time is sent late with its lateness recorded, or dropped
 * when it would be later than `dropLateAfterS`; it is never quietly moved. The generator records samples only.
 */
import type { LoadRunFacts, LoadSample, ShardSpec } from "../contract/mod.ts";
import {
  LOAD_LIMITS,
  type LoadDeps,
  type LoadPlan,
  type LoadStreamOptions,
  type RunLoadOptions,
  validateLoadPlan,
} from "./load_plan_bounds.ts";
import { setImmediate } from "node:timers";
import { arrivalOffsets } from "./schedule.ts";

function defaultSleepUntil(nowS: () => number): (targetS: number, cancel?: AbortSignal) => Promise<void> {
  // Timers have millisecond granularity and may fire late: sleep on a timer until about 2 ms before the target,
  // then poll with setImmediate (which lets I/O run in between) until the clock reaches it. Never early.
  return (targetS, cancel) =>
    new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stopped = false;
      const onAbort = () => {
        stopped = true;
        clearTimeout(timer);
        resolve();
      };
      const arm = () => {
        if (stopped) return;
        const remainingMs = (targetS - nowS()) * 1000;
        if (remainingMs <= 0 || cancel?.aborted) {
          cancel?.removeEventListener("abort", onAbort);
          resolve();
          return;
        }
        if (remainingMs > 2) timer = setTimeout(arm, Math.floor(remainingMs - 2));
        else setImmediate(arm);
      };
      cancel?.addEventListener("abort", onAbort, { once: true });
      arm();
    });
}

/** A counter of outstanding requests; every release wakes all current listeners, which re-check the count. */
class InFlight {
  count = 0;
  #listeners = new Set<() => void>();
  release(): void {
    this.count--;
    this.wakeAll();
  }
  /** Wakes every listener without a release (they re-check their own condition). */
  wakeAll(): void {
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const wake of listeners) wake();
  }
  /** Resolves at the next release. */
  nextRelease(): Promise<void> {
    return new Promise((resolve) => this.#listeners.add(resolve));
  }
}

/** What the phases of one run share. */
interface RunContext {
  plan: LoadPlan;
  deps: LoadDeps;
  options: RunLoadOptions;
  nowS: () => number;
  sleepUntilS: (targetS: number, cancel?: AbortSignal) => Promise<void>;
  /** The cap on outstanding requests of this generator. */
  cap: number;
  inFlight: InFlight;
  /** In-flight samples, for the drain limit to mark before it cancels them. */
  open: Set<LoadSample>;
  /** Aborts every request still in flight (the drain limit, or the caller's signal). */
  requests: AbortController;
  /** Set once the drain limit has passed: nothing more is sent. */
  drained: boolean;
  /** Measured samples the drain limit cancelled. */
  drainCancelled: number;
  counts: LoadRunFacts["counts"];
}

/** A sample of request `index` of a phase before it is sent (or dropped). */
function sampleOf(
  context: RunContext,
  phase: "warmup" | "measure",
  index: number,
  scheduled: number | null,
): LoadSample {
  const { promptIndex } = context.plan.requestFor(phase, index);
  const endpointIndex = index % context.plan.endpoints.length;
  return {
    phase,
    index,
    endpoint: context.plan.endpoints[endpointIndex] as string,
    endpoint_index: endpointIndex,
    prompt_index: promptIndex,
    scheduled_offset_s: scheduled,
    send_offset_s: null,
    in_flight_at_send: context.inFlight.count,
    dropped: false,
    drop_reason: null,
    outcome: null,
    cancelled_at_drain: false,
  };
}

/** Hands a finished (or dropped) sample over; the generator keeps nothing of it. */
function emit(context: RunContext, sample: LoadSample): void {
  if (sample.phase === "warmup") context.counts.warmup++;
  else context.counts.measured++;
  if (sample.dropped) context.counts.dropped++;
  if (sample.cancelled_at_drain && sample.phase === "measure") context.drainCancelled++;
  context.options.onSample?.(sample);
}

/** Sends request `index` of a phase now; resolves when its stream has ended and its sample is handed over. */
function send(
  context: RunContext,
  phase: "warmup" | "measure",
  index: number,
  epochS: number,
  scheduled: number | null,
): Promise<void> {
  const { plan } = context;
  const { body } = plan.requestFor(phase, index);
  const sample = sampleOf(context, phase, index, scheduled);
  context.inFlight.count++;
  context.open.add(sample);
  const streamOptions: LoadStreamOptions = {
    baseUrl: sample.endpoint,
    body,
    recordChunkOffsets: true,
    recordEngineCounts: true,
    signal: context.requests.signal,
  };
  if (plan.requestDeadlineS !== undefined) streamOptions.deadlineS = plan.requestDeadlineS;
  sample.send_offset_s = context.nowS() - epochS;
  context.options.onSend?.(phase);
  return context.deps.streamChat(streamOptions).then(
    (outcome) => {
      sample.outcome = outcome;
      context.open.delete(sample);
      context.inFlight.release();
      emit(context, sample);
    },
    (error: unknown) => {
      // streamChat resolves with an outcome for every failure it knows, so a rejection is a defect: the request
      // still leaves the count (an arrival waiting at the cap goes on) and the error reaches runLoad's caller.
      context.open.delete(sample);
      context.inFlight.release();
      throw error;
    },
  );
}

/** Whether this shard issues request `index` of the whole plan. */
export function ownIndex(shard: ShardSpec | undefined, index: number): boolean {
  return shard === undefined || index % shard.count === shard.index;
}

/** This shard's share of `total` (workers or warm-up requests): total / count, the remainder to the first shards. */
export function shardShare(total: number, shard: ShardSpec | undefined): number {
  if (shard === undefined) return total;
  return Math.floor(total / shard.count) + (shard.index < total % shard.count ? 1 : 0);
}

/**
 * `workers` workers, each sending its phase's next own request index when its previous one ends, while
 * `more(index)` holds. Indices are those of the whole plan that belong to this shard.
 */
async function closedLoop(
  context: RunContext,
  phase: "warmup" | "measure",
  workers: number,
  epochS: number,
  more: (index: number) => boolean,
): Promise<void> {
  const step = context.plan.shard?.count ?? 1;
  let next = context.plan.shard?.index ?? 0;
  const worker = async (): Promise<void> => {
    while (!context.options.signal?.aborted && !context.drained && more(next)) {
      const index = next;
      next += step;
      await send(context, phase, index, epochS, null);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

/**
 * Waits until fewer than the cap are in flight. Without --drop-late-after-ms it waits as long as it takes (the
 * request goes out late, its lateness recorded); with it, it resolves with the drop reason once the arrival is
 * more than that late. Null: send now.
 */
async function waitForCap(context: RunContext, epochS: number, scheduled: number): Promise<string | null> {
  const { plan, inFlight, cap } = context;
  const deadline = plan.dropLateAfterS === undefined ? null : epochS + scheduled + plan.dropLateAfterS;
  while (inFlight.count >= cap && !context.drained) {
    if (deadline === null) {
      await inFlight.nextRelease();
      continue;
    }
    const stopTimer = new AbortController();
    const freed = await Promise.race([
      inFlight.nextRelease().then(() => true),
      context.sleepUntilS(deadline, stopTimer.signal).then(() => false),
    ]);
    stopTimer.abort();
    if (!freed && inFlight.count >= cap) {
      return `max concurrency ${cap} still reached ${plan.dropLateAfterS} s after its scheduled send`;
    }
  }
  if (context.drained) return "not sent: the drain limit ended the run first";
  if (deadline !== null && context.nowS() > deadline) {
    return `issued more than ${plan.dropLateAfterS} s after its scheduled send`;
  }
  return null;
}

/**
 * The open loop: arrivals on the seeded absolute schedule; resolves when every sent request has ended. Nothing is
 * kept of a request once it ended (a promise kept per request would grow with the run: 7.2 million in an hour at
 * 2,000/s). A failure or the caller's abort ends the wait for the next arrival at once (it may be seconds away).
 */
async function openLoop(
  context: RunContext,
  epochS: number,
  countLeft: (index: number) => boolean,
  onLastSend: () => void,
): Promise<"duration" | null> {
  const { plan, options } = context;
  const schedule = arrivalOffsets({
    ratePerS: plan.ratePerS as number,
    process: plan.arrival ?? "poisson",
    seed: plan.seed,
  });
  // Requests sent and not yet settled, counted here (after each one's hand-over), so that a hand-over that throws
  // is recorded before the last one settles.
  let unsettled = 0;
  let allSettled: (() => void) | null = null;
  let failed: { error: unknown } | null = null;
  const settle = () => {
    if (--unsettled === 0) allSettled?.();
  };
  const failure = new AbortController();
  const stop = options.signal ? AbortSignal.any([options.signal, failure.signal]) : failure.signal;
  const onFailure = (error: unknown) => {
    failed ??= { error };
    failure.abort();
    settle();
  };
  let stoppedBy: "duration" | null = null;
  for (let index = 0; countLeft(index); index++) {
    if (stop.aborted || context.drained) break;
    // Every shard draws the whole schedule, so arrival i has the same time in every shard and unsharded.
    const scheduled = schedule.next().value;
    if (plan.durationS !== undefined && scheduled >= plan.durationS) {
      stoppedBy = "duration";
      break;
    }
    if (!ownIndex(plan.shard, index)) continue;
    await context.sleepUntilS(epochS + scheduled, stop);
    if (stop.aborted) break;
    const dropReason = await waitForCap(context, epochS, scheduled);
    if (failed !== null) break;
    if (dropReason !== null) {
      emit(context, { ...sampleOf(context, "measure", index, scheduled), dropped: true, drop_reason: dropReason });
      continue;
    }
    unsettled++;
    send(context, "measure", index, epochS, scheduled).then(settle, onFailure);
  }
  onLastSend();
  if (unsettled > 0) await new Promise<void>((resolve) => allSettled = resolve);
  if (failed !== null) throw (failed as { error: unknown }).error;
  return stoppedBy;
}

/**
 * Runs `work` and, from the moment `armAt()` gives a deadline, cancels what is still in flight at that deadline
 * (marking each in-flight sample cancelled_at_drain). Resolves when `work` has settled.
 */
async function withDrainLimit(context: RunContext, work: (arm: (deadlineS: number) => void) => Promise<void>) {
  const stop = new AbortController();
  let watcher: Promise<void> = Promise.resolve();
  let armed = false;
  const arm = (deadlineS: number) => {
    if (armed) return;
    armed = true;
    watcher = context.sleepUntilS(deadlineS, stop.signal).then(() => {
      if (stop.signal.aborted) return;
      context.drained = true;
      for (const sample of context.open) sample.cancelled_at_drain = true;
      context.requests.abort();
      context.inFlight.wakeAll();
    });
  };
  try {
    await work(arm);
  } finally {
    stop.abort();
    await watcher;
  }
}

/**
 * Warm-up: a closed loop (at the cap; an open loop's at most 256 wide) over this shard's share of the warm-up,
 * fully completed before the epoch. Ends "limit" when the warm-up limit cancelled it (the run then measures
 * nothing), else "done".
 */
async function warmUp(context: RunContext): Promise<"done" | "limit"> {
  const { plan, nowS, cap } = context;
  const warmupStart = nowS();
  const warmupCount = shardShare(plan.warmupRequests, plan.shard);
  const warmupByTime = plan.warmupS !== undefined && plan.warmupS > 0;
  if (warmupCount === 0 && !warmupByTime) return "done";
  // An open loop warms up with about one second of its rate in flight, at most 256 (and at most its cap): a
  // warm-up 1,024 wide left the client's heap promoting ~3x more at every young-generation collection through
  // the measured schedule (docs/scaling.md).
  const warmupCap = plan.mode === "closed"
    ? cap
    : Math.min(cap, 256, Math.max(1, Math.ceil((plan.ratePerS as number) / (plan.shard?.count ?? 1))));
  const workers = Math.max(1, Math.min(warmupCap, warmupByTime ? warmupCap : warmupCount));
  const warmupEnd = warmupByTime ? warmupStart + (plan.warmupS as number) : Infinity;
  // A time warm-up drains like the measurement; the limit (the earlier of the two wins) fails the run instead.
  const drainAt = warmupByTime && plan.drainLimitS !== undefined ? warmupEnd + plan.drainLimitS : Infinity;
  const limitAt = plan.warmupLimitS === undefined
    ? Infinity
    : (warmupByTime ? warmupEnd : warmupStart) + plan.warmupLimitS;
  await withDrainLimit(context, async (arm) => {
    const at = Math.min(drainAt, limitAt);
    if (Number.isFinite(at)) arm(at);
    await closedLoop(context, "warmup", workers, warmupStart, (i) => {
      if (warmupByTime) return nowS() < warmupEnd;
      return i < plan.warmupRequests;
    });
  });
  const overran = context.drained && limitAt < drainAt;
  context.drained = false;
  context.drainCancelled = 0;
  if (context.requests.signal.aborted && !context.options.signal?.aborted) context.requests = new AbortController();
  return overran ? "limit" : "done";
}

/** The run's facts once it ended. */
function factsOf(
  context: RunContext,
  ended: { warmupStart: number; epochS: number; stoppedBy: LoadRunFacts["stopped_by"] },
): LoadRunFacts {
  const { plan, cap } = context;
  return {
    mode: plan.mode,
    effective_max_concurrency: plan.mode === "closed" ? cap : plan.maxConcurrency ?? null,
    internal_concurrency_limit: cap,
    requested_rate_per_s: plan.mode === "open" ? plan.ratePerS as number : null,
    arrival: plan.mode === "open" ? plan.arrival ?? "poisson" : null,
    seed: plan.seed,
    counts: context.counts,
    warmup_s: ended.epochS - ended.warmupStart,
    stopped_by: ended.stoppedBy,
    drain: {
      limit_s: plan.drainLimitS ?? null,
      cancelled: context.drainCancelled,
      end_s: context.nowS() - ended.epochS,
    },
    shard: plan.shard ?? null,
  };
}

/**
 * Runs a plan, handing every sample (warm-up, then measured, each as it ends) to `options.onSample`; the
 * generator retains none, so memory does not grow with the run.
 * @throws RangeError on an invalid plan (see validateLoadPlan).
 */
export async function runLoad(plan: LoadPlan, deps: LoadDeps, options: RunLoadOptions = {}): Promise<LoadRunFacts> {
  validateLoadPlan(plan);
  const nowS = deps.nowS;
  const requests = new AbortController();
  if (options.signal?.aborted) requests.abort();
  const closedWorkers = plan.mode === "closed" ? shardShare(plan.concurrency as number, plan.shard) : 0;
  const cap = plan.mode === "closed" ? closedWorkers : plan.maxConcurrency ?? LOAD_LIMITS.maxConcurrency;
  const context: RunContext = {
    plan,
    deps,
    options,
    nowS,
    sleepUntilS: deps.sleepUntilS ?? defaultSleepUntil(nowS),
    cap,
    inFlight: new InFlight(),
    open: new Set(),
    requests,
    drained: false,
    drainCancelled: 0,
    counts: { warmup: 0, measured: 0, dropped: 0 },
  };
  const onCallerAbort = () => {
    context.requests.abort();
    context.inFlight.wakeAll();
  };
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });
  try {
    const warmupStart = nowS();
    if (await warmUp(context) === "limit") {
      return factsOf(context, { warmupStart, epochS: nowS(), stoppedBy: "warmup-limit" });
    }
    await deps.collectGarbage?.();
    if (plan.startAtS !== undefined) await context.sleepUntilS(plan.startAtS, options.signal);
    const epochS = plan.startAtS ?? nowS();
    options.onEpoch?.(epochS);
    const countLeft = (i: number) => plan.requests === undefined || i < plan.requests;
    const timeLeft = () => plan.durationS === undefined || nowS() - epochS < plan.durationS;
    let stoppedBy: LoadRunFacts["stopped_by"] = plan.requests !== undefined ? "requests" : "duration";
    const drainLimit = plan.drainLimitS;
    await withDrainLimit(context, async (arm) => {
      if (drainLimit !== undefined && plan.durationS !== undefined) arm(epochS + plan.durationS + drainLimit);
      const armAfterLastSend = () => {
        if (drainLimit !== undefined) arm(nowS() + drainLimit);
      };
      if (plan.mode === "closed") {
        let last = false;
        await closedLoop(context, "measure", closedWorkers, epochS, (i) => {
          if (!countLeft(i)) {
            if (!last) armAfterLastSend();
            last = true;
            return false;
          }
          if (!timeLeft()) {
            stoppedBy = "duration";
            return false;
          }
          return true;
        });
      } else if (await openLoop(context, epochS, countLeft, armAfterLastSend) === "duration") {
        stoppedBy = "duration";
      }
    });
    if (options.signal?.aborted) stoppedBy = "cancelled";
    return factsOf(context, { warmupStart, epochS, stoppedBy });
  } finally {
    options.signal?.removeEventListener("abort", onCallerAbort);
  }
}
