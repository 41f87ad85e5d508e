/**
 * What the executor records of one run: each scheduled request sent (with its raw stream outcome and its clock
 * readings) or skipped (with why), the round wall times, the stage durations, and the /health questions. Plain
 * data: runner/ produces it, score/ turns requests into records, report/ writes the evidence and the result.
 */
import type { Fixture } from "./fixture.ts";
import type { StreamOutcome } from "./stream.ts";

/** What /health said after a failed request. */
export interface HealthAnswer {
  ok: boolean;
  status: number | null;
  message: string;
  /** Whether the request reached a process on the port (the connection was made and the request written). */
  connected?: boolean;
}

/**
 * What the engine reported it ran one request's task with, read after the request (llama.cpp's GET /slots: each
 * slot's last task and its params), or why there is no such reading. Raw facts: score/ compares them with the
 * body that was sent.
 */
export type SlotReading =
  | {
    kind: "slot";
    /** Where it was read, e.g. "GET /slots". */
    source: string;
    /** How the slot was matched to the request, in words ("seed 7 among 4 new tasks (id_task 31)"). */
    matched_by: string;
    /** The slot's id and task id as the engine reports them. */
    slot_id: unknown;
    id_task: unknown;
    /** The slot's `params` object, untouched. */
    params: unknown;
  }
  | { kind: "none"; reason: string };

/** One scheduled request after the run: sent (with its raw outcome) or skipped (with why). */
export type ExecutedRequest =
  | {
    kind: "outcome";
    fixture: Fixture;
    concurrency: number;
    body: Record<string, unknown>;
    outcome: StreamOutcome;
    /**
     * The request's dispatch (the client's offset zero, `outcome.dispatch_clock_ms`) in seconds from the run's
     * epoch, the executor's start, on the executor's monotonic clock. Its termination is this plus
     * `outcome.offsets.end_s`; every stage duration and round wall is built from these two numbers.
     */
    dispatchOffsetS: number;
    /** The engine's report of what it ran this request with; absent where the executor reads none. */
    slot?: SlotReading;
  }
  | { kind: "skipped"; fixture: Fixture; concurrency: number; reason: string };

/** Raw facts of one run. */
export interface ExecutionFacts {
  /** One entry per planned fixture, in plan order. */
  requests: ExecutedRequest[];
  /** Wall time of each optional round (first dispatch to last termination), seconds; [] when not selected. */
  roundWallsS: (number | null)[];
  requiredDurationS: number | null;
  /** Why requiredDurationS is null. */
  requiredDurationReason: string | null;
  /** Time from the warm-up's dispatch to the last required termination, even when the run stopped early. */
  requiredElapsedS: number | null;
  optionalDurationS: number | null;
  optionalDurationReason: string | null;
  /** Why the remaining requests were skipped; null when nothing was skipped. */
  stopReason: string | null;
  /** The /health questions asked after failures. */
  healthChecks: { afterRequestId: string; answer: HealthAnswer }[];
  /** Whether the signal ended the run. */
  cancelled: boolean;
}
