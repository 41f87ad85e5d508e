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
 * - Only the contract's evidence version (`evidence_version` in every line) is read. Version 1 lines, written
 *   before the dispatch offset was recorded, cannot give exact durations; they are refused with that reason instead
 *   of being checked against a tolerance that a busy machine breaks.
 */
import {
  EVIDENCE_VERSION,
  type Fixture,
  readWrittenLine,
  type RequestRecord,
  schedule,
  type ScheduledRequest,
} from "../../contract/mod.ts";
import { keptCadence, pooledItl, type RequestSpan, stageDurationS, wallS } from "../../score/mod.ts";
import { parseStrictJsonPlain } from "../../score/mod.ts";
import { brief, leafDifferences } from "../_difference.ts";
import { childPointer, type ProblemSink } from "../_pointer.ts";
import { isJsonObject } from "../_contract_check.ts";
import { lineFacts, overridesOf, rebuildRecord, valueAt } from "../_evidence_line.ts";
import { checkConfigChecks, checkQueueing } from "./_resolved.ts";
import { checkPlausibleLines } from "./_plausible.ts";
import { checkOverridesListed, checkOverridesRedacted, statedSources } from "./_stated.ts";
import type { EvidenceCheckInput, EvidenceLine, OutputsEvidence } from "./_types.ts";
import { errorMessage } from "../../runtime/mod.ts";

/** Most evidence lines read: a run writes 22 or 34; past this a file is not a run's evidence. */
export const MAX_EVIDENCE_LINES = 1000;

/** A strict-JSON reason without the excerpt of the text it may quote ("prose instead of a JSON value (...)"). */
function unquoted(reason: string): string {
  return reason.replace(/ \(".*"\)$/s, "");
}

