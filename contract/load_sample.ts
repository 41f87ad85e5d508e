/**
 * Plain data the load generator records: one sample per issued (or dropped) request. Offsets are seconds on the
 * monotonic clock from the measurement epoch (warm-up samples: from the warm-up epoch). score/ turns samples into
 * request rows and summaries; nothing here is a statistic.
 */
import type { StreamOutcome } from "./stream.ts";

/** How arrivals are issued: a fixed number of workers, or an absolute schedule of arrival times. */
export type LoadMode = "closed" | "open";

/** Open-loop arrival process. */
export type ArrivalProcess = "poisson" | "constant";

export interface LoadSample {
  phase: "warmup" | "measure";
  /** Position in its phase, from 0 (measured indexing restarts at 0 after warm-up). */
  index: number;
  /** Endpoint base URL and its position in the --url list. */
  endpoint: string;
  endpoint_index: number;
  /** Which prompt of the selected set was sent. */
  prompt_index: number;
  /** Open loop: when the schedule said to send; null in closed loop (there is no schedule). */
  scheduled_offset_s: number | null;
  /** When it was actually handed to the client; null when dropped. */
  send_offset_s: number | null;
  /** Requests in flight just before this one was sent (this one excluded). */
  in_flight_at_send: number;
  /** Dropped: never sent, with the reason (for example lateness beyond --drop-late-after-ms). */
  dropped: boolean;
  drop_reason: string | null;
  /** The raw facts of the stream; null when dropped. */
  outcome: StreamOutcome | null;
}

/** What the generator did, beside the samples. */
export interface LoadRunFacts {
  mode: LoadMode;
  /** The cap on outstanding requests: --concurrency (closed) or --max-concurrency (open). */
  effective_max_concurrency: number;
  /** Open loop: requested arrival rate, requests/s; null in closed loop. */
  requested_rate_per_s: number | null;
  arrival: ArrivalProcess | null;
  seed: number;
  samples: LoadSample[];
  /** Warm-up epoch to measurement epoch (the barrier wait), seconds. */
  warmup_s: number;
  /** Why issuance stopped: count reached, duration reached, or cancelled. */
  stopped_by: "requests" | "duration" | "cancelled";
}
