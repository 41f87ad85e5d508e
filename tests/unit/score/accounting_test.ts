/**
 * Counts from the engine are read from the chunk text as sent: exact nonnegative safe integers written without a
 * fraction or exponent, or null with a reason that quotes the lexeme. One test per malformed or extreme case.
 */
import assert from "node:assert/strict";
import { accountTokens, type EngineFields } from "../../../score/_accounting.ts";

const USAGE =
  '{"completion_tokens":35,"prompt_tokens":237,"total_tokens":272,"prompt_tokens_details":{"cached_tokens":236}}';
const TIMINGS = '{"cache_n":236,"prompt_n":1,"prompt_ms":30.9,"predicted_n":35,"predicted_ms":661.0,' +
  '"predicted_per_second":51.4}';

/** The last chunk of a llama-server stream, with usage and timings written as given. */
function chunk(usage: string = USAGE, timings: string = TIMINGS): string {
  return `{"choices":[],"created":1,"id":"chatcmpl-x","object":"chat.completion.chunk","usage":${usage},` +
    `"timings":${timings}}`;
}

function fields(text: string): EngineFields {
  const parsed = JSON.parse(text) as { usage: unknown; timings: unknown };
  return { usage: parsed.usage, timings: parsed.timings, usageChunk: text, timingsChunk: text };
}

function account(text: string) {
  return accountTokens(fields(text), "completed", "");
}

Deno.test("a well-formed llama.cpp chunk gives every count with its source", () => {
  const a = account(chunk());
  assert.equal(a.input.value, 237);
  assert.equal(a.cached.value, 236);
  assert.equal(a.read.value, 1);
  assert.equal(a.output.value, 35);
  assert.equal(a.decode.value, 35);
  assert.equal(a.decodeS.value, 0.661);
  assert.equal(a.output.source, "usage.completion_tokens");
});

Deno.test("completion_tokens 1e308 is null, the reason quotes the lexeme and names the exponent", () => {
  const a = account(chunk('{"completion_tokens":1e308,"prompt_tokens":237}'));
  assert.equal(a.output.value, null);
  assert.equal(
    a.output.reason,
    "usage.completion_tokens is 1e308, written with an exponent; a count is a whole number written without a " +
      "fraction or exponent",
  );
  assert.equal(a.input.value, 237, "the other counts of the object stay");
});

Deno.test("a count written 12.0 is null although JSON.parse makes it 12", () => {
  const a = account(chunk('{"completion_tokens":12.0,"prompt_tokens":237}'));
  assert.equal(JSON.parse('{"n":12.0}').n, 12);
  assert.equal(a.output.value, null);
  assert.match(a.output.reason ?? "", /^usage\.completion_tokens is 12\.0, written with a fraction;/);
});

Deno.test("prompt_tokens -100 is null and the reason says what was sent", () => {
  const a = account(chunk('{"completion_tokens":35,"prompt_tokens":-100}'));
  assert.equal(a.input.value, null);
  assert.equal(a.input.reason, "usage.prompt_tokens is -100, a negative number; a count is a nonnegative integer");
});

Deno.test("-0 is not a count: written with a minus sign", () => {
  const a = account(chunk('{"completion_tokens":-0,"prompt_tokens":237}'));
  assert.equal(a.output.value, null);
  assert.match(a.output.reason ?? "", /^usage\.completion_tokens is -0, a negative number/);
});

Deno.test("a count above 2^53-1 is null: JSON.parse would round 9007199254740993 to ...992", () => {
  const a = account(chunk('{"completion_tokens":9007199254740993,"prompt_tokens":9007199254740991}'));
  assert.equal(a.output.value, null);
  assert.equal(
    a.output.reason,
    "usage.completion_tokens is 9007199254740993, above 2^53-1 (9007199254740991): not an exact count",
  );
  // 2^53-1 itself is read exactly, and then refused by the plausibility bound, its exact lexeme in the reason.
  assert.equal(a.input.value, null);
  assert.equal(a.input.reason, "usage.prompt_tokens is 9007199254740991, more than any engine counts (100000000)");
});

