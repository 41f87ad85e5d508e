// @ts-check
/**
 * One request rebuilt from its outputs.jsonl line by the spec's "Request records" and "Where the numbers come
 * from": status from the stream end and finish reason; counts from the raw usage and timings, read from the exact
 * text of the chunk that carried them (exact safe integers only, as written); durations from the engine timers
 * and the client's offsets; rates from the counts and timers.
 */

import { JsonNumber, parseStrictJson, Repeated } from "./strict_json.js";

/** @typedef {"completed" | "truncated" | "failed" | "skipped"} RequestStatus */

/**
 * @typedef {{
 *   id: string,
 *   status: RequestStatus,
 *   finishReason: string | null,
 *   httpStatus: number | null,
 *   errorKind: string | null,
 *   firstDeltaKind: unknown,
 *   finalAnswer: string,
 *   toolCalls: { name: unknown, arguments: unknown }[],
 *   tokens: { input_tokens: number | null, cached_tokens: number | null, read_tokens: number | null,
 *     output_tokens: number | null, decode_tokens: number | null },
 *   timings: { prompt_s: number | null, decode_s: number | null, ttft_s: number | null,
 *     first_answer_s: number | null, total_s: number | null },
 *   metrics: { prompt_tps: number | null, decode_tps: number | null },
 *   cadence: Cadence | null,
 *   dispatchedAtEpochMs: number | null,
 *   dispatchOffsetS: number | null,
 *   body: Record<string, unknown> | null,
 *   slotParams: Record<string, unknown> | null,
 *   concurrency: unknown,
 * }} RebuiltRequest
 */

/**
 * @typedef {{ thinking_s: number | null, reasoning_itl_s: number[], reasoning_tpot_s: number | null,
 *   answer_itl_s: number[], answer_tpot_s: number | null }} Cadence
 */

/** @param {unknown} value @returns {value is Record<string, unknown>} */
export function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Repeated);
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The bytes as UTF-8 text (a byte-order mark kept), or null when they are not UTF-8. Read leniently first: every
 * malformed sequence becomes U+FFFD, so a text without one was valid throughout, and only a text holding U+FFFD is
 * read again strictly (in Chromium the strict decoder ran 10x slower on a 740 KB evidence file, 1.5-2.4 vs 0.14-0.2 ms).
 * @param {Uint8Array} bytes
 */
