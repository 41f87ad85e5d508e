/**
 * Token and engine-timing accounting of one request: the spec's "Where the numbers come from" table, applied to
 * the `usage` and `timings` objects of the final chunks. Raw fields are never trusted or coerced:
 *
 * - Counts are read from the JSON text as the server sent it (the chunk the client kept), so 12.0, 1e3, -0,
 *   9007199254740993 and 1e400 are seen as written, not as the doubles JSON.parse makes of them. A count is an
 *   exact nonnegative safe integer written without a fraction or exponent (<= 2^53-1); anything else is null
 *   with a reason that quotes the lexeme.
 * - A key that the object carries more than once is ambiguous: its count is null, and the reason lists every
 *   value sent, instead of silently taking the last.
 * - Durations (prompt_ms, predicted_ms) and the engine's rate are nonnegative finite numbers in any notation.
 * - An outcome without the chunk text (a client that keeps none) is read from its parsed objects, judged by the
 *   same rules on the JS values.
 */
import type { RequestStatus } from "../contract/mod.ts";
import { type JsonValue, parseStrictJson } from "./strict_json.ts";

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

/** The final-chunk facts accounting reads: the parsed objects and, where the client kept it, their chunk text. */
export interface EngineFields {
  usage: unknown;
  timings: unknown;
  /** Exact data of the event that carried `usage` (null: none did; undefined: the client kept no text). */
  usageChunk?: string | null | undefined;
  timingsChunk?: string | null | undefined;
  /** Characters of each chunk past the client's bound (MAX_USAGE_CHUNK_CHARS), not kept; absent or 0 for none. */
  usageChunkCutChars?: number | undefined;
  timingsChunkCutChars?: number | undefined;
}

/** A value as sent: numbers with their lexeme, objects with every value of a repeated key. */
type Node =
  | { kind: "object"; members: ReadonlyMap<string, readonly Node[]> }
  | { kind: "number"; lexeme: string; value: number }
  | { kind: "string"; value: string }
  | { kind: "literal"; shown: string };

/** A raw object of the final chunk (`usage` or `timings`) with the words for its absence. */
interface RawObject {
  name: "usage" | "timings";
  node: (Node & { kind: "object" }) | null;
  /** Why the whole object is unusable; null when it is an object. */
  absent: string | null;
}

type Expect = "count" | "nonnegative";

/** The largest count a double holds exactly. */
const MAX_COUNT = BigInt(Number.MAX_SAFE_INTEGER);

function abbreviate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function fromJson(value: JsonValue): Node {
  if (value === null) return { kind: "literal", shown: "null" };
  if (typeof value === "boolean") return { kind: "literal", shown: String(value) };
  if (typeof value === "string") return { kind: "string", value };
  if (Array.isArray(value)) return { kind: "literal", shown: "an array" };
  if (value.kind === "number") return { kind: "number", lexeme: value.lexeme, value: value.value };
  const members = new Map<string, Node[]>();
  for (const [key, item] of value.entries) {
    members.set(key, (value.duplicates?.get(key) ?? [item]).map(fromJson));
  }
  return { kind: "object", members };
}

/** A parsed value with no text behind it: a number's lexeme is how JSON would write the double. */
function fromPlain(value: unknown): Node {
  if (typeof value === "number") {
    return { kind: "number", lexeme: Number.isFinite(value) ? JSON.stringify(value) : String(value), value };
  }
  if (typeof value === "string") return { kind: "string", value };
  if (value === null || value === undefined) return { kind: "literal", shown: "null" };
  if (typeof value === "boolean") return { kind: "literal", shown: String(value) };
  if (Array.isArray(value)) return { kind: "literal", shown: "an array" };
  if (typeof value !== "object") return { kind: "literal", shown: `a ${typeof value}` };
  const members = new Map<string, Node[]>();
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) members.set(key, [fromPlain(item)]);
  return { kind: "object", members };
}

function describeNode(node: Node): string {
  switch (node.kind) {
    case "number":
      return abbreviate(node.lexeme, 40);
    case "string":
      return JSON.stringify(abbreviate(node.value, 30));
    case "literal":
      return node.shown;
    case "object":
      return "an object";
  }
}

