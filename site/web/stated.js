// @ts-check
/**
 * Record values the runner states instead of letting them be recomputed. Publishing redacts the evidence, and
 * where redaction changed the text a record value was computed from (a right answer that names the host, an
 * error message with a home folder), the published bytes can no longer give that value. The evidence line then
 * carries `record_overrides` (a JSON Pointer into the request record -> the value scored on the text as the
 * engine sent it), and results.json lists every such pointer in `extensions.record_overrides`.
 *
 * The site cannot check such a value against the evidence; it does not pretend to. It accepts one only where the
 * line's text it was computed from carries a placeholder the runner's sanitizer writes (the evidence shows why it
 * had to be stated), and takes the stated value in place of its own for that field only (so the counts, quality and summaries built on it agree with results.json),
 * checks that the value has the field's type and that results.json lists exactly these pointers, and the page
 * names each one as stated by the runner, not recomputed.
 */
import { isObject, pointerTokens, show } from "./evidence.js";

/** @typedef {import("./evidence.js").RebuiltRequest} RebuiltRequest */
/** @typedef {import("./sanity.js").SanityVerdict & { category: string, caseId: string }} Verdict */

const STATUSES = ["completed", "truncated", "failed", "skipped"];
const NUMBER_GROUPS = /** @type {const} */ (["tokens", "timings", "metrics"]);

/**
 * The pointers and values a line states ({} when it states none), or null after naming the problem.
 * @param {Record<string, unknown>} line @param {string} id @param {string[]} problems
 * @returns {Record<string, unknown> | null}
 */
export function statedOf(line, id, problems) {
  const stated = line.record_overrides;
  if (stated === undefined) return {};
  if (!isObject(stated)) {
    problems.push(`${id}: record_overrides of its evidence line is ${show(stated)}, not an object of pointers`);
    return null;
  }
  for (const pointer of Object.keys(stated)) {
    if (pointer !== "" && !pointer.startsWith("/")) {
      problems.push(`${id}: record_overrides has "${pointer}", which is not a JSON Pointer into the record`);
      return null;
    }
    const source = sourceOf(pointer);
    if (!PLACEHOLDER.test(JSON.stringify(source.fields.map((f) => line[f]) ?? null))) {
      problems.push(
        `${id}: its evidence line states ${pointer === "" ? "the whole record" : pointer}, but ${
          source.fields.join(", ")
        } ` +
          "of that line holds no redaction placeholder: a stated value is accepted only where redaction changed " +
          "the text it was computed from",
      );
      return null;
    }
  }
  return stated;
}

/**
 * The placeholders the runner's sanitizer writes in place of what it redacts (spec: "Inspect redaction"), written
 * out here rather than imported: the site shares no code with the runner. A test holds it equal to the runner's list.
 */
export const PLACEHOLDER =
  /<(?:home|abs-path|user|host|email|mac|gpu-uuid|machine-id|serial|private-ip-[0-9]+|secret)>/;

/**
 * The line fields a record value at `pointer` is computed from: the verdict from the answer and tool calls, the
 * outcome from the error and finish reason, the numbers from the engine's usage and timings chunks.
 * @param {string} pointer @returns {{ fields: string[] }}
 */
function sourceOf(pointer) {
  const top = pointer.split("/")[1] ?? "";
  if (top === "evaluation") return { fields: ["final_answer", "tool_calls"] };
  if (top === "tokens" || top === "timings" || top === "metrics") return { fields: ["usage_chunk", "timings_chunk"] };
  if (top === "status" || top === "finish_reason" || top === "error") {
    return { fields: ["error", "finish_reason", "skip_reason"] };
  }
  return { fields: ["final_answer", "tool_calls", "error", "usage_chunk", "timings_chunk", "skip_reason"] };
}

/**
 * The record as the site rebuilt it, in results.json's shape (only the fields the site compares).
 * @param {RebuiltRequest} rebuilt @param {Verdict | null} verdict
 */
function recordView(rebuilt, verdict) {
  return {
    status: rebuilt.status,
    finish_reason: rebuilt.finishReason,
    error: rebuilt.errorKind === null ? null : { kind: rebuilt.errorKind },
    first_delta_kind: rebuilt.firstDeltaKind,
    tokens: { ...rebuilt.tokens },
    timings: { ...rebuilt.timings },
    metrics: { ...rebuilt.metrics },
    evaluation: verdict === null
      ? null
      : { category: verdict.category, passed: verdict.passed, reason: verdict.reason },
  };
}

/**
 * Sets `value` at `pointer` in `view`; parents must be own members that are objects, else nothing changes. A
 * hostile pointer may name "__proto__": only own members are walked and that key is never set, so no prototype
 * of the page is reached.
 * @param {Record<string, unknown>} view @param {string} pointer @param {unknown} value
 */
