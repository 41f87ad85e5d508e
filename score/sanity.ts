/**
 * The twelve sanity checks (I1-I4, R1-R4, T1-T4): one point each, scored from the final answer text or the
 * structured tool call, never from reasoning text.
 *
 * Readings this file implements:
 * - Exact-text cases strip only surrounding ASCII whitespace: space, tab, LF, VT, FF, CR (C's isspace in ASCII).
 *   Anything else (a trailing period, quotes, a BOM, a non-breaking space) makes the answer wrong.
 * - JSON cases parse the whole answer text as one strict JSON value (only JSON whitespace around it) and compare
 *   it with the expected value with lexical number types: 3 is not 3.0, true is not 1, key order is irrelevant.
 * - Tool cases need exactly one structured call with the expected name, arguments that parse strictly as one
 *   object, every expected argument equal with its lexical type, and no extra argument. Text next to the call is
 *   ignored. Argument values compare like JSON answers, so T3's value must be 3, not 3.0, even though its schema
 *   type is "number" (the protocol's "3 is not 3.0" applies to all JSON equality).
 * - Only a completed request can pass; truncated, failed and skipped requests fail with the reason why.
 * - An answer or tool-call event whose bytes were not valid UTF-8 fails the case with the event and byte offsets:
 *   the decoded text holds U+FFFD where the server sent other bytes, so it is not the answer as sent.
 */
import type {
  Evaluation,
  Fixture,
  RequestStatus,
  SanityCategory,
  StreamOutcome,
  ToolCallRecord,
} from "../contract/mod.ts";
import { parseStrictJson } from "./strict_json.ts";
import { describeJsonDifference, renderJson, toJsonValue } from "./json_value.ts";
import { classifyOutcome } from "./_outcome.ts";

/** The characters an exact-text check strips from both ends of the answer: " \t\n\v\f\r". */
const STRIP_PATTERN = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;

/** The answer with only surrounding ASCII whitespace removed. */
export function stripAsciiWhitespace(text: string): string {
  return text.replace(STRIP_PATTERN, "");
}

/**
 * Longest verdict reason a record keeps (characters); the rest is cut, saying how much. A verdict quotes what the
 * engine sent (tool-call names, JSON keys, byte offsets, the failure's message), each of which can be as long as a
 * request's body bound; unbounded, one sanity verdict held megabytes and a few of them took results.json past
 * report's 16 MiB cap. A verdict of the protocol's own words is a few hundred characters.
 */
export const MAX_VERDICT_REASON_CHARS = 2048;

/** Byte offsets named per event in a verdict on bytes that are not UTF-8; the rest are counted. */
const OFFSETS_NAMED = 8;

/** `reason` cut to MAX_VERDICT_REASON_CHARS, saying how many characters were cut. */
function bounded(reason: string): string {
  if (reason.length <= MAX_VERDICT_REASON_CHARS) return reason;
  return `${reason.slice(0, MAX_VERDICT_REASON_CHARS)}... (${
    reason.length - MAX_VERDICT_REASON_CHARS
  } more characters)`;
}

function quote(text: string, maxChars = 80): string {
  const shown = text.length > maxChars ? `${text.slice(0, maxChars - 3)}...` : text;
  return JSON.stringify(shown);
}

function categoryOf(fixture: Fixture): SanityCategory {
  if (fixture.category !== null) return fixture.category;
  const letter = fixture.case_id.charAt(0);
  if (letter === "I") return "instruction";
  if (letter === "R") return "retrieval";
  if (letter === "T") return "tool_call";
  throw new TypeError(`Cannot score sanity case "${fixture.case_id}": fixture "${fixture.id}" names no category`);
}

/**
 * Scores one sanity request. Failed, truncated and skipped requests fail with a reason; a completed request
 * passes only with a correct final answer or tool call; a skip's reason is written into the verdict.
 * @throws {TypeError} when the fixture is not a sanity case with an expected result, or a completed request
 * comes without its outcome.
 */
export function scoreSanity(
  fixture: Fixture,
  status: RequestStatus,
  outcome: StreamOutcome | null,
  skipReason: string | null = null,
): Evaluation {
  if (fixture.phase !== "sanity" || fixture.expected === null) {
    throw new TypeError(
      `Cannot score sanity for fixture "${fixture.id}": phase is "${fixture.phase}" and expected is ` +
        `${fixture.expected === null ? "null" : "set"}; pass a sanity fixture`,
    );
  }
  const category = categoryOf(fixture);
  const verdict = (passed: boolean, reason: string): Evaluation => ({
    category,
    passed,
    reason: bounded(`${fixture.case_id}: ${reason}`),
  });
  if (status === "skipped") {
    return verdict(false, `request was skipped, no answer${skipReason === null ? "" : ` (${skipReason})`}`);
  }
  if (status === "failed") {
    if (outcome === null) return verdict(false, "request failed, no answer");
    const { error } = classifyOutcome(outcome);
    return verdict(false, `request failed (${error?.kind ?? "unknown"}): ${error?.message ?? "no detail"}`);
  }
  if (outcome === null) {
    throw new TypeError(`Cannot score sanity case "${fixture.case_id}": status is ${status} but no outcome was given`);
  }
  if (status === "truncated") {
    const answer = stripAsciiWhitespace(outcome.answer_text);
    const seen = outcome.tool_calls.length > 0
      ? `${outcome.tool_calls.length} partial tool call(s)`
      : answer === ""
      ? "no answer text (the cap was spent on reasoning)"
      : `partial answer ${quote(answer)}`;
    return verdict(false, `truncated at the ${fixture.max_output_tokens}-token cap (finish_reason "length"); ${seen}`);
  }
  const garbled = invalidAnswerBytes(outcome);
  if (garbled !== null) return verdict(false, garbled);
  const expected = fixture.expected;
  if (expected.kind === "text") return verdict(...checkText(outcome, expected.value));
  if (expected.kind === "json") return verdict(...checkJson(outcome, expected.value));
  return verdict(...checkToolCall(outcome, expected.name, expected.arguments));
}

