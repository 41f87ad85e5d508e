/**
 * One outputs.jsonl line read back: its facts (a skip, or a stream outcome with its dispatch on the run's clock),
 * the request record rebuilt from them with score/'s buildRequestRecord, and the record values a line states
 * explicitly because redaction changed the text they were computed from (`record_overrides`). The validator and
 * the runner both use this, so a record the run publishes is by construction the one the evidence rebuilds.
 */
import {
  type ClientOffsets,
  DELTA_KINDS,
  type Fixture,
  type InvalidUtf8Record,
  type RequestRecord,
  type SlotReading,
  STREAM_END_KINDS,
  type StreamEnd,
  type StreamOutcome,
  type ToolCallRecord,
} from "../contract/mod.ts";
import { buildRequestRecord, checkResolvedConfig, type ConfigCheck, type RecordInput } from "../score/mod.ts";
import { brief } from "./_difference.ts";
import { childPointer } from "./_pointer.ts";
import { isJsonObject } from "./_contract_check.ts";

/** What a line says about its request: never sent (with why), or sent (with its raw outcome). */
export type LineFacts =
  | { kind: "skipped"; reason: string }
  | {
    kind: "outcome";
    outcome: StreamOutcome;
    concurrency: number;
    dispatchOffsetS: number;
    /** The request body as sent (sanitized as published). */
    body: Record<string, unknown>;
    slot: SlotReading;
  };

/** The line's /slots reading; a line without one (or with an unreadable one) reads as "none" with why. */
function slotReadingOf(value: unknown): SlotReading {
  if (value === undefined) return { kind: "none", reason: "the line records no /slots reading" };
  if (isJsonObject(value) && value["kind"] === "none" && typeof value["reason"] === "string") {
    return { kind: "none", reason: value["reason"] };
  }
  if (
    isJsonObject(value) && value["kind"] === "slot" && typeof value["source"] === "string" &&
    typeof value["matched_by"] === "string"
  ) {
    return {
      kind: "slot",
      source: value["source"],
      matched_by: value["matched_by"],
      slot_id: value["slot_id"],
      id_task: value["id_task"],
      params: value["params"],
    };
  }
  return { kind: "none", reason: `the line's slot_reading is not a reading: ${brief(value)}` };
}

type Fields = Record<string, unknown>;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === "string";
const isOffsetOrNull = (value: unknown): value is number | null => value === null || typeof value === "number";

function toolCallsOf(value: unknown): ToolCallRecord[] | null {
  if (!Array.isArray(value)) return null;
  const calls: ToolCallRecord[] = [];
  for (const call of value) {
    if (
      !isJsonObject(call) || !isCount(call["index"]) || !isStringOrNull(call["id"]) ||
      !isStringOrNull(call["type"]) || typeof call["name"] !== "string" || typeof call["arguments"] !== "string"
    ) return null;
    calls.push({
      index: call["index"],
      id: call["id"],
      type: call["type"],
      name: call["name"],
      arguments: call["arguments"],
    });
  }
  return calls;
}

function offsetsOf(value: unknown): ClientOffsets | null {
  if (!isJsonObject(value)) return null;
  const { headers_s, first_byte_s, first_delta_s, first_answer_s, end_s } = value;
  if (
    !isOffsetOrNull(headers_s) || !isOffsetOrNull(first_byte_s) || !isOffsetOrNull(first_delta_s) ||
    !isOffsetOrNull(first_answer_s) || typeof end_s !== "number"
  ) return null;
  return { headers_s, first_byte_s, first_delta_s, first_answer_s, end_s };
}

/** The `member` of a chunk as JSON.parse reads it (what the client parsed), or null when it cannot be read. */
function memberOf(chunk: string, member: string): unknown {
  try {
    const value = JSON.parse(chunk) as unknown;
    return isJsonObject(value) ? value[member] ?? null : null;
  } catch {
    return null;
  }
}

function invalidUtf8Of(value: unknown): InvalidUtf8Record[] | null {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return null;
  const out: InvalidUtf8Record[] = [];
  for (const item of value) {
    if (
      !isJsonObject(item) || !isCount(item["event"]) || !Array.isArray(item["byte_offsets"]) ||
      !item["byte_offsets"].every(isCount) || !Array.isArray(item["delta_kinds"]) ||
      !item["delta_kinds"].every((k) => (DELTA_KINDS as readonly unknown[]).includes(k))
    ) return null;
    out.push({
      event: item["event"],
      byte_offsets: item["byte_offsets"] as number[],
      delta_kinds: item["delta_kinds"] as InvalidUtf8Record["delta_kinds"],
    });
  }
  return out;
}

