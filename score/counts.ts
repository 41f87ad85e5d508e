/** Request counts per phase, with the spec's identities: attempted = completed + truncated + failed, planned = attempted + skipped. */
import { type PhaseCounts, PHASES, PLANNED_REQUESTS, type RequestCounts, type RequestRecord } from "../contract/mod.ts";

/**
 * Counts each phase's records by status.
 * @throws {RangeError} when a phase does not have exactly its planned number of records (1, 9, 12, and 12 or 0):
 * every scheduled request needs a record, a skipped one if it was never dispatched.
 */
export function countRequests(requests: readonly RequestRecord[], optionalConcurrency: boolean): RequestCounts {
  const counts = {} as RequestCounts;
  for (const phase of PHASES) {
    const planned = phase === "concurrency" && !optionalConcurrency ? 0 : PLANNED_REQUESTS[phase];
    const entry: PhaseCounts = { planned, attempted: 0, completed: 0, truncated: 0, failed: 0, skipped: 0 };
    let records = 0;
    for (const record of requests) {
      if (record.phase !== phase) continue;
      records++;
      entry[record.status]++;
    }
    if (records !== planned) {
      throw new RangeError(
        `Cannot count requests: phase ${phase} has ${records} records, expected ${planned}; ` +
          "record every scheduled request (skipped if it was never dispatched)",
      );
    }
    entry.attempted = entry.completed + entry.truncated + entry.failed;
    counts[phase] = entry;
  }
  return counts;
}
