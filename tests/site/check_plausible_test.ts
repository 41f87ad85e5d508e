/**
 * site/web/check_plausible.js: the site's own reading of docs/results.md "Plausibility" refuses each impossible
 * value, and passes a plausible result and its lines.
 */
import assert from "node:assert/strict";
import { plausibilityProblems, reviewProblems } from "../../site/web/check_plausible.js";
import type { Editable } from "./_fixture_repo.ts";

const NOW = Date.parse("2026-12-07T12:00:00Z");
const STARTED = "2026-12-07T02:32:42.493Z";
const ID = "performance-short-r1";

function result(): Editable {
  return {
    run: { started_at: STARTED },
    configuration: { context_tokens: 32768 },
    requests: [{
      id: ID,
      max_output_tokens: 512,
      tokens: { input_tokens: 32, cached_tokens: 7, read_tokens: 25, output_tokens: 512, decode_tokens: 512 },
      timings: { prompt_s: 0.02, decode_s: 10.2, ttft_s: 0.05, first_answer_s: 3.1, total_s: 10.3 },
    }],
    extensions: { gpu_power: { gpus: 1, requests: [{ energy_j: 3000, mean_power_w: 290, peak_power_w: 410 }] } },
  };
}

function line(): Editable {
  return {
    request_id: ID,
    status: "truncated",
    dispatch_offset_s: 1.5,
    dispatched_at_epoch_ms: Date.parse(STARTED) + 1500,
    client_offsets_s: { headers_s: 0.01, first_byte_s: 0.01, first_delta_s: 0.05, first_answer_s: 3.1, end_s: 10.3 },
    chunk_offsets_s: [3.1, 3.2, 10.2],
    reasoning_chunk_offsets_s: [0.05, 0.1],
  };
}

const problems = (r: Editable, l: Editable) => plausibilityProblems(r, new Map([[ID, l]]), NOW);

Deno.test("a plausible result and its line pass", () => {
  assert.deepEqual(problems(result(), line()), []);
});

Deno.test("each implausible value is named", () => {
  const cases: [string, (r: Editable, l: Editable) => void, RegExp][] = [
    [
      "9e15 tokens",
      (r) => (r.requests[0].tokens.output_tokens = 9e15),
      /tokens\.output_tokens 9000000000000000 is more than the request's cap of 512/,
    ],
    [
      "cached past the prompt",
      (r) => (r.requests[0].tokens.cached_tokens = 40),
      /cached_tokens 40 is more than its 32 prompt tokens/,
    ],
    ["a negative duration", (r) => (r.requests[0].timings.prompt_s = -1), /timings\.prompt_s -1 s is negative/],
    ["the end before the first token", (r) => {
      r.requests[0].timings.first_answer_s = null;
      r.requests[0].timings.total_s = 0.01;
    }, /the first token comes after the end/],
    ["a start in 2099", (r) => (r.run.started_at = "2099-01-01T00:00:00Z"), /run\.started_at 2099.* in the future/],
    [
      "stamps three years late",
      (_r, l) => (l.dispatched_at_epoch_ms += 3 * 365 * 86_400_000),
      /dispatch stamp .* not within an hour/,
    ],
    ["a negative offset", (_r, l) => (l.client_offsets_s.headers_s = -0.25), /headers_s -0\.25 is negative/],
    [
      "offsets out of order",
      (_r, l) => (l.client_offsets_s.first_delta_s = 11),
      /end_s 10\.3 comes before the offset before it/,
    ],
    [
      "a chunk after the end",
      (_r, l) => l.chunk_offsets_s.push(11),
      /chunk_offsets_us stamp 3 is negative, out of order or after/,
    ],
    [
      "1e29 W",
      (r) => (r.extensions.gpu_power.requests[0].peak_power_w = 1e29),
      /power of 290 \/ 1e\+29 W is negative or past 5000 W/,
    ],
  ];
  for (const [name, edit, message] of cases) {
    const r = result(), l = line();
    edit(r, l);
    const found = problems(r, l);
    assert.ok(found.length >= 1, name);
    assert.ok(found.every((p) => p.startsWith("implausible: ")), name);
    assert.match(found.join("\n"), message, name);
  }
});

Deno.test("a skipped request's line has no clocks to check", () => {
  assert.deepEqual(problems(result(), { request_id: ID, status: "skipped", dispatched_at_epoch_ms: 0 }), []);
});

Deno.test("a review's time: after its run began (to the second) and not in the future", () => {
  assert.deepEqual(reviewProblems("2026-12-07T02:32:42Z", STARTED, NOW), [], "the same second as the start");
  assert.deepEqual(reviewProblems("2026-12-07T03:00:00Z", STARTED, NOW), []);
  assert.match(reviewProblems("1999-01-01T00:00:00Z", STARTED, NOW).join(), /reviewed_at 1999.* before the run began/);
  assert.match(reviewProblems("2099-01-01T00:00:00Z", STARTED, NOW).join(), /reviewed_at 2099.* in the future/);
});