Deno.test("plausibility: output past the request's cap, cached or read past the prompt, a timer past a day", () => {
  const usage = '{"completion_tokens":600,"prompt_tokens":40,"prompt_tokens_details":{"cached_tokens":41}}';
  const timings = '{"prompt_n":45,"prompt_ms":90000000,"predicted_n":600,"predicted_ms":12000}';
  const a = accountTokens(fields(chunk(usage, timings)), "completed", "", 512);
  assert.equal(a.input.value, 40);
  assert.equal(a.output.reason, "usage.completion_tokens is 600, more than the request's cap of 512 (max_tokens)");
  assert.equal(a.decode.reason, "timings.predicted_n is 600, more than the request's cap of 512 (max_tokens)");
  assert.equal(a.cached.reason, "usage.prompt_tokens_details.cached_tokens is 41, more than the prompt's 40 tokens");
  assert.equal(a.read.reason, "timings.prompt_n is 45, more than the prompt's 40 tokens");
  assert.equal(a.promptS.reason, "timings.prompt_ms gives 90000 s, longer than a day");
  assert.equal(a.decodeS.value, 12);
  // Within the bounds nothing changes: the cap itself is a count.
  const atCap = accountTokens(fields(chunk('{"completion_tokens":512,"prompt_tokens":40}')), "completed", "", 512);
  assert.equal(atCap.output.value, 512);
});

Deno.test("1E3 and 1e400 are exponents, never 1000 or Infinity", () => {
  const a = account(chunk('{"completion_tokens":1E3,"prompt_tokens":1e400}'));
  assert.equal(a.output.value, null);
  assert.match(a.output.reason ?? "", /^usage\.completion_tokens is 1E3, written with an exponent/);
  assert.equal(a.input.value, null);
  assert.match(a.input.reason ?? "", /^usage\.prompt_tokens is 1e400, written with an exponent/);
});

Deno.test("a count sent as a string is null and quoted as a string", () => {
  const a = account(chunk('{"completion_tokens":"35","prompt_tokens":237}'));
  assert.equal(a.output.value, null);
  assert.equal(a.output.reason, 'usage.completion_tokens is "35", a string, expected a nonnegative integer count');
});

Deno.test("a key repeated in usage is recorded with every value and its count is null, not the last one", () => {
  const a = account(chunk('{"completion_tokens":35,"prompt_tokens":10,"prompt_tokens":12}'));
  assert.equal(a.input.value, null);
  assert.equal(
    a.input.reason,
    "usage has prompt_tokens 2 times (10, 12): usage.prompt_tokens is ambiguous, so it is not used",
  );
  assert.equal(a.output.value, 35);
});

Deno.test("a key repeated in timings is recorded the same way and the derivation says why it fell back", () => {
  const timings = '{"cache_n":236,"prompt_n":1,"prompt_n":5,"prompt_ms":30.9,"predicted_n":35,"predicted_ms":661.0,' +
    '"predicted_per_second":51.4}';
  const a = account(chunk(USAGE, timings));
  assert.equal(a.read.value, 1, "derived from usage.prompt_tokens - cached_tokens instead");
  assert.equal(a.read.source, "derived: usage.prompt_tokens - usage.prompt_tokens_details.cached_tokens");
  const noUsage = accountTokens(
    { ...fields(chunk(USAGE, timings)), usage: null, usageChunk: null },
    "completed",
    "",
  );
  assert.equal(noUsage.read.value, null);
  assert.match(noUsage.read.reason ?? "", /^timings has prompt_n 2 times \(1, 5\): timings\.prompt_n is ambiguous/);
});

