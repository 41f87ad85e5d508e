// @ts-check
/**
 * Everything results.json derives from its request records, recomputed from the site's own rebuilt records:
 * request counts per phase with their identities, the sanity score, the per-case summaries (median, min, max, n,
 * included and excluded ids) and the concurrency rounds (the run status: check_status.js).
 */
import { isObject, sameNumber, show } from "./evidence.js";
import { BURST_CASE, CATEGORIES, PERFORMANCE_CASES, PHASES, SUMMARY_METRICS } from "./protocol.js";

/** @typedef {import("./check_records.js").CheckedRequest} CheckedRequest */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */
/** @typedef {import("./protocol.js").SummaryMetric} SummaryMetric */

/**
 * A recomputed summary.
 * @typedef {{ phase: string, case_id: string, concurrency: number, metric: SummaryMetric, median: number | null,
 *   min: number | null, max: number | null, n: number, values: number[], included: string[], excluded: string[] }}
 *   Summary (`values`: the included values, sorted)
 */

/** @typedef {{ round: number, request_ids: string[], wall_s: number | null, output_tokens: number | null,
 *   aggregate_tps: number | null, failed: number }} Round */

/**
 * Median of a sorted list (mean of the two middle values for an even count).
 * @param {readonly number[]} sorted
 */
export function medianOfSorted(sorted) {
  const n = sorted.length;
  if (n === 0) return null;
  const mid = Math.floor(n / 2);
  return n % 2 === 1
    ? /** @type {number} */ (sorted[mid])
    : (/** @type {number} */ (sorted[mid - 1]) + /** @type {number} */ (sorted[mid])) / 2;
}

/**
 * The median, range and count of some values, with the values sorted.
 * @param {readonly number[]} values
 * @returns {{ median: number | null, min: number | null, max: number | null, n: number, values: number[] }}
 */
export function statOf(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: medianOfSorted(sorted),
    min: sorted[0] ?? null,
    max: sorted.at(-1) ?? null,
    n: sorted.length,
    values: sorted,
  };
}

/**
 * Per phase: planned from the schedule, outcomes from the rebuilt statuses; compared with /request_counts.
 * @param {unknown} claimed @param {readonly CheckedRequest[]} checked @param {string[]} problems
 */
export function checkCounts(claimed, checked, problems) {
  /** @type {Record<string, Record<string, number>>} */
  const counts = {};
  for (const phase of PHASES) {
    counts[phase] = { planned: 0, attempted: 0, completed: 0, truncated: 0, failed: 0, skipped: 0 };
  }
  for (const { scheduled, rebuilt } of checked) {
    const c = /** @type {Record<string, number>} */ (counts[scheduled.phase]);
    c.planned = (c.planned ?? 0) + 1;
    c[rebuilt.status] = (c[rebuilt.status] ?? 0) + 1;
    if (rebuilt.status !== "skipped") c.attempted = (c.attempted ?? 0) + 1;
  }
  const claimedCounts = isObject(claimed) ? claimed : {};
  for (const phase of PHASES) {
    const mine = /** @type {Record<string, number>} */ (counts[phase]);
    const theirs = isObject(claimedCounts[phase]) ? /** @type {Record<string, unknown>} */ (claimedCounts[phase]) : {};
    for (const [field, value] of Object.entries(mine)) {
      if (theirs[field] !== value) {
        problems.push(`request_counts.${phase}.${field} is ${show(theirs[field])}; the records give ${value}`);
      }
    }
  }
  return counts;
}

/**
 * The sanity score from the site's own verdicts, compared with /quality.
 * @param {unknown} claimed @param {readonly CheckedRequest[]} checked @param {string[]} problems
 */
