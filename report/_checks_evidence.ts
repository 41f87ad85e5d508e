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
 * - Durations are compared within `DURATION_TOLERANCE_MS` plus `CLOCK_RATE_TOLERANCE` of the duration (see there).
 */
import {
  type Artifact,
  type ClientOffsets,
  type Fixture,
  type RequestRecord,
  type Result,
  schedule,
  type ScheduledRequest,
  STREAM_END_KINDS,
  type StreamEnd,
  type StreamOutcome,
  type ToolCallRecord,
} from "../contract/mod.ts";
import { buildRequestRecord, parseStrictJsonPlain, type RecordInput } from "../score/mod.ts";
import { brief } from "./_difference.ts";
import { childPointer, type ProblemSink } from "./_pointer.ts";
import { isJsonObject } from "./_contract_check.ts";
import type { CheckedRecord } from "./_checks_requests.ts";

/**
 * Absolute slack of a duration rebuilt from the evidence. The run measures durations on the monotonic clock from
 * just before a request is handed to the client (before connecting) to just after its stream ends; the evidence
 * has the wall-clock stamp (Date.now, whole milliseconds) taken when the request bytes were sent plus the
 * monotonic end offset from there. Two whole-millisecond stamps differ by up to 2 ms from the truth, and
 * connecting on loopback plus scheduling delay on a loaded machine take a few more.
 */
export const DURATION_TOLERANCE_MS = 10;

/**
 * Relative slack: the wall clock may run up to 500 ppm off the monotonic clock while NTP slews it (Linux's
 * largest slew rate), so stamps far apart can disagree by that share of the time between them. A wall-clock step
 * during a run is not covered, and is reported.
 */
export const CLOCK_RATE_TOLERANCE = 5e-4;

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
  facts: { kind: "skipped"; reason: string } | { kind: "outcome"; outcome: StreamOutcome; concurrency: number };
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

/** The facts of one parsed outcome line, or why they cannot be read. */
function outcomeOf(fields: Fields): { outcome: StreamOutcome; concurrency: number } | string {
  const wrong = (name: string, wanted: string) => `${name} must be ${wanted}, found ${brief(fields[name])}`;
  for (const key of ["usage", "timings"]) {
    if (!Object.hasOwn(fields, key)) return `${key} is absent (the raw object, or null when none arrived)`;
  }
  const concurrency = fields["concurrency"];
  if (!Number.isSafeInteger(concurrency) || (concurrency as number) < 1) return wrong("concurrency", "a count ≥ 1");
  if (!isJsonObject(fields["request"])) return wrong("request", "the request body object that was sent");
  const dispatched = fields["dispatched_at_epoch_ms"];
  if (typeof dispatched !== "number" || !Number.isFinite(dispatched)) {
    return wrong("dispatched_at_epoch_ms", "epoch milliseconds");
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
    outcome: {
      dispatched_at_epoch_ms: dispatched,
      end: end as StreamEnd,
      http_status: httpStatus as number | null,
      finish_reason: fields["finish_reason"] as string | null,
      error_message: message,
      first_delta_kind: fields["first_delta_kind"] as StreamOutcome["first_delta_kind"],
      reasoning_text: fields["reasoning_text"] as string,
      answer_text: fields["final_answer"] as string,
      tool_calls: toolCalls,
      usage: fields["usage"],
      timings: fields["timings"],
      offsets,
      events: fields["sse_events"] as number,
      keepalives: fields["keepalives"] as number,
    },
  };
}

/** Most evidence lines read: a run writes 22 or 34; past this a file is not a run's evidence. */
export const MAX_EVIDENCE_LINES = 1000;

/** A strict-JSON reason without the excerpt of the text it may quote ("prose instead of a JSON value (...)"). */
function unquoted(reason: string): string {
  return reason.replace(/ \(".*"\)$/s, "");
}