/** The facts of one parsed outcome line, or why they cannot be read. */
export function outcomeOf(
  fields: Fields,
): { outcome: StreamOutcome; concurrency: number; dispatchOffsetS: number } | string {
  const wrong = (name: string, wanted: string) => `${name} must be ${wanted}, found ${brief(fields[name])}`;
  const raw: Record<"usage" | "timings", { parsed: unknown; chunk?: string | null }> = {
    usage: { parsed: null },
    timings: { parsed: null },
  };
  for (const key of ["usage", "timings"] as const) {
    const chunkKey = `${key}_chunk`;
    if (Object.hasOwn(fields, chunkKey)) {
      const chunk = fields[chunkKey];
      if (chunk !== null && typeof chunk !== "string") return wrong(chunkKey, "the exact chunk text, or null");
      raw[key] = { parsed: chunk === null ? null : memberOf(chunk, key), chunk };
    } else if (Object.hasOwn(fields, key)) {
      raw[key] = { parsed: fields[key] };
    } else {
      return `${chunkKey} is absent (the exact text of the chunk that carried ${key}, or null when none arrived)`;
    }
  }
  const invalidUtf8 = invalidUtf8Of(fields["invalid_utf8"]);
  if (invalidUtf8 === null) return wrong("invalid_utf8", "an array of {event, byte_offsets, delta_kinds}");
  const concurrency = fields["concurrency"];
  if (!Number.isSafeInteger(concurrency) || (concurrency as number) < 1) return wrong("concurrency", "a count ≥ 1");
  if (!isJsonObject(fields["request"])) return wrong("request", "the request body object that was sent");
  const dispatched = fields["dispatched_at_epoch_ms"];
  if (typeof dispatched !== "number" || !Number.isFinite(dispatched)) {
    return wrong("dispatched_at_epoch_ms", "epoch milliseconds");
  }
  const dispatchOffsetS = fields["dispatch_offset_s"];
  if (typeof dispatchOffsetS !== "number" || !(dispatchOffsetS >= 0)) {
    return wrong("dispatch_offset_s", "the dispatch in seconds from the run's epoch (≥ 0)");
  }
  const end = fields["end"];
  if (typeof end !== "string" || !(STREAM_END_KINDS as readonly string[]).includes(end)) {
    return wrong("end", `one of ${STREAM_END_KINDS.join(", ")}`);
  }
  const httpStatus = fields["http_status"];
  if (httpStatus !== null && !isCount(httpStatus)) return wrong("http_status", "an HTTP status or null");
  for (const key of ["finish_reason", "first_delta_kind"]) {
    if (!isStringOrNull(fields[key])) return wrong(key, "a string or null");
  }
  for (const key of ["final_answer", "reasoning_text"]) {
    if (typeof fields[key] !== "string") return wrong(key, "a string");
  }
  const toolCalls = toolCallsOf(fields["tool_calls"]);
  if (toolCalls === null) return wrong("tool_calls", "an array of {index, id, type, name, arguments}");
  const offsets = offsetsOf(fields["client_offsets_s"]);
  if (offsets === null) {
    return wrong("client_offsets_s", "{headers_s, first_byte_s, first_delta_s, first_answer_s, end_s} in seconds");
  }
  for (const key of ["sse_events", "keepalives"]) if (!isCount(fields[key])) return wrong(key, "a count");
  const error = fields["error"];
  if (end === "finished") {
    if (error !== null) return `error must be null for a stream that finished, found ${brief(error)}`;
  } else if (!isJsonObject(error) || error["kind"] !== end || typeof error["message"] !== "string") {
    return `error must be {kind: ${JSON.stringify(end)}, message} for a stream that ended "${end}", found ${
      brief(error)
    }`;
  }
  // The run writes the end's name as the message when the client had no error text.
  const message = error === null || error["message"] === end ? null : error["message"] as string;
  return {
    concurrency: concurrency as number,
    dispatchOffsetS,
    outcome: {
      dispatched_at_epoch_ms: dispatched,
      // The line keeps the run's offset, not the clock reading; the record needs neither.
      dispatch_clock_ms: Number.NaN,
      end: end as StreamEnd,
      http_status: httpStatus as number | null,
      finish_reason: fields["finish_reason"] as string | null,
      error_message: message,
      first_delta_kind: fields["first_delta_kind"] as StreamOutcome["first_delta_kind"],
      reasoning_text: fields["reasoning_text"] as string,
      answer_text: fields["final_answer"] as string,
      tool_calls: toolCalls,
      usage: raw.usage.parsed,
      timings: raw.timings.parsed,
      ...(raw.usage.chunk === undefined ? {} : { usage_chunk: raw.usage.chunk }),
      ...(raw.timings.chunk === undefined ? {} : { timings_chunk: raw.timings.chunk }),
      ...(invalidUtf8.length === 0 ? {} : { invalid_utf8: invalidUtf8 }),
      offsets,
      events: fields["sse_events"] as number,
      keepalives: fields["keepalives"] as number,
    },
  };
}