function setAt(view, pointer, value) {
  const tokens = pointerTokens(pointer);
  let at = view;
  for (const token of tokens.slice(0, -1)) {
    const next = Object.hasOwn(at, token) ? at[token] : undefined;
    if (!isObject(next)) return;
    at = next;
  }
  const last = /** @type {string} */ (tokens.at(-1));
  if (last !== "__proto__") at[last] = value;
}

/**
 * Why a stated value cannot stand for its field, or null.
 * @param {Record<string, unknown>} view the record view with the stated values set
 */
function typeProblem(view) {
  if (!STATUSES.includes(/** @type {string} */ (view.status))) return `status ${show(view.status)}`;
  if (view.finish_reason !== null && typeof view.finish_reason !== "string") {
    return `finish_reason ${show(view.finish_reason)}`;
  }
  for (const group of NUMBER_GROUPS) {
    const values = view[group];
    if (!isObject(values)) return `${group} ${show(values)}`;
    for (const [field, value] of Object.entries(values)) {
      const ok = value === null ||
        (typeof value === "number" && Number.isFinite(value) && value >= 0 &&
          (group !== "tokens" || Number.isSafeInteger(value)));
      if (!ok) return `${group}.${field} ${show(value)}`;
    }
  }
  const evaluation = view.evaluation;
  if (evaluation !== null && !(isObject(evaluation) && typeof evaluation.passed === "boolean")) {
    return `evaluation ${show(evaluation)}`;
  }
  return null;
}

/**
 * The site's rebuilt request and verdict with the line's stated values in place of its own, or the unchanged
 * pair (and a problem) when a stated value does not have its field's type.
 * @param {RebuiltRequest} rebuilt @param {Verdict | null} verdict @param {Record<string, unknown>} stated
 * @param {string[]} problems
 * @returns {{ rebuilt: RebuiltRequest, verdict: Verdict | null }}
 */
export function withStated(rebuilt, verdict, stated, problems) {
  if (Object.keys(stated).length === 0) return { rebuilt, verdict };
  /** @type {Record<string, unknown>} */
  let view = recordView(rebuilt, verdict);
  for (const [pointer, value] of Object.entries(stated)) {
    if (pointer === "") {
      view = isObject(value) ? { ...view, ...structuredClone(value) } : view;
    } else setAt(view, pointer, structuredClone(value));
  }
  const wrong = typeProblem(view);
  if (wrong !== null) {
    problems.push(`${rebuilt.id}: its evidence line states ${wrong}, which is no value of that field`);
    return { rebuilt, verdict };
  }
  const error = view.error;
  const evaluation = /** @type {Record<string, unknown> | null} */ (view.evaluation);
  return {
    rebuilt: {
      ...rebuilt,
      status: /** @type {RebuiltRequest["status"]} */ (view.status),
      finishReason: /** @type {string | null} */ (view.finish_reason),
      errorKind: isObject(error) && typeof error.kind === "string" ? error.kind : null,
      firstDeltaKind: view.first_delta_kind ?? null,
      tokens: /** @type {RebuiltRequest["tokens"]} */ (view.tokens),
      timings: /** @type {RebuiltRequest["timings"]} */ (view.timings),
      metrics: /** @type {RebuiltRequest["metrics"]} */ (view.metrics),
    },
    verdict: verdict === null || evaluation === null ? verdict : {
      ...verdict,
      passed: /** @type {boolean} */ (evaluation.passed),
      reason: typeof evaluation.reason === "string" ? evaluation.reason : verdict.reason,
    },
  };
}

/**
 * results.json's /extensions/record_overrides must list, by request id, exactly the pointers each line states.
 * @param {unknown} extensions results.json /extensions
 * @param {readonly { id: string, pointers: string[] }[]} stated the requests whose lines state values
 * @param {string[]} problems
 */
export function checkStatedListed(extensions, stated, problems) {
  const listed = isObject(extensions) ? extensions.record_overrides : undefined;
  if (listed === undefined && stated.length === 0) return;
  if (!isObject(listed)) {
    return void problems.push(
      `results.json /extensions/record_overrides is ${show(listed)}; it must list the ${stated.length} requests ` +
        "whose evidence states record values",
    );
  }
  for (const { id, pointers } of stated) {
    const entry = listed[id];
    const given = Array.isArray(entry) ? entry.map(String).sort().join("\n") : null;
    if (given !== [...pointers].sort().join("\n")) {
      problems.push(
        `${id}: its evidence line states ${pointers.join(", ")}, but /extensions/record_overrides lists ${show(entry)}`,
      );
    }
  }
  const ids = new Set(stated.map((s) => s.id));
  for (const id of Object.keys(listed)) {
    if (!ids.has(id)) problems.push(`/extensions/record_overrides lists ${id}, whose evidence line states nothing`);
  }
}
