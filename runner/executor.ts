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
  MAX_CHUNK_STAMPS,
  MAX_INVALID_UTF8_SEQUENCES,
  MAX_STREAM_BODY_BYTES,
  newStreamProgress,
  REQUEST_TIMEOUT_S,
  type SlotReading,
  type StreamOutcome,
  type StreamProgress,
} from "../contract/mod.ts";
import { classifyOutcome, type RequestSpan, spanEndS, stageDurationS, wallS } from "../score/mod.ts";
import type { PlannedBatch, RunPlan } from "./plan.ts";
import { highestTask, matchSlots } from "./_slot_match.ts";

/** Options the executor passes to the streaming client for one request. */
export interface ExecutorStreamOptions {
  baseUrl: string;
  body: Record<string, unknown> | string;
  deadlineS?: number;
  signal?: AbortSignal;
  /** The executor's monotonic clock: the client stamps the request on it, so its offsets join the run's clock. */
  now: () => number;
  /** Most response body bytes (the contract's MAX_STREAM_BODY_BYTES). */
  maxBodyBytes?: number;
  /** Live counters the client updates as it reads (a person's progress line). */
  progress?: StreamProgress;
  /** Stamp every answer and reasoning chunk (the records' reasoning cadence). */
  recordChunkOffsets?: boolean;
  /** Most stamps kept (the contract's MAX_CHUNK_STAMPS); the chunks past it are counted, unstamped. */
  maxChunkOffsets?: number;
  /** Most byte sequences that are not UTF-8 (the contract's MAX_INVALID_UTF8_SEQUENCES); past it, malformed. */
  maxInvalidUtf8?: number;
}