/** Parses the artifact strictly into lines; each malformed line is a problem at the artifact's pointer. */
function parseLines(evidence: OutputsEvidence, problems: ProblemSink): EvidenceLine[] | null {
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
  const pieces = text.split("\n", MAX_EVIDENCE_LINES + 2);
  if (pieces.at(-1) === "") pieces.pop();
  if (pieces.length > MAX_EVIDENCE_LINES) {
    problems.push({
      pointer: at,
      message: `${name} has more than ${MAX_EVIDENCE_LINES} lines; a run writes one per request (22 or 34), so ` +
        `only the first ${MAX_EVIDENCE_LINES} are read`,
    });
    pieces.length = MAX_EVIDENCE_LINES;
  }
  const lines: EvidenceLine[] = [];
  pieces.forEach((piece, i) => {
    const say = (detail: string) => problems.push({ pointer: at, message: `${name} line ${i + 1}: ${detail}` });
    const parsed = parseStrictJsonPlain(piece);
    // The reason is given without the text it quotes: a line that is not JSON may be anything, and is not echoed.
    if (!parsed.ok) return say(`not strict JSON: ${unquoted(parsed.reason)} (at character ${parsed.offset})`);
    const fields = parsed.value;
    if (!isJsonObject(fields)) return say(`must be one JSON object, found ${brief(fields)}`);
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
  return lines;
}

/** Each record has exactly one line, no line lacks a record, and lines follow send order. */
function checkLineIds(
  lines: readonly EvidenceLine[],
  ids: readonly (string | null)[],
  evidence: OutputsEvidence,
  problems: ProblemSink,
): void {
  const at = childPointer("/artifacts", evidence.index);
  const name = evidence.artifact.path;
  const recordIndex = new Map<string, number>();
  ids.forEach((id, index) => {
    if (id !== null && !recordIndex.has(id)) recordIndex.set(id, index);
  });
  const roundOf = new Map(schedule(true).map((s) => [s.id, s.round]));
  // The first record index of each concurrency round, computed once (linear in the records).
  const roundStart = new Map<number, number>();
  ids.forEach((id, i) => {
    const round = id === null ? undefined : roundOf.get(id);
    if (round !== undefined && round !== null && !roundStart.has(round)) roundStart.set(round, i);
  });
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
    const key = round === null ? index : roundStart.get(round) ?? index;
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
  problems: ProblemSink,
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

/** Dispatch and end of a sent request in epoch milliseconds (null when the offsets cannot give the end). */
function spanOf(line: EvidenceLine): { startMs: number; endMs: number } | null {
  if (line.facts.kind !== "outcome") return null;
  const { dispatched_at_epoch_ms: startMs, offsets } = line.facts.outcome;
  if (!Number.isFinite(offsets.end_s) || offsets.end_s < 0) return null;
  return { startMs, endMs: startMs + offsets.end_s * 1000 };
}

/** Rebuilt stage or round duration: a number, "not run" (null expected), or "unknown" (the evidence cannot tell). */
type Rebuilt = { seconds: number; from: string } | { notRun: string } | "unknown";

function spanDuration(group: readonly (EvidenceLine | undefined)[], name: string, what: string): Rebuilt {
  if (group.length === 0 || group.some((line) => line === undefined)) return "unknown";
  const present = group as EvidenceLine[];
  const skipped = present.find((line) => line.facts.kind === "skipped");
  if (skipped) return { notRun: `${name} line ${skipped.lineNumber} shows "${skipped.id}" was never sent` };
  const spans = present.map(spanOf);
  if (spans.some((span) => span === null)) return "unknown";
  const known = spans as { startMs: number; endMs: number }[];
  const seconds = (Math.max(...known.map((s) => s.endMs)) - Math.min(...known.map((s) => s.startMs))) / 1000;
  const numbers = present.map((line) => line.lineNumber).sort((a, b) => a - b);
  const at = numbers.length === 1 ? `line ${numbers[0]}` : `lines ${numbers[0]}-${numbers.at(-1)}`;
  return { seconds, from: `${name} ${at}: ${what}` };
}

function compareDuration(pointer: string, stated: number | null, rebuilt: Rebuilt, problems: ProblemSink): void {
  if (rebuilt === "unknown") return;
  if ("notRun" in rebuilt) {
    if (stated !== null) {
      problems.push({ pointer, message: `results.json says ${stated}, but ${rebuilt.notRun}; it must be null` });
    }
    return;
  }
  const toleranceS = DURATION_TOLERANCE_MS / 1000 + CLOCK_RATE_TOLERANCE * rebuilt.seconds;
  const shown = Math.round(rebuilt.seconds * 1000) / 1000;
  if (stated === null) {
    problems.push({ pointer, message: `results.json says null, the evidence (${rebuilt.from}) gives ${shown} s` });
  } else if (Math.abs(stated - rebuilt.seconds) > toleranceS) {
    problems.push({
      pointer,
      message: `results.json says ${stated}, the evidence (${rebuilt.from}) gives ${shown} s (tolerance ±${
        Math.round(toleranceS * 1000)
      } ms; a wall-clock step during the run would also cause this)`,
    });
  }
}

/** Required and optional durations and round wall times against the lines' dispatch stamps and end offsets. */
function checkDurations(lines: readonly EvidenceLine[], input: EvidenceCheckInput, problems: ProblemSink): void {
  const name = input.evidence.artifact.path;
  const byId = new Map<string, EvidenceLine>();
  for (const line of lines) if (!byId.has(line.id)) byId.set(line.id, line);
  const planned = schedule(true);
  const lineOf = (s: ScheduledRequest) => byId.get(s.id);
  const span = "dispatched_at_epoch_ms to dispatched_at_epoch_ms + client_offsets_s.end_s";
  const run = input.run;
  if (run !== null) {
    // The run measures the required stages from the warm-up's dispatch to the last sanity request's end.
    const warmup = planned.find((s) => s.phase === "warmup");
    const lastSanity = planned.filter((s) => s.phase === "sanity").at(-1);
    if (warmup && lastSanity) {
      const first = lineOf(warmup);
      const last = lineOf(lastSanity);
      let rebuilt: Rebuilt = "unknown";
      if (first?.facts.kind === "skipped" || last?.facts.kind === "skipped") {
        rebuilt = spanDuration([first?.facts.kind === "skipped" ? first : last], name, span);
      } else if (first && last) {
        const a = spanOf(first);
        const b = spanOf(last);
        if (a && b) {
          rebuilt = {
            seconds: (b.endMs - a.startMs) / 1000,
            from: `${name} lines ${first.lineNumber} and ${last.lineNumber}: ${span}`,
          };
        }
      }
      compareDuration("/run/required_duration_s", run.requiredDurationS, rebuilt, problems);
    }
    if (run.optionalConcurrency) {
      const burst = planned.filter((s) => s.phase === "concurrency").map(lineOf);
      compareDuration("/run/optional_duration_s", run.optionalDurationS, spanDuration(burst, name, span), problems);
    }
  }
  if (input.rounds !== null && run?.optionalConcurrency !== false) {
    input.rounds.forEach((round, index) => {
      const members = planned.filter((s) => s.phase === "concurrency" && s.round === round.round).map(lineOf);
      const pointer = childPointer(childPointer("/concurrency_rounds", index), "wall_s");
      compareDuration(pointer, round.wall_s, spanDuration(members, name, span), problems);
    });
  }
}

/**
 * Checks the outputs evidence against the result: strict lines, one per record in send order, every record
 * rebuilt from its line (when fixtures are given), and durations rebuilt from dispatch stamps and end offsets.
 */
export function checkEvidence(input: EvidenceCheckInput, problems: ProblemSink): void {
  const lines = parseLines(input.evidence, problems);
  if (lines === null) return;
  checkLineIds(lines, input.ids, input.evidence, problems);
  if (input.fixtures !== null) checkRecords(lines, input, input.fixtures, problems);
  checkDurations(lines, input, problems);
}
