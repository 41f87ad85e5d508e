/**
 * Stage executor: sends the planned requests in protocol order through injected functions and records facts
 * (one StreamOutcome per sent request, a skip reason per unsent one, round wall times, stage durations).
 * It computes no statistics and never retries; the stream client never throws for a failed request.
 */
import {
  type ExecutedRequest,
  type ExecutionFacts,
  type Fixture,
  type HealthAnswer,
  MAX_STREAM_BODY_BYTES,
  newStreamProgress,
  REQUEST_TIMEOUT_S,
  type StreamOutcome,
  type StreamProgress,
} from "../contract/mod.ts";
import { classifyOutcome } from "../score/mod.ts";
import type { PlannedBatch, RunPlan } from "./plan.ts";

/** Options the executor passes to the streaming client for one request. */
export interface ExecutorStreamOptions {
  baseUrl: string;
  body: Record<string, unknown> | string;
  deadlineS?: number;
  signal?: AbortSignal;
  /** Most response body bytes (the contract's MAX_STREAM_BODY_BYTES). */
  maxBodyBytes?: number;
  /** Live counters the client updates as it reads (a person's progress line). */
  progress?: StreamProgress;
}

/** Everything the executor touches outside itself, injected so that tests drive it. */
export interface ExecutorDeps {
  /** Sends one streamed chat completion; resolves with its facts and never rejects for a failed request. */
  streamChat(options: ExecutorStreamOptions): Promise<StreamOutcome>;
  /** Asks the server's /health once. */
  checkHealth(baseUrl: string, timeoutMs?: number): Promise<HealthAnswer>;
  /** Monotonic clock in milliseconds (performance.now in production). */
  nowMs(): number;
}

/** Position of a request in the schedule, for progress lines (index is 1-based). */
export interface SchedulePosition {
  index: number;
  total: number;
}

export interface ExecuteOptions {
  baseUrl: string;
  plan: RunPlan;
  /** The exact body sent for a fixture (built once per fixture by the request-body builder). */
  bodyOf(fixture: Fixture): Record<string, unknown>;
  /** Per-request wall-clock deadline in seconds; the protocol's 1,800 when omitted. */
  deadlineS?: number;
  /** Aborting it cancels the in-flight request(s) and skips everything after. */
  signal?: AbortSignal;
  /** Timeout for the /health question after a failure, milliseconds. */
  healthTimeoutMs?: number;
  /**
   * Called just before a request is dispatched, with the live counters the client will update while it streams
   * (read them on a timer of your own; they are not tokens, see StreamProgress).
   */
  onRequestStart?(fixture: Fixture, position: SchedulePosition, live: StreamProgress): void;
  /**
   * Called once per scheduled request as it ends (or is skipped), in termination order and one at a time; awaited
   * before the next call, so evidence can be appended and flushed per request.
   */
  onRequestEnd?(request: ExecutedRequest, position: SchedulePosition): void | Promise<void>;
}

/** Executor clock readings (seconds from the first dispatch) that bound the stages. */
interface StageClock {
  requiredStartS: number | null;
  requiredEndS: number | null;
  lastSanityEndS: number | null;
  optionalStartS: number | null;
  optionalEndS: number | null;
  /** False once a round of the optional stage was skipped. */
  optionalComplete: boolean;
}

/** Where each planned request's entry goes, and the one-at-a-time chain of onRequestEnd calls. */
function createRecorder(options: ExecuteOptions) {
  const { plan } = options;
  const total = plan.fixtures.length;
  const slots: (ExecutedRequest | undefined)[] = new Array(total);
  const indexOf = new Map(plan.fixtures.map((f, i) => [f.id, i]));
  let chain: Promise<void> = Promise.resolve();
  /** The fixture's slot in `plan.fixtures`; a batch fixture outside it would overwrite another's record. */
  const slotOf = (id: string): number => {
    const index = indexOf.get(id);
    if (index === undefined) {
      throw new RangeError(
        `Cannot execute run: request "${id}" is in a batch but not in plan.fixtures; build the plan with planRun`,
      );
    }
    return index;
  };
  return {
    total,
    slotOf,
    /** Stores the entry and queues its onRequestEnd call after the previous one. */
    record(request: ExecutedRequest): Promise<void> {
      const index = slotOf(request.fixture.id);
      slots[index] = request;
      const position = { index: index + 1, total };
      chain = chain.then(() => options.onRequestEnd?.(request, position));
      return chain;
    },
    /** Resolves after every queued onRequestEnd call. */
    drained: () => chain,
    /** Every entry in plan order. @throws {RangeError} when a planned request was never recorded. */
    entries(): ExecutedRequest[] {
      return slots.map((slot, i) => {
        if (slot) return slot;
        throw new RangeError(`Cannot execute the plan: request ${plan.fixtures[i]?.id} was never recorded`);
      });
    },
    kindOf: (id: string) => slots[indexOf.get(id) ?? -1]?.kind,
  };
}