export function checkQuality(claimed, checked, problems) {
  /** @type {Record<string, { passed: number, total: number }>} */
  const categories = {};
  for (const category of CATEGORIES) categories[category] = { passed: 0, total: 4 };
  let passed = 0;
  for (const { verdict } of checked) {
    if (verdict === null || !verdict.passed) continue;
    passed++;
    const c = categories[verdict.category];
    if (c !== undefined) c.passed++;
  }
  const quality = { passed, total: 12, categories };
  const theirs = isObject(claimed) ? claimed : {};
  if (theirs.passed !== passed) {
    problems.push(`quality.passed is ${show(theirs.passed)}; the saved outputs pass ${passed} of 12`);
  }
  if (theirs.total !== 12) problems.push(`quality.total is ${show(theirs.total)}; the denominator is 12`);
  const theirCategories = isObject(theirs.categories) ? theirs.categories : {};
  for (const category of CATEGORIES) {
    const mine = /** @type {{ passed: number, total: number }} */ (categories[category]);
    const c = isObject(theirCategories[category])
      ? /** @type {Record<string, unknown>} */ (theirCategories[category])
      : {};
    if (c.passed !== mine.passed || c.total !== 4) {
      problems.push(`quality.categories.${category} is ${show(c)}; the saved outputs give ${mine.passed}/4`);
    }
  }
  return quality;
}

/**
 * Requests whose cached tokens exceed the reuse the bundle allows (max_shared_prefix_tokens + 8): their user
 * payload came from the cache, so they leave the speed summaries.
 * @param {readonly CheckedRequest[]} checked @param {KnownProtocol} protocol @returns {Set<string>}
 */
export function unexpectedReuse(checked, protocol) {
  const flagged = new Set();
  for (const { scheduled, rebuilt } of checked) {
    const shared = protocol.maxSharedPrefixTokens[scheduled.id];
    const cached = rebuilt.tokens.cached_tokens;
    if (shared !== undefined && cached !== null && cached > shared + protocol.workload.reuseAllowanceTokens) {
      flagged.add(scheduled.id);
    }
  }
  return flagged;
}

/** @param {CheckedRequest} request @param {SummaryMetric} metric */
function metricOf(request, metric) {
  if (metric === "prompt_tps" || metric === "decode_tps") return request.rebuilt.metrics[metric];
  return request.rebuilt.timings[metric];
}

/**
 * Recomputes the five summaries of every performance case (and of the burst case when selected) and compares them
 * with /summaries: the same set of summaries, units, n, statistics and included/excluded ids.
 * @param {unknown} claimed @param {readonly CheckedRequest[]} checked @param {boolean} optional
 * @param {Set<string>} reused @param {string[]} problems
 * @returns {Summary[]}
 */
export function checkSummaries(claimed, checked, optional, reused, problems) {
  /** @type {{ phase: string, case_id: string, concurrency: number }[]} */
  const groups = PERFORMANCE_CASES.map((c) => ({ phase: "performance", case_id: c, concurrency: 1 }));
  if (optional) groups.push({ phase: "concurrency", case_id: BURST_CASE, concurrency: 4 });
  /** @type {Summary[]} */
  const summaries = [];
  for (const group of groups) {
    const members = checked.filter((r) => r.scheduled.phase === group.phase && r.scheduled.case_id === group.case_id);
    for (const metric of SUMMARY_METRICS) {
      /** @type {{ id: string, value: number }[]} */
      const valid = [];
      /** @type {string[]} */
      const excluded = [];
      for (const request of members) {
        const value = metricOf(request, metric);
        const ended = request.rebuilt.status === "completed" || request.rebuilt.status === "truncated";
        if (ended && value !== null && !reused.has(request.scheduled.id)) {
          valid.push({ id: request.scheduled.id, value });
        } else excluded.push(request.scheduled.id);
      }
      summaries.push({
        ...group,
        metric,
        ...statOf(valid.map((v) => v.value)),
        included: valid.map((v) => v.id),
        excluded,
      });
    }
  }
  compareSummaries(claimed, summaries, problems);
  return summaries;
}

