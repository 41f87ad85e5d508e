// @ts-check
/**
 * Whether redaction could have produced what an evidence line states (written here from the protocol's rules,
 * sharing no code with the runner). A stated value is taken only where the placeholder stands in the part of the
 * text the site's own check reads, and that check, with the placeholders replaced by what it expects, gives the
 * stated pass (with a neutral word in their place, a stated failure):
 * - an exact-text case reads the whole answer: each placeholder may stand for any text, and the answer must then be
 *   able to be exactly the expected text;
 * - a JSON case reads the whole answer as JSON: it must parse with its placeholders inside strings, and each such
 *   string must be able to be the expected string at its place (a placeholder for a whole JSON token is refused);
 * - a tool case reads only the one structured call, so placeholders in the text beside it count for nothing;
 * - a stated count, time or rate needs a placeholder in the usage or timings chunk that, given the stated number,
 *   makes the site's own rebuild give every stated number.
 * The site's verdict reasons are its own words, so a stated reason is shown, never compared.
 */
import { rebuildRequest, sameNumber, show } from "./evidence.js";
import { judgeSanity } from "./sanity.js";
import { JsonNumber, parseStrictJson } from "./strict_json.js";
import { PLACEHOLDER } from "./stated.js";

/** @typedef {import("./protocol.js").SanityCase} SanityCase */

const ALL = new RegExp(PLACEHOLDER.source, "g");

/** @param {string} text */
const holds = (text) => PLACEHOLDER.test(text);

/**
 * `text` as a whole-text pattern in which each placeholder may stand for any text.
 * @param {string} text
 */
function anyFor(text) {
  const parts = text.split(ALL).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*?")}$`);
}

/**
 * Compact JSON text with number lexemes kept.
 * @param {unknown} value @returns {string}
 */
