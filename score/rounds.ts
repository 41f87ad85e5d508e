/**
 * Aggregates of the optional concurrency stage, one per round: accepted output tokens of completed and capped
 * requests divided by the round's wall time (first dispatch to last termination, failed requests' time kept).
 * Per-client rates are never averaged into a throughput.
 *
 * `failed` counts requests with status failed only; skipped requests (never dispatched) are visible in the
 * records and request_counts, not here. A round whose requests were all skipped has output_tokens null with a
 * reason, not 0: nothing was measured.
 */
import type { ConcurrencyRound, RequestRecord } from "../contract/mod.ts";

function clientIndex(record: RequestRecord): number {
  const match = /-c(\d+)$/.exec(record.id);
  return match === null ? Number.MAX_SAFE_INTEGER : Number(match[1]);
}

/**
 * One aggregate per round that has records or a wall time, in round order. roundWallsS[r-1] is the wall time of
 * round r measured by the executor. `missing` has absolute pointers ("/concurrency_rounds/<i>/...").
 */
export function buildConcurrencyRounds(
  requests: readonly RequestRecord[],
  roundWallsS: readonly (number | null)[],
): { rounds: ConcurrencyRound[]; missing: Record<string, string> } {
  const burst = requests.filter((r) => r.phase === "concurrency");
  const numbers = new Set<number>();
  for (const record of burst) if (record.round !== null) numbers.add(record.round);
  roundWallsS.forEach((_, i) => numbers.add(i + 1));
  const rounds: ConcurrencyRound[] = [];
  const missing: Record<string, string> = {};
  for (const round of [...numbers].sort((a, b) => a - b)) {
    const pointer = `/concurrency_rounds/${rounds.length}`;
    const records = burst.filter((r) => r.round === round)
      .map((record, order) => ({ record, order }))
      .sort((a, b) => clientIndex(a.record) - clientIndex(b.record) || a.order - b.order)
      .map(({ record }) => record);
    const failed = records.filter((r) => r.status === "failed").length;
    const skipped = records.filter((r) => r.status === "skipped").length;

    const rawWall = roundWallsS[round - 1];
    let wallS: number | null = null;
    if (typeof rawWall === "number" && Number.isFinite(rawWall) && rawWall >= 0) wallS = rawWall;
    else if (rawWall !== null && rawWall !== undefined) {
      missing[`${pointer}/wall_s`] = `the executor's wall time ${rawWall} is not a nonnegative finite number`;
    } else {
      missing[`${pointer}/wall_s`] = records.length > 0 && skipped === records.length
        ? "the round was not run: all its requests were skipped"
        : "the executor recorded no wall time for this round";
    }

    const accepted = records.filter((r) => r.status === "completed" || r.status === "truncated");
    const lacking = accepted.filter((r) => r.tokens.output_tokens === null).map((r) => r.id);
    // A round none of whose requests was sent measured nothing: 0 would read as a measured "no tokens".
    const notRun = records.length === skipped;
    let outputTokens: number | null = null;
    if (notRun) {
      const why = records.length === 0
        ? "no request of this round was recorded"
        : `the round was not run: all ${records.length} of its requests were skipped ` +
          `(${records[0]?.error?.message ?? "no reason recorded"})`;
      missing[`${pointer}/output_tokens`] = why;
      missing[`${pointer}/aggregate_tps`] = why;
    } else if (lacking.length > 0) {
      missing[`${pointer}/output_tokens`] = `output_tokens is null for ${lacking.join(", ")}`;
    } else {
      const sum = accepted.reduce((total, r) => total + (r.tokens.output_tokens as number), 0);
      // Each count is exact; their sum may not be (beyond 2^53-1 a double rounds), and a count must be exact.
      if (Number.isSafeInteger(sum)) outputTokens = sum;
      else {missing[`${pointer}/output_tokens`] =
          `the round's output tokens add up to ${sum}, beyond 2^53-1: no exact count`;}
    }

    let aggregateTps: number | null = null;
    if (notRun) aggregateTps = null;
    else if (outputTokens === null) missing[`${pointer}/aggregate_tps`] = "output_tokens of the round is null";
    else if (outputTokens === 0) {
      missing[`${pointer}/aggregate_tps`] = `no output tokens were accepted in this round (${accepted.length} ` +
        `completed or capped, ${failed} failed, ${skipped} skipped)`;
    } else if (wallS === null) missing[`${pointer}/aggregate_tps`] = "wall_s of the round is null";
    else if (wallS === 0) missing[`${pointer}/aggregate_tps`] = "wall_s of the round is 0";
    else aggregateTps = outputTokens / wallS;

    rounds.push({
      round,
      request_ids: records.map((r) => r.id),
      wall_s: wallS,
      output_tokens: outputTokens,
      aggregate_tps: aggregateTps,
      failed,
    });
  }
  return { rounds, missing };
}