/** @param {unknown} claimed @param {readonly Summary[]} mine @param {string[]} problems */
function compareSummaries(claimed, mine, problems) {
  if (!Array.isArray(claimed)) return void problems.push("results.json /summaries is not an array");
  /** @type {Map<string, Record<string, unknown>>} */
  const byKey = new Map();
  for (const s of claimed) {
    if (!isObject(s)) continue;
    const key = `${s.phase}|${s.case_id}|${s.concurrency}|${s.metric}`;
    if (byKey.has(key)) problems.push(`summaries has two entries for ${s.case_id} ${s.metric}`);
    byKey.set(key, s);
  }
  if (claimed.length !== mine.length) {
    problems.push(`results.json has ${claimed.length} summaries; the protocol asks for ${mine.length}`);
  }
  for (const s of mine) {
    const name = `summary ${s.case_id} ${s.metric}`;
    const theirs = byKey.get(`${s.phase}|${s.case_id}|${s.concurrency}|${s.metric}`);
    if (theirs === undefined) {
      problems.push(`${name} is missing`);
      continue;
    }
    const unit = s.metric.endsWith("_tps") ? "tokens/s" : "s";
    if (theirs.unit !== unit) problems.push(`${name}: unit ${show(theirs.unit)}, expected ${unit}`);
    if (theirs.n !== s.n) problems.push(`${name}: n is ${show(theirs.n)}; the records give ${s.n}`);
    for (const stat of /** @type {const} */ (["median", "min", "max"])) {
      if (!sameNumber(theirs[stat], s[stat])) {
        problems.push(`${name}: ${stat} is ${show(theirs[stat])}; the records give ${show(s[stat])}`);
      }
    }
    const included = Array.isArray(theirs.included_request_ids) ? theirs.included_request_ids : [];
    if ([...included].sort().join(",") !== [...s.included].sort().join(",")) {
      problems.push(`${name}: included ${show(included)}; the records support ${show(s.included)}`);
    }
    const excluded = Array.isArray(theirs.excluded) ? theirs.excluded : [];
    const excludedIds = excluded.map((e) => (isObject(e) ? e.request_id : undefined));
    if ([...excludedIds].sort().join(",") !== [...s.excluded].sort().join(",")) {
      problems.push(`${name}: excluded ${show(excludedIds)}; the records exclude ${show(s.excluded)}`);
    }
    if (excluded.some((e) => !isObject(e) || typeof e.reason !== "string" || e.reason === "")) {
      problems.push(`${name}: an exclusion has no reason`);
    }
  }
}

/** Tolerance for a round's wall time rebuilt from epoch-millisecond dispatch stamps. */
const WALL_TOLERANCE_S = 0.01;

/**
 * Recomputes each concurrency round (output tokens of completed/capped requests, failures, wall time from the
 * evidence's dispatch stamps and end offsets, aggregate rate) and compares with /concurrency_rounds.
 * @param {unknown} claimed @param {readonly CheckedRequest[]} checked @param {boolean} optional
 * @param {string[]} problems @returns {Round[]}
 */
export function checkRounds(claimed, checked, optional, problems) {
  if (!Array.isArray(claimed)) {
    problems.push("results.json /concurrency_rounds is not an array");
    return [];
  }
  if (!optional) {
    if (claimed.length !== 0) {
      problems.push("concurrency_rounds must be empty when the optional stage was not selected");
    }
    return [];
  }
  /** @type {Round[]} */
  const rounds = [];
  for (let round = 1; round <= 3; round++) {
    const members = checked.filter((r) => r.scheduled.round === round);
    const ended = members.filter((r) => r.rebuilt.status === "completed" || r.rebuilt.status === "truncated");
    const counts = ended.map((r) => r.rebuilt.tokens.output_tokens);
    const outputTokens = counts.some((c) => c === null) ? null : counts.reduce((a, b) => (a ?? 0) + (b ?? 0), 0);
    // Evidence version 2 places each dispatch on the run's monotonic clock (dispatch_offset_s): the wall is then
    // exactly the runner's (first dispatch to last termination, in seconds). Older lines only had wall-clock
    // dispatch stamps, checked within WALL_TOLERANCE_S.
    const exact = members.length > 0 && members.every((r) => r.rebuilt.dispatchOffsetS !== null);
    const spans = members.flatMap((r) => {
      const start = exact ? r.rebuilt.dispatchOffsetS : r.rebuilt.dispatchedAtEpochMs;
      const end = r.rebuilt.timings.total_s;
      return start === null || end === null ? [] : [{ start, end: exact ? start + end : start + end * 1000 }];
    });
    const span = spans.length === 0
      ? null
      : Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
    const wall = span === null ? null : exact ? span : span / 1000;
    const tolerance = exact ? 0 : WALL_TOLERANCE_S;
    const theirs = claimed.find((c) => isObject(c) && c.round === round);
    const name = `concurrency round ${round}`;
    if (!isObject(theirs)) {
      problems.push(`${name} is missing`);
      continue;
    }
    const ids = members.map((r) => r.scheduled.id);
    if (!Array.isArray(theirs.request_ids) || theirs.request_ids.join(",") !== ids.join(",")) {
      problems.push(`${name}: request_ids ${show(theirs.request_ids)}, expected ${show(ids)}`);
    }
    if (theirs.output_tokens !== outputTokens) {
      problems.push(`${name}: output_tokens ${show(theirs.output_tokens)}; the records give ${show(outputTokens)}`);
    }
    const failed = members.filter((r) => r.rebuilt.status === "failed").length;
    if (theirs.failed !== failed) problems.push(`${name}: failed ${show(theirs.failed)}; the records give ${failed}`);
    const claimedWall = typeof theirs.wall_s === "number" ? theirs.wall_s : null;
    if (wall !== null && (claimedWall === null || Math.abs(claimedWall - wall) > tolerance)) {
      problems.push(`${name}: wall_s ${show(theirs.wall_s)}; the evidence's stamps give ${wall} s`);
    }
    const aggregate = outputTokens === null || claimedWall === null || claimedWall === 0
      ? null
      : outputTokens / claimedWall;
    if (!sameNumber(theirs.aggregate_tps, aggregate)) {
      problems.push(
        `${name}: aggregate_tps ${show(theirs.aggregate_tps)}; output_tokens / wall_s gives ${show(aggregate)}`,
      );
    }
    rounds.push({
      round,
      request_ids: ids,
      wall_s: claimedWall,
      output_tokens: outputTokens,
      aggregate_tps: aggregate,
      failed,
    });
  }
  if (claimed.length !== 3) problems.push(`results.json has ${claimed.length} concurrency rounds; the protocol runs 3`);
  return rounds;
}