/** Everything the executor touches outside itself, injected so that tests drive it. */
export interface ExecutorDeps {
  /** Sends one streamed chat completion; resolves with its facts and never rejects for a failed request. */
  streamChat(options: ExecutorStreamOptions): Promise<StreamOutcome>;
  /** Asks the server's /health once. */
  checkHealth(baseUrl: string, timeoutMs?: number): Promise<HealthAnswer>;
  /** Monotonic clock in milliseconds (performance.now in production). */
  nowMs(): number;
  /**
   * Reads the server's GET /slots once (the resolved configuration of each slot's last task); absent: no reading.
   * `status` is the HTTP status when the server answered one (a refusal that will not change, such as 501).
   */
  readSlots?(
    baseUrl: string,
  ): Promise<{ ok: true; slots: unknown[] } | { ok: false; reason: string; status: number | null }>;
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
  /**
   * Why the engine's resolved configuration is not read at all (a server that is not llama.cpp has no /slots of
   * that shape); null or absent: it is read after every batch when deps.readSlots exists.
   */
  slotsUnavailable?: string | null;
  /** The server's slot count, for the words of a round whose slots were shared (null: unknown). */
  serverCapacity?: number | null;
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

/** The spans (seconds on the run's clock) that bound the stages. */
interface StageClock {
  /** The warm-up's span: the required stages start at its dispatch. */
  warmup: RequestSpan | null;
  /** Every span of the required stages, in termination order of batches. */
  required: RequestSpan[];
  /** The last sanity request's span. */
  lastSanity: RequestSpan | null;
  /** Every span of the optional stage. */
  optional: RequestSpan[];
  /** False once a round of the optional stage was skipped. */
  optionalComplete: boolean;
}

type SentRequest = ExecutedRequest & { kind: "outcome" };

/** Where a sent request lies on the run's clock. */
function spanOf(sent: SentRequest): RequestSpan {
  return { dispatchOffsetS: sent.dispatchOffsetS, endOffsetS: sent.outcome.offsets.end_s };
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
  // The run's epoch: every dispatch offset counts from here, on the executor's monotonic clock.
  const originMs = deps.nowMs();
  let stopReason: string | null = null;
  const clock: StageClock = {
    warmup: null,
    required: [],
    lastSanity: null,
    optional: [],
    optionalComplete: plan.optionalConcurrency,
  };
  const slots = slotReader(options, deps);
  await slots.start();
  const send = (fixture: Fixture, concurrency: number) =>
    sendRequest(fixture, concurrency, { options, deps, recorder, originMs });
  const runBatch = async (batch: PlannedBatch): Promise<void> => {
    if (stopReason === null && signal?.aborted) stopReason = cancelReasonOf(signal);
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
    // All requests of a batch are released together. Once all have terminated, the engine's report of what it ran
    // them with is read, and each is recorded with it, in termination order.
    const finished = await Promise.all(batch.fixtures.map((fixture) => send(fixture, batch.concurrency)));
    const readings = await slots.afterBatch(finished);
    const spans = finished.map(spanOf);
    const byEnd = finished.map((sent, i) => ({ sent, end: spanEndS(spans[i]!) })).sort((a, b) => a.end - b.end);
    for (const { sent } of byEnd) {
      const slot = readings.get(sent.fixture.id);
      await recorder.record(slot === undefined ? sent : { ...sent, slot });
    }
    if (batch.phase === "concurrency") {
      roundWallsS.push(wallS(spans));
      clock.optional.push(...spans);
    } else {
      clock.required.push(...spans);
      if (batch.phase === "warmup") clock.warmup ??= spans[0] ?? null;
      if (batch.phase === "sanity") clock.lastSanity = spans.at(-1) ?? null;
    }
    if (signal?.aborted || finished.some((f) => f.outcome.end === "cancelled")) {
      stopReason = cancelReasonOf(signal);
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

/** Why the run stopped when its signal aborted. */
function cancelReasonOf(signal: AbortSignal | undefined): string {
  const reason = signal?.reason;
  const what = typeof reason === "string" ? reason : reason instanceof Error ? reason.message : "an abort signal";
  return `the run was cancelled (${what})`;
}

/** Streams one request, its progress announced; its dispatch offset counts from the run's origin on `deps.nowMs`. */
async function sendRequest(
  fixture: Fixture,
  concurrency: number,
  { options, deps, recorder, originMs }: {
    options: ExecuteOptions;
    deps: ExecutorDeps;
    recorder: ReturnType<typeof createRecorder>;
    originMs: number;
  },
): Promise<SentRequest> {
  const { signal } = options;
  const body = options.bodyOf(fixture);
  const live = newStreamProgress();
  options.onRequestStart?.(fixture, { index: recorder.slotOf(fixture.id) + 1, total: recorder.total }, live);
  const calledMs = deps.nowMs();
  const streamOptions: ExecutorStreamOptions = {
    baseUrl: options.baseUrl,
    body,
    deadlineS: options.deadlineS ?? REQUEST_TIMEOUT_S,
    now: deps.nowMs,
    maxBodyBytes: MAX_STREAM_BODY_BYTES,
    progress: live,
    recordChunkOffsets: true,
    maxChunkOffsets: MAX_CHUNK_STAMPS,
    maxInvalidUtf8: MAX_INVALID_UTF8_SEQUENCES,
  };
  if (signal) streamOptions.signal = signal;
  const outcome = await deps.streamChat(streamOptions);
  // The client's offset zero on this clock; a client that reports none is placed at the call.
  const zeroMs = Number.isFinite(outcome.dispatch_clock_ms) ? outcome.dispatch_clock_ms : calledMs;
  return { kind: "outcome", fixture, concurrency, body, outcome, dispatchOffsetS: (zeroMs - originMs) / 1000 };
}

/**
 * The /slots reader of one run: one reading before the first request (the highest task id already there), one
 * after each batch, matched to the batch's requests (runner/_slot_match.ts). A refusal with an HTTP status (501
 * from llama-server --no-slots) stops further reading, and every later request gets that reason.
 */
function slotReader(options: ExecuteOptions, deps: ExecutorDeps) {
  let seenTask = -1;
  let stopped: string | null = options.slotsUnavailable ?? (deps.readSlots ? null : "the runner reads no /slots here");
  const read = deps.readSlots;
  const none = (batch: readonly SentRequest[], reason: string) =>
    new Map<string, SlotReading>(batch.map((sent) => [sent.fixture.id, { kind: "none", reason }]));
  return {
    async start(): Promise<void> {
      if (stopped !== null || read === undefined) return;
      const first = await read(options.baseUrl);
      if (first.ok) seenTask = highestTask(first.slots, seenTask);
      else if (first.status !== null) stopped = first.reason;
    },
    async afterBatch(batch: readonly SentRequest[]): Promise<Map<string, SlotReading>> {
      if (stopped !== null || read === undefined) return none(batch, stopped ?? "no /slots reader");
      if (options.signal?.aborted) return none(batch, "the run was cancelled before GET /slots was read");
      const reading = await read(options.baseUrl);
      if (!reading.ok) {
        if (reading.status !== null) stopped = reading.reason;
        return none(batch, reading.reason);
      }
      const requests = batch.map((sent) => ({
        id: sent.fixture.id,
        seed: sent.body["seed"],
        dispatchOffsetS: sent.dispatchOffsetS,
      }));
      const matched = matchSlots(reading.slots, requests, seenTask, options.serverCapacity ?? null);
      seenTask = highestTask(reading.slots, seenTask);
      return matched;
    },
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
  const answer = await deps.checkHealth(options.baseUrl, 5000);
  healthChecks.push({ afterRequestId: failedId, answer });
  return answer.ok ? null : `the engine did not answer /health after ${failedId} failed (${answer.message})`;
}

/**
 * The required stages run from the warm-up's dispatch to the termination of the last sanity request; the optional
 * one from its first dispatch to its last termination (score/durations.ts, which the validator uses as well).
 */
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
  if (clock.warmup === null) {
    requiredDurationReason = `the warm-up request was never sent: ${stopped}`;
  } else if (!lastSanityRan || clock.lastSanity === null) {
    requiredDurationReason = `the required stages did not finish (${stopped}); ` +
      "the elapsed time until the stop is extensions.required_elapsed_s";
  } else {
    requiredDurationS = stageDurationS(clock.warmup, clock.lastSanity);
  }
  let optionalDurationS: number | null = null;
  let optionalDurationReason: string | null = null;
  if (!optionalSelected) {
    optionalDurationReason = "the optional concurrency stage was not selected (run without --optional-concurrency)";
  } else if (!clock.optionalComplete || clock.optional.length === 0) {
    optionalDurationReason = `the optional concurrency stage did not finish (${stopped})`;
  } else {
    optionalDurationS = wallS(clock.optional);
  }
  // From the warm-up's dispatch to the last termination of any required request (a stopped run ends early).
  const requiredElapsedS = clock.warmup === null || clock.required.length === 0
    ? null
    : Math.max(...clock.required.map(spanEndS)) - clock.warmup.dispatchOffsetS;
  return { requiredDurationS, requiredDurationReason, requiredElapsedS, optionalDurationS, optionalDurationReason };
}

function describeFailure(outcome: StreamOutcome): string {
  const status = outcome.http_status === null ? "" : `HTTP ${outcome.http_status}, `;
  return `${status}${outcome.end}${outcome.error_message ? `: ${outcome.error_message}` : ""}`;
}
