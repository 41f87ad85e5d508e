/**
 * The evidence check: the outputs artifact (JSON Lines, one line per request, written by the run as each request
 * ended) against results.json. Every line is parsed strictly; every request record is rebuilt from its line with
 * score/'s `buildRequestRecord` and compared field by field; the required and optional stage durations and each
 * concurrency round's wall time are rebuilt from the lines' dispatch stamps and end offsets.
 *
 * Readings this file implements:
 * - Lines follow the send order of results.json's records, except inside one concurrency round, whose four lines
 *   follow termination order (the run appends each line as its request ends).
 * - A line's error message is the client's error text, or the stream end's name when the client had none (that
 *   is how the run writes it), so a message equal to the end's name is read as "no message".
 * - Durations are rebuilt with score/'s durations functions from each line's `dispatch_offset_s` (the run's
 *   monotonic clock) and `client_offsets_s.end_s` (the same clock, from that dispatch): the numbers the run itself
 *   computed them from, so they must be equal, with no tolerance. The wall-clock `dispatched_at_epoch_ms` is
 *   metadata only.
 * - Only evidence version 2 (`evidence_version` in every line) is read. Version 1 lines, written before the
 *   dispatch offset was recorded, cannot give exact durations; they are refused with that reason instead of being
 *   checked against a tolerance that a busy machine breaks.
 */
import {
  type Artifact,
  type ClientOffsets,
  DELTA_KINDS,
  type Fixture,
  type InvalidUtf8Record,
  type RequestRecord,
  type Result,
  schedule,
  type ScheduledRequest,
  STREAM_END_KINDS,
  type StreamEnd,
  type StreamOutcome,
  type ToolCallRecord,
} from "../contract/mod.ts";
import {
  buildRequestRecord,
  parseStrictJsonPlain,
  type RecordInput,
  type RequestSpan,
  stageDurationS,
  wallS,
} from "../score/mod.ts";
import { brief } from "./_difference.ts";
import { childPointer, type Problem } from "./_pointer.ts";
import { isJsonObject } from "./_contract_check.ts";
import type { CheckedRecord } from "./_checks_requests.ts";
import { EVIDENCE_VERSION } from "./result_folder.ts";

/** The outputs artifact and its bytes. */
export interface OutputsEvidence {
  /** Index of the artifact in /artifacts. */
  index: number;
  artifact: Artifact;
  bytes: Uint8Array;
}

/** What the request records and durations are checked with. */
export interface EvidenceCheckInput {
  evidence: OutputsEvidence;
  /** ID of every record, by index (null where the record has no string id). */
  ids: readonly (string | null)[];
  /** Records whose shape is valid. */
  records: readonly CheckedRecord[];
  /** The bundle's fixtures by ID; null: records are not rebuilt (only order, lines and durations are checked). */
  fixtures: ReadonlyMap<string, Fixture> | null;
  /** Run facts, where their shape is valid (null otherwise). */
  run: {
    requiredDurationS: number | null;
    optionalDurationS: number | null;
    optionalConcurrency: boolean;
  } | null;
  /** Concurrency rounds, where their shape is valid (null otherwise). */
  rounds: Result["concurrency_rounds"] | null;
}

