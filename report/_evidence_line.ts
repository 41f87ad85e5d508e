/**
 * One outputs.jsonl line read back: its facts (a skip, or a stream outcome with its dispatch on the run's clock),
 * the request record rebuilt from them with score/'s buildRequestRecord, and the record values a line states
 * explicitly because redaction changed the text they were computed from (`record_overrides`). The validator and
 * the runner both use this, so a record the run publishes is by construction the one the evidence rebuilds.
 */
import {
  type Fixture,
  LINE_NAMES,
  SENT_LINE_SCHEMA,
  type SentLine,
  SKIPPED_LINE_SCHEMA,
  type SlotReading,
  type StreamOutcome,
} from "../contract/mod.ts";
import {
  buildRequestRecord,
  checkResolvedConfig,
  type ConfigCheck,
  type RecordInput,
  type ScoredRecord,
} from "../score/mod.ts";
import { brief } from "./_difference.ts";
import { pointerTokens, type Problem, resolvePointer } from "./_pointer.ts";
import { checkSchema, isJsonObject, type SchemaNode } from "./_contract_check.ts";

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

type Fields = Record<string, unknown>;

const SKIPPED: SchemaNode = JSON.parse(JSON.stringify(SKIPPED_LINE_SCHEMA));
const SENT: SchemaNode = JSON.parse(JSON.stringify(SENT_LINE_SCHEMA));

/** The `member` of a chunk as JSON.parse reads it (what the client parsed), or null when it cannot be read. */
function memberOf(chunk: string, member: string): unknown {
  try {
    const value = JSON.parse(chunk) as unknown;
    return isJsonObject(value) ? value[member] ?? null : null;
  } catch {
    return null;
  }
}

/** The first way `fields` breaks the line's schema, named by its field ("client_offsets_s/end_s: expected ..."). */
function schemaProblem(fields: Fields, node: SchemaNode): string | null {
  const problems: Problem[] = [];
  checkSchema(fields, node, "", problems);
  const first = problems[0];
  return first === undefined ? null : `${first.pointer.slice(1)}: ${first.message}`;
}

/**
 * What the schema cannot say of a sent line: the exact chunk text or the parsed object of usage and timings (one
 * of the two), and an error that matches the stream's end.
 */
function sentLineProblem(line: SentLine): string | null {
  for (const key of ["usage", "timings"] as const) {
    if (!Object.hasOwn(line, `${key}_chunk`) && !Object.hasOwn(line, key)) {
      return `${key}_chunk is absent (the exact text of the chunk that carried ${key}, or null when none arrived)`;
    }
  }
  const { end, error } = line;
  if (end === "finished") {
    if (error !== null) return `error must be null for a stream that finished, found ${brief(error)}`;
  } else if (error === null || error.kind !== end) {
    return `error must be {kind: ${JSON.stringify(end)}, message} for a stream that ended "${end}", found ${
      brief(error)
    }`;
  }
  return null;
}

/** The stream outcome a sent line records (the line's names mapped back through LINE_NAMES). */
function outcomeOf(line: SentLine): StreamOutcome {
  const raw = (key: "usage" | "timings") => {
    const chunk = line[`${key}_chunk`];
    return chunk === undefined
      ? { parsed: line[key] ?? null }
      : { parsed: chunk === null ? null : memberOf(chunk, key), chunk };
  };
  const usage = raw("usage"), timings = raw("timings");
  return {
    dispatched_at_epoch_ms: line.dispatched_at_epoch_ms,
    // The line keeps the run's offset, not the clock reading; the record needs neither.
    dispatch_clock_ms: Number.NaN,
    end: line.end,
    http_status: line.http_status,
    finish_reason: line.finish_reason,
    // The run writes the end's name as the message when the client had no error text.
    error_message: line.error === null || line.error.message === line.end ? null : line.error.message,
    first_delta_kind: line.first_delta_kind,
    reasoning_text: line.reasoning_text,
    answer_text: line[LINE_NAMES.answer_text],
    tool_calls: line.tool_calls,
    usage: usage.parsed,
    timings: timings.parsed,
    ...(usage.chunk === undefined ? {} : { usage_chunk: usage.chunk }),
    ...(timings.chunk === undefined ? {} : { timings_chunk: timings.chunk }),
    ...(line.invalid_utf8.length === 0 ? {} : { invalid_utf8: line.invalid_utf8 }),
    offsets: line[LINE_NAMES.offsets],
    events: line[LINE_NAMES.events],
    keepalives: line.keepalives,
    ...(line.chunk_offsets_s === undefined ? {} : { chunk_offsets_s: line.chunk_offsets_s }),
    ...(line.reasoning_chunk_offsets_s === undefined
      ? {}
      : { reasoning_chunk_offsets_s: line.reasoning_chunk_offsets_s }),
    ...(line.unstamped_chunks === undefined ? {} : { unstamped_chunks: line.unstamped_chunks }),
    ...(line.finish_reason_cut_chars === undefined ? {} : { finish_reason_cut_chars: line.finish_reason_cut_chars }),
    ...(line.usage_chunk_cut_chars === undefined ? {} : { usage_chunk_cut_chars: line.usage_chunk_cut_chars }),
    ...(line.timings_chunk_cut_chars === undefined ? {} : { timings_chunk_cut_chars: line.timings_chunk_cut_chars }),
    resent_on_fresh_connection: line.resent_on_fresh_connection,
  };
}

/** The value at `pointer` in `root` (own members only), or undefined where there is none. */
export function valueAt(root: unknown, pointer: string): unknown {
  const resolved = resolvePointer(root, pointer);
  return resolved.found ? resolved.value : undefined;
}

/**
 * The line's facts: a skip with its reason, or an outcome; a string says why the line cannot be read (the first
 * way it breaks contract/'s evidence schema, or what the schema cannot say).
 */
export function lineFacts(fields: Fields): LineFacts | string {
  if (fields["status"] === "skipped") {
    const problem = schemaProblem(fields, SKIPPED);
    if (problem !== null) return `a skipped request's line: ${problem}`;
    return { kind: "skipped", reason: fields["skip_reason"] as string };
  }
  const problem = schemaProblem(fields, SENT) ?? sentLineProblem(fields as SentLine);
  if (problem !== null) return problem;
  const line = fields as SentLine;
  return {
    kind: "outcome",
    outcome: outcomeOf(line),
    concurrency: line.concurrency,
    dispatchOffsetS: line.dispatch_offset_s,
    body: line.request,
    slot: line.slot_reading as SlotReading,
  };
}

/**
 * Values the line states for record fields (JSON Pointer into the record -> value), or why they are unreadable; for
 * a line lineFacts read (its schema makes record_overrides an object where present).
 */
export function overridesOf(fields: Fields): Record<string, unknown> | string {
  const value = (fields["record_overrides"] ?? {}) as Record<string, unknown>;
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
  const tokens = pointerTokens(pointer);
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
): ScoredRecord {
  let record: unknown = buildRequestRecord(fixture, recordInputOf(facts, skippedConcurrency)).record;
  for (const [pointer, value] of Object.entries(overrides)) record = withValueAt(record, pointer, value);
  return record as ScoredRecord;
}

/** The resolved-configuration check of a sent request's line (score/'s comparison of body and /slots reading). */
export function configCheckOf(facts: LineFacts): ConfigCheck | null {
  return facts.kind === "outcome" ? checkResolvedConfig(facts.body, facts.slot) : null;
}
