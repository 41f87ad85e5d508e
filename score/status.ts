/**
 * The run status: nonconforming > partial > complete. complete means every required request was attempted and
 * recorded (failures included), not that every check passed.
 */
import type { RequestRecord, RunStatus } from "../contract/mod.ts";
import { type BuiltRecord, describeReuse, isUnexpectedReuse, PROMPT_LENGTH_TARGETS } from "./request_record.ts";

/** Phases whose skipped requests make a run partial; omitted optional work is not skipped required work. */
export const REQUIRED_PHASES = ["warmup", "performance", "sanity"] as const;

/** Input of `decideRunStatus`. */
export interface RunStatusInput {
  /** Reasons found elsewhere (settings, identity, remote server, refused settings, prompt lengths...). */
  nonconformingReasons: readonly string[];
  requests: readonly RequestRecord[];
  /**
   * max_shared_prefix_tokens per request id. When given, a performance request with unexpected cache reuse adds
   * its reason (the same words `nonconformingReasonsOf` uses, so a reason is never listed twice).
   */
  maxSharedPrefixTokens?: Readonly<Record<string, number>>;
}

/** The nonconforming reason of a performance request whose user payload came from the cache. */
export function reuseNonconformingReason(
  requestId: string,
  cachedTokens: number,
  maxSharedPrefixTokens: number,
): string {
  return `${requestId}: ${describeReuse(cachedTokens, maxSharedPrefixTokens)}; the user payload came from the ` +
    "cache (restart the engine between runs)";
}

/**
 * Nonconforming reasons a built record's flags carry (refused setting, prompt length off or unverifiable,
 * performance reuse).
 */
export function nonconformingReasonsOf(built: BuiltRecord, maxSharedPrefixTokens: number): string[] {
  const { record, flags } = built;
  const reasons: string[] = [];
  if (flags.refusedSetting) {
    reasons.push(
      `${record.id}: the server refused the request (${record.error?.message ?? "HTTP 400/422"}); a required ` +
        "setting is not supported and the runner does not retry with other settings",
    );
  }
  if (flags.promptLengthOutOfRange) {
    const target = PROMPT_LENGTH_TARGETS[record.case_id];
    reasons.push(
      `${record.id}: input_tokens ${record.tokens.input_tokens} is more than 2% off ${target}; the tokenizer or ` +
        "template differs from the one the fixtures were built with",
    );
  }
  // The 2% rule is a "must"; a normally ended 4K/16K request without usage.prompt_tokens leaves it unchecked, and
  // the missing usage means the server ignored stream_options.include_usage, a setting every request carries.
  // Unsupported settings make a run nonconforming, so an unverifiable prompt length does too (not just a
  // limitation). Failed requests are left to their failure.
  if (flags.promptLengthUnverified) {
    const target = PROMPT_LENGTH_TARGETS[record.case_id];
    // Why input_tokens is null, as the accounting read it: absent, or sent but not an exact count (1e0, repeated).
    const why = built.missing["/tokens/input_tokens"];
    reasons.push(
      `${record.id}: the prompt length could not be checked against ${target} +/- 2%: ` +
        (why === undefined || /has no prompt_tokens|no usage/.test(why)
          ? "the server sent no usage.prompt_tokens although the request asked for usage (stream_options.include_usage)"
          : `usage.prompt_tokens is unusable (${why})`),
    );
  }
  if (flags.unexpectedReuse && record.phase === "performance" && record.tokens.cached_tokens !== null) {
    reasons.push(reuseNonconformingReason(record.id, record.tokens.cached_tokens, maxSharedPrefixTokens));
  }
  return reasons;
}

/** Status precedence: nonconforming > partial > complete; `reasons` explain the chosen status. */
export function decideRunStatus(input: RunStatusInput): { status: RunStatus; reasons: string[] } {
  const reasons: string[] = [];
  const add = (reason: string) => {
    if (!reasons.includes(reason)) reasons.push(reason);
  };
  input.nonconformingReasons.forEach(add);
  const facts = input.maxSharedPrefixTokens;
  if (facts !== undefined) {
    for (const record of input.requests) {
      const maxShared = facts[record.id];
      const cached = record.tokens.cached_tokens;
      if (record.phase !== "performance" || typeof maxShared !== "number") continue;
      if (isUnexpectedReuse(cached, maxShared)) add(reuseNonconformingReason(record.id, cached as number, maxShared));
    }
  }
  if (reasons.length > 0) return { status: "nonconforming", reasons };
  const skipped = input.requests.filter((r) =>
    r.status === "skipped" && (REQUIRED_PHASES as readonly string[]).includes(r.phase)
  );
  if (skipped.length > 0) {
    const first = skipped[0]?.error?.message;
    return {
      status: "partial",
      reasons: [
        `${skipped.length} required request(s) skipped: ${skipped.map((r) => r.id).join(", ")}` +
        (first === undefined ? "" : ` (first skip: ${first})`),
      ],
    };
  }
  return { status: "complete", reasons: [] };
}
