// @ts-check
/**
 * The request records of results.json against the protocol's schedule and against their evidence lines: every
 * scheduled id once and in order with its phase, case, repetition, seed, cap, concurrency and round; every line's
 * request body is that request (marker, seed, cap); status, finish reason, counts, durations, rates, the
 * reasoning cadence and sanity verdicts equal what the line itself supports.
 */
import { isObject, rebuildRequest, sameNumber, show } from "./evidence.js";
import { parseStrictJson } from "./strict_json.js";
import { judgeSanity } from "./sanity.js";
import { SANITY_CASES } from "./protocol.js";
import { statedOf, withStated } from "./stated.js";
import { statedImpossible } from "./stated_possible.js";
import { checkReasoningItl } from "./check_derived.js";

/** @typedef {import("./protocol.js").ScheduledRequest} ScheduledRequest */
/** @typedef {import("./evidence.js").RebuiltRequest} RebuiltRequest */
/** @typedef {import("./sanity.js").SanityVerdict} SanityVerdict */

/**
 * A scheduled request with its claimed record, its evidence, and the site's own verdict; `stated` are the record
 * pointers whose values the evidence line states instead (see stated.js), already in place in `rebuilt` and
 * `verdict`.
 * @typedef {{ scheduled: ScheduledRequest, record: Record<string, unknown>, rebuilt: RebuiltRequest,
 *   verdict: (SanityVerdict & { category: string, caseId: string }) | null, stated: string[] }} CheckedRequest
 */

const IDENTITY = /** @type {const} */ ([
  "id",
  "phase",
  "case_id",
  "repetition",
  "seed",
  "max_output_tokens",
  "concurrency",
  "round",
]);
const TOKEN_FIELDS =
  /** @type {const} */ (["input_tokens", "cached_tokens", "read_tokens", "output_tokens", "decode_tokens"]);
const TIMING_FIELDS = /** @type {const} */ (["prompt_s", "decode_s", "ttft_s", "first_answer_s", "total_s"]);
const METRIC_FIELDS = /** @type {const} */ (["prompt_tps", "decode_tps"]);

/**
 * One line of outputs.jsonl: its text and its reading as strict JSON (null for an empty line).
 * @typedef {{ text: string, parsed: import("./strict_json.js").JsonParse | null }} EvidenceLine
 */

/**
 * outputs.jsonl cut into lines (a last newline ends the last line), each read once as strict JSON with integers
 * as written: the rebuild and the measured digest share the readings.
 * @param {string} text @returns {EvidenceLine[]}
 */
export function jsonLines(text) {
  const texts = text.split("\n");
  if (texts.at(-1) === "") texts.pop();
  return texts.map((line) => ({
    text: line,
    parsed: line === "" ? null : parseStrictJson(line, { integersAsWritten: true }),
  }));
}

/**
 * The evidence lines by request id; every line that is not an object with a request id, or repeats one, is a problem.
 * @param {readonly EvidenceLine[]} lines @param {string[]} problems
 * @returns {Map<string, Record<string, unknown>>}
 */
export function evidenceLines(lines, problems) {
  /** @type {Map<string, Record<string, unknown>>} */
  const byId = new Map();
  for (const [index, { parsed }] of lines.entries()) {
    const number = index + 1;
    if (parsed === null) continue;
    if (!parsed.ok) {
      problems.push(`outputs.jsonl line ${number} is not strict JSON (${parsed.message} at ${parsed.offset})`);
      continue;
    }
    const value = parsed.value;
    if (!isObject(value) || typeof value.request_id !== "string") {
      problems.push(`outputs.jsonl line ${number} is not an object with a request_id`);
      continue;
    }
    if (byId.has(value.request_id)) {
      problems.push(`outputs.jsonl has two lines for ${value.request_id}`);
      continue;
    }
    byId.set(value.request_id, value);
  }
  return byId;
}

/**
 * The request's body is the scheduled one: its marker, seed and cap.
 * @param {ScheduledRequest} scheduled @param {RebuiltRequest} rebuilt @param {string[]} problems
 */
