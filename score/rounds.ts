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
      outputTokens = accepted.reduce((sum, r) => sum + (r.tokens.output_tokens as number), 0);
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
