/**
 * One request record of the result contract, built from the raw facts the streaming client recorded (or from a
 * skip), with a reason for every null and the flags that affect summaries and the run status.
 */
import {
  DELTA_KINDS,
  type DeltaKind,
  type ExecutedRequest,
  type Fixture,
  type RequestError,
  type RequestRecord,
  type RequestStatus,
  type StreamOutcome,
} from "../contract/mod.ts";
import { type Accounting, accountTokens, type Sourced } from "./_accounting.ts";
import { classifyOutcome } from "./_outcome.ts";
import { type ReasoningCadence, reasoningCadence } from "./cadence.ts";
import { explainNullMetric } from "./_null_reasons.ts";
import { scoreSanity } from "./sanity.ts";

/** What a record is built from: a finished stream, or work that was never dispatched. */
export type RecordInput =
  | { kind: "outcome"; outcome: StreamOutcome; concurrency: number }
  | { kind: "skipped"; reason: string; concurrency: number };

/** Facts about a record that change summaries or the run status. */
export interface RecordFlags {
  /** cached_tokens above max_shared_prefix_tokens + 8: the user payload came from the cache. */
  unexpectedReuse: boolean;
  /** A 4K/16K performance request whose input_tokens is more than 2% off its target. */
  promptLengthOutOfRange: boolean;
  /**
   * A 4K/16K performance request that ended normally (completed or capped) without input_tokens: the 2% rule could
   * not be checked, because the server left out the usage every request asks for (stream_options.include_usage).
   */
  promptLengthUnverified: boolean;
  /** The server answered HTTP 400 or 422: it refused a required setting. */
  refusedSetting: boolean;
}

/**
 * A request record as score/ builds it: the contract's record plus its reasoning cadence, which results.json carries
 * beside the record, in /extensions/reasoning_cadence/<request id> (the protocol defines no such request field).
 */
export type ScoredRecord = RequestRecord & { reasoning_cadence: ReasoningCadence | null };

/** A request record, the reasons for its nulls (pointers relative to the record) and its flags. */
export interface BuiltRecord {
  record: ScoredRecord;
  missing: Record<string, string>;
  flags: RecordFlags;
}

/** Tokens allowed above max_shared_prefix_tokens for merges at the prefix boundary. */
export const REUSE_SLACK_TOKENS = 8;

/** Target input length of the long performance cases; measured input_tokens must stay within 2%. */
export const PROMPT_LENGTH_TARGETS: Readonly<Record<string, number>> = { "prompt-4k": 4096, "prompt-16k": 16384 };

/** Allowed relative deviation of input_tokens from its target. */
export const PROMPT_LENGTH_TOLERANCE = 0.02;

/** Source of every client timing. */
export const CLIENT_CLOCK_SOURCE = "client monotonic clock (performance.now), dispatch = 0";

/** cached_tokens above max_shared_prefix_tokens + 8 means the user payload came from the cache. */
export function isUnexpectedReuse(cachedTokens: number | null, maxSharedPrefixTokens: number): boolean {
  return cachedTokens !== null && cachedTokens > maxSharedPrefixTokens + REUSE_SLACK_TOKENS;
}

/** The words for an unexpected reuse, shared by exclusions, notes and nonconforming reasons. */
export function describeReuse(cachedTokens: number, maxSharedPrefixTokens: number): string {
  return `unexpected cache reuse: cached_tokens ${cachedTokens} > max_shared_prefix_tokens ` +
    `${maxSharedPrefixTokens} + ${REUSE_SLACK_TOKENS}`;
}

/** Whether input_tokens of a case with a length target is more than 2% off it (false without a target). */
export function isPromptLengthOutOfRange(caseId: string, inputTokens: number | null): boolean {
  const target = PROMPT_LENGTH_TARGETS[caseId];
  if (target === undefined || inputTokens === null) return false;
  return Math.abs(inputTokens - target) > PROMPT_LENGTH_TOLERANCE * target;
}

