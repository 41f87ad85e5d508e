/**
 * Checks that rebuild derived parts of a result from its request records with score/'s own functions (never a
 * second copy of a formula) and compare: request counts and their identities, summaries, concurrency rounds,
 * quality, and the run status. Callers pass only structurally valid parts.
 */
import {
  type ConcurrencyRound,
  type PhaseCounts,
  PHASES,
  PROFILE_CHAT_TEMPLATE_KWARGS,
  PROFILE_REASONING_EFFORT,
  PROFILE_SAMPLING,
  type RequestCounts,
  type RequestRecord,
  type Result,
  type Summary,
} from "../../contract/mod.ts";
import {
  buildConcurrencyRounds,
  countRequests,
  decideRunStatus,
  isUnexpectedReuse,
  scoreQuality,
  summarizeRequests,
} from "../../score/mod.ts";
import { brief, firstDifference } from "../_difference.ts";
import { childPointer, type ProblemSink } from "../_pointer.ts";

/** Planned requests per phase: warm-up 1, performance 9, sanity 12, optional concurrency 12 or 0. */
function plannedCount(phase: keyof RequestCounts, optional: boolean): number {
  return { warmup: 1, performance: 9, sanity: 12, concurrency: optional ? 12 : 0 }[phase];
}

function reportDifference(
  expected: unknown,
  actual: unknown,
  base: string,
  what: string,
  problems: ProblemSink,
): void {
  const difference = firstDifference(expected, actual, base);
  if (difference) {
    problems.push({
      pointer: difference.pointer,
      message: `differs from what ${what} give: expected ${brief(difference.expected)}, found ${
        brief(difference.actual)
      }`,
    });
  }
}

/** attempted = completed + truncated + failed and planned = attempted + skipped, with the protocol's planned counts. */
export function checkCountIdentities(counts: RequestCounts, optional: boolean, problems: ProblemSink): void {
  for (const phase of PHASES) {
    const c: PhaseCounts = counts[phase];
    const at = (key: keyof PhaseCounts) => childPointer(childPointer("/request_counts", phase), key);
    const attempted = c.completed + c.truncated + c.failed;
    if (c.attempted !== attempted) {
      problems.push({
        pointer: at("attempted"),
        message: `attempted must equal completed + truncated + failed (${attempted}), found ${c.attempted}`,
      });
    }
    if (c.planned !== c.attempted + c.skipped) {
      problems.push({
        pointer: at("planned"),
        message: `planned must equal attempted + skipped (${c.attempted + c.skipped}), found ${c.planned}`,
      });
    }
    const planned = plannedCount(phase, optional);
    if (c.planned !== planned) {
      problems.push({
        pointer: at("planned"),
        message: `the protocol plans ${planned} ${phase} request(s)${
          phase === "concurrency" ? ` when optional_concurrency is ${optional}` : ""
        }, found ${c.planned}`,
      });
    }
  }
}

/** request_counts must be what the request records count to. */
export function checkCountsMatchRecords(result: Result, problems: ProblemSink): void {
  const rebuilt = countRequests(result.requests, result.run.optional_concurrency);
  reportDifference(rebuilt, result.request_counts, "/request_counts", "the request records", problems);
}

/** summaries must equal what summarizeRequests rebuilds from the request records. */
export function checkSummaries(
  result: Result,
  maxSharedPrefixTokens: Readonly<Record<string, number>>,
  problems: ProblemSink,
): void {
  const { summaries } = summarizeRequests(result.requests, {
    maxSharedPrefixTokens,
    optionalConcurrency: result.run.optional_concurrency,
  });
  reportDifference(summaries satisfies Summary[], result.summaries, "/summaries", "the request records", problems);
}

/** concurrency_rounds: empty without the optional stage; otherwise rebuilt from the records and each round's wall_s. */
export function checkRounds(result: Result, problems: ProblemSink): void {
  if (!result.run.optional_concurrency) {
    if (result.concurrency_rounds.length > 0) {
      problems.push({ pointer: "/concurrency_rounds", message: "must be empty: the optional stage was not selected" });
    }
    return;
  }
  const walls = [1, 2, 3].map((round) => result.concurrency_rounds.find((r) => r.round === round)?.wall_s ?? null);
  const { rounds } = buildConcurrencyRounds(result.requests, walls);
  reportDifference(
    rounds satisfies ConcurrencyRound[],
    result.concurrency_rounds,
    "/concurrency_rounds",
    "the request records and each round's wall_s",
    problems,
  );
}

/** quality must be the sum of the sanity verdicts. */
export function checkQuality(result: Result, problems: ProblemSink): void {
  reportDifference(scoreQuality(result.requests), result.quality, "/quality", "the sanity verdicts", problems);
}

/**
 * Required values of the profile, as contract/protocol.ts sets them (llama.cpp's own `repeat_penalty` is not
 * recorded); a run that used others must say it is nonconforming.
 */
const REQUIRED_SETTINGS: readonly (readonly [string, string, unknown])[] = [
  ...Object.entries(PROFILE_SAMPLING).filter(([key]) => key !== "repeat_penalty").map(([key, value]) =>
    ["sampling", key, value] as const
  ),
  ["sampling", "reasoning_effort", PROFILE_REASONING_EFFORT],
  ...Object.entries(PROFILE_CHAT_TEMPLATE_KWARGS).map(([key, value]) => ["chat_template_kwargs", key, value] as const),
];

function nonconformingReasons(result: Result): string[] | null {
  const reasons = result.extensions?.["nonconforming_reasons"];
  return Array.isArray(reasons) && reasons.every((r) => typeof r === "string") ? reasons : null;
}

/**
 * run.status: a run that is not nonconforming must have the status its records give (partial when required work
 * was skipped); changed settings, unexpected payload reuse on a performance request, or listed nonconforming
 * reasons all require "nonconforming"; optional_duration_s is null without the optional stage.
 */
export function checkRunStatus(
  result: Result,
  maxSharedPrefixTokens: Readonly<Record<string, number>>,
  problems: ProblemSink,
): void {
  const status = result.run.status;
  if (!result.run.optional_concurrency && result.run.optional_duration_s !== null) {
    problems.push({
      pointer: "/run/optional_duration_s",
      message: "must be null (with a reason in /missing): the optional stage was not selected",
    });
  }
  if (status === "nonconforming") return;
  const needs = (pointer: string, why: string) =>
    problems.push({ pointer, message: `${why}, so run.status must be "nonconforming", found "${status}"` });
  const reasons = nonconformingReasons(result);
  if (reasons !== null && reasons.length > 0) needs("/run/status", "/extensions/nonconforming_reasons is not empty");
  for (const [group, key, value] of REQUIRED_SETTINGS) {
    const actual = (result.configuration as unknown as Record<string, Record<string, unknown>>)[group]?.[key];
    if (actual !== value) {
      needs(`/configuration/${group}/${key}`, `the profile requires ${JSON.stringify(value)}`);
    }
  }
  result.requests.forEach((record: RequestRecord, index) => {
    const limit = maxSharedPrefixTokens[record.id];
    if (
      record.phase === "performance" && limit !== undefined && isUnexpectedReuse(record.tokens.cached_tokens, limit)
    ) {
      needs(`/requests/${index}/tokens/cached_tokens`, "the user payload came from the cache (unexpected reuse)");
    }
  });
  const decided = decideRunStatus({ nonconformingReasons: [], requests: result.requests }).status;
  if (decided !== status) {
    problems.push({
      pointer: "/run/status",
      message: `the request records give "${decided}" (partial when required work was skipped), found "${status}"`,
    });
  }
}
