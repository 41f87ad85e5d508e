/**
 * What the load generator is given: one plan (closed or open loop, warm-up, measured issuance, drain and warm-up
 * limits, shard, start time), what it touches outside itself, and the hard bounds every plan is checked against
 * before anything is sent.
 */
import type { ArrivalProcess, LoadMode, LoadSample, ShardSpec, StreamOutcome } from "../contract/mod.ts";

/** Hard bounds on one run, so that no command line can start unbounded load. */
export const LOAD_LIMITS = {
  maxRequests: 100_000,
  maxDurationS: 3_600,
  maxConcurrency: 4_096,
  maxRatePerS: 10_000,
  maxDrainS: 3_600,
  maxShards: 4_096,
};

/** What the generator passes to the streaming client for one request. */
export interface LoadStreamOptions {
  baseUrl: string;
  body: Record<string, unknown>;
  deadlineS?: number;
  signal?: AbortSignal;
  /** Record every visible-output event's offset (ITL); the generator always sets it. */
  recordChunkOffsets?: boolean;
  /** Record the engine's running predicted_n beside each offset, where a chunk carries one; the generator sets it. */
  recordEngineCounts?: boolean;
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
  /**
   * A full garbage collection, run between the warm-up and the epoch: the warm-up's garbage (at the cap, all of it
   * in flight together, so promoted) is otherwise collected in the first second or so of the measured schedule.
   * The epoch waits for the promise it may return.
   */
  collectGarbage?(): void | Promise<void>;
}

export interface LoadPlan {
  endpoints: readonly string[];
  mode: LoadMode;
  /** Closed loop: workers (of the whole, unsharded plan). */
  concurrency?: number;
  /** Open loop (of the whole, unsharded plan). */
  ratePerS?: number;
  arrival?: ArrivalProcess;
  /** Open loop: cap on outstanding requests (of this generator); unset: uncapped (the internal limit applies). */
  maxConcurrency?: number;
  seed: number;
  warmupRequests: number;
  /** Warm-up by time instead of by count: issue warm-up requests for this many seconds. */
  warmupS?: number;
  /** Measured requests to issue (of the whole plan); with durationS, whichever comes first. */
  requests?: number;
  /** Stop issuing after this many seconds of measurement. */
  durationS?: number;
  /**
   * Seconds after issuance stops (the end of the measured window with durationS, else the last send) that in-flight
   * requests may still take; then they are cancelled and recorded as cancelled at the drain. Unset: they drain until
   * their own deadline.
   */
  drainLimitS?: number;
  /**
   * The most seconds the warm-up may run past its plan (by count: from its start; by time: after warmupS); then
   * what is in flight is cancelled and the run ends before its epoch, stopped_by "warmup-limit", nothing measured.
   * Unset: requests warm up until their own deadline.
   */
  warmupLimitS?: number;
  /** Open loop: drop a request instead of sending it more than this late (default: never drop). */
  dropLateAfterS?: number;
  /** Per-request deadline passed to the client, seconds. */
  requestDeadlineS?: number;
  /**
   * This generator's share of the plan: the open loop takes the arrivals whose index modulo count is the shard's
   * index (at their unsharded scheduled times), the closed loop a share of the workers and the request indices
   * congruent to the shard's index. Prompts follow the global request index, as in the unsharded run.
   */
  shard?: ShardSpec;
  /** Monotonic clock reading (deps.nowS) that is the measurement epoch: warm-up runs before it, issuance from it. */
  startAtS?: number;
  /** Body and prompt index of request `index` of a phase; the endpoint is index modulo the endpoint count. */
  requestFor(phase: "warmup" | "measure", index: number): { body: Record<string, unknown>; promptIndex: number };
}

export interface RunLoadOptions {
  signal?: AbortSignal;
  /** Called once at the measurement epoch (after warm-up and any wait for the start time). */
  onEpoch?(epochS: number): void;
  /** Called as each sample is complete (termination order). */
  onSample?(sample: LoadSample): void;
  /** Called as each request is sent (a person's progress: sent and in flight); must only count. */
  onSend?(phase: "warmup" | "measure"): void;
}

/** The drain limit of a run bounded by --duration when none is given, seconds (load and compare alike). */
export const DEFAULT_DRAIN_S = 30;

/** Whether a plan warms up at all: by count, or for some seconds (a zero warm-up earns a warning, or a refusal). */
export function warmsUp(plan: Pick<LoadPlan, "warmupRequests" | "warmupS">): boolean {
  return plan.warmupRequests > 0 || (plan.warmupS ?? 0) > 0;
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
  if (plan.warmupS !== undefined && !(plan.warmupS >= 0 && plan.warmupS <= LOAD_LIMITS.maxDurationS)) {
    throw new RangeError(
      `Cannot plan the load: warm-up "${plan.warmupS}" s must lie in [0, ${LOAD_LIMITS.maxDurationS}]`,
    );
  }
  for (const [name, value] of [["drain limit", plan.drainLimitS], ["warm-up limit", plan.warmupLimitS]] as const) {
    if (value !== undefined && !(value >= 0 && value <= LOAD_LIMITS.maxDrainS)) {
      throw new RangeError(`Cannot plan the load: ${name} "${value}" s must lie in [0, ${LOAD_LIMITS.maxDrainS}]`);
    }
  }
  if (plan.shard !== undefined) {
    const { index, count } = plan.shard;
    if (!Number.isInteger(count) || count < 1 || count > LOAD_LIMITS.maxShards) {
      throw new RangeError(
        `Cannot plan the load: shard count "${count}" must be an integer in [1, ${LOAD_LIMITS.maxShards}]`,
      );
    }
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      throw new RangeError(`Cannot plan the load: shard index "${index}" must be an integer in [0, ${count - 1}]`);
    }
    if (plan.mode === "closed" && plan.concurrency !== undefined && plan.concurrency < count) {
      throw new RangeError(
        `Cannot split the load: concurrency ${plan.concurrency} is less than the ${count} shards; each shard needs ` +
          "at least one worker",
      );
    }
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
