/** The sanity score: passed out of 12, and out of 4 per category. Failed, truncated and skipped cases count as not passed. */
import type { Quality, RequestRecord, SanityCategory } from "../contract/mod.ts";

/** Total points of the sanity suite, and per category. */
export const SANITY_TOTAL = 12;
export const SANITY_CATEGORY_TOTAL = 4;

/** Scores the sanity records' verdicts; the denominators stay 12 and 4 whatever was recorded. */
export function scoreQuality(requests: readonly RequestRecord[]): Quality {
  const passed: Record<SanityCategory, number> = { instruction: 0, retrieval: 0, tool_call: 0 };
  for (const record of requests) {
    if (record.phase !== "sanity" || record.evaluation === null || !record.evaluation.passed) continue;
    passed[record.evaluation.category]++;
  }
  const category = (name: SanityCategory) => ({ passed: passed[name], total: SANITY_CATEGORY_TOTAL });
  return {
    passed: passed.instruction + passed.retrieval + passed.tool_call,
    total: SANITY_TOTAL,
    categories: {
      instruction: category("instruction"),
      retrieval: category("retrieval"),
      tool_call: category("tool_call"),
    },
  };
}