/** One parsed line: its number (1-based), request id, and the facts a record is built from. */
interface EvidenceLine {
  lineNumber: number;
  id: string;
  status: string;
  facts:
    | { kind: "skipped"; reason: string }
    | { kind: "outcome"; outcome: StreamOutcome; concurrency: number; dispatchOffsetS: number };
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
function outcomeOf(
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

/** Parses the artifact strictly into lines; each malformed line is a problem at the artifact's pointer. */
function parseLines(evidence: OutputsEvidence, problems: Problem[]): EvidenceLine[] | null {
  const at = childPointer("/artifacts", evidence.index);
  const name = evidence.artifact.path;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(evidence.bytes);
  } catch {
    problems.push({ pointer: at, message: `"${name}" is not UTF-8 text; the evidence cannot be read` });
    return null;
  }
  if (text !== "" && !text.endsWith("\n")) {
    problems.push({ pointer: at, message: `"${name}" does not end with a newline: its last line is cut off` });
  }
  const pieces = text.split("\n");
  if (pieces.at(-1) === "") pieces.pop();
  const lines: EvidenceLine[] = [];
  let versionProblem: string | null = null;
  pieces.forEach((piece, i) => {
    const say = (detail: string) => problems.push({ pointer: at, message: `${name} line ${i + 1}: ${detail}` });
    const parsed = parseStrictJsonPlain(piece);
    if (!parsed.ok) return say(`not strict JSON: ${parsed.reason} (at character ${parsed.offset})`);
    const fields = parsed.value;
    if (!isJsonObject(fields)) return say(`must be one JSON object, found ${brief(fields)}`);
    const version = fields["evidence_version"];
    if (version !== EVIDENCE_VERSION) {
      versionProblem ??= version === undefined
        ? `line ${i + 1} is evidence version 1 (it has no evidence_version): version 1 carried each dispatch only ` +
          `as a wall-clock stamp, so its durations cannot be rebuilt exactly; this strata-bench reads version ` +
          `${EVIDENCE_VERSION}. Check the result with the strata-bench that wrote it, or run the protocol again`
        : `line ${i + 1} has evidence_version ${brief(version)}; this strata-bench reads version ${EVIDENCE_VERSION}`;
      return;
    }
    const id = fields["request_id"];
    const status = fields["status"];
    if (typeof id !== "string") return say(`request_id must be a string, found ${brief(id)}`);
    if (typeof status !== "string") return say(`status must be a string, found ${brief(status)}`);
    if (status === "skipped") {
      const reason = fields["skip_reason"];
      if (typeof reason !== "string") return say(`a skipped request needs skip_reason, found ${brief(reason)}`);
      lines.push({ lineNumber: i + 1, id, status, facts: { kind: "skipped", reason } });
      return;
    }
    const facts = outcomeOf(fields);
    if (typeof facts === "string") return say(`request "${id}": ${facts}`);
    lines.push({ lineNumber: i + 1, id, status, facts: { kind: "outcome", ...facts } });
  });
  if (versionProblem !== null) {
    problems.push({ pointer: at, message: `${name} ${versionProblem}` });
    return null;
  }
  return lines;
}

/** Each record has exactly one line, no line lacks a record, and lines follow send order. */
function checkLineIds(
  lines: readonly EvidenceLine[],
  ids: readonly (string | null)[],
  evidence: OutputsEvidence,
  problems: Problem[],
): void {
  const at = childPointer("/artifacts", evidence.index);
  const name = evidence.artifact.path;
  const recordIndex = new Map<string, number>();
  ids.forEach((id, index) => {
    if (id !== null && !recordIndex.has(id)) recordIndex.set(id, index);
  });
  const roundOf = new Map(schedule(true).map((s) => [s.id, s.round]));
  const lineOf = new Map<string, number>();
  // Order key: the record index, or the first record index of the line's concurrency round.
  const keys: { line: EvidenceLine; key: number }[] = [];
  for (const line of lines) {
    const first = lineOf.get(line.id);
    if (first !== undefined) {
      problems.push({
        pointer: at,
        message: `${name} line ${line.lineNumber} repeats request "${line.id}" (first on line ${first})`,
      });
      continue;
    }
    lineOf.set(line.id, line.lineNumber);
    const index = recordIndex.get(line.id);
    if (index === undefined) {
      problems.push({
        pointer: at,
        message: `${name} line ${line.lineNumber} is for request "${line.id}", which has no record in results.json`,
      });
      continue;
    }
    const round = roundOf.get(line.id) ?? null;
    const key = round === null
      ? index
      : Math.min(...ids.flatMap((id, i) => (id !== null && roundOf.get(id) === round ? [i] : [])));
    keys.push({ line, key });
  }
  for (const [id, index] of recordIndex) {
    if (!lineOf.has(id)) {
      problems.push({
        pointer: at,
        message: `${name} has no line for request "${id}" (/requests/${index}): every request needs its evidence`,
      });
    }
  }
  for (let i = 1; i < keys.length; i++) {
    const before = keys[i - 1]!;
    const after = keys[i]!;
    if (after.key < before.key) {
      problems.push({
        pointer: at,
        message: `${name} line ${after.line.lineNumber} ("${after.line.id}") comes after line ` +
          `${before.line.lineNumber} ("${before.line.id}"), but results.json sends it earlier; lines follow the ` +
          "send order (termination order inside a concurrency round)",
      });
      return;
    }
  }
}

/** Where in a line the value at a record sub-pointer comes from, for messages. */
function evidenceField(sub: string, rebuilt: RequestRecord, line: EvidenceLine): string {
  if (line.facts.kind === "skipped") return "skip_reason";
  const token = /^\/(?:tokens|sources)\/([a-z_]+)$/.exec(sub)?.[1];
  if (token !== undefined && token in rebuilt.sources) {
    return rebuilt.sources[token as keyof RequestRecord["sources"]] ?? "usage, timings";
  }
  if (sub === "/timings/prompt_s" || sub === "/timings/decode_s" || sub.startsWith("/metrics/")) {
    return rebuilt.sources.engine_timings ?? "usage, timings";
  }
  const fixed: [string, string][] = [
    ["/timings/ttft_s", "client_offsets_s.first_delta_s"],
    ["/timings/first_answer_s", "client_offsets_s.first_answer_s"],
    ["/timings/total_s", "client_offsets_s.end_s"],
    ["/finish_reason", "finish_reason"],
    ["/first_delta_kind", "first_delta_kind"],
    ["/concurrency", "concurrency"],
    ["/evaluation", "final_answer, tool_calls"],
    ["/status", "end, finish_reason"],
    ["/error", "end, http_status, error"],
    ["/sources/", "usage, timings"],
    ["/token_accounting_note", "usage, timings"],
  ];
  return fixed.find(([prefix]) => sub.startsWith(prefix))?.[1] ?? "its facts";
}

/** Every leaf where `actual` differs from `expected` (a whole subtree where their kinds differ). */
function leafDifferences(expected: unknown, actual: unknown, pointer = ""): string[] {
  if (isJsonObject(expected) && isJsonObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((key) => leafDifferences(expected[key], actual[key], childPointer(pointer, key)));
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    return expected.flatMap((item, i) => leafDifferences(item, actual[i], childPointer(pointer, i)));
  }
  return JSON.stringify(expected) === JSON.stringify(actual) ? [] : [pointer];
}

function valueAt(root: unknown, sub: string): unknown {
  let current = root;
  for (const token of sub.split("/").slice(1)) {
    const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
    current = isJsonObject(current) || Array.isArray(current) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

/** Rebuilds each record from its line with score/'s buildRequestRecord and reports every differing field. */
function checkRecords(
  lines: readonly EvidenceLine[],
  input: EvidenceCheckInput,
  fixtures: ReadonlyMap<string, Fixture>,
  problems: Problem[],
): void {
  const name = input.evidence.artifact.path;
  const lineOf = new Map<string, EvidenceLine>();
  for (const line of lines) if (!lineOf.has(line.id)) lineOf.set(line.id, line);
  for (const { index, record } of input.records) {
    const line = lineOf.get(record.id);
    const fixture = fixtures.get(record.id);
    if (line === undefined || fixture === undefined) continue;
    const base = childPointer("/requests", index);
    const recordInput: RecordInput = line.facts.kind === "skipped"
      ? { kind: "skipped", reason: line.facts.reason, concurrency: record.concurrency }
      : { kind: "outcome", outcome: line.facts.outcome, concurrency: line.facts.concurrency };
    let rebuilt: RequestRecord;
    try {
      rebuilt = buildRequestRecord(fixture, recordInput).record;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      problems.push({ pointer: base, message: `cannot be rebuilt from ${name} line ${line.lineNumber}: ${detail}` });
      continue;
    }
    if (line.status !== rebuilt.status) {
      problems.push({
        pointer: childPointer("/artifacts", input.evidence.index),
        message: `${name} line ${line.lineNumber} says status "${line.status}", but its facts give "${rebuilt.status}"`,
      });
    }
    for (const sub of leafDifferences(rebuilt, record)) {
      const field = evidenceField(sub, rebuilt, line);
      problems.push({
        pointer: `${base}${sub}`,
        message: `results.json says ${brief(valueAt(record, sub))}, the evidence (${name} line ${line.lineNumber}: ` +
          `${field}) gives ${brief(valueAt(rebuilt, sub))}`,
      });
    }
  }
}

/** Where a sent request lies on the run's clock (null when its end offset is unusable). */
function spanOf(line: EvidenceLine): RequestSpan | null {
  if (line.facts.kind !== "outcome") return null;
  const endOffsetS = line.facts.outcome.offsets.end_s;
  if (!Number.isFinite(endOffsetS) || endOffsetS < 0) return null;
  return { dispatchOffsetS: line.facts.dispatchOffsetS, endOffsetS };
}

/** Rebuilt stage or round duration: a number, "not run" (null expected), or "unknown" (the evidence cannot tell). */
type Rebuilt = { seconds: number; from: string } | { notRun: string } | "unknown";

const SPAN_WORDS = "dispatch_offset_s to dispatch_offset_s + client_offsets_s.end_s";

function lineNumbers(lines: readonly EvidenceLine[]): string {
  const numbers = lines.map((line) => line.lineNumber).sort((a, b) => a - b);
  return numbers.length === 1 ? `line ${numbers[0]}` : `lines ${numbers[0]}-${numbers.at(-1)}`;
}

/** The wall of a group of lines (first dispatch to last termination), as the run measures it. */
function groupWall(group: readonly (EvidenceLine | undefined)[], name: string): Rebuilt {
  if (group.length === 0 || group.some((line) => line === undefined)) return "unknown";
  const present = group as EvidenceLine[];
  const skipped = present.find((line) => line.facts.kind === "skipped");
  if (skipped) return { notRun: `${name} line ${skipped.lineNumber} shows "${skipped.id}" was never sent` };
  const spans = present.map(spanOf);
  if (spans.some((span) => span === null)) return "unknown";
  return { seconds: wallS(spans as RequestSpan[]), from: `${name} ${lineNumbers(present)}: ${SPAN_WORDS}` };
}

/** The required stages: the warm-up's dispatch to the last sanity request's termination. */
function requiredSpan(first: EvidenceLine | undefined, last: EvidenceLine | undefined, name: string): Rebuilt {
  const skipped = [first, last].find((line) => line?.facts.kind === "skipped");
  if (skipped) return groupWall([skipped], name);
  if (first === undefined || last === undefined) return "unknown";
  const a = spanOf(first);
  const b = spanOf(last);
  if (a === null || b === null) return "unknown";
  return {
    seconds: stageDurationS(a, b),
    from: `${name} lines ${first.lineNumber} and ${last.lineNumber}: ${SPAN_WORDS}`,
  };
}

/** The stated duration must be the rebuilt one exactly: both come from the same numbers by the same functions. */
function compareDuration(pointer: string, stated: number | null, rebuilt: Rebuilt, problems: Problem[]): void {
  if (rebuilt === "unknown") return;
  if ("notRun" in rebuilt) {
    if (stated !== null) {
      problems.push({ pointer, message: `results.json says ${stated}, but ${rebuilt.notRun}; it must be null` });
    }
    return;
  }
  if (stated === rebuilt.seconds) return;
  problems.push({
    pointer,
    message: `results.json says ${stated}, the evidence (${rebuilt.from}) gives ${rebuilt.seconds}; the run ` +
      "measures this duration from exactly these numbers",
  });
}

/** Required and optional durations and round wall times against the lines' dispatch and end offsets. */
function checkDurations(lines: readonly EvidenceLine[], input: EvidenceCheckInput, problems: Problem[]): void {
  const name = input.evidence.artifact.path;
  const byId = new Map<string, EvidenceLine>();
  for (const line of lines) if (!byId.has(line.id)) byId.set(line.id, line);
  const planned = schedule(true);
  const lineOf = (s: ScheduledRequest) => byId.get(s.id);
  const run = input.run;
  if (run !== null) {
    const warmup = planned.find((s) => s.phase === "warmup");
    const lastSanity = planned.filter((s) => s.phase === "sanity").at(-1);
    if (warmup && lastSanity) {
      const rebuilt = requiredSpan(lineOf(warmup), lineOf(lastSanity), name);
      compareDuration("/run/required_duration_s", run.requiredDurationS, rebuilt, problems);
    }
    if (run.optionalConcurrency) {
      const burst = planned.filter((s) => s.phase === "concurrency").map(lineOf);
      compareDuration("/run/optional_duration_s", run.optionalDurationS, groupWall(burst, name), problems);
    }
  }
  if (input.rounds !== null && run?.optionalConcurrency !== false) {
    input.rounds.forEach((round, index) => {
      const members = planned.filter((s) => s.phase === "concurrency" && s.round === round.round).map(lineOf);
      const pointer = childPointer(childPointer("/concurrency_rounds", index), "wall_s");
      compareDuration(pointer, round.wall_s, groupWall(members, name), problems);
    });
  }
}

/**
 * Checks the outputs evidence against the result: strict lines, one per record in send order, every record
 * rebuilt from its line (when fixtures are given), and durations rebuilt exactly from dispatch and end offsets.
 */
export function checkEvidence(input: EvidenceCheckInput, problems: Problem[]): void {
  const lines = parseLines(input.evidence, problems);
  if (lines === null) return;
  checkLineIds(lines, input.ids, input.evidence, problems);
  if (input.fixtures !== null) checkRecords(lines, input, input.fixtures, problems);
  checkDurations(lines, input, problems);
}
