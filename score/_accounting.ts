/**
 * Token and engine-timing accounting of one request: the spec's "Where the numbers come from" table, applied to
 * the raw `usage` and `timings` objects of the final chunk. Raw fields are never trusted: a value of the wrong
 * type is null with a reason, never coerced.
 */
import type { RequestStatus } from "../contract/mod.ts";

/** One derived value with where it came from, or why it is null. */
export interface Sourced {
  value: number | null;
  source: string | null;
  /** Why `value` is null; null when it has a value. */
  reason: string | null;
}

/** Token counts, engine durations and the accounting note of one request. */
export interface Accounting {
  input: Sourced;
  cached: Sourced;
  read: Sourced;
  output: Sourced;
  decode: Sourced;
  promptS: Sourced;
  decodeS: Sourced;
  /** Differences the counts show, in words. */
  notes: string[];
}

/** A raw object of the final chunk (`usage` or `timings`) with the words for its absence. */
interface RawObject {
  name: "usage" | "timings";
  value: Record<string, unknown> | null;
  /** Why the whole object is unusable; null when it is an object. */
  absent: string | null;
}

type Expect = "count" | "nonnegative";

function describeRaw(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return `${JSON.stringify(value.length > 30 ? `${value.slice(0, 27)}...` : value)}`;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function rawObject(name: "usage" | "timings", raw: unknown, status: RequestStatus, failedKind: string): RawObject {
  if (raw === null || raw === undefined) {
    const absent = status === "failed"
      ? `the request failed (${failedKind}) before the server sent a ${name} object`
      : name === "usage"
      ? "server sent no usage object (stream_options.include_usage ignored?)"
      : "server sent no timings object (an engine without llama.cpp-style timings?)";
    return { name, value: null, absent };
  }
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { name, value: null, absent: `${name} is ${describeRaw(raw)}, not an object` };
  }
  return { name, value: raw as Record<string, unknown>, absent: null };
}

/** Reads `object.path` as a nonnegative integer count or a nonnegative finite number. */
function read(object: RawObject, path: readonly string[], expect: Expect): Sourced {
  const source = `${object.name}.${path.join(".")}`;
  if (object.value === null) return { value: null, source: null, reason: object.absent };
  let current: unknown = object.value;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    if (typeof current !== "object" || current === null || Array.isArray(current)) {
      const parent = `${object.name}.${path.slice(0, i).join(".")}`;
      return { value: null, source: null, reason: `${parent} is ${describeRaw(current)}, not an object` };
    }
    if (!Object.hasOwn(current, key)) {
      return { value: null, source: null, reason: `${object.name} has no ${path.slice(0, i + 1).join(".")}` };
    }
    current = (current as Record<string, unknown>)[key];
  }
  const valid = typeof current === "number" && Number.isFinite(current) && current >= 0 &&
    (expect === "nonnegative" || Number.isInteger(current));
  if (!valid) {
    const wanted = expect === "count" ? "a nonnegative integer" : "a nonnegative finite number";
    return { value: null, source: null, reason: `${source} is ${describeRaw(current)}, expected ${wanted}` };
  }
  return { value: current as number, source, reason: null };
}

function seconds(ms: Sourced): Sourced {
  return ms.value === null ? ms : { value: ms.value / 1000, source: ms.source, reason: null };
}

/** Tolerance of the predicted_n agreement rule: the engine rounds its rate to 0.1 tokens/s. */
export function decodeAgreementToleranceTokens(decodeS: number): number {
  return 0.05 * decodeS + 1;
}

/** Applies the spec's mapping to the raw usage and timings of one request. */
export function accountTokens(
  usageRaw: unknown,
  timingsRaw: unknown,
  status: RequestStatus,
  failedKind: string,
): Accounting {
  const usage = rawObject("usage", usageRaw, status, failedKind);
  const timings = rawObject("timings", timingsRaw, status, failedKind);
  const notes: string[] = [];

  const input = read(usage, ["prompt_tokens"], "count");
  const cachedFromUsage = read(usage, ["prompt_tokens_details", "cached_tokens"], "count");
  const cachedFromTimings = read(timings, ["cache_n"], "count");
  const cached = cachedFromUsage.value !== null
    ? cachedFromUsage
    : cachedFromTimings.value !== null
    ? cachedFromTimings
    : { value: null, source: null, reason: `${cachedFromUsage.reason}; ${cachedFromTimings.reason}` };

  let readTokens = read(timings, ["prompt_n"], "count");
  if (readTokens.value === null) {
    if (input.value !== null && cached.value !== null && input.value >= cached.value) {
      readTokens = {
        value: input.value - cached.value,
        source: `derived: usage.prompt_tokens - ${cached.source}`,
        reason: null,
      };
    } else {
      const why = input.value === null || cached.value === null
        ? `${input.value === null ? "input_tokens" : "cached_tokens"} is null too`
        : `cached_tokens ${cached.value} exceeds input_tokens ${input.value}`;
      readTokens = { value: null, source: null, reason: `${readTokens.reason}; cannot derive it: ${why}` };
    }
  }

  const output = read(usage, ["completion_tokens"], "count");
  const promptS = seconds(read(timings, ["prompt_ms"], "nonnegative"));
  const decodeS = seconds(read(timings, ["predicted_ms"], "nonnegative"));
  const decode = decodeTokens(timings, decodeS, notes);

  if (output.value !== null && decode.value !== null && output.value !== decode.value) {
    notes.push(
      `usage.completion_tokens ${output.value} differs from decode_tokens ${decode.value} (${decode.source}); ` +
        "the API count and the engine's timed count are both kept",
    );
  }
  return { input, cached, read: readTokens, output, decode, promptS, decodeS, notes };
}

/**
 * decode_tokens: timings.predicted_n when it agrees with predicted_per_second x decode_s within
 * 0.05 x decode_s + 1 tokens; otherwise the count the rate implies, with a note.
 */
function decodeTokens(timings: RawObject, decodeS: Sourced, notes: string[]): Sourced {
  const predicted = read(timings, ["predicted_n"], "count");
  const rate = read(timings, ["predicted_per_second"], "nonnegative");
  if (rate.value === null || decodeS.value === null) {
    // Nothing to check the count against: keep the engine's own count.
    if (predicted.value !== null) return predicted;
    return { value: null, source: null, reason: predicted.reason };
  }
  const impliedTokens = rate.value * decodeS.value;
  const toleranceTokens = decodeAgreementToleranceTokens(decodeS.value);
  if (predicted.value !== null && Math.abs(predicted.value - impliedTokens) <= toleranceTokens + 1e-9) {
    return predicted;
  }
  const implied = Math.round(impliedTokens);
  const source = "derived: round(timings.predicted_per_second x timings.predicted_ms / 1000)";
  if (predicted.value === null) {
    notes.push(`${predicted.reason}; decode_tokens ${implied} is the count timings.predicted_per_second implies`);
  } else {
    notes.push(
      `timings.predicted_n ${predicted.value} disagrees with timings.predicted_per_second ${rate.value} x ` +
        `decode_s ${round3(decodeS.value)} = ${round3(impliedTokens)} tokens (tolerance ` +
        `${round3(toleranceTokens)}); decode_tokens is the count the rate implies, ${implied}`,
    );
  }
  return { value: implied, source, reason: null };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