function validOffset(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function ratio(numerator: number | null, denominator: number | null): number | null {
  if (numerator === null || denominator === null || numerator === 0 || denominator === 0) return null;
  const value = numerator / denominator;
  return Number.isFinite(value) ? value : null;
}

/**
 * Builds the request record of `fixture` from a stream outcome or a skip. Every null in the record has an entry
 * in `missing` (pointers relative to the record, e.g. "/tokens/cached_tokens").
 */
export function buildRequestRecord(fixture: Fixture, input: RecordInput): BuiltRecord {
  const missing: Record<string, string> = {};
  const base = {
    id: fixture.id,
    phase: fixture.phase,
    case_id: fixture.case_id,
    repetition: fixture.repetition,
    seed: fixture.seed,
    max_output_tokens: fixture.max_output_tokens,
    concurrency: input.concurrency,
    round: fixture.round,
  };
  if (fixture.round === null) missing["/round"] = `not a concurrency request (phase ${fixture.phase})`;
  if (fixture.phase !== "sanity") missing["/evaluation"] = `not a sanity request (phase ${fixture.phase})`;
  return input.kind === "skipped"
    ? skippedRecord(fixture, base, input.reason, missing)
    : sentRecord(fixture, base, input.outcome, missing);
}

type RecordBase = Pick<
  RequestRecord,
  "id" | "phase" | "case_id" | "repetition" | "seed" | "max_output_tokens" | "concurrency" | "round"
>;

/** The record of a request that was never sent: every measurement null, with the skip as its reason. */
function skippedRecord(
  fixture: Fixture,
  base: RecordBase,
  reason: string,
  missing: Record<string, string>,
): BuiltRecord {
  const record: ScoredRecord = {
    ...base,
    status: "skipped",
    finish_reason: null,
    error: { kind: "skipped", message: reason },
    tokens: { input_tokens: null, cached_tokens: null, read_tokens: null, output_tokens: null, decode_tokens: null },
    timings: { prompt_s: null, decode_s: null, ttft_s: null, first_answer_s: null, total_s: null },
    metrics: { prompt_tps: null, decode_tps: null },
    sources: {
      input_tokens: null,
      cached_tokens: null,
      read_tokens: null,
      output_tokens: null,
      decode_tokens: null,
      engine_timings: null,
      client_timings: null,
    },
    first_delta_kind: null,
    reasoning_cadence: null,
    token_accounting_note: null,
    evaluation: fixture.phase === "sanity" ? scoreSanity(fixture, "skipped", null, reason) : null,
  };
  fillMissing(record, missing, `request was skipped: ${reason}`);
  const flags = { unexpectedReuse: false, promptLengthOutOfRange: false, promptLengthUnverified: false };
  return { record, missing, flags: { ...flags, refusedSetting: false } };
}

/**
 * The accounting's notes with the prompt-length and reuse rules applied: the 2% rule on a performance prompt, a
 * prompt length no count can verify, and a cache hit beyond the shared prefix.
 */
function accountingRules(fixture: Fixture, accounting: Accounting, status: RequestStatus) {
  const input = accounting.input.value;
  const cachedTokens = accounting.cached.value;
  const unexpectedReuse = isUnexpectedReuse(cachedTokens, fixture.max_shared_prefix_tokens);
  const promptLengthOutOfRange = fixture.phase === "performance" && isPromptLengthOutOfRange(fixture.case_id, input);
  // A failed request's missing usage is part of its failure; a normal ending without it is a refused setting.
  const promptLengthUnverified = fixture.phase === "performance" &&
    PROMPT_LENGTH_TARGETS[fixture.case_id] !== undefined && input === null &&
    (status === "completed" || status === "truncated");
  const notes = [...accounting.notes];
  if (promptLengthOutOfRange) {
    const target = PROMPT_LENGTH_TARGETS[fixture.case_id] as number;
    const offPercent = Math.round((Math.abs((input as number) - target) / target) * 1000) / 10;
    notes.push(
      `input_tokens ${input} is ${offPercent}% off the ${target}-token target (more than 2%): ` +
        "the tokenizer or template differs from the one the fixtures were built with",
    );
  }
  if (unexpectedReuse) {
    notes.push(
      `${describeReuse(cachedTokens as number, fixture.max_shared_prefix_tokens)}: the user payload was ` +
        "read from the cache",
    );
  }
  return { notes, unexpectedReuse, promptLengthOutOfRange, promptLengthUnverified };
}

/** The record of a request that was sent, from its raw stream outcome. */
function sentRecord(
  fixture: Fixture,
  base: RecordBase,
  outcome: StreamOutcome,
  missing: Record<string, string>,
): BuiltRecord {
  const { status, error } = classifyOutcome(outcome);
  const accounting = accountTokens(
    {
      usage: outcome.usage,
      timings: outcome.timings,
      usageChunk: outcome.usage_chunk,
      timingsChunk: outcome.timings_chunk,
      usageChunkCutChars: outcome.usage_chunk_cut_chars,
      timingsChunkCutChars: outcome.timings_chunk_cut_chars,
    },
    status,
    error?.kind ?? "",
    fixture.max_output_tokens,
  );
  const offsets = outcome.offsets ?? { first_delta_s: null, first_answer_s: null, end_s: Number.NaN };
  const firstDeltaKind: DeltaKind | null = (DELTA_KINDS as readonly unknown[]).includes(outcome.first_delta_kind)
    ? outcome.first_delta_kind
    : null;
  const { notes, ...rules } = accountingRules(fixture, accounting, status);
  const firstAnswerS = validOffset(offsets.first_answer_s) ? offsets.first_answer_s : null;
  // The first reasoning chunk's stamp is the client's first reasoning delta.
  const cadence = reasoningCadence(outcome, outcome.reasoning_chunk_offsets_s?.[0] ?? null, firstAnswerS);
  const record: ScoredRecord = {
    ...base,
    status,
    finish_reason: typeof outcome.finish_reason === "string" ? outcome.finish_reason : null,
    error,
    tokens: {
      input_tokens: accounting.input.value,
      cached_tokens: accounting.cached.value,
      read_tokens: accounting.read.value,
      output_tokens: accounting.output.value,
      decode_tokens: accounting.decode.value,
    },
    timings: {
      prompt_s: accounting.promptS.value,
      decode_s: accounting.decodeS.value,
      ttft_s: validOffset(offsets.first_delta_s) ? offsets.first_delta_s : null,
      first_answer_s: firstAnswerS,
      total_s: validOffset(offsets.end_s) ? offsets.end_s : null,
    },
    metrics: {
      prompt_tps: ratio(accounting.read.value, accounting.promptS.value),
      decode_tps: ratio(accounting.decode.value, accounting.decodeS.value),
    },
    sources: {
      input_tokens: accounting.input.source,
      cached_tokens: accounting.cached.source,
      read_tokens: accounting.read.source,
      output_tokens: accounting.output.source,
      decode_tokens: accounting.decode.source,
      engine_timings: engineTimingsSource(accounting),
      client_timings: CLIENT_CLOCK_SOURCE,
    },
    first_delta_kind: firstDeltaKind,
    reasoning_cadence: cadence.cadence,
    token_accounting_note: notes.length > 0 ? notes.join("; ") : null,
    evaluation: fixture.phase === "sanity" ? scoreSanity(fixture, status, outcome) : null,
  };
  explainOutcomeNulls(record, accounting, outcome, error, missing);
  if (cadence.cadence === null) missing["/reasoning_cadence"] = cadence.why;
  for (const [key, why] of Object.entries(cadence.cadence === null ? {} : cadence.missing)) {
    missing[`/reasoning_cadence/${key}`] = why;
  }
  fillMissing(record, missing, "no value was recorded");
  const refusedSetting = outcome.end === "http_error" && (outcome.http_status === 400 || outcome.http_status === 422);
  return { record, missing, flags: { ...rules, refusedSetting } };
}

function engineTimingsSource(accounting: Accounting): string | null {
  const fields = [accounting.promptS.source, accounting.decodeS.source].filter((s): s is string => s !== null);
  return fields.length > 0 ? fields.join(", ") : null;
}

function explainOutcomeNulls(
  record: RequestRecord,
  accounting: Accounting,
  outcome: StreamOutcome,
  error: RequestError | null,
  missing: Record<string, string>,
): void {
  const tokenFields: Array<[keyof RequestRecord["tokens"], Sourced]> = [
    ["input_tokens", accounting.input],
    ["cached_tokens", accounting.cached],
    ["read_tokens", accounting.read],
    ["output_tokens", accounting.output],
    ["decode_tokens", accounting.decode],
  ];
  for (const [name, field] of tokenFields) {
    if (field.value === null) {
      const reason = field.reason ?? "no value";
      missing[`/tokens/${name}`] = reason;
      missing[`/sources/${name}`] = `no ${name}, so no source: ${reason}`;
    }
  }
  if (accounting.promptS.value === null) missing["/timings/prompt_s"] = accounting.promptS.reason ?? "no value";
  if (accounting.decodeS.value === null) missing["/timings/decode_s"] = accounting.decodeS.reason ?? "no value";
  if (record.sources.engine_timings === null) {
    missing["/sources/engine_timings"] = `no engine timing was usable: ${accounting.promptS.reason}`;
  }
  for (const metric of ["prompt_tps", "decode_tps"] as const) {
    if (record.metrics[metric] === null) missing[`/metrics/${metric}`] = explainNullMetric(record, metric);
  }
  const offsets = outcome.offsets;
  const clientFields = [
    ["ttft_s", "ttft_s", offsets?.first_delta_s],
    ["first_answer_s", "first_answer_s", offsets?.first_answer_s],
    ["total_s", "total_s", offsets?.end_s],
  ] as const;
  for (const [name, metric, raw] of clientFields) {
    if (record.timings[name] !== null) continue;
    missing[`/timings/${name}`] = raw === null || raw === undefined
      ? explainNullMetric(record, metric)
      : `the client offset is ${String(raw)}, not a nonnegative finite number of seconds`;
  }
  if (record.finish_reason === null) {
    missing["/finish_reason"] = `no finish_reason arrived: ${error?.message ?? "the stream ended without one"}`;
  }
  if (record.error === null) {
    missing["/error"] = record.status === "truncated"
      ? "no error: the request reached its output cap, which is a normal ending"
      : "no error: the request completed normally";
  }
  if (record.first_delta_kind === null) {
    missing["/first_delta_kind"] = outcome.first_delta_kind === null
      ? explainNullMetric(record, "ttft_s")
      : `the client recorded an unknown delta kind ${JSON.stringify(outcome.first_delta_kind)}`;
  }
  if (record.token_accounting_note === null) {
    missing["/token_accounting_note"] = "no count differences to explain";
  }
}

/** Gives every null of the record a reason; `fallback` covers nulls no specific reason was written for. */
function fillMissing(record: ScoredRecord, missing: Record<string, string>, fallback: string): void {
  const groups = { tokens: record.tokens, timings: record.timings, metrics: record.metrics, sources: record.sources };
  for (const [group, values] of Object.entries(groups)) {
    for (const [key, value] of Object.entries(values)) {
      const pointer = `/${group}/${key}`;
      if (value === null && missing[pointer] === undefined) missing[pointer] = fallback;
    }
  }
  const top = {
    round: record.round,
    finish_reason: record.finish_reason,
    error: record.error,
    first_delta_kind: record.first_delta_kind,
    reasoning_cadence: record.reasoning_cadence,
    token_accounting_note: record.token_accounting_note,
    evaluation: record.evaluation,
  };
  for (const [key, value] of Object.entries(top)) {
    if (value === null && missing[`/${key}`] === undefined) missing[`/${key}`] = fallback;
  }
}

/** The record of one request the executor recorded (sent or skipped), with its missing entries and flags. */
export function recordOf(request: ExecutedRequest): BuiltRecord {
  const input: RecordInput = request.kind === "outcome"
    ? { kind: "outcome", outcome: request.outcome, concurrency: request.concurrency }
    : { kind: "skipped", reason: request.reason, concurrency: request.concurrency };
  return buildRequestRecord(request.fixture, input);
}

/** Status words of a record for exclusions: "failed: timeout", "skipped: engine died". */
export function describeStatus(status: RequestStatus, error: RequestError | null): string {
  if (status === "skipped") return `skipped: ${error?.message ?? "no reason recorded"}`;
  if (status === "failed") return `failed: ${error?.kind ?? "unknown"}`;
  return status;
}