function checkBody(scheduled, rebuilt, problems) {
  const id = scheduled.id;
  if (rebuilt.status === "skipped") return;
  const body = rebuilt.body;
  if (body === null) return void problems.push(`${id}: the evidence line has no request body`);
  if (body.seed !== scheduled.seed) {
    problems.push(`${id}: the request sent seed ${show(body.seed)}, the protocol's is ${scheduled.seed}`);
  }
  if (body.max_tokens !== scheduled.max_output_tokens) {
    problems.push(
      `${id}: the request sent max_tokens ${show(body.max_tokens)}, the cap is ${scheduled.max_output_tokens}`,
    );
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const user = messages.find((m) => isObject(m) && m.role === "user");
  const content = isObject(user) && typeof user.content === "string" ? user.content : "";
  if (!content.startsWith(`[case ${id}]\n`)) {
    problems.push(`${id}: the request's user message does not start with [case ${id}]`);
  }
  if (rebuilt.concurrency !== scheduled.concurrency) {
    problems.push(
      `${id}: the evidence line says concurrency ${
        show(rebuilt.concurrency)
      }, the protocol's is ${scheduled.concurrency}`,
    );
  }
}

/**
 * One claimed record against its rebuilt evidence and the site's verdict.
 * @param {Record<string, unknown>} record @param {RebuiltRequest} rebuilt
 * @param {CheckedRequest["verdict"]} verdict @param {Record<string, unknown>} line @param {string[]} problems
 */
function checkRecord(record, rebuilt, verdict, line, problems) {
  const id = rebuilt.id;
  if (line.status !== rebuilt.status) {
    problems.push(
      `${id}: the evidence line is labelled ${show(line.status)}, but its stream end says ${rebuilt.status}`,
    );
  }
  if (record.status !== rebuilt.status) {
    problems.push(`${id}: results.json says ${show(record.status)}, the evidence says ${rebuilt.status}`);
  }
  if (record.finish_reason !== rebuilt.finishReason) {
    problems.push(
      `${id}: finish_reason ${show(record.finish_reason)} differs from the evidence's ${show(rebuilt.finishReason)}`,
    );
  }
  const normalEnd = rebuilt.status === "completed" || rebuilt.status === "truncated";
  const error = record.error;
  if (normalEnd && error !== null) problems.push(`${id}: a ${rebuilt.status} request carries an error`);
  if (!normalEnd && (!isObject(error) || typeof error.kind !== "string" || typeof error.message !== "string")) {
    problems.push(`${id}: a ${rebuilt.status} request needs an error with kind and message`);
  } else if (!normalEnd && isObject(error) && error.kind !== rebuilt.errorKind) {
    problems.push(`${id}: error kind ${show(error.kind)} differs from the evidence's ${show(rebuilt.errorKind)}`);
  }
  if ((record.first_delta_kind ?? null) !== rebuilt.firstDeltaKind) {
    problems.push(
      `${id}: first_delta_kind ${show(record.first_delta_kind)} differs from the evidence's ${
        show(rebuilt.firstDeltaKind)
      }`,
    );
  }
  /** @type {[string, readonly string[], Record<string, number | null>][]} */
  const groups = [
    ["tokens", TOKEN_FIELDS, rebuilt.tokens],
    ["timings", TIMING_FIELDS, rebuilt.timings],
    ["metrics", METRIC_FIELDS, rebuilt.metrics],
  ];
  for (const [group, fields, values] of groups) {
    const claimed = isObject(record[group]) ? /** @type {Record<string, unknown>} */ (record[group]) : {};
    for (const field of fields) {
      const mine = values[field] ?? null;
      const exact = group === "tokens";
      const agrees = exact ? claimed[field] === mine : sameNumber(claimed[field], mine);
      if (!agrees) {
        problems.push(
          `${id}: ${group}.${field} is ${show(claimed[field])} in results.json, the raw evidence gives ${show(mine)}`,
        );
      }
    }
  }
  const evaluation = record.evaluation;
  if (verdict === null) {
    if (evaluation !== null) problems.push(`${id}: a ${record.phase} request carries a sanity evaluation`);
    return;
  }
  if (!isObject(evaluation) || typeof evaluation.passed !== "boolean" || typeof evaluation.reason !== "string") {
    return void problems.push(`${id}: the sanity evaluation is missing or malformed`);
  }
  if (evaluation.category !== verdict.category) {
    problems.push(`${id}: category ${show(evaluation.category)}, the protocol's is ${verdict.category}`);
  }
  if (evaluation.passed !== verdict.passed) {
    problems.push(
      `${id}: results.json says ${evaluation.passed ? "passed" : "failed"}, the saved output ${
        verdict.passed ? "passes" : "fails"
      } (${verdict.reason})`,
    );
  }
}

/** What results.json keeps of a request's cadence; its gaps are pooled per case (check_derived.js). */
const KEPT_CADENCE = /** @type {const} */ (["thinking_s", "reasoning_tpot_s", "answer_tpot_s"]);

/**
 * The claimed reasoning cadence (extensions.reasoning_cadence[id]; undefined: not listed) against the one the chunk
 * stamps give, field by field.
 * @param {string} id @param {unknown} claimed @param {RebuiltRequest["cadence"]} mine @param {string[]} problems
 */
function checkCadence(id, claimed, mine, problems) {
  if (mine === null || !isObject(claimed)) {
    if (claimed !== mine) {
      problems.push(
        `${id}: extensions.reasoning_cadence lists ${
          claimed === undefined ? "nothing" : show(claimed)
        } for it in results.json, the raw evidence gives ${show(mine)}`,
      );
    }
    return;
  }
  const extra = Object.keys(claimed).filter((k) => !(/** @type {readonly string[]} */ (KEPT_CADENCE)).includes(k));
  if (extra.length > 0) problems.push(`${id}: extensions.reasoning_cadence has unknown fields ${show(extra)}`);
  for (const field of KEPT_CADENCE) {
    const value = mine[field];
    if (!sameNumber(claimed[field], value)) {
      problems.push(
        `${id}: extensions.reasoning_cadence.${field} is ${show(claimed[field])} in results.json, the raw evidence ` +
          `gives ${show(value)}`,
      );
    }
  }
}

/**
 * Checks every record; returns the checked requests in schedule order (those with evidence).
 * @param {unknown} requests results.json /requests
 * @param {unknown} extensions results.json /extensions (its reasoning_cadence, request id -> cadence, and its
 *   reasoning_itl, the gaps pooled per case)
 * @param {readonly ScheduledRequest[]} schedule
 * @param {Map<string, Record<string, unknown>>} lines
 * @param {string[]} problems
 * @returns {CheckedRequest[]}
 */
export function checkRecords(requests, extensions, schedule, lines, problems) {
  const cadences = isObject(extensions) ? extensions.reasoning_cadence : undefined;
  if (!Array.isArray(requests)) {
    problems.push("results.json /requests is not an array");
    return [];
  }
  if (requests.length !== schedule.length) {
    problems.push(`results.json has ${requests.length} request records; the protocol schedules ${schedule.length}`);
  }
  const scheduledIds = new Set(schedule.map((s) => s.id));
  for (const id of lines.keys()) {
    if (!scheduledIds.has(id)) {
      problems.push(`outputs.jsonl has a line for ${id}, which the protocol does not schedule`);
    }
  }
  /** @type {CheckedRequest[]} */
  const checked = [];
  schedule.forEach((scheduled, index) => {
    const record = requests[index];
    if (!isObject(record)) return void problems.push(`results.json /requests/${index} should be ${scheduled.id}`);
    for (const field of IDENTITY) {
      if (record[field] !== scheduled[field]) {
        problems.push(
          `/requests/${index} (${scheduled.id}): ${field} is ${show(record[field])}, the protocol's is ${
            show(scheduled[field])
          }`,
        );
      }
    }
    const line = lines.get(scheduled.id);
    if (line === undefined) return void problems.push(`${scheduled.id}: outputs.jsonl has no line for it`);
    const rebuilt = rebuildRequest(line);
    const sanity = scheduled.phase === "sanity" ? SANITY_CASES.find((c) => c.caseId === scheduled.case_id) : undefined;
    const verdict = sanity === undefined ? null : {
      ...judgeSanity(sanity, rebuilt),
      category: sanity.category,
      caseId: sanity.caseId,
    };
    checkBody(scheduled, rebuilt, problems);
    const stated = statedOf(line, scheduled.id, problems) ?? {};
    for (const why of statedImpossible(line, stated, sanity, verdict)) {
      problems.push(
        `${scheduled.id}: its evidence line ${why}: a stated value is accepted only where redaction could have produced it`,
      );
    }
    const effective = withStated(rebuilt, verdict, stated, problems);
    checkRecord(record, effective.rebuilt, effective.verdict, line, problems);
    const claimed = isObject(cadences) && Object.hasOwn(cadences, scheduled.id) ? cadences[scheduled.id] : undefined;
    checkCadence(scheduled.id, claimed, effective.rebuilt.cadence, problems);
    checked.push({ scheduled, record, ...effective, stated: Object.keys(stated) });
  });
  checkReasoningItl(isObject(extensions) ? extensions.reasoning_itl : undefined, checked, problems);
  return checked;
}