function render(value) {
  if (value instanceof JsonNumber) return value.lexeme;
  if (Array.isArray(value)) return `[${value.map(render).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${render(v)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * `actual` with each string (value or key) holding placeholders made the expected one at its place, where it can be.
 * @param {unknown} actual @param {unknown} expected @returns {unknown}
 */
function filled(actual, expected) {
  if (typeof actual === "string") {
    return typeof expected === "string" && holds(actual) && anyFor(actual).test(expected) ? expected : actual;
  }
  if (Array.isArray(actual)) {
    return Array.isArray(expected) && expected.length === actual.length
      ? actual.map((item, i) => filled(item, expected[i]))
      : actual;
  }
  const plain = (/** @type {unknown} */ v) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber);
  if (!plain(actual) || !plain(expected)) return actual;
  const a = /** @type {Record<string, unknown>} */ (actual);
  const e = /** @type {Record<string, unknown>} */ (expected);
  const free = Object.keys(e).filter((key) => !Object.hasOwn(a, key));
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, value] of Object.entries(a)) {
    let name = key;
    if (!Object.hasOwn(e, key) && holds(key)) {
      const at = free.findIndex((candidate) => anyFor(key).test(candidate));
      if (at >= 0) name = /** @type {string} */ (free.splice(at, 1)[0]);
    }
    out[name] = Object.hasOwn(e, name) ? filled(value, e[name]) : value;
  }
  return out;
}

/**
 * JSON text made what the check expects where its placeholders allow, or null when it is not JSON as it stands.
 * @param {string} text @param {string} expectedText
 */
function jsonFilled(text, expectedText) {
  const parsed = parseStrictJson(text.trim(), { lexemes: true });
  const expected = parseStrictJson(expectedText, { lexemes: true });
  if (!parsed.ok || !expected.ok) return null;
  return render(filled(parsed.value, expected.value));
}

/**
 * The rebuilt request with its answer (or its one call) as the check expects it, or why it cannot pass.
 * @param {SanityCase} sanity @param {ReturnType<typeof rebuildRequest>} rebuilt
 * @returns {ReturnType<typeof rebuildRequest> | string}
 */
function passing(sanity, rebuilt) {
  if (sanity.kind === "tool") {
    const call = rebuilt.toolCalls[0];
    if (rebuilt.toolCalls.length !== 1 || call === undefined) return "the check reads exactly one structured call";
    const name = typeof call.name === "string" ? call.name : "";
    const args = typeof call.arguments === "string" ? call.arguments : "";
    if (!holds(name) && !holds(args)) return "the one structured call it reads holds no placeholder";
    const filledArgs = holds(args) ? jsonFilled(args, sanity.expected) : args;
    if (filledArgs === null) return "the call's arguments are not JSON with their placeholders in them";
    const filledName = holds(name) && anyFor(name).test(/** @type {string} */ (sanity.tool)) ? sanity.tool : name;
    return { ...rebuilt, toolCalls: [{ name: filledName, arguments: filledArgs }] };
  }
  const answer = rebuilt.finalAnswer.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, "");
  if (!holds(answer)) return "the answer it reads holds no placeholder";
  if (sanity.kind === "text") {
    if (!anyFor(answer).test(sanity.expected)) {
      return `with any text for its placeholders the answer cannot be exactly ${sanity.expected}`;
    }
    return { ...rebuilt, finalAnswer: sanity.expected };
  }
  const text = jsonFilled(answer, sanity.expected);
  if (text === null) return "the answer is not JSON with its placeholders in it";
  return { ...rebuilt, finalAnswer: text };
}

/**
 * The line with each placeholder of its usage and timings chunks replaced by `value`.
 * @param {Record<string, unknown>} line @param {string} value
 */
function withChunks(line, value) {
  const copy = { ...line };
  for (const field of ["usage_chunk", "timings_chunk"]) {
    if (typeof copy[field] === "string") copy[field] = /** @type {string} */ (copy[field]).replace(ALL, value);
  }
  return copy;
}

/**
 * Why the values a line states could not have come from redaction, or an empty list.
 * @param {Record<string, unknown>} line the evidence line @param {Record<string, unknown>} stated its stated values
 * @param {SanityCase | undefined} sanity the request's sanity case, if it is one
 * @param {{ passed: boolean } | null} verdict the site's own verdict on the line as published
 * @returns {string[]}
 */
export function statedImpossible(line, stated, sanity, verdict) {
  const pointers = Object.keys(stated);
  /** @type {string[]} */
  const problems = [];
  const evaluation = pointers.includes("")
    ? /** @type {Record<string, unknown>} */ (stated[""])?.evaluation
    : pointers.includes("/evaluation")
    ? stated["/evaluation"]
    : pointers.includes("/evaluation/passed")
    ? { passed: stated["/evaluation/passed"] }
    : undefined;
  const passed = evaluation !== null && typeof evaluation === "object"
    ? /** @type {Record<string, unknown>} */ (evaluation).passed
    : undefined;
  if (typeof passed === "boolean" && verdict !== null && sanity !== undefined && passed !== verdict.passed) {
    const rebuilt = rebuildRequest(line);
    const preimage = passed
      ? passing(sanity, rebuilt)
      : { ...rebuilt, finalAnswer: rebuilt.finalAnswer.replace(ALL, "x") };
    if (typeof preimage === "string") problems.push(`states a pass, but ${preimage}`);
    else if (judgeSanity(sanity, preimage).passed !== passed) {
      problems.push(
        `states ${passed ? "a pass" : "a failure"}, but the site's check gives ${passed ? "a failure" : "a pass"} ` +
          `with ${passed ? "what it expects" : "a neutral word"} in place of the placeholders`,
      );
    }
  }
  const numbers = pointers.filter((p) => /^\/(?:tokens|timings|metrics)\//.test(p));
  if (numbers.length > 0) {
    const chunks = `${line.usage_chunk ?? ""}${line.timings_chunk ?? ""}`;
    const candidates = [...new Set(numbers.map((p) => stated[p]).filter((v) => typeof v === "number"))].slice(0, 16);
    const gives = (/** @type {string} */ value) => {
      const again = /** @type {Record<string, Record<string, number | null>>} */ (
        /** @type {unknown} */ (rebuildRequest(withChunks(line, value)))
      );
      return numbers.every((p) => {
        const [, group, field] = p.split("/");
        return sameNumber(stated[p], again[/** @type {string} */ (group)]?.[/** @type {string} */ (field)] ?? null);
      });
    };
    if (!holds(chunks)) problems.push("states counts, but its usage and timings chunks hold no placeholder");
    else if (![...candidates.map(String), '"x"'].some(gives)) {
      problems.push(
        `states ${numbers.map((p) => `${p} ${show(stated[p])}`).join(", ")}, but no number in place of the ` +
          "placeholders of its usage and timings chunks gives them",
      );
    }
  }
  return problems;
}
