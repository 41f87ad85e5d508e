/**
 * Speed summaries: median, min, max and n of each metric per performance case (and the optional short-burst
 * stage), from completed and capped requests with a value and no unexpected cache reuse. Every other request of
 * the case is listed as an exclusion with its reason. Warm-up and sanity never enter.
 */
import {
  CLIENTS_PER_ROUND,
  CONCURRENCY_CASE,
  type Exclusion,
  type Metric,
  METRIC_UNITS,
  METRICS,
  PERFORMANCE_CASES,
  type RequestRecord,
  type Summary,
} from "../contract/mod.ts";
import { orderStatistics } from "./stats.ts";
import { describeReuse, describeStatus, isUnexpectedReuse } from "./request_record.ts";
import { explainNullMetric } from "./_null_reasons.ts";

/** Facts summaries need beyond the records. */
export interface SummaryFacts {
  /** max_shared_prefix_tokens of each request id (from its fixture). */
  maxSharedPrefixTokens: Readonly<Record<string, number>>;
  /** Whether the optional concurrency stage was selected (adds the short-burst summaries). */
  optionalConcurrency: boolean;
}

/** Why a record is left out of a metric's summary, or null when it is included. */
export function exclusionReason(record: RequestRecord, metric: Metric, maxSharedPrefixTokens: number): string | null {
  if (record.status !== "completed" && record.status !== "truncated") {
    return describeStatus(record.status, record.error);
  }
  const cached = record.tokens.cached_tokens;
  if (isUnexpectedReuse(cached, maxSharedPrefixTokens)) return describeReuse(cached as number, maxSharedPrefixTokens);
  if (metricValue(record, metric) === null) return `${metric} null: ${explainNullMetric(record, metric)}`;
  return null;
}

/** The value of a summary metric in a record. */
export function metricValue(record: RequestRecord, metric: Metric): number | null {
  return metric === "prompt_tps" || metric === "decode_tps" ? record.metrics[metric] : record.timings[metric];
}

/**
 * Summaries in contract order: for case of short, prompt-4k, prompt-16k, for metric of METRICS; then, when the
 * optional stage was selected, short-burst x METRICS. `missing` has absolute pointers ("/summaries/3/median").
 * @throws {TypeError} when a summarized request has no max_shared_prefix_tokens in `facts`.
 */
export function summarizeRequests(
  requests: readonly RequestRecord[],
  facts: SummaryFacts,
): { summaries: Summary[]; missing: Record<string, string> } {
  const groups: Array<{ phase: "performance" | "concurrency"; caseId: string; concurrency: number }> = PERFORMANCE_CASES
    .map((caseId) => ({ phase: "performance" as const, caseId, concurrency: 1 }));
  if (facts.optionalConcurrency) {
    groups.push({ phase: "concurrency", caseId: CONCURRENCY_CASE, concurrency: CLIENTS_PER_ROUND });
  }
  const summaries: Summary[] = [];
  const missing: Record<string, string> = {};
  for (const group of groups) {
    const records = requests.filter((r) => r.phase === group.phase && r.case_id === group.caseId);
    for (const metric of METRICS) {
      const included: RequestRecord[] = [];
      const excluded: Exclusion[] = [];
      for (const record of records) {
        const maxShared = facts.maxSharedPrefixTokens[record.id];
        if (typeof maxShared !== "number") {
          throw new TypeError(
            `Cannot summarize request "${record.id}": no max_shared_prefix_tokens for it; pass its fixture's value`,
          );
        }
        const reason = exclusionReason(record, metric, maxShared);
        if (reason === null) included.push(record);
        else excluded.push({ request_id: record.id, reason });
      }
      const index = summaries.length;
      const values = included.map((r) => metricValue(r, metric) as number);
      const stats = values.length === 0 ? { median: null, min: null, max: null, n: 0 } : orderStatistics(values);
      if (values.length === 0) {
        const why = records.length === 0
          ? `no ${group.phase} request of case ${group.caseId} was recorded`
          : `no valid samples: all ${records.length} requests of case ${group.caseId} were excluded (see excluded)`;
        for (const key of ["median", "min", "max"]) missing[`/summaries/${index}/${key}`] = why;
      }
      summaries.push({
        phase: group.phase,
        case_id: group.caseId,
        concurrency: group.concurrency,
        metric,
        unit: METRIC_UNITS[metric],
        median: stats.median,
        min: stats.min,
        max: stats.max,
        n: stats.n,
        included_request_ids: included.map((r) => r.id),
        excluded,
      });
    }
  }
  return { summaries, missing };
}