/**
 * Why the answer cannot be scored as sent: an answer or tool-call event whose bytes were not UTF-8 put U+FFFD
 * into the answer where the server sent something else, so no comparison with the expected text would be honest.
 * Null when every answer byte was UTF-8.
 */
function invalidAnswerBytes(outcome: StreamOutcome): string | null {
  const bad = (outcome.invalid_utf8 ?? []).filter((record) =>
    record.delta_kinds.includes("answer") || record.delta_kinds.includes("tool_call")
  );
  if (bad.length === 0) return null;
  // Bad bytes elsewhere in an answer's chunk (its envelope) leave the answer itself as sent.
  const replaced = outcome.answer_text.includes("\uFFFD") ||
    outcome.tool_calls.some((call) => call.name.includes("\uFFFD") || call.arguments.includes("\uFFFD"));
  if (!replaced) return null;
  const where = bad.slice(0, 3).map((record) => {
    const offsets = record.byte_offsets;
    const more = offsets.length > OFFSETS_NAMED ? ` and ${offsets.length - OFFSETS_NAMED} more` : "";
    return `event ${record.event} at byte ${offsets.slice(0, OFFSETS_NAMED).join(", ")}${more}`;
  });
  const more = bad.length > 3 ? ` and ${bad.length - 3} more event(s)` : "";
  return `the answer held bytes that are not UTF-8 (${where.join("; ")}${more}); it cannot be compared as sent`;
}

function noTextAnswer(outcome: StreamOutcome): string {
  if (outcome.tool_calls.length > 0) {
    const names = outcome.tool_calls.map((call) => call.name).join(", ");
    return `no answer text; the model made a tool call (${names}) instead`;
  }
  return "empty answer text";
}

function checkText(outcome: StreamOutcome, expected: string): [boolean, string] {
  const answer = stripAsciiWhitespace(outcome.answer_text);
  if (answer === expected) return [true, `answer is exactly ${quote(expected)}`];
  if (answer === "") return [false, `${noTextAnswer(outcome)}, expected ${quote(expected)}`];
  if (answer.toLowerCase() === expected.toLowerCase()) {
    return [false, `answer is ${quote(answer)}, expected exactly ${quote(expected)} (case differs)`];
  }
  if (answer.includes(expected)) {
    return [false, `answer ${quote(answer)} contains ${quote(expected)} but has other text around it`];
  }
  return [false, `answer is ${quote(answer)}, expected ${quote(expected)}`];
}

function checkJson(outcome: StreamOutcome, expectedPlain: unknown): [boolean, string] {
  const expected = toJsonValue(expectedPlain);
  if (stripAsciiWhitespace(outcome.answer_text) === "") {
    return [false, `${noTextAnswer(outcome)}, expected ${renderJson(expected)}`];
  }
  const parsed = parseStrictJson(outcome.answer_text);
  if (!parsed.ok) {
    return [false, `answer is not one strict JSON value: ${parsed.reason} (offset ${parsed.offset})`];
  }
  const difference = describeJsonDifference(parsed.value, expected, "the answer");
  if (difference !== null) return [false, difference];
  return [true, `answer equals ${renderJson(expected)}`];
}

/** Prose that merely names the function, or shows a call, instead of making one. */
function describesCall(text: string, name: string): boolean {
  return text.includes(name) || /[A-Za-z_]+\s*\(\s*\{/.test(text) || /"(name|arguments)"\s*:/.test(text);
}

function checkToolCall(
  outcome: StreamOutcome,
  name: string,
  expectedArguments: Record<string, unknown>,
): [boolean, string] {
  const calls: readonly ToolCallRecord[] = outcome.tool_calls;
  const expected = toJsonValue(expectedArguments);
  const wanted = `${name}(${renderJson(expected)})`;
  if (calls.length === 0) {
    const text = stripAsciiWhitespace(outcome.answer_text);
    if (text === "") return [false, `no structured tool call and no answer text, expected ${wanted}`];
    if (describesCall(text, name)) {
      return [false, `no structured tool call; answer text describes a call: ${quote(text)}`];
    }
    return [false, `no structured tool call; answer text is ${quote(text)}, expected ${wanted}`];
  }
  if (calls.length > 1) {
    const names = calls.map((call) => call.name).join(", ");
    return [false, `${calls.length} structured tool calls (${names}), expected exactly one`];
  }
  const call = calls[0] as ToolCallRecord;
  if (call.name !== name) return [false, `called ${quote(call.name)}, expected ${quote(name)}`];
  if (stripAsciiWhitespace(call.arguments) === "") {
    return [false, `${name} was called with empty arguments, expected ${renderJson(expected)}`];
  }
  const parsed = parseStrictJson(call.arguments);
  if (!parsed.ok) {
    return [false, `arguments of ${name} are not strict JSON: ${parsed.reason} (offset ${parsed.offset})`];
  }
  const difference = describeJsonDifference(parsed.value, expected, "the arguments");
  if (difference !== null) return [false, `arguments of ${name}: ${difference}`];
  return [true, `one structured call ${wanted}`];
}