Deno.test("a repeated nested object makes its counts ambiguous", () => {
  const usage = '{"completion_tokens":35,"prompt_tokens":237,"prompt_tokens_details":{"cached_tokens":1},' +
    '"prompt_tokens_details":{"cached_tokens":236}}';
  const a = account(chunk(usage));
  assert.equal(a.cached.source, "timings.cache_n", "the usage field was ambiguous, timings.cache_n is used");
  const noTimings = accountTokens({ ...fields(chunk(usage)), timings: null, timingsChunk: null }, "completed", "");
  assert.equal(noTimings.cached.value, null);
  assert.match(noTimings.cached.reason ?? "", /usage has prompt_tokens_details 2 times \(an object, an object\)/);
});

Deno.test("a chunk that carries usage twice at the top is not read at all", () => {
  const text = `{"choices":[],"usage":{"completion_tokens":3,"prompt_tokens":4},"usage":${USAGE},"timings":${TIMINGS}}`;
  const a = account(text);
  assert.equal(a.output.value, null);
  assert.equal(a.output.reason, "the chunk carried usage 2 times; which one the server meant is unknown");
  assert.equal(a.decode.value, 35, "timings are read");
});

Deno.test("a chunk that is not strict JSON (an unpaired surrogate) gives nulls that say so", () => {
  const text = `{"choices":[],"note":"\\ud800","usage":${USAGE},"timings":${TIMINGS}}`;
  JSON.parse(text); // JSON.parse accepts it; the strict reading does not
  const a = account(text);
  assert.equal(a.output.value, null);
  assert.match(a.output.reason ?? "", /^the chunk that carried usage is not strict JSON \(unpaired surrogate/);
});

Deno.test("durations: negative and beyond-double prompt_ms are null, fractions and exponents are fine", () => {
  const negative = account(chunk(USAGE, TIMINGS.replace('"prompt_ms":30.9', '"prompt_ms":-5')));
  assert.equal(negative.promptS.value, null);
  assert.equal(negative.promptS.reason, "timings.prompt_ms is -5, expected a nonnegative finite number");
  const huge = account(chunk(USAGE, TIMINGS.replace('"prompt_ms":30.9', '"prompt_ms":1e400')));
  assert.equal(huge.promptS.value, null);
  assert.equal(huge.promptS.reason, "timings.prompt_ms is 1e400, beyond the range of a double");
  const exponent = account(chunk(USAGE, TIMINGS.replace('"prompt_ms":30.9', '"prompt_ms":3.09e1')));
  assert.equal(exponent.promptS.value, 30.9 / 1000);
});

Deno.test("an implied decode count that is no exact count is null, never a rounded huge number", () => {
  const timings = '{"cache_n":0,"prompt_n":1,"prompt_ms":1,"predicted_n":35,"predicted_ms":1e300,' +
    '"predicted_per_second":1e10}';
  const a = account(chunk(USAGE, timings));
  assert.equal(a.decode.value, null);
  assert.match(a.decode.reason ?? "", /implies 1e\+307 tokens, which is not an exact count/);
});

Deno.test("without chunk text (a client that keeps none) the parsed values are judged by the same rules", () => {
  const a = accountTokens(
    { usage: { completion_tokens: 1e308, prompt_tokens: 9007199254740993 }, timings: null },
    "completed",
    "",
  );
  assert.equal(a.output.value, null);
  assert.match(a.output.reason ?? "", /^usage\.completion_tokens is 1e\+308, written with an exponent/);
  assert.equal(a.input.value, null);
  assert.match(a.input.reason ?? "", /^usage\.prompt_tokens is 9007199254740992, above 2\^53-1/);
});

Deno.test("no usage chunk at all says the server sent none, and a failed request says it failed first", () => {
  const none = accountTokens({ usage: null, timings: null, usageChunk: null, timingsChunk: null }, "completed", "");
  assert.equal(none.output.reason, "server sent no usage object (stream_options.include_usage ignored?)");
  const failed = accountTokens({ usage: null, timings: null, usageChunk: null, timingsChunk: null }, "failed", "cut");
  assert.equal(failed.output.reason, "the request failed (cut) before the server sent a usage object");
});
