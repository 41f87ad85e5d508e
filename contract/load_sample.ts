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
  /**
   * Cancelled by the drain limit: still in flight at the end of the measured window plus the stated drain limit
   * (its outcome's end is then "cancelled").
   */
  cancelled_at_drain: boolean;
}

/** Which share of one seeded plan a generator runs: shard `index` of `count` (0-based). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** What the generator did, beside the samples. */
export interface LoadRunFacts {
  mode: LoadMode;
  /**
   * The cap on outstanding requests by the methodology: --max-concurrency when set, otherwise the closed loop's
   * --concurrency (this shard's share of it when sharded); null for an open loop without --max-concurrency.
   */
  effective_max_concurrency: number | null;
  /** The generator's own bound on outstanding requests, which an uncapped open loop still has. */
  internal_concurrency_limit: number;
  /** Open loop: requested arrival rate, requests/s; null in closed loop. */
  requested_rate_per_s: number | null;
  arrival: ArrivalProcess | null;
  seed: number;
  /** Samples handed to onSample, per phase (the generator retains none). */
  counts: { warmup: number; measured: number; dropped: number };
  /** Warm-up epoch to measurement epoch (the barrier wait, and any wait for --start-at), seconds. */
  warmup_s: number;
  /**
   * Why issuance stopped: count reached, duration reached, cancelled, or the warm-up overran its limit (nothing
   * was measured: the run ended before its epoch).
   */
  stopped_by: "requests" | "duration" | "cancelled" | "warmup-limit";
  /**
   * The drain after issuance stopped: `limit_s` is the stated limit (null: requests drain until their own
   * deadline), `cancelled` how many in-flight requests the limit cancelled, `end_s` when the run ended (from the
   * epoch).
   */
  drain: { limit_s: number | null; cancelled: number; end_s: number };
  shard: ShardSpec | null;
}