/** Every leaf where `actual` differs from `expected` (a whole subtree where their kinds differ). */
export function leafDifferences(expected: unknown, actual: unknown, pointer = ""): string[] {
  if (isJsonObject(expected) && isJsonObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((key) => leafDifferences(expected[key], actual[key], childPointer(pointer, key)));
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    return expected.flatMap((item, i) => leafDifferences(item, actual[i], childPointer(pointer, i)));
  }
  return JSON.stringify(expected) === JSON.stringify(actual) ? [] : [pointer];
}

export function valueAt(root: unknown, sub: string): unknown {
  let current = root;
  for (const token of sub.split("/").slice(1)) {
    const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
    current = isJsonObject(current) || Array.isArray(current) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

/** The line's facts: a skip with its reason, or an outcome; a string says why the line cannot be read. */
export function lineFacts(fields: Fields): LineFacts | string {
  if (fields["status"] === "skipped") {
    const reason = fields["skip_reason"];
    if (typeof reason !== "string") return `a skipped request needs skip_reason, found ${brief(reason)}`;
    return { kind: "skipped", reason };
  }
  const facts = outcomeOf(fields);
  if (typeof facts === "string") return facts;
  return {
    kind: "outcome",
    ...facts,
    body: fields["request"] as Record<string, unknown>,
    slot: slotReadingOf(fields["slot_reading"]),
  };
}

/** Values the line states for record fields (JSON Pointer into the record -> value), or why they are unreadable. */
export function overridesOf(fields: Fields): Record<string, unknown> | string {
  const value = fields["record_overrides"];
  if (value === undefined) return {};
  if (!isJsonObject(value)) return `record_overrides must be an object of record pointers, found ${brief(value)}`;
  for (const pointer of Object.keys(value)) {
    if (pointer !== "" && !pointer.startsWith("/")) {
      return `record_overrides has "${pointer}", which is not a JSON Pointer into the record`;
    }
  }
  return value;
}

/**
 * `root` with the value at `pointer` replaced ("" replaces the whole value); parents must exist as own members. A
 * pointer from a hostile line may name "__proto__": it walks own members only and never sets that key, so it
 * cannot reach a prototype (Deno hides the accessor, Bun and browsers do not).
 */
export function withValueAt(root: unknown, pointer: string, value: unknown): unknown {
  if (pointer === "") return value;
  const tokens = pointer.split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
  const copy = structuredClone(root) as Record<string, unknown>;
  let current: Record<string, unknown> = copy;
  for (const token of tokens.slice(0, -1)) {
    const next = Object.hasOwn(current, token) ? current[token] : undefined;
    if (!isJsonObject(next)) return copy;
    current = next;
  }
  const last = tokens.at(-1)!;
  if (last !== "__proto__") current[last] = value;
  return copy;
}

/** What score/'s buildRequestRecord is given for a line's facts (a skipped line has no concurrency of its own). */
export function recordInputOf(facts: LineFacts, skippedConcurrency: number): RecordInput {
  return facts.kind === "skipped"
    ? { kind: "skipped", reason: facts.reason, concurrency: skippedConcurrency }
    : { kind: "outcome", outcome: facts.outcome, concurrency: facts.concurrency };
}

/**
 * The record of `fixture` rebuilt from a line's facts, with the line's overrides applied.
 * @throws {TypeError} when score/ cannot build a record from these facts.
 */
export function rebuildRecord(
  fixture: Fixture,
  facts: LineFacts,
  overrides: Readonly<Record<string, unknown>>,
  skippedConcurrency: number,
): RequestRecord {
  let record: unknown = buildRequestRecord(fixture, recordInputOf(facts, skippedConcurrency)).record;
  for (const [pointer, value] of Object.entries(overrides)) record = withValueAt(record, pointer, value);
  return record as RequestRecord;
}

/** The resolved-configuration check of a sent request's line (score/'s comparison of body and /slots reading). */
export function configCheckOf(facts: LineFacts): ConfigCheck | null {
  return facts.kind === "outcome" ? checkResolvedConfig(facts.body, facts.slot) : null;
}
