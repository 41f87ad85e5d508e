/**
 * Whether redaction could have produced what a line states. A stated value (record_overrides) stands where the
 * published text can no longer give it; the evidence must show that it could have: the placeholder stands in the
 * part of the text the rule reads, and the rule recomputed with the placeholders replaced by what it expects gives
 * the stated value (a stated pass), or with a neutral stand-in gives it (a stated failure). Everything else is
 * refused with the reason.
 *
 * - Verdicts: an exact-text case reads the whole answer, so a stated pass needs the answer, each placeholder read
 *   as any text, to be able to equal the expected text; a JSON case needs the answer to parse with its placeholders
 *   inside strings and each such string to be able to equal the expected one at its place; a tool case reads only
 *   the one structured call's name and arguments, so placeholders in the text beside it count for nothing. A
 *   placeholder standing for a whole JSON token (not inside a string) is refused: nothing shows what it stood for.
 *   A stated reason must be the reason of the recomputed verdict, read with its own placeholders as any text.
 * - Counts, times and rates: a stated number needs a placeholder in the usage or timings chunk at a place where
 *   the chunk, with that placeholder replaced by the stated number, gives the stated values.
 * - A whole stated record (the line could not be read) may not carry a passing verdict: nothing recomputes it.
 */
import type { Fixture } from "../contract/mod.ts";
import { type JsonValue, parseStrictJson, renderJson, toJsonValue } from "../score/mod.ts";
import type { LineFacts } from "./_evidence_line.ts";
import { rebuildRecord, valueAt } from "./_evidence_line.ts";
import { brief } from "./_difference.ts";
import { PLACEHOLDER_KINDS } from "../sanitize/mod.ts";
import { errorMessage } from "../runtime/mod.ts";

/** Every placeholder the sanitizer writes, for splitting a text at them. */
const PLACEHOLDERS = new RegExp(`<(?:${PLACEHOLDER_KINDS.map((k) => k.replace("-N", "-\\d+")).join("|")})>`, "g");

/** The most placeholders one stated number is tried with (each is given the stated number in turn). */
const MAX_TRIED = 16;

function hasPlaceholder(text: string): boolean {
  PLACEHOLDERS.lastIndex = 0;
  return PLACEHOLDERS.test(text);
}

/** Whether `redacted`, holding placeholders, can have been made from `text` (each placeholder for any text). */
export function mayStandFor(redacted: string, text: string): boolean {
  if (!hasPlaceholder(redacted)) return false;
  // Leftmost matching of each literal part in turn is exact for a pattern whose only wildcard is "any text", and
  // linear in the text, where a backtracking pattern could be made to take exponential time.
  const parts = redacted.split(PLACEHOLDERS);
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length) return false;
  let from = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, from);
    if (found < 0) return false;
    from = found + part.length;
  }
  return text.length - last.length >= from && text.endsWith(last);
}

/** `text` as a whole-text pattern in which each placeholder may stand for any text (the empty one included). */
function wildcard(text: string): RegExp {
  const parts = text.split(PLACEHOLDERS).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*?")}$`);
}

/** `actual` with every string (value or key) that holds placeholders and can be the expected one at its place replaced by it. */
function substituted(actual: JsonValue, expected: JsonValue): JsonValue {
  if (typeof actual === "string") {
    return typeof expected === "string" && hasPlaceholder(actual) && wildcard(actual).test(expected)
      ? expected
      : actual;
  }
  if (Array.isArray(actual)) {
    return Array.isArray(expected) && expected.length === actual.length
      ? actual.map((item, i) => substituted(item, expected[i] as JsonValue))
      : actual;
  }
  if (actual === null || typeof actual !== "object" || actual.kind !== "object") return actual;
  if (expected === null || typeof expected !== "object" || Array.isArray(expected) || expected.kind !== "object") {
    return actual;
  }
  const unmatched = [...expected.entries.keys()].filter((key) => !actual.entries.has(key));
  const entries = new Map<string, JsonValue>();
  for (const [key, value] of actual.entries) {
    let name = key;
    if (!expected.entries.has(key) && hasPlaceholder(key)) {
      const at = unmatched.findIndex((candidate) => wildcard(key).test(candidate));
      if (at >= 0) name = unmatched.splice(at, 1)[0]!;
    }
    const wanted = expected.entries.get(name);
    entries.set(name, wanted === undefined ? value : substituted(value, wanted));
  }
  return { kind: "object", entries };
}

