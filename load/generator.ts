/**
 * Load generator: issues streamed chat requests in a closed loop (N workers, each sends its next request when the
 * previous one ends) or an open loop (an absolute seeded schedule of arrivals, capped by --max-concurrency).
 * Warm-up requests run and complete first; the measurement epoch starts right after them, with no pause.
 * In the open loop a request that cannot go out on time is sent late with its lateness recorded, or dropped
 * when it would be later than `dropLateAfterS`; it is never quietly moved. The generator records samples only.
 */
import type { ArrivalProcess, LoadMode, LoadRunFacts, LoadSample, StreamOutcome } from "../contract/mod.ts";
import { setImmediate } from "node:timers";
import { arrivalOffsets } from "./schedule.ts";

/** Hard bounds on one run, so that no command line can start unbounded load. */
export const LOAD_LIMITS = { maxRequests: 100_000, maxDurationS: 3_600, maxConcurrency: 4_096, maxRatePerS: 10_000 };

/** What the generator passes to the streaming client for one request. */
export interface LoadStreamOptions {
  baseUrl: string;
  body: Record<string, unknown>;
  deadlineS?: number;
  signal?: AbortSignal;
  /** Record every visible-output event's offset (ITL); the generator always sets it. */
  recordChunkOffsets?: boolean;
}

export interface LoadDeps {
  /** Sends one streamed chat completion; never rejects for a failed request. */
  streamChat(options: LoadStreamOptions): Promise<StreamOutcome>;
  /** Monotonic clock, seconds. */
  nowS(): number;
  /**
   * Resolves at (not before) the given clock reading, or early when `cancel` aborts; default is a setTimeout on
   * the remaining time.
   */
  sleepUntilS?(targetS: number, cancel?: AbortSignal): Promise<void>;
}

export interface LoadPlan {
  endpoints: readonly string[];
  mode: LoadMode;
  /** Closed loop: workers. */
  concurrency?: number;
  /** Open loop. */
  ratePerS?: number;
  arrival?: ArrivalProcess;
  /** Open loop: cap on outstanding requests (default: LOAD_LIMITS.maxConcurrency). */
  maxConcurrency?: number;
  seed: number;
  warmupRequests: number;
  /** Measured requests to issue; with durationS, whichever comes first. */
  requests?: number;
  /** Stop issuing after this many seconds of measurement; in-flight requests drain and count. */
  durationS?: number;
  /** Open loop: drop a request instead of sending it more than this late (default: never drop). */
  dropLateAfterS?: number;
  /** Per-request deadline passed to the client, seconds. */
  requestDeadlineS?: number;
  /** Body and prompt index of request `index` of a phase; the endpoint is index modulo the endpoint count. */
  requestFor(phase: "warmup" | "measure", index: number): { body: Record<string, unknown>; promptIndex: number };
}

export interface RunLoadOptions {
  signal?: AbortSignal;
  /** Called as each sample is complete (termination order). */
  onSample?(sample: LoadSample): void;
}

function positiveInt(name: string, value: number | undefined, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new RangeError(`Cannot plan the load: ${name} "${value}" must be an integer in [1, ${max}]`);
  }
}

/**
 * Checks a plan's bounds.
 * @throws RangeError on a plan that is unbounded, out of limits, or missing its mode's setting.
 */
export function validateLoadPlan(plan: LoadPlan): void {
  if (plan.endpoints.length === 0) throw new RangeError("Cannot plan the load: no endpoint; pass --url");
  if (plan.requests === undefined && plan.durationS === undefined) {
    throw new RangeError("Cannot plan the load: it is unbounded; pass --requests N or --duration S");
  }
  positiveInt("requests", plan.requests, LOAD_LIMITS.maxRequests);
  if (plan.durationS !== undefined && !(plan.durationS > 0 && plan.durationS <= LOAD_LIMITS.maxDurationS)) {
    throw new RangeError(
      `Cannot plan the load: duration "${plan.durationS}" must lie in (0, ${LOAD_LIMITS.maxDurationS}] s`,
    );
  }
  if (
    !Number.isInteger(plan.warmupRequests) || plan.warmupRequests < 0 || plan.warmupRequests > LOAD_LIMITS.maxRequests
  ) {
    throw new RangeError(`Cannot plan the load: warm-up requests "${plan.warmupRequests}" must be an integer >= 0`);
  }
  if (plan.mode === "closed") {
    if (plan.concurrency === undefined) throw new RangeError("Cannot plan a closed loop: pass --concurrency N");
    positiveInt("concurrency", plan.concurrency, LOAD_LIMITS.maxConcurrency);
  } else {
    const rate = plan.ratePerS;
    if (rate === undefined || !(rate > 0 && rate <= LOAD_LIMITS.maxRatePerS)) {
      throw new RangeError(
        `Cannot plan an open loop: rate "${rate}" must lie in (0, ${LOAD_LIMITS.maxRatePerS}] req/s`,
      );
    }
    positiveInt("max concurrency", plan.maxConcurrency, LOAD_LIMITS.maxConcurrency);
    if (plan.dropLateAfterS !== undefined && !(plan.dropLateAfterS >= 0)) {
      throw new RangeError(`Cannot plan an open loop: drop-late-after "${plan.dropLateAfterS}" must be >= 0 s`);
    }
  }
}

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
  /** The cap on outstanding requests: --concurrency (closed) or --max-concurrency (open). */
  cap: number;
  inFlight: InFlight;
  warmup: LoadSample[];
  measured: LoadSample[];
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
  };
}