/** Parses the artifact strictly into lines; each malformed line is a problem at the artifact's pointer. */
export function parseEvidenceLines(
  evidence: OutputsEvidence,
  fixtures: ReadonlyMap<string, Fixture> | null,
  problems: ProblemSink,
): EvidenceLine[] | null {
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
  let versionProblem: string | null = null;
  pieces.forEach((piece, i) => {
    const say = (detail: string) => problems.push({ pointer: at, message: `${name} line ${i + 1}: ${detail}` });
    const parsed = parseStrictJsonPlain(piece, { integersAsWritten: true });
    // The reason is given without the text it quotes: a line that is not JSON may be anything, and is not echoed.
    if (!parsed.ok) return say(`not strict JSON: ${unquoted(parsed.reason)} (at character ${parsed.offset})`);
    const fields = parsed.value;
    if (!isJsonObject(fields)) return say(`must be one JSON object, found ${brief(fields)}`);
    const version = fields["evidence_version"];
    if (version !== EVIDENCE_VERSION) {
      versionProblem ??= version === undefined
        ? `line ${i + 1} is evidence version 1 (it has no evidence_version): version 1 carried each dispatch only ` +
          `as a wall-clock stamp, so its durations cannot be rebuilt exactly; this strata-bench reads version ` +
          `${EVIDENCE_VERSION}. Check the result with the strata-bench that wrote it, or run the protocol again`
        : version === 4
        ? `line ${i + 1} is evidence version 4 (each request's messages copied, stamps in decimal seconds), written ` +
          `by a strata-bench before version 5's light evidence; this strata-bench reads version ${EVIDENCE_VERSION}. ` +
          "Check the result with the strata-bench that wrote it, or run the protocol again"
        : `line ${i + 1} has evidence_version ${brief(version)}; this strata-bench reads version ${EVIDENCE_VERSION}`;
      return;
    }
    const id = fields["request_id"];
    const status = fields["status"];
    if (typeof id !== "string") return say(`request_id must be a string, found ${brief(id)}`);
    if (typeof status !== "string") return say(`status must be a string, found ${brief(status)}`);
    const read = readWrittenLine(fields, fixtures?.get(id) ?? null);
    if (typeof read === "string") return say(`request "${id}": ${read}`);
    const facts = lineFacts(read);
    if (typeof facts === "string") return say(status === "skipped" ? facts : `request "${id}": ${facts}`);
    const overrides = overridesOf(read);
    if (typeof overrides === "string") return say(`request "${id}": ${overrides}`);
    lines.push({ lineNumber: i + 1, id, status, facts, overrides, texts: statedSources(read) });
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

/**
 * Sub-pointers of a request record whose text the run derives from evidence text a person may redact (the error
 * text and skip reason of a line): after such a redaction `report --seal` writes them from the evidence.
 */
export const DERIVED_RECORD_TEXTS: readonly string[] = ["/error/message", "/evaluation/reason"];

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
  const cadences = new Map<string, ReturnType<typeof rebuildRecord>["reasoning_cadence"]>();
  for (const { index, record } of input.records) {
    const line = lineOf.get(record.id);
    const fixture = fixtures.get(record.id);
    if (line === undefined || fixture === undefined) continue;
    const base = childPointer("/requests", index);
    let rebuilt: RequestRecord;
    let cadence: ReturnType<typeof rebuildRecord>["reasoning_cadence"];
    try {
      ({ reasoning_cadence: cadence, ...rebuilt } = rebuildRecord(
        fixture,
        line.facts,
        line.overrides,
        record.concurrency,
      ));
    } catch (error) {
      const detail = errorMessage(error);
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
      const derived = DERIVED_RECORD_TEXTS.includes(sub)
        ? `; a text redacted in ${name} is carried here by "report DIR --seal", which writes this field from it`
        : "";
      problems.push({
        pointer: `${base}${sub}`,
        message: `results.json says ${brief(valueAt(record, sub))}, the evidence (${name} line ${line.lineNumber}: ` +
          `${field}) gives ${brief(valueAt(rebuilt, sub))}${derived}`,
      });
    }
    cadences.set(record.id, cadence);
    checkCadence(record.id, keptCadence(cadence), input.reasoningCadence, `${name} line ${line.lineNumber}`, problems);
  }
  checkPooledItl(input, cadences, problems);
}

const CADENCE_FIELDS = "reasoning_chunk_offsets_us, chunk_offsets_us, client_offsets_s.first_answer_s";

/** A record's reasoning cadence, held at /extensions/reasoning_cadence/<id>, against the one its line gives. */
function checkCadence(id: string, rebuilt: unknown, stated: unknown, where: string, problems: ProblemSink): void {
  const base = childPointer("/extensions/reasoning_cadence", id);
  if (!isJsonObject(stated) || !Object.hasOwn(stated, id)) {
    problems.push({
      pointer: base,
      message: `is absent; the evidence (${where}: ${CADENCE_FIELDS}) gives ${brief(rebuilt)} (every request's ` +
        "cadence is listed there by its id, null where it streamed no reasoning)",
    });
    return;
  }
  for (const sub of leafDifferences(rebuilt, stated[id])) {
    problems.push({
      pointer: `${base}${sub}`,
      message: `results.json says ${brief(valueAt(stated[id], sub))}, the evidence (${where}: ${CADENCE_FIELDS}) ` +
        `gives ${brief(valueAt(rebuilt, sub))}`,
    });
  }
}

/**
 * Each case's pooled gaps (/extensions/reasoning_itl) against the gaps of the rebuilt cadences of its measured
 * requests, with no tolerance (the same microsecond-rounded gaps, the same order statistics).
 */
function checkPooledItl(
  input: EvidenceCheckInput,
  cadences: ReadonlyMap<string, ReturnType<typeof rebuildRecord>["reasoning_cadence"]>,
  problems: ProblemSink,
): void {
  const rebuilt = pooledItl(input.records.map((r) => r.record), (id) => cadences.get(id));
  const where = `the evidence (${input.evidence.artifact.path}: ${CADENCE_FIELDS}, pooled per case)`;
  const stated = input.reasoningItl ?? [];
  if (!Array.isArray(stated)) {
    return void problems.push({ pointer: "/extensions/reasoning_itl", message: `is not a list; ${where} gives one` });
  }
  for (const sub of leafDifferences(rebuilt, stated)) {
    problems.push({
      pointer: `/extensions/reasoning_itl${sub}`,
      message: `results.json says ${brief(valueAt(stated, sub))}, ${where} gives ${brief(valueAt(rebuilt, sub))}`,
    });
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
function compareDuration(pointer: string, stated: number | null, rebuilt: Rebuilt, problems: ProblemSink): void {
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
function checkDurations(lines: readonly EvidenceLine[], input: EvidenceCheckInput, problems: ProblemSink): void {
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
export function checkEvidence(input: EvidenceCheckInput, problems: ProblemSink): void {
  const lines = parseEvidenceLines(input.evidence, input.fixtures, problems);
  if (lines === null) return;
  checkLineIds(lines, input.ids, input.evidence, problems);
  checkOverridesListed(lines, input, problems);
  checkOverridesRedacted(lines, input, problems);
  checkConfigChecks(lines, input, problems);
  checkQueueing(lines, input, problems);
  if (input.fixtures !== null) checkRecords(lines, input, input.fixtures, problems);
  checkDurations(lines, input, problems);
  checkPlausibleLines(lines, input.startedAt, childPointer("/artifacts", input.evidence.index), problems);
}