/**
 * Runs the plan in order and returns the recorded facts. Never throws for a failed request.
 * @throws {RangeError} when a batch holds a fixture that plan.fixtures does not list.
 */
export async function executeRun(options: ExecuteOptions, deps: ExecutorDeps): Promise<ExecutionFacts> {
  const { plan, signal } = options;
  const recorder = createRecorder(options);
  // Checked before anything is sent, so a bad plan sends no request.
  for (const batch of plan.batches) for (const fixture of batch.fixtures) recorder.slotOf(fixture.id);
  const healthChecks: ExecutionFacts["healthChecks"] = [];
  const roundWallsS: (number | null)[] = [];
  const originMs = deps.nowMs();
  const clockS = () => (deps.nowMs() - originMs) / 1000;
  let stopReason: string | null = null;
  const clock: StageClock = {
    requiredStartS: null,
    requiredEndS: null,
    lastSanityEndS: null,
    optionalStartS: null,
    optionalEndS: null,
    optionalComplete: plan.optionalConcurrency,
  };
  const cancelReason = () => {
    const reason = signal?.reason;
    const what = typeof reason === "string" ? reason : reason instanceof Error ? reason.message : "an abort signal";
    return `the run was cancelled (${what})`;
  };
  const send = async (fixture: Fixture, concurrency: number): Promise<ExecutedRequest & { kind: "outcome" }> => {
    const body = options.bodyOf(fixture);
    const live = newStreamProgress();
    options.onRequestStart?.(fixture, { index: recorder.slotOf(fixture.id) + 1, total: recorder.total }, live);
    const startedS = clockS();
    const streamOptions: ExecutorStreamOptions = {
      baseUrl: options.baseUrl,
      body,
      deadlineS: options.deadlineS ?? REQUEST_TIMEOUT_S,
      maxBodyBytes: MAX_STREAM_BODY_BYTES,
      progress: live,
    };
    if (signal) streamOptions.signal = signal;
    const outcome = await deps.streamChat(streamOptions);
    return { kind: "outcome", fixture, concurrency, body, outcome, startedS, endedS: clockS() };
  };
  const runBatch = async (batch: PlannedBatch): Promise<void> => {
    if (stopReason === null && signal?.aborted) stopReason = cancelReason();
    if (stopReason !== null) {
      for (const fixture of batch.fixtures) {
        // The reason alone: the record's status already says skipped, and readers print "skipped: <reason>".
        await recorder.record({ kind: "skipped", fixture, concurrency: batch.concurrency, reason: stopReason });
      }
      if (batch.phase === "concurrency") {
        roundWallsS.push(null);
        clock.optionalComplete = false;
      }
      return;
    }
    const batchStartS = clockS();
    if (batch.phase === "concurrency") clock.optionalStartS ??= batchStartS;
    else clock.requiredStartS ??= batchStartS;
    // All requests of a batch are released together; each is recorded as soon as it terminates.
    const finished = await Promise.all(batch.fixtures.map(async (fixture) => {
      const sent = await send(fixture, batch.concurrency);
      await recorder.record(sent);
      return sent;
    }));
    const batchEndS = Math.max(...finished.map((f) => f.endedS));
    if (batch.phase === "concurrency") {
      roundWallsS.push(batchEndS - Math.min(...finished.map((f) => f.startedS)));
      clock.optionalEndS = batchEndS;
    } else {
      clock.requiredEndS = batchEndS;
      if (batch.phase === "sanity") clock.lastSanityEndS = batchEndS;
    }
    if (signal?.aborted || finished.some((f) => f.outcome.end === "cancelled")) {
      stopReason = cancelReason();
      return;
    }
    stopReason = await afterBatch(batch, finished, options, deps, healthChecks);
  };

  for (const batch of plan.batches) await runBatch(batch);
  await recorder.drained();
  const requests = recorder.entries();
  const lastSanity = plan.batches.filter((b) => b.phase === "sanity").at(-1)?.fixtures.at(-1);
  const lastSanityRan = lastSanity !== undefined && recorder.kindOf(lastSanity.id) === "outcome";
  return {
    requests,
    roundWallsS,
    ...stageDurations(plan.optionalConcurrency, clock, lastSanityRan, stopReason),
    stopReason,
    healthChecks,
    cancelled: signal?.aborted === true || requests.some((r) => r.kind === "outcome" && r.outcome.end === "cancelled"),
  };
}