/** Sends request `index` of a phase now; resolves when its stream has ended and its sample is complete. */
function send(
  context: RunContext,
  phase: "warmup" | "measure",
  index: number,
  epochS: number,
  scheduled: number | null,
): Promise<void> {
  const { plan, options } = context;
  const { body } = plan.requestFor(phase, index);
  const sample = sampleOf(context, phase, index, scheduled);
  (phase === "warmup" ? context.warmup : context.measured).push(sample);
  context.inFlight.count++;
  const streamOptions: LoadStreamOptions = { baseUrl: sample.endpoint, body, recordChunkOffsets: true };
  if (plan.requestDeadlineS !== undefined) streamOptions.deadlineS = plan.requestDeadlineS;
  if (options.signal) streamOptions.signal = options.signal;
  sample.send_offset_s = context.nowS() - epochS;
  return context.deps.streamChat(streamOptions).then((outcome) => {
    sample.outcome = outcome;
    context.inFlight.release();
    options.onSample?.(sample);
  });
}

/** `workers` workers, each sending its phase's next request when its previous one ends, while `more(index)`. */
async function closedLoop(
  context: RunContext,
  phase: "warmup" | "measure",
  workers: number,
  epochS: number,
  more: (index: number) => boolean,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!context.options.signal?.aborted && more(next)) await send(context, phase, next++, epochS, null);
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
  while (inFlight.count >= cap) {
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
  if (deadline !== null && context.nowS() > deadline) {
    return `issued more than ${plan.dropLateAfterS} s after its scheduled send`;
  }
  return null;
}

/** The open loop: arrivals on the seeded absolute schedule; resolves when every sent request has ended. */
async function openLoop(
  context: RunContext,
  epochS: number,
  countLeft: (index: number) => boolean,
): Promise<"duration" | null> {
  const { plan, options } = context;
  const schedule = arrivalOffsets({
    ratePerS: plan.ratePerS as number,
    process: plan.arrival ?? "poisson",
    seed: plan.seed,
  });
  const pending: Promise<void>[] = [];
  let stoppedBy: "duration" | null = null;
  for (let index = 0; countLeft(index); index++) {
    if (options.signal?.aborted) break;
    const scheduled = schedule.next().value;
    if (plan.durationS !== undefined && scheduled >= plan.durationS) {
      stoppedBy = "duration";
      break;
    }
    await context.sleepUntilS(epochS + scheduled);
    const dropReason = await waitForCap(context, epochS, scheduled);
    if (dropReason !== null) {
      const sample = { ...sampleOf(context, "measure", index, scheduled), dropped: true, drop_reason: dropReason };
      context.measured.push(sample);
      options.onSample?.(sample);
      continue;
    }
    pending.push(send(context, "measure", index, epochS, scheduled));
  }
  await Promise.all(pending);
  return stoppedBy;
}

/**
 * Runs a plan and returns every sample (warm-up first, then measured, each phase in index order).
 * @throws RangeError on an invalid plan (see validateLoadPlan).
 */
export async function runLoad(plan: LoadPlan, deps: LoadDeps, options: RunLoadOptions = {}): Promise<LoadRunFacts> {
  validateLoadPlan(plan);
  const nowS = deps.nowS;
  const context: RunContext = {
    plan,
    deps,
    options,
    nowS,
    sleepUntilS: deps.sleepUntilS ?? defaultSleepUntil(nowS),
    cap: plan.mode === "closed" ? plan.concurrency as number : plan.maxConcurrency ?? LOAD_LIMITS.maxConcurrency,
    inFlight: new InFlight(),
    warmup: [],
    measured: [],
  };
  const { cap } = context;

  // Warm-up: closed loop at the cap, fully completed before the epoch.
  const warmupStart = nowS();
  if (plan.warmupRequests > 0) {
    await closedLoop(
      context,
      "warmup",
      Math.min(cap, plan.warmupRequests),
      warmupStart,
      (i) => i < plan.warmupRequests,
    );
  }
  const epochS = nowS();
  const countLeft = (i: number) => plan.requests === undefined || i < plan.requests;
  const timeLeft = () => plan.durationS === undefined || nowS() - epochS < plan.durationS;
  let stoppedBy: LoadRunFacts["stopped_by"] = plan.requests !== undefined ? "requests" : "duration";

  if (plan.mode === "closed") {
    await closedLoop(context, "measure", cap, epochS, (i) => {
      if (!countLeft(i)) return false;
      if (!timeLeft()) {
        stoppedBy = "duration";
        return false;
      }
      return true;
    });
  } else if (await openLoop(context, epochS, countLeft) === "duration") {
    stoppedBy = "duration";
  }
  if (options.signal?.aborted) stoppedBy = "cancelled";
  context.measured.sort((a, b) => a.index - b.index);
  context.warmup.sort((a, b) => a.index - b.index);
  return {
    mode: plan.mode,
    effective_max_concurrency: cap,
    requested_rate_per_s: plan.mode === "open" ? plan.ratePerS as number : null,
    arrival: plan.mode === "open" ? plan.arrival ?? "poisson" : null,
    seed: plan.seed,
    samples: [...context.warmup, ...context.measured],
    warmup_s: epochS - warmupStart,
    stopped_by: stoppedBy,
  };
}