/**
 * Each case's ITL gaps pooled (/extensions/reasoning_itl): per performance or optional-stage case, in schedule
 * order, with a measured request (completed or capped) that streamed reasoning, the median, extremes and count of
 * every reasoning gap and of every answer gap its chunk stamps give.
 * @param {unknown} claimed @param {readonly CheckedRequest[]} checked @param {string[]} problems
 */
export function checkReasoningItl(claimed, checked, problems) {
  /** @type {{ phase: string, case_id: string, reasoning: number[], answer: number[], reasoned: number }[]} */
  const pools = [];
  for (const { scheduled, rebuilt } of checked) {
    if (scheduled.phase !== "performance" && scheduled.phase !== "concurrency") continue;
    let pool = pools.find((p) => p.phase === scheduled.phase && p.case_id === scheduled.case_id);
    if (pool === undefined) {
      pools.push(pool = { phase: scheduled.phase, case_id: scheduled.case_id, reasoning: [], answer: [], reasoned: 0 });
    }
    if (rebuilt.cadence === null || (rebuilt.status !== "completed" && rebuilt.status !== "truncated")) continue;
    pool.reasoned++;
    pool.reasoning.push(...rebuilt.cadence.reasoning_itl_s);
    pool.answer.push(...rebuilt.cadence.answer_itl_s);
  }
  const mine = pools.filter((p) => p.reasoned > 0);
  const list = claimed ?? [];
  if (!Array.isArray(list)) return void problems.push("results.json /extensions/reasoning_itl is not an array");
  if (list.length !== mine.length) {
    problems.push(
      `results.json /extensions/reasoning_itl lists ${list.length} cases; the evidence has ${mine.length} with a ` +
        "measured request that reasoned",
    );
  }
  mine.forEach((pool, i) => {
    const theirs = list[i];
    const name = `extensions.reasoning_itl[${i}] (${pool.phase} ${pool.case_id})`;
    if (!isObject(theirs) || theirs.phase !== pool.phase || theirs.case_id !== pool.case_id) {
      return void problems.push(`${name}: results.json has ${show(theirs)} there`);
    }
    for (
      const [field, gaps] of /** @type {const} */ ([["reasoning_itl_s", pool.reasoning], ["answer_itl_s", pool.answer]])
    ) {
      const { values: _, ...stat } = statOf(gaps);
      const stated = isObject(theirs[field]) ? theirs[field] : {};
      for (const [key, value] of Object.entries(stat)) {
        if (!sameNumber(stated[key], value)) {
          problems.push(
            `${name}: ${field}.${key} is ${show(stated[key])} in results.json, the chunk stamps give ${show(value)}`,
          );
        }
      }
    }
  });
}