/**
 * What follows a batch that ended: nothing when no request failed (the protocol's failure rule, score/'s
 * classifyOutcome); a stop when the warm-up failed; otherwise one /health question, and a stop when it is not
 * answered. Resolves with the stop reason, or null to go on.
 */
async function afterBatch(
  batch: PlannedBatch,
  finished: readonly (ExecutedRequest & { kind: "outcome" })[],
  options: ExecuteOptions,
  deps: ExecutorDeps,
  healthChecks: ExecutionFacts["healthChecks"],
): Promise<string | null> {
  const firstFailed = finished.find((f) => classifyOutcome(f.outcome).status === "failed");
  if (!firstFailed) return null;
  if (batch.phase === "warmup") return `the warm-up request failed (${describeFailure(firstFailed.outcome)})`;
  if (options.signal?.aborted) return null;
  const failedId = firstFailed.fixture.id;
  const answer = await deps.checkHealth(options.baseUrl, options.healthTimeoutMs ?? 5000);
  healthChecks.push({ afterRequestId: failedId, answer });
  return answer.ok ? null : `the engine did not answer /health after ${failedId} failed (${answer.message})`;
}

/** The required stages run from the warm-up's dispatch to the end of the last sanity request; the optional one from its first dispatch to its last termination. */
function stageDurations(
  optionalSelected: boolean,
  clock: StageClock,
  lastSanityRan: boolean,
  stopReason: string | null,
): Pick<
  ExecutionFacts,
  | "requiredDurationS"
  | "requiredDurationReason"
  | "requiredElapsedS"
  | "optionalDurationS"
  | "optionalDurationReason"
> {
  const stopped = stopReason ?? "the run stopped";
  let requiredDurationS: number | null = null;
  let requiredDurationReason: string | null = null;
  if (clock.requiredStartS === null) {
    requiredDurationReason = `the warm-up request was never sent: ${stopped}`;
  } else if (!lastSanityRan || clock.lastSanityEndS === null) {
    requiredDurationReason = `the required stages did not finish (${stopped}); ` +
      "the elapsed time until the stop is extensions.required_elapsed_s";
  } else {
    requiredDurationS = clock.lastSanityEndS - clock.requiredStartS;
  }
  let optionalDurationS: number | null = null;
  let optionalDurationReason: string | null = null;
  if (!optionalSelected) {
    optionalDurationReason = "the optional concurrency stage was not selected (run without --optional-concurrency)";
  } else if (!clock.optionalComplete || clock.optionalStartS === null || clock.optionalEndS === null) {
    optionalDurationReason = `the optional concurrency stage did not finish (${stopped})`;
  } else {
    optionalDurationS = clock.optionalEndS - clock.optionalStartS;
  }
  const requiredElapsedS = clock.requiredStartS !== null && clock.requiredEndS !== null
    ? clock.requiredEndS - clock.requiredStartS
    : null;
  return { requiredDurationS, requiredDurationReason, requiredElapsedS, optionalDurationS, optionalDurationReason };
}

function describeFailure(outcome: StreamOutcome): string {
  const status = outcome.http_status === null ? "" : `HTTP ${outcome.http_status}, `;
  return `${status}${outcome.end}${outcome.error_message ? `: ${outcome.error_message}` : ""}`;
}
