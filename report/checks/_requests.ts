/**
 * Checks of the request records that a schema cannot express: the exact ID scheme and order, each record's fixed
 * facts against its ID, status versus error and finish reason, and sanity verdicts.
 */
import { type RequestRecord, type SanityCategory, schedule, type ScheduledRequest } from "../../contract/mod.ts";
import { childPointer, type ProblemSink } from "../_pointer.ts";

/** Request records whose own shape was valid, with their index; the others were reported by the shape check. */
export interface CheckedRecord {
  index: number;
  record: RequestRecord;
}

const CATEGORY_OF_LETTER: Readonly<Record<string, SanityCategory>> = {
  I: "instruction",
  R: "retrieval",
  T: "tool_call",
};

/** Finish reasons that end a completed request; "length" (the cap) makes it truncated; any other one failed. */
const COMPLETED_FINISH_REASONS = ["stop", "tool_calls"];
const CAP_FINISH_REASON = "length";

/** Concurrency at which each phase runs: the optional stage releases four clients together, the rest one. */
function concurrencyOf(scheduled: ScheduledRequest): number {
  return scheduled.phase === "concurrency" ? 4 : 1;
}

/**
 * ID scheme and order: 22 records (34 with the optional stage), each ID once, in send order, and every scheduled
 * ID present (all twelve sanity IDs even after an abort). `ids[i]` is null where record i has no string id.
 */
export function checkRequestIds(ids: readonly (string | null)[], optional: boolean, problems: ProblemSink): void {
  const expected = schedule(optional).map((request) => request.id);
  const everyId = new Set(schedule(true).map((request) => request.id));
  if (ids.length !== expected.length) {
    problems.push({
      pointer: "/requests",
      message: `expected ${expected.length} request records (optional concurrency ${
        optional ? "selected" : "not selected"
      }), found ${ids.length}`,
    });
  }
  const seen = new Map<string, number>();
  ids.forEach((id, index) => {
    if (id === null) return;
    const at = childPointer(childPointer("/requests", index), "id");
    if (seen.has(id)) {
      problems.push({ pointer: at, message: `duplicate request id "${id}" (first at /requests/${seen.get(id)})` });
    } else if (!everyId.has(id)) {
      problems.push({ pointer: at, message: `unknown request id "${id}"; the protocol schedules ${expected[0]}, ...` });
    } else if (!expected.includes(id)) {
      problems.push({ pointer: at, message: `request "${id}" belongs to the optional stage, which was not selected` });
    }
    if (!seen.has(id)) seen.set(id, index);
  });
  const absent = expected.filter((id) => !seen.has(id));
  for (const id of absent) {
    const sanity = id.startsWith("sanity-") ? "; all twelve sanity IDs must appear, even after an abort" : "";
    problems.push({ pointer: "/requests", message: `no record for scheduled request "${id}"${sanity}` });
  }
  if (absent.length === 0 && ids.length === expected.length && seen.size === expected.length) {
    ids.forEach((id, index) => {
      if (id !== expected[index]) {
        problems.push({
          pointer: childPointer(childPointer("/requests", index), "id"),
          message: `out of order: "${expected[index]}" belongs at this position, found "${id}"`,
        });
      }
    });
  }
}

/** A record's phase, case, repetition, seed, cap, concurrency and round must be those its ID schedules. */
export function checkScheduledFacts(records: readonly CheckedRecord[], problems: ProblemSink): void {
  const byId = new Map(schedule(true).map((request) => [request.id, request]));
  for (const { index, record } of records) {
    const scheduled = byId.get(record.id);
    if (!scheduled) continue;
    const base = childPointer("/requests", index);
    const facts: [keyof RequestRecord, unknown][] = [
      ["phase", scheduled.phase],
      ["case_id", scheduled.case_id],
      ["repetition", scheduled.repetition],
      ["seed", scheduled.seed],
      ["max_output_tokens", scheduled.max_output_tokens],
      ["concurrency", concurrencyOf(scheduled)],
      ["round", scheduled.round],
    ];
    for (const [key, value] of facts) {
      if (record[key] !== value) {
        problems.push({
          pointer: childPointer(base, key),
          message: `request "${record.id}" is scheduled with ${key} ${JSON.stringify(value)}, found ${
            JSON.stringify(record[key])
          }`,
        });
      }
    }
  }
}

/** Status versus error, finish reason and what a never-dispatched request can hold. */
export function checkStatuses(records: readonly CheckedRecord[], problems: ProblemSink): void {
  for (const { index, record } of records) {
    const at = (...keys: string[]) => keys.reduce(childPointer, childPointer("/requests", index));
    const say = (pointer: string, message: string) => problems.push({ pointer, message });
    const { status, finish_reason: finish } = record;
    if ((status === "completed" || status === "truncated") && record.error !== null) {
      say(at("error"), `a ${status} request has no error; error must be null`);
    }
    if ((status === "failed" || status === "skipped") && record.error === null) {
      say(at("error"), `a ${status} request needs an error object {kind, message} saying why`);
    }
    if (status === "completed" && (finish === null || !COMPLETED_FINISH_REASONS.includes(finish))) {
      say(at("finish_reason"), `a completed request ends with "stop" or "tool_calls", found ${JSON.stringify(finish)}`);
    }
    if (status === "truncated" && finish !== CAP_FINISH_REASON) {
      say(at("finish_reason"), `a truncated request ends with "length" (the cap), found ${JSON.stringify(finish)}`);
    }
    if (status === "skipped") {
      if (finish !== null) say(at("finish_reason"), "a skipped request was never sent; finish_reason must be null");
      if (record.first_delta_kind !== null) {
        say(at("first_delta_kind"), "a skipped request was never sent; first_delta_kind must be null");
      }
      if (record.timings.total_s !== null) {
        say(at("timings", "total_s"), "a skipped request was never sent; total_s must be null");
      }
      if (record.tokens.output_tokens !== null) {
        say(at("tokens", "output_tokens"), "a skipped request was never sent; output_tokens must be null");
      }
    }
  }
}

/** Sanity records carry a verdict of their own category (false unless completed); other records carry none. */
export function checkEvaluations(records: readonly CheckedRecord[], problems: ProblemSink): void {
  for (const { index, record } of records) {
    const at = childPointer(childPointer("/requests", index), "evaluation");
    const evaluation = record.evaluation;
    if (record.phase !== "sanity") {
      if (evaluation !== null) problems.push({ pointer: at, message: `only sanity requests are scored; must be null` });
      continue;
    }
    if (evaluation === null) {
      problems.push({ pointer: at, message: "a sanity request needs a verdict {category, passed, reason}" });
      continue;
    }
    const category = CATEGORY_OF_LETTER[record.case_id.charAt(0)];
    if (category !== undefined && evaluation.category !== category) {
      problems.push({
        pointer: childPointer(at, "category"),
        message: `sanity case ${record.case_id} is in category "${category}", found "${evaluation.category}"`,
      });
    }
    if (evaluation.passed && record.status !== "completed") {
      problems.push({
        pointer: childPointer(at, "passed"),
        message: `only a completed response can pass; this request is ${record.status}`,
      });
    }
  }
}