/** JSON text `text` with its strings made what the check expects where their placeholders allow, or why not. */
function jsonPreimage(text: string, expected: unknown, what: string): string | { why: string } {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) {
    return { why: `${what} is not JSON with its placeholders in it, so no text inside a string can make it pass` };
  }
  return renderJson(substituted(parsed.value, toJsonValue(expected)), Infinity);
}

/** The facts with the answer (or the one tool call) replaced by what the check expects, or why it cannot pass. */
function passingPreimage(fixture: Fixture, facts: LineFacts): LineFacts | { why: string } {
  const expected = fixture.expected;
  if (facts.kind !== "outcome" || expected === null) return { why: "nothing was answered" };
  const outcome = facts.outcome;
  if (expected.kind === "tool_call") {
    const [call, ...more] = outcome.tool_calls;
    if (call === undefined || more.length > 0) return { why: "the check reads exactly one structured call" };
    if (!hasPlaceholder(call.name) && !hasPlaceholder(call.arguments)) {
      return { why: "the one structured call it reads holds no placeholder" };
    }
    const name = hasPlaceholder(call.name) && wildcard(call.name).test(expected.name) ? expected.name : call.name;
    const args = hasPlaceholder(call.arguments)
      ? jsonPreimage(call.arguments, expected.arguments, "the call's arguments")
      : call.arguments;
    if (typeof args !== "string") return args;
    return { ...facts, outcome: { ...outcome, tool_calls: [{ ...call, name, arguments: args }] } };
  }
  const answer = outcome.answer_text.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, "");
  if (!hasPlaceholder(answer)) return { why: "the answer it reads holds no placeholder" };
  if (expected.kind === "text") {
    if (!wildcard(answer).test(expected.value)) {
      return { why: `with any text for its placeholders the answer cannot be exactly ${brief(expected.value)}` };
    }
    return { ...facts, outcome: { ...outcome, answer_text: expected.value } };
  }
  const text = jsonPreimage(outcome.answer_text, expected.value, "the answer");
  return typeof text === "string" ? { ...facts, outcome: { ...outcome, answer_text: text } } : text;
}

/** The facts with every placeholder in the answer and tool calls read as a neutral word. */
function neutralPreimage(facts: LineFacts): LineFacts {
  if (facts.kind !== "outcome") return facts;
  const neutral = (text: string) => text.replace(PLACEHOLDERS, "x");
  const outcome = facts.outcome;
  return {
    ...facts,
    outcome: {
      ...outcome,
      answer_text: neutral(outcome.answer_text),
      tool_calls: outcome.tool_calls.map((call) => ({
        ...call,
        name: neutral(call.name),
        arguments: neutral(call.arguments),
      })),
    },
  };
}

interface Verdict {
  passed: boolean;
  reason: string;
}

function verdictOf(record: unknown): Verdict | null {
  const evaluation = valueAt(record, "/evaluation") as Verdict | null | undefined;
  return evaluation === null || typeof evaluation !== "object" ? null : evaluation;
}

/** Why the stated verdict is not one redaction could have produced, or null. */
function verdictProblem(
  fixture: Fixture,
  facts: LineFacts,
  stated: Verdict,
  recomputed: Verdict,
  concurrency: number,
): string | null {
  if (stated.passed === recomputed.passed && stated.reason === recomputed.reason) return null;
  let reference = recomputed;
  if (stated.passed !== recomputed.passed) {
    const preimage = stated.passed ? passingPreimage(fixture, facts) : neutralPreimage(facts);
    if ("why" in preimage) return `states a pass, but ${preimage.why}`;
    const again = verdictOf(rebuildRecord(fixture, preimage, {}, concurrency));
    if (again === null || again.passed !== stated.passed) {
      return `states ${stated.passed ? "a pass" : "a failure"}, but the check gives ${
        stated.passed ? "a failure" : "a pass"
      } with ${stated.passed ? "what it expects" : "a neutral word"} in place of the placeholders (${
        brief(again?.reason ?? "no verdict")
      })`;
    }
    reference = again;
  }
  // A failure's reason quotes what the engine sent, cut to a length, so redaction moves the cut: its words outside
  // the quotes must agree. A pass's reason quotes what the check expects: all of it must agree.
  const words = (reason: string) => reason.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const agrees = wildcard(stated.reason).test(reference.reason) ||
    (!stated.passed && words(stated.reason) === words(reference.reason));
  if (stated.reason !== reference.reason && !agrees) {
    return `states the reason ${brief(stated.reason)}, but the recomputed verdict's reason is ${
      brief(reference.reason)
    }, which it cannot be with any text for its placeholders`;
  }
  return null;
}