function absentWords(name: "usage" | "timings", status: RequestStatus, failedKind: string): string {
  if (status === "failed") return `the request failed (${failedKind}) before the server sent a ${name} object`;
  return name === "usage"
    ? "server sent no usage object (stream_options.include_usage ignored?)"
    : "server sent no timings object (an engine without llama.cpp-style timings?)";
}

function objectFrom(name: "usage" | "timings", node: Node): RawObject {
  if (node.kind === "object") return { name, node, absent: null };
  return { name, node: null, absent: `${name} is ${describeNode(node)}, not an object` };
}

/** The `usage` or `timings` object of one request, from its chunk text where the client kept it. */
function rawObject(
  name: "usage" | "timings",
  parsed: unknown,
  chunk: string | null | undefined,
  cutChars: number,
  status: RequestStatus,
  failedKind: string,
): RawObject {
  if (chunk === undefined) {
    if (parsed === null || parsed === undefined) {
      return { name, node: null, absent: absentWords(name, status, failedKind) };
    }
    return objectFrom(name, fromPlain(parsed));
  }
  if (chunk === null) return { name, node: null, absent: absentWords(name, status, failedKind) };
  const read = parseStrictJson(chunk, { duplicateKeys: "record", nonFiniteNumbers: "keep" });
  if (!read.ok && cutChars > 0) {
    return {
      name,
      node: null,
      absent: `the chunk that carried ${name} was ${chunk.length + cutChars} characters; the client kept its first ` +
        `${chunk.length} (a request's bound on a kept usage or timings chunk), so its numbers cannot be read`,
    };
  }
  if (!read.ok) {
    return {
      name,
      node: null,
      absent: `the chunk that carried ${name} is not strict JSON (${read.reason} at character ${read.offset}), ` +
        "so its numbers cannot be read as sent",
    };
  }
  const top = fromJson(read.value);
  const values = top.kind === "object" ? top.members.get(name) : undefined;
  if (values === undefined || values.length === 0) {
    return { name, node: null, absent: `the chunk kept for ${name} has no ${name} member` };
  }
  if (values.length > 1) {
    return {
      name,
      node: null,
      absent: `the chunk carried ${name} ${values.length} times; which one the server meant is unknown`,
    };
  }
  return objectFrom(name, values[0]!);
}

/** The reason a number node is not what `expect` asks for, or null when it is. */
function numberProblem(source: string, node: Node & { kind: "number" }, expect: Expect): string | null {
  const { lexeme, value } = node;
  if (expect === "nonnegative") {
    if (!Number.isFinite(value)) return `${source} is ${abbreviate(lexeme, 40)}, beyond the range of a double`;
    if (value < 0) return `${source} is ${abbreviate(lexeme, 40)}, expected a nonnegative finite number`;
    return null;
  }
  const shown = abbreviate(lexeme, 40);
  if (lexeme.startsWith("-")) return `${source} is ${shown}, a negative number; a count is a nonnegative integer`;
  if (/[eE]/.test(lexeme)) {
    return `${source} is ${shown}, written with an exponent; a count is a whole number written without a ` +
      "fraction or exponent";
  }
  if (lexeme.includes(".")) {
    return `${source} is ${shown}, written with a fraction; a count is a whole number written without a ` +
      "fraction or exponent";
  }
  if (!/^(?:0|[1-9][0-9]*)$/.test(lexeme)) return `${source} is ${shown}, not a count`;
  if (BigInt(lexeme) > MAX_COUNT) {
    return `${source} is ${shown}, above 2^53-1 (${Number.MAX_SAFE_INTEGER}): not an exact count`;
  }
  return null;
}

/** Reads `object.path` as a count or a nonnegative finite number. */
function read(object: RawObject, path: readonly string[], expect: Expect): Sourced {
  const source = `${object.name}.${path.join(".")}`;
  if (object.node === null) return { value: null, source: null, reason: object.absent };
  let current: Node = object.node;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    const parent = `${object.name}${i === 0 ? "" : `.${path.slice(0, i).join(".")}`}`;
    if (current.kind !== "object") {
      return { value: null, source: null, reason: `${parent} is ${describeNode(current)}, not an object` };
    }
    const values = current.members.get(key);
    if (values === undefined) {
      return { value: null, source: null, reason: `${object.name} has no ${path.slice(0, i + 1).join(".")}` };
    }
    if (values.length > 1) {
      const what = `${parent}.${key}`;
      return {
        value: null,
        source: null,
        reason: `${parent} has ${key} ${values.length} times (${values.map(describeNode).join(", ")}): ${what} ` +
          "is ambiguous, so it is not used",
      };
    }
    current = values[0]!;
  }
  const wanted = expect === "count" ? "a nonnegative integer count" : "a nonnegative finite number";
  if (current.kind !== "number") {
    const kind = current.kind === "string" ? ", a string" : "";
    return { value: null, source: null, reason: `${source} is ${describeNode(current)}${kind}, expected ${wanted}` };
  }
  const problem = numberProblem(source, current, expect);
  if (problem !== null) return { value: null, source: null, reason: problem };
  // + 0 turns a written -0 (a duration) into 0.
  return { value: current.value + 0, source, reason: null };
}