/** How long one request of a round waited before the engine started it, and where that figure comes from. */
export interface RequestWait {
  request_id: string;
  /** Seconds from dispatch until the engine began the request (its queue wait plus request overhead). */
  wait_s: number | null;
  /** Whether it waited for a slot: one of the requests served after the first `capacity` of the round. */
  queued: boolean | null;
  /** Where wait_s comes from (engine timers or a client stamp), or why it is null. */
  source: string;
}

/** Queueing of one optional round. */
export interface RoundQueueing {
  round: number;
  /** The server's slot count as configured (configuration.server_capacity). */
  capacity: number | null;
  /** How many requests of the round waited for a slot; null when that cannot be told. */
  waited: number | null;
  /** Why `waited` is null, or how it was decided. */
  reason: string;
  requests: RequestWait[];
}

/** Source words of each way to measure a wait. */
export const WAIT_SOURCES = {
  engine: "engine timers: total_s - timings.prompt_ms - timings.predicted_ms (the time the engine spent on " +
    "neither the prompt nor decoding: queueing, templating, HTTP)",
  client: "client stamp: time to the response headers (llama-server answers when a slot takes the request)",
} as const;

/**
 * Queueing of every optional round: per request, the time from dispatch until the engine began it (from the
 * engine's own timers where the record has them, else the client's response-headers stamp, labelled so), and how
 * many requests waited for a slot. Four requests released together on `capacity` slots: the engine serves them
 * first come, first served, so the `capacity` that began first had a slot at once and the others waited; with
 * capacity 4 or more none waited. `headersS` is each request's client offset of the response headers.
 */
export function roundQueueing(
  requests: readonly RequestRecord[],
  headersS: Readonly<Record<string, number | null>>,
  capacity: number | null,
): RoundQueueing[] {
  const rounds = [...new Set(requests.filter((r) => r.round !== null).map((r) => r.round as number))]
    .sort((a, b) => a - b);
  return rounds.map((round) => {
    const members = requests.filter((r) => r.phase === "concurrency" && r.round === round)
      .sort((a, b) => clientIndex(a) - clientIndex(b));
    const waits = members.map((record): RequestWait => waitOf(record, headersS[record.id] ?? null));
    const sent = waits.filter((_wait, i) => members[i]!.status !== "skipped");
    let waited: number | null = null;
    let reason: string;
    if (sent.length === 0) reason = "the round was not run";
    else if (capacity === null) reason = "the server's slot count is unknown, so which requests waited cannot be told";
    else if (capacity >= sent.length) {
      waited = 0;
      reason = `${sent.length} request(s) on ${capacity} slot(s): each had a slot at once`;
      for (const w of sent) w.queued = false;
    } else if (sent.some((w) => w.wait_s === null)) {
      reason = "a request of the round has no wait figure, so the order in which the engine began them is unknown";
    } else {
      // First come, first served: the `capacity` requests the engine began first had a slot at once.
      const order = [...sent].sort((a, b) => (a.wait_s as number) - (b.wait_s as number));
      order.forEach((w, i) => (w.queued = i >= capacity));
      waited = sent.length - capacity;
      reason = `${sent.length} requests on ${capacity} slot(s): the ${capacity} the engine began first had a slot ` +
        "at once, the others waited for one";
    }
    return { round, capacity, waited, reason, requests: waits };
  });
}

function waitOf(record: RequestRecord, headersS: number | null): RequestWait {
  const base = { request_id: record.id, queued: null };
  if (record.status === "skipped") return { ...base, wait_s: null, source: "the request was never sent" };
  const { total_s: totalS, prompt_s: promptS, decode_s: decodeS } = record.timings;
  if (totalS !== null && promptS !== null && decodeS !== null) {
    return { ...base, wait_s: Math.max(0, totalS - promptS - decodeS), source: WAIT_SOURCES.engine };
  }
  if (headersS !== null && Number.isFinite(headersS) && headersS >= 0) {
    return { ...base, wait_s: headersS, source: WAIT_SOURCES.client };
  }
  return {
    ...base,
    wait_s: null,
    source: "no engine timers (prompt_s, decode_s) and no response-headers stamp: the wait is not measured",
  };
}