export function decodeUtf8(bytes) {
  const text = lenient.decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** A value for a problem's text: its JSON, cut at 60 characters. @param {unknown} value */
export function show(value) {
  const text = JSON.stringify(value);
  return text === undefined ? "nothing" : text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** The reference tokens of a JSON Pointer (RFC 6901), decoded. @param {string} pointer @returns {string[]} */
export function pointerTokens(pointer) {
  return pointer === "" ? [] : pointer.slice(1).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * A token count only as an exact nonnegative safe integer; a number read with its lexeme (from a chunk's text)
 * must also be written as one: no sign, fraction or exponent, at most 2^53-1.
 * @param {unknown} value
 */
function count(value) {
  if (value instanceof JsonNumber) {
    if (!value.isInteger || value.lexeme.startsWith("-")) return null;
    return BigInt(value.lexeme) <= BigInt(Number.MAX_SAFE_INTEGER) ? value.value : null;
  }
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

const MAX_TOKENS = 100_000_000;
const DAY_S = 86_400;
/** `n` when at most `max`, else null (no value a judge can take). @param {number | null} n @param {number} max */
const atMost = (n, max) => (n !== null && n > max ? null : n);

/** A finite nonnegative number, in any notation. @param {unknown} value */
function finite(value) {
  const number = value instanceof JsonNumber ? value.value : value;
  return typeof number === "number" && Number.isFinite(number) && number >= 0 ? number + 0 : null;
}

/**
 * The `usage` or `timings` object of a line: from the exact text of the chunk that carried it (evidence version
 * 2, read with number lexemes, every value of a repeated key kept, a number beyond a double kept as written) or,
 * in older lines, the parsed object. A chunk this parser refuses, or one that carried the object twice, gives {};
 * a field sent twice or written out of range is then null on its own (count and finite refuse it), as the runner
 * reads it.
 * @param {Record<string, unknown>} line @param {"usage" | "timings"} name @returns {Record<string, unknown>}
 */
function engineObject(line, name) {
  const chunk = line[`${name}_chunk`];
  if (typeof chunk === "string") {
    const parsed = parseStrictJson(chunk, { lexemes: true, asSent: true });
    const member = parsed.ok && isObject(parsed.value) ? parsed.value[name] : undefined;
    return isObject(member) ? member : {};
  }
  return isObject(line[name]) ? /** @type {Record<string, unknown>} */ (line[name]) : {};
}

/**
 * Status of an attempted request: a normal stream end with stop or tool_calls is completed, with length (the
 * cap) truncated; every other end or finish reason is failed.
 * @param {unknown} end @param {unknown} finishReason @returns {RequestStatus}
 */
function statusOf(end, finishReason) {
  if (end !== "finished") return "failed";
  if (finishReason === "stop" || finishReason === "tool_calls") return "completed";
  if (finishReason === "length") return "truncated";
  return "failed";
}

/**
 * The error kind of a finished stream, whose line has no error: a finish reason other than a normal ending is
 * "finish_reason", none at all "no_finish" (the runner's words); null for a normal ending, undefined for any other
 * end (its line's error names its kind).
 * @param {Record<string, unknown>} line @param {string | null} finishReason @returns {string | null | undefined}
 */
function finishedErrorKind(line, finishReason) {
  if (line.end !== "finished") return undefined;
  if (statusOf(line.end, finishReason) !== "failed") return null;
  return finishReason === null ? "no_finish" : "finish_reason";
}

/**
 * decode_tokens: predicted_n when it agrees with predicted_per_second x decode_s within 0.05 x decode_s + 1
 * tokens (the engine rounds its rate to 0.1 tokens/s); otherwise (predicted_n disagrees, or is no count) the
 * count the rate implies, when that is an exact count; without a rate or a decode time, predicted_n as it is.
 * @param {number | null} predictedN @param {number | null} rate @param {number | null} decodeS
 */
function decodeCount(predictedN, rate, decodeS) {
  if (rate === null || decodeS === null) return predictedN;
  const implied = rate * decodeS;
  if (predictedN !== null && Math.abs(predictedN - implied) <= 0.05 * decodeS + 1 + 1e-9) return predictedN;
  const rounded = Math.round(implied);
  return Number.isSafeInteger(rounded) ? rounded : null;
}

/** @param {number | null} numerator @param {number | null} seconds */
function rate(numerator, seconds) {
  if (numerator === null || seconds === null || numerator === 0 || seconds === 0) return null;
  return numerator / seconds;
}

/** Gaps between successive stamps, rounded to the microsecond. @param {number[]} stamps */
function gapsOf(stamps) {
  return stamps.slice(1).map((stamp, i) => Math.round((stamp - /** @type {number} */ (stamps[i])) * 1e6) / 1e6);
}

/** Mean gap per chunk, first to last; null below two stamps. @param {number[]} stamps */
function meanGap(stamps) {
  return stamps.length < 2 ? null : (/** @type {number} */ (stamps.at(-1)) - /** @type {number} */ (stamps[0])) /
    (stamps.length - 1);
}

/**
 * The reasoning cadence of a stream that finished with its chunk stamps and at least one reasoning chunk: the
 * first reasoning chunk to the first answer (thinking time), and the gaps and mean gap per chunk of the reasoning
 * and of the answer chunks; null otherwise, and null when the line counts chunks past the run's bound on kept
 * stamps (`unstamped_chunks`, a positive count): the stamps it holds are then only the first ones.
 * @param {Record<string, unknown>} line @param {number | null} firstAnswer @returns {Cadence | null}
 */
function cadenceOf(line, firstAnswer) {
  const stamps = (/** @type {unknown} */ value) =>
    Array.isArray(value) && value.every((v) => typeof v === "number") ? /** @type {number[]} */ (value) : null;
  const reasoning = stamps(line.reasoning_chunk_offsets_s);
  const answer = stamps(line.chunk_offsets_s);
  if (line.end !== "finished" || reasoning === null || answer === null || reasoning.length === 0) return null;
  const unstamped = line.unstamped_chunks;
  if (Number.isSafeInteger(unstamped) && /** @type {number} */ (unstamped) > 0) return null;
  const first = /** @type {number} */ (reasoning[0]);
  return {
    thinking_s: firstAnswer !== null && firstAnswer >= first ? firstAnswer - first : null,
    reasoning_itl_s: gapsOf(reasoning),
    reasoning_tpot_s: meanGap(reasoning),
    answer_itl_s: gapsOf(answer),
    answer_tpot_s: meanGap(answer),
  };
}

/**
 * A request the run skipped: nothing was sent, so every count, time and rate is null.
 * @param {string} id
 * @returns {RebuiltRequest}
 */
function skippedRequest(id) {
  return {
    id,
    status: "skipped",
    finishReason: null,
    httpStatus: null,
    errorKind: "skipped",
    firstDeltaKind: null,
    finalAnswer: "",
    toolCalls: [],
    tokens: { input_tokens: null, cached_tokens: null, read_tokens: null, output_tokens: null, decode_tokens: null },
    timings: { prompt_s: null, decode_s: null, ttft_s: null, first_answer_s: null, total_s: null },
    metrics: { prompt_tps: null, decode_tps: null },
    cadence: null,
    dispatchedAtEpochMs: null,
    dispatchOffsetS: null,
    body: null,
    slotParams: null,
    concurrency: null,
  };
}

/**
 * Rebuilds a request from its evidence line (already parsed). Unknown shapes give nulls, never exceptions: the
 * comparison with results.json then names the difference.
 * @param {Record<string, unknown>} line
 * @returns {RebuiltRequest}
 */
export function rebuildRequest(line) {
  const id = typeof line.request_id === "string" ? line.request_id : "";
  if (line.end === undefined && typeof line.skip_reason === "string") return skippedRequest(id);
  const usage = engineObject(line, "usage");
  const timings = engineObject(line, "timings");
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const offsets = isObject(line.client_offsets_s) ? line.client_offsets_s : {};

  const input = atMost(count(usage.prompt_tokens), MAX_TOKENS);
  const cachedFromUsage = count(details.cached_tokens);
  const cachedRaw = cachedFromUsage ?? count(timings.cache_n);
  const promptN = count(timings.prompt_n);
  const readRaw = promptN ?? (input !== null && cachedRaw !== null && input >= cachedRaw ? input - cachedRaw : null);
  const promptMs = finite(timings.prompt_ms);
  const predictedMs = finite(timings.predicted_ms);
  const decodeMeasured = predictedMs === null ? null : predictedMs / 1000;
  const decodeRaw = decodeCount(count(timings.predicted_n), finite(timings.predicted_per_second), decodeMeasured);
  // The plausibility table's engine rows (docs/results.md): counts within their caps, timers within a day.
  const body = isObject(line.request) ? line.request : {};
  const cap = typeof body.max_tokens === "number" ? body.max_tokens : Infinity;
  const ofPrompt = (/** @type {number | null} */ n) => atMost(atMost(n, MAX_TOKENS), input ?? Infinity);
  const cached = ofPrompt(cachedRaw), read = ofPrompt(readRaw);
  const decode = atMost(atMost(decodeRaw, MAX_TOKENS), cap);
  const promptS = atMost(promptMs === null ? null : promptMs / 1000, DAY_S);
  const decodeS = atMost(decodeMeasured, DAY_S);
  const finishReason = typeof line.finish_reason === "string" ? line.finish_reason : null;
  const error = isObject(line.error) ? line.error : null;
  const toolCalls = Array.isArray(line.tool_calls)
    ? line.tool_calls.map((call) => (isObject(call) ? { name: call.name, arguments: call.arguments } : {
      name: undefined,
      arguments: undefined,
    }))
    : [];
  return {
    id,
    status: statusOf(line.end, line.finish_reason),
    finishReason,
    httpStatus: count(line.http_status),
    errorKind: finishedErrorKind(line, finishReason) ??
      (error !== null && typeof error.kind === "string" ? error.kind : null),
    firstDeltaKind: line.first_delta_kind ?? null,
    finalAnswer: typeof line.final_answer === "string" ? line.final_answer : "",
    toolCalls,
    tokens: {
      input_tokens: input,
      cached_tokens: cached,
      read_tokens: read,
      output_tokens: atMost(atMost(count(usage.completion_tokens), MAX_TOKENS), cap),
      decode_tokens: decode,
    },
    timings: {
      prompt_s: promptS,
      decode_s: decodeS,
      ttft_s: finite(offsets.first_delta_s),
      first_answer_s: finite(offsets.first_answer_s),
      total_s: finite(offsets.end_s),
    },
    metrics: { prompt_tps: rate(read, promptS), decode_tps: rate(decode, decodeS) },
    cadence: cadenceOf(line, finite(offsets.first_answer_s)),
    dispatchedAtEpochMs: finite(line.dispatched_at_epoch_ms),
    dispatchOffsetS: typeof line.dispatch_offset_s === "number" ? line.dispatch_offset_s : null,
    body: isObject(line.request) ? line.request : null,
    slotParams: isObject(line.slot_reading) && line.slot_reading.kind === "slot" && isObject(line.slot_reading.params)
      ? line.slot_reading.params
      : null,
    concurrency: line.concurrency,
  };
}

/**
 * Two recorded numbers agree: equal, or equal to 1e-9 relative (the runner may divide in another order).
 * @param {unknown} claimed @param {number | null} recomputed
 */
export function sameNumber(claimed, recomputed) {
  if (recomputed === null || claimed === null) return claimed === recomputed;
  if (typeof claimed !== "number") return false;
  if (claimed === recomputed) return true;
  return Math.abs(claimed - recomputed) <= 1e-9 * Math.max(Math.abs(claimed), Math.abs(recomputed));
}