function seconds(ms: Sourced): Sourced {
  return ms.value === null ? ms : { value: ms.value / 1000, source: ms.source, reason: null };
}

/** Tolerance of the predicted_n agreement rule: the engine rounds its rate to 0.1 tokens/s. */
export function decodeAgreementToleranceTokens(decodeS: number): number {
  return 0.05 * decodeS + 1;
}

/** No engine counts more tokens, and no engine timer of one request reads longer (docs/results.md, "Plausibility"). */
const MAX_PLAUSIBLE_TOKENS = 100_000_000;
const MAX_PLAUSIBLE_S = 86_400;

/** `value` when at most `max`, else null with why: an engine's number no judge could take as measured. */
function atMost(value: Sourced, max: number, why: string, unit = ""): Sourced {
  if (value.value === null || value.value <= max) return value;
  const says = unit === "" ? `is ${value.value}` : `gives ${value.value}${unit}`;
  return { value: null, source: null, reason: `${value.source} ${says}, ${why}` };
}

/**
 * The plausibility table's engine rows: counts within their caps (the request's max_tokens for output, the prompt
 * for cached and read tokens, 10^8 for any) and timers within a day. Applied where the record is built, so a run
 * never writes a value its own judges would refuse, whatever the engine sent.
 */
function plausible(a: Accounting, cap: number | null): Accounting {
  const any = (v: Sourced) => atMost(v, MAX_PLAUSIBLE_TOKENS, `more than any engine counts (${MAX_PLAUSIBLE_TOKENS})`);
  const input = any(a.input);
  // The tighter bound speaks where it is known: the prompt's own count, the request's cap.
  const ofPrompt = (v: Sourced) =>
    input.value === null ? any(v) : atMost(v, input.value, `more than the prompt's ${input.value} tokens`);
  const capped = (v: Sourced) =>
    cap === null ? any(v) : atMost(v, cap, `more than the request's cap of ${cap} (max_tokens)`);
  const day = (v: Sourced) => atMost(v, MAX_PLAUSIBLE_S, "longer than a day", " s");
  return {
    ...a,
    input,
    cached: ofPrompt(a.cached),
    read: ofPrompt(a.read),
    output: capped(a.output),
    decode: capped(a.decode),
    promptS: day(a.promptS),
    decodeS: day(a.decodeS),
  };
}

/**
 * Applies the spec's mapping to the usage and timings of one request, held to the plausibility table (`cap`: the
 * request's max_tokens).
 */
export function accountTokens(
  fields: EngineFields,
  status: RequestStatus,
  failedKind: string,
  cap: number | null = null,
): Accounting {
  return plausible(mappedTokens(fields, status, failedKind), cap);
}

/** The spec's mapping of the usage and timings of one request. */
function mappedTokens(fields: EngineFields, status: RequestStatus, failedKind: string): Accounting {
  const usage = rawObject("usage", fields.usage, fields.usageChunk, fields.usageChunkCutChars ?? 0, status, failedKind);
  const timings = rawObject(
    "timings",
    fields.timings,
    fields.timingsChunk,
    fields.timingsChunkCutChars ?? 0,
    status,
    failedKind,
  );
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
 * 0.05 x decode_s + 1 tokens; otherwise the count the rate implies, with a note (null when that is no exact count).
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
  if (!Number.isSafeInteger(implied)) {
    const why = `timings.predicted_per_second ${rate.value} x decode_s ${decodeS.value} implies ${impliedTokens} ` +
      "tokens, which is not an exact count";
    return { value: null, source: null, reason: predicted.reason === null ? why : `${predicted.reason}; ${why}` };
  }
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
