// @ts-check
/**
 * The twelve sanity verdicts, recomputed from a request's saved final output by the rules of "Twelve sanity
 * checks": one point per case, only a completed response can pass; exact text after stripping surrounding ASCII
 * whitespace; JSON as one complete strict value (no duplicate keys, prose or fences), equal in value and type,
 * key order free; a tool case needs exactly one structured call of the named function whose arguments parse
 * strictly to exactly the required object. Reasoning text is never read.
 */
import { JsonNumber, parseStrictJson } from "./strict_json.js";

/** @typedef {import("./protocol.js").SanityCase} SanityCase */

/**
 * What a verdict reads from one request's evidence.
 * @typedef {{ status: string, finalAnswer: string, toolCalls: readonly { name: unknown, arguments: unknown }[] }}
 *   SanityEvidence
 */

/** @typedef {{ passed: boolean, reason: string }} SanityVerdict */

const ASCII_SPACE = /^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g;

/**
 * Strips only surrounding ASCII whitespace (tab, LF, VT, FF, CR, space).
 * @param {string} text
 */
function stripAsciiSpace(text) {
  return text.replace(ASCII_SPACE, "");
}

/**
 * JSON equality with types: numbers are equal only when both are integers (or both are not) of the same value;
 * objects need the same key set; arrays the same order.
 * @param {unknown} a @param {unknown} b @returns {boolean}
 */
function jsonEqual(a, b) {
  if (a instanceof JsonNumber || b instanceof JsonNumber) {
    if (!(a instanceof JsonNumber && b instanceof JsonNumber)) return false;
    if (a.isInteger !== b.isInteger) return false;
    return a.isInteger ? BigInt(a.lexeme) === BigInt(b.lexeme) : a.value === b.value;
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  if (ak.length !== bk.length) return false;
  const bo = /** @type {Record<string, unknown>} */ (b);
  const ao = /** @type {Record<string, unknown>} */ (a);
  return ak.every((key) => Object.hasOwn(bo, key) && jsonEqual(ao[key], bo[key]));
}

/** @param {string} text */
function expectedValue(text) {
  const parsed = parseStrictJson(text, { lexemes: true });
  if (!parsed.ok) throw new Error(`site protocol table: expected value ${text} is not JSON`);
  return parsed.value;
}

/** @param {string} text */
function quote(text) {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

/**
 * The verdict of one sanity case from its evidence.
 * @param {SanityCase} sanity
 * @param {SanityEvidence} evidence
 * @returns {SanityVerdict}
 */
export function judgeSanity(sanity, evidence) {
  const id = sanity.caseId;
  if (evidence.status !== "completed") {
    return { passed: false, reason: `${id}: the request was ${evidence.status}; only a completed response passes` };
  }
  if (sanity.kind === "text") {
    const answer = stripAsciiSpace(evidence.finalAnswer);
    return answer === sanity.expected
      ? { passed: true, reason: `${id}: answer is exactly ${sanity.expected}` }
      : { passed: false, reason: `${id}: answer ${quote(answer)} is not exactly ${sanity.expected}` };
  }
  if (sanity.kind === "json") {
    const parsed = parseStrictJson(stripAsciiSpace(evidence.finalAnswer), { lexemes: true });
    if (!parsed.ok) return { passed: false, reason: `${id}: answer is not one strict JSON value (${parsed.message})` };
    return jsonEqual(parsed.value, expectedValue(sanity.expected))
      ? { passed: true, reason: `${id}: answer equals ${sanity.expected}` }
      : { passed: false, reason: `${id}: answer ${quote(evidence.finalAnswer)} differs from ${sanity.expected}` };
  }
  const calls = evidence.toolCalls;
  if (calls.length !== 1) {
    return { passed: false, reason: `${id}: ${calls.length} structured tool calls; exactly one is required` };
  }
  const call = /** @type {{ name: unknown, arguments: unknown }} */ (calls[0]);
  if (call.name !== sanity.tool) {
    return { passed: false, reason: `${id}: called ${JSON.stringify(call.name)}, not ${sanity.tool}` };
  }
  if (typeof call.arguments !== "string") return { passed: false, reason: `${id}: tool arguments are not text` };
  const parsed = parseStrictJson(call.arguments, { lexemes: true });
  if (!parsed.ok) return { passed: false, reason: `${id}: tool arguments are not strict JSON (${parsed.message})` };
  return jsonEqual(parsed.value, expectedValue(sanity.expected))
    ? { passed: true, reason: `${id}: one call ${sanity.tool}(${sanity.expected})` }
    : { passed: false, reason: `${id}: arguments ${quote(call.arguments)} differ from ${sanity.expected}` };
}