/** The facts with each placeholder of the usage and timings chunks replaced by `value`. */
function withChunkValue(facts: LineFacts, value: string): LineFacts {
  if (facts.kind !== "outcome") return facts;
  const outcome = { ...facts.outcome };
  if (typeof outcome.usage_chunk === "string") outcome.usage_chunk = outcome.usage_chunk.replace(PLACEHOLDERS, value);
  if (typeof outcome.timings_chunk === "string") {
    outcome.timings_chunk = outcome.timings_chunk.replace(PLACEHOLDERS, value);
  }
  return { ...facts, outcome };
}

/** Why the stated numbers are not ones a placeholder in the engine's chunks could have hidden, or null. */
function numbersProblem(
  fixture: Fixture,
  facts: LineFacts,
  stated: ReadonlyArray<[string, unknown]>,
  concurrency: number,
): string | null {
  if (facts.kind !== "outcome") return "states counts of a request that was never answered";
  const chunks = `${facts.outcome.usage_chunk ?? ""}${facts.outcome.timings_chunk ?? ""}`;
  if (!hasPlaceholder(chunks)) return "states counts, but its usage and timings chunks hold no placeholder";
  const candidates = [...new Set(stated.map(([, v]) => v).filter((v) => typeof v === "number"))].slice(0, MAX_TRIED);
  for (const candidate of [...candidates.map(String), '"x"']) {
    const record = rebuildRecord(fixture, withChunkValue(facts, candidate), {}, concurrency);
    if (stated.every(([pointer, value]) => valueAt(record, pointer) === value)) return null;
  }
  return `states ${stated.map(([p, v]) => `${p} ${brief(v)}`).join(", ")}, but no number in place of the ` +
    "placeholders of its usage and timings chunks gives them";
}

/**
 * Why the values a line states could not have come from redaction (one message per kind of value), empty when
 * each could. `overrides` are the line's stated values; `concurrency` the record's.
 */
export function statedImpossible(
  fixture: Fixture,
  facts: LineFacts | string,
  overrides: Readonly<Record<string, unknown>>,
  concurrency: number,
): string[] {
  const pointers = Object.keys(overrides);
  if (pointers.length === 0) return [];
  if (typeof facts === "string" || pointers.includes("")) {
    const whole = overrides[""];
    return verdictOf(whole)?.passed === true
      ? ["states the whole record with a passing verdict, which nothing in the line can recompute"]
      : [];
  }
  const problems: string[] = [];
  try {
    const recomputed = rebuildRecord(fixture, facts, {}, concurrency);
    const stated = rebuildRecord(fixture, facts, overrides, concurrency);
    const before = verdictOf(recomputed);
    const after = verdictOf(stated);
    if (pointers.some((p) => p === "/evaluation" || p.startsWith("/evaluation/"))) {
      const problem = after === null || before === null
        ? (after === before ? null : "states a verdict where the check gives none, or none where it gives one")
        : verdictProblem(fixture, facts, after, before, concurrency);
      if (problem !== null) problems.push(problem);
    }
    const numbers = pointers.filter((p) => /^\/(?:tokens|timings|metrics)\//.test(p));
    if (numbers.length > 0) {
      const problem = numbersProblem(fixture, facts, numbers.map((p) => [p, overrides[p]]), concurrency);
      if (problem !== null) problems.push(problem);
    }
  } catch (error) {
    problems.push(`cannot be recomputed: ${errorMessage(error)}`);
  }
  return problems;
}
