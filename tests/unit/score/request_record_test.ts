import assert from "node:assert/strict";
import { buildRequestRecord, isUnexpectedReuse, nonconformingReasonsOf } from "../../../score/mod.ts";
import type { Fixture, StreamOutcome } from "../../../contract/mod.ts";
import {
  answered,
  assertEveryNullExplained,
  fixture,
  LLAMA_TIMINGS,
  LLAMA_USAGE,
  outcome,
  sanityFixture,
} from "./_helpers.ts";

function build(out: StreamOutcome, fix: Fixture = fixture({ max_shared_prefix_tokens: 236 }), concurrency = 1) {
  const built = buildRequestRecord(fix, { kind: "outcome", outcome: out, concurrency });
  assertEveryNullExplained(built);
  return built;
}

function near(actual: number | null, expected: number, tolerance = 1e-5): void {
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected}`);
}

/** A 4K request that reached the 512-token cap while reasoning, as llama-server reports it. */
const CAPPED_4K = {
  usage: {
    prompt_tokens: 4101,
    completion_tokens: 512,
    total_tokens: 4613,
    prompt_tokens_details: { cached_tokens: 14 },
  },
  timings: {
    cache_n: 14,
    prompt_n: 4087,
    prompt_ms: 2345.6,
    predicted_n: 512,
    predicted_ms: 9876.5,
    predicted_per_second: 51.7, // (512 - 1) / 9.8765 s = 51.739..., rounded by the engine
  },
};

Deno.test("record from llama-server's reference final chunk maps every field to its source", () => {
  const { record, flags } = build(outcome({ answer_text: "Hello", first_delta_kind: "reasoning" }));
  assert.equal(record.status, "completed");
  assert.equal(record.finish_reason, "stop");
  assert.equal(record.error, null);
  assert.deepEqual(record.tokens, {
    input_tokens: 237,
    cached_tokens: 236,
    read_tokens: 1,
    output_tokens: 35,
    decode_tokens: 35,
  });
  near(record.timings.prompt_s, 0.0309, 1e-12);
  near(record.timings.decode_s, 0.661, 1e-12);
  assert.equal(record.timings.ttft_s, 0.05);
  assert.equal(record.timings.first_answer_s, 0.4);
  assert.equal(record.timings.total_s, 0.75);
  near(record.metrics.prompt_tps, 32.36246); // 1 / 0.0309
  near(record.metrics.decode_tps, 52.95008); // 35 / 0.661
  assert.deepEqual(record.sources, {
    input_tokens: "usage.prompt_tokens",
    cached_tokens: "usage.prompt_tokens_details.cached_tokens",
    read_tokens: "timings.prompt_n",
    output_tokens: "usage.completion_tokens",
    decode_tokens: "timings.predicted_n",
    engine_timings: "timings.prompt_ms, timings.predicted_ms",
    client_timings: "client monotonic clock (performance.now), dispatch = 0",
  });
  assert.equal(record.first_delta_kind, "reasoning");
  assert.equal(record.token_accounting_note, null);
  assert.equal(record.evaluation, null);
  assert.deepEqual(flags, {
    unexpectedReuse: false,
    promptLengthOutOfRange: false,
    promptLengthUnverified: false,
    refusedSetting: false,
  });
});

Deno.test("record copies identity from the fixture and concurrency from the input", () => {
  const fix = fixture({
    id: "concurrency-r2-c3",
    phase: "concurrency",
    case_id: "short-burst",
    repetition: 2,
    round: 2,
    seed: 7,
  });
  const { record, missing } = build(outcome(), { ...fix, max_shared_prefix_tokens: 236 }, 4);
  assert.deepEqual(
    [record.id, record.phase, record.case_id, record.repetition, record.seed, record.max_output_tokens],
    ["concurrency-r2-c3", "concurrency", "short-burst", 2, 7, 512],
  );
  assert.equal(record.concurrency, 4);
  assert.equal(record.round, 2);
  assert.equal(missing["/round"], undefined);
  assert.equal(missing["/evaluation"], "not a sanity request (phase concurrency)");
});

Deno.test("a capped 4K request is truncated, keeps predicted_n and has no first-answer time", () => {
  const fix = fixture({ id: "performance-prompt-4k-r1", case_id: "prompt-4k", max_shared_prefix_tokens: 14 });
  const { record, missing, flags } = build(
    outcome({
      ...CAPPED_4K,
      finish_reason: "length",
      offsets: { headers_s: 2.3, first_byte_s: 2.3, first_delta_s: 2.4, first_answer_s: null, end_s: 12.3 },
    }),
    fix,
  );
  assert.equal(record.status, "truncated");
  assert.equal(record.finish_reason, "length");
  assert.equal(record.error, null);
  assert.equal(missing["/error"], "no error: the request reached its output cap, which is a normal ending");
  assert.equal(record.tokens.decode_tokens, 512); // 51.7 x 9.8765 = 510.615; |512 - 510.615| = 1.385 <= 1.494
  assert.equal(record.tokens.read_tokens, 4087);
  near(record.metrics.prompt_tps, 1742.41132); // 4087 / 2.3456
  near(record.metrics.decode_tps, 51.84023); // 512 / 9.8765
  assert.equal(record.timings.first_answer_s, null);
  assert.equal(
    missing["/timings/first_answer_s"],
    "no answer text or tool call arrived: the request reached its 512-token cap while reasoning",
  );
  assert.deepEqual(flags, {
    unexpectedReuse: false,
    promptLengthOutOfRange: false,
    promptLengthUnverified: false,
    refusedSetting: false,
  });
});

Deno.test("the (n-1)/ms rate quirk passes the agreement rule at 2 and at 512 tokens", () => {
  // 2 tokens in 40 ms: engine rate (2 - 1) / 0.04 = 25.0, implies 1 token; |2 - 1| = 1 <= 0.05 x 0.04 + 1.
  const small = build(
    outcome({
      timings: { ...LLAMA_TIMINGS, predicted_n: 2, predicted_ms: 40, predicted_per_second: 25 },
      usage: { ...LLAMA_USAGE, completion_tokens: 2 },
    }),
  );
  assert.equal(small.record.tokens.decode_tokens, 2);
  assert.equal(small.record.sources.decode_tokens, "timings.predicted_n");
  near(small.record.metrics.decode_tps, 50); // 2 / 0.04: the tool's rate is n / s, not the engine's (n-1) / s
  // 512 tokens in 10 s: engine rate 511 / 10 = 51.1; |512 - 511| = 1 <= 1.5.
  const big = build(
    outcome({
      timings: { ...LLAMA_TIMINGS, predicted_n: 512, predicted_ms: 10000, predicted_per_second: 51.1 },
      usage: { ...LLAMA_USAGE, completion_tokens: 512 },
    }),
  );
  assert.equal(big.record.tokens.decode_tokens, 512);
  near(big.record.metrics.decode_tps, 51.2);
  assert.equal(big.record.token_accounting_note, null);
});

Deno.test("a predicted_n that disagrees with the engine's rate is replaced by the count the rate implies, with notes", () => {
  // 41.1 tok/s x 10 s = 411 tokens; 500 (within the request's cap of 512) is off by 89 > 1.5 tolerance.
  const { record } = build(
    outcome({
      timings: { ...LLAMA_TIMINGS, predicted_n: 500, predicted_ms: 10000, predicted_per_second: 41.1 },
      usage: { ...LLAMA_USAGE, completion_tokens: 500 },
    }),
  );
  assert.equal(record.tokens.decode_tokens, 411);
  assert.equal(record.tokens.output_tokens, 500);
  assert.equal(
    record.sources.decode_tokens,
    "derived: round(timings.predicted_per_second x timings.predicted_ms / 1000)",
  );
  near(record.metrics.decode_tps, 41.1);
  assert.match(
    record.token_accounting_note ?? "",
    /timings\.predicted_n 500 disagrees with timings\.predicted_per_second 41\.1 x decode_s 10 = 411 tokens \(tolerance 1\.5\)/,
  );
  assert.match(record.token_accounting_note ?? "", /usage\.completion_tokens 500 differs from decode_tokens 411/);
});

Deno.test("a rate just outside the tolerance makes the count the rate implies", () => {
  // 51.3 x 0.661 = 33.909; |35 - 33.909| = 1.091 > 0.05 x 0.661 + 1 = 1.033.
  const { record } = build(outcome({ timings: { ...LLAMA_TIMINGS, predicted_per_second: 51.3 } }));
  assert.equal(record.tokens.decode_tokens, 34);
  assert.match(record.token_accounting_note ?? "", /usage.completion_tokens 35 differs from decode_tokens 34/);
});

Deno.test("missing usage: input and output are null with the include_usage reason, cache comes from timings", () => {
  const { record, missing } = build(outcome({ usage: null }));
  assert.equal(record.tokens.input_tokens, null);
  assert.equal(record.tokens.output_tokens, null);
  assert.equal(missing["/tokens/input_tokens"], "server sent no usage object (stream_options.include_usage ignored?)");
  assert.equal(missing["/tokens/output_tokens"], "server sent no usage object (stream_options.include_usage ignored?)");
  assert.equal(record.tokens.cached_tokens, 236);
  assert.equal(record.sources.cached_tokens, "timings.cache_n");
  assert.equal(record.tokens.read_tokens, 1);
  assert.equal(record.tokens.decode_tokens, 35);
  near(record.metrics.decode_tps, 52.95008);
});

Deno.test("missing timings: read_tokens is derived from usage, engine rates are null with reasons", () => {
  const { record, missing } = build(outcome({ timings: null }));
  assert.equal(record.tokens.read_tokens, 1);
  assert.equal(record.sources.read_tokens, "derived: usage.prompt_tokens - usage.prompt_tokens_details.cached_tokens");
  assert.equal(record.tokens.decode_tokens, null);
  assert.equal(record.timings.prompt_s, null);
  assert.equal(record.metrics.prompt_tps, null);
  assert.equal(record.metrics.decode_tps, null);
  assert.equal(record.sources.engine_timings, null);
  assert.match(missing["/timings/decode_s"] ?? "", /server sent no timings object/);
  assert.equal(missing["/metrics/prompt_tps"], "prompt_s is null (no engine timings)");
  assert.equal(missing["/metrics/decode_tps"], "decode_tokens is null (no engine timings)");
  assert.equal(record.tokens.output_tokens, 35);
});

Deno.test("zero durations give null rates, never Infinity or NaN", () => {
  const { record, missing } = build(
    outcome({
      timings: { ...LLAMA_TIMINGS, prompt_ms: 0, predicted_ms: 0, predicted_n: 1, predicted_per_second: 0 },
      usage: { ...LLAMA_USAGE, completion_tokens: 1 },
    }),
  );
  assert.equal(record.timings.prompt_s, 0);
  assert.equal(record.timings.decode_s, 0);
  assert.equal(record.tokens.decode_tokens, 1);
  assert.equal(record.metrics.prompt_tps, null);
  assert.equal(record.metrics.decode_tps, null);
  assert.equal(missing["/metrics/prompt_tps"], "prompt_s is 0: the engine timed no prompt processing");
  assert.equal(missing["/metrics/decode_tps"], "decode_s is 0: the engine timed no decoding");
});

Deno.test("a full cache hit on llama.cpp reads one token and is flagged as unexpected reuse", () => {
  const fix = fixture({
    id: "performance-prompt-4k-r2",
    case_id: "prompt-4k",
    repetition: 2,
    max_shared_prefix_tokens: 14,
  });
  const hit = outcome({
    usage: { ...CAPPED_4K.usage, prompt_tokens_details: { cached_tokens: 4100 } },
    timings: { ...CAPPED_4K.timings, cache_n: 4100, prompt_n: 1, prompt_ms: 25 },
  });
  const { record, flags } = build(hit, fix);
  assert.equal(record.tokens.read_tokens, 1);
  near(record.metrics.prompt_tps, 40); // 1 / 0.025
  assert.equal(flags.unexpectedReuse, true);
  assert.match(
    record.token_accounting_note ?? "",
    /unexpected cache reuse: cached_tokens 4100 > max_shared_prefix_tokens 14 \+ 8/,
  );
});

Deno.test("read_tokens of 0 gives a null prompt rate with the cache reason", () => {
  const { record, missing } = build(outcome({ timings: { ...LLAMA_TIMINGS, prompt_n: 0 } }));
  assert.equal(record.tokens.read_tokens, 0);
  assert.equal(record.metrics.prompt_tps, null);
  assert.equal(missing["/metrics/prompt_tps"], "read_tokens is 0: the whole prompt came from the cache");
});

Deno.test("raw fields of the wrong type are null with a reason, never coerced", () => {
  const { record, missing } = build(outcome({
    usage: { ...LLAMA_USAGE, prompt_tokens: "237", completion_tokens: 35.5 },
    timings: { ...LLAMA_TIMINGS, prompt_n: -1, prompt_ms: "30.9" },
  }));
  assert.equal(record.tokens.input_tokens, null);
  assert.equal(
    missing["/tokens/input_tokens"],
    'usage.prompt_tokens is "237", a string, expected a nonnegative integer count',
  );
  assert.equal(
    missing["/tokens/output_tokens"],
    "usage.completion_tokens is 35.5, written with a fraction; a count is a whole number written without a " +
      "fraction or exponent",
  );
  assert.equal(record.tokens.read_tokens, null);
  assert.match(
    missing["/tokens/read_tokens"] ?? "",
    /timings\.prompt_n is -1, a negative number; a count is a nonnegative integer; cannot derive it: input_tokens is null too/,
  );
  assert.equal(record.timings.prompt_s, null);
  assert.equal(record.sources.engine_timings, "timings.predicted_ms");
  const notObject = build(outcome({ usage: "yes" as unknown, timings: [1, 2] as unknown }));
  assert.equal(notObject.missing["/tokens/input_tokens"], 'usage is "yes", not an object');
  assert.equal(notObject.missing["/timings/prompt_s"], "timings is an array, not an object");
});

Deno.test("request status follows the finish reason and how the stream ended", () => {
  const cases: Array<[Partial<StreamOutcome>, string, string | null]> = [
    [{ finish_reason: "stop" }, "completed", null],
    [{ finish_reason: "tool_calls" }, "completed", null],
    [{ finish_reason: "length" }, "truncated", null],
    [{ finish_reason: "content_filter" }, "failed", "finish_reason"],
    [{ finish_reason: null }, "failed", "no_finish"],
    [
      { end: "error_event", finish_reason: null, error_message: "Context size has been exceeded." },
      "failed",
      "error_event",
    ],
    [{ end: "cut", finish_reason: "stop" }, "failed", "cut"],
    [{ end: "malformed", finish_reason: null }, "failed", "malformed"],
    [{ end: "no_finish", finish_reason: null }, "failed", "no_finish"],
    [{ end: "timeout", finish_reason: null }, "failed", "timeout"],
    [{ end: "cancelled", finish_reason: null }, "failed", "cancelled"],
    [{ end: "connect_error", finish_reason: null, http_status: null }, "failed", "connect_error"],
    [{ end: "http_error", finish_reason: null, http_status: 503 }, "failed", "http_error"],
  ];
  for (const [overrides, status, kind] of cases) {
    const { record } = build(outcome(overrides));
    assert.equal(record.status, status, JSON.stringify(overrides));
    assert.equal(record.error?.kind ?? null, kind, JSON.stringify(overrides));
  }
  const filtered = build(outcome({ finish_reason: "content_filter" })).record;
  assert.equal(filtered.finish_reason, "content_filter");
  assert.match(filtered.error?.message ?? "", /finish_reason "content_filter"/);
  const event = build(
    outcome({ end: "error_event", finish_reason: null, error_message: "Context size has been exceeded." }),
  );
  assert.match(event.record.error?.message ?? "", /error event.*Context size has been exceeded\./);
  assert.match(event.missing["/finish_reason"] ?? "", /no finish_reason arrived: the server sent an error event/);
});

Deno.test("HTTP 400 and 422 flag a refused setting; other HTTP errors do not", () => {
  const refused = (status: number) =>
    build(
      outcome({
        end: "http_error",
        http_status: status,
        finish_reason: null,
        usage: null,
        timings: null,
        first_delta_kind: null,
        offsets: { headers_s: 0.01, first_byte_s: 0.01, first_delta_s: null, first_answer_s: null, end_s: 0.02 },
        error_message: "invalid",
      }),
    );
  assert.equal(refused(400).flags.refusedSetting, true);
  assert.equal(refused(422).flags.refusedSetting, true);
  assert.equal(refused(500).flags.refusedSetting, false);
  const { record, missing } = refused(400);
  assert.equal(record.error?.message, "the server answered with an HTTP error before streaming (HTTP 400): invalid");
  assert.equal(
    missing["/tokens/input_tokens"],
    "the request failed (http_error) before the server sent a usage object",
  );
  assert.equal(
    missing["/timings/ttft_s"],
    "no reasoning, answer or tool-call delta arrived before the request failed (http_error)",
  );
  assert.equal(record.timings.total_s, 0.02);
});

Deno.test("a normally ended 4K/16K request without usage cannot be length-checked and is a nonconforming reason", () => {
  const fix = fixture({ id: "performance-prompt-4k-r1", case_id: "prompt-4k", max_shared_prefix_tokens: 14 });
  const noUsage = build(outcome({ ...CAPPED_4K, usage: null }), fix);
  assert.ok(noUsage.record.status === "completed" || noUsage.record.status === "truncated", noUsage.record.status);
  assert.equal(noUsage.record.tokens.input_tokens, null);
  assert.equal(noUsage.flags.promptLengthUnverified, true);
  assert.equal(noUsage.flags.promptLengthOutOfRange, false);
  assert.deepEqual(nonconformingReasonsOf(noUsage, 14), [
    "performance-prompt-4k-r1: the prompt length could not be checked against 4096 +/- 2%: the server sent no " +
    "usage.prompt_tokens although the request asked for usage (stream_options.include_usage)",
  ]);
  // Sent but not an exact count: the reason says so, never that the server sent none.
  const written = build(outcome({ ...CAPPED_4K, usage: { ...CAPPED_4K.usage, prompt_tokens: "4101" } }), fix);
  assert.equal(written.flags.promptLengthUnverified, true);
  const [why] = nonconformingReasonsOf(written, 14);
  assert.doesNotMatch(why ?? "", /sent no usage\.prompt_tokens/);
  assert.match(why ?? "", /: usage\.prompt_tokens is unusable \(.*prompt_tokens.*\)$/);
  // With usage the rule is checked; a short case has no length rule; a failed request is left to its failure.
  assert.equal(build(outcome(CAPPED_4K), fix).flags.promptLengthUnverified, false);
  const short = fixture({ id: "performance-short-r1", case_id: "short", max_shared_prefix_tokens: 14 });
  assert.equal(build(outcome({ ...CAPPED_4K, usage: null }), short).flags.promptLengthUnverified, false);
  const failed = build(outcome({ ...CAPPED_4K, usage: null, end: "cut", finish_reason: null }), fix);
  assert.equal(failed.record.status, "failed");
  assert.equal(failed.flags.promptLengthUnverified, false);
});

Deno.test("prompt-4k and prompt-16k input lengths more than 2% off their target are flagged and noted", () => {
  const fix = fixture({ id: "performance-prompt-4k-r1", case_id: "prompt-4k", max_shared_prefix_tokens: 14 });
  const out = (input: number) => outcome({ ...CAPPED_4K, usage: { ...CAPPED_4K.usage, prompt_tokens: input } });
  assert.equal(build(out(4096 + 81), fix).flags.promptLengthOutOfRange, false); // 81 <= 81.92
  const off = build(out(4200), fix); // 104 / 4096 = 2.54%
  assert.equal(off.flags.promptLengthOutOfRange, true);
  assert.match(off.record.token_accounting_note ?? "", /input_tokens 4200 is 2\.5% off the 4096-token target/);
  const fix16 = fixture({ id: "performance-prompt-16k-r1", case_id: "prompt-16k", max_shared_prefix_tokens: 14 });
  assert.equal(build(out(16384 - 328), fix16).flags.promptLengthOutOfRange, true); // 328 > 327.68
  assert.equal(build(out(16384 - 327), fix16).flags.promptLengthOutOfRange, false);
  assert.equal(build(out(9000), fixture({ max_shared_prefix_tokens: 14 })).flags.promptLengthOutOfRange, false);
});

Deno.test("unexpected reuse means cached_tokens above max_shared_prefix_tokens + 8", () => {
  assert.equal(isUnexpectedReuse(20, 12), false);
  assert.equal(isUnexpectedReuse(21, 12), true);
  assert.equal(isUnexpectedReuse(null, 12), false);
  assert.equal(isUnexpectedReuse(0, 0), false);
});

Deno.test("a skipped request has every measurement null with the skip reason and an error of kind skipped", () => {
  const built = buildRequestRecord(fixture(), {
    kind: "skipped",
    reason: "the server stopped answering /health",
    concurrency: 1,
  });
  assertEveryNullExplained(built);
  const { record, missing, flags } = built;
  assert.equal(record.status, "skipped");
  assert.deepEqual(record.error, { kind: "skipped", message: "the server stopped answering /health" });
  assert.equal(record.tokens.input_tokens, null);
  assert.equal(record.sources.client_timings, null);
  assert.equal(missing["/timings/total_s"], "request was skipped: the server stopped answering /health");
  assert.deepEqual(flags, {
    unexpectedReuse: false,
    promptLengthOutOfRange: false,
    promptLengthUnverified: false,
    refusedSetting: false,
  });
});

Deno.test("sanity records carry their verdict; a skipped sanity case fails with the skip reason", () => {
  const passed = build(answered("READY"), sanityFixture("I4")).record;
  assert.deepEqual(passed.evaluation, {
    category: "instruction",
    passed: true,
    reason: 'I4: answer is exactly "READY"',
  });
  const skipped = buildRequestRecord(sanityFixture("T2"), { kind: "skipped", reason: "run cancelled", concurrency: 1 });
  assert.deepEqual(skipped.record.evaluation, {
    category: "tool_call",
    passed: false,
    reason: "T2: request was skipped, no answer (run cancelled)",
  });
});

Deno.test("a stream that finished after reasoning only explains its null first-answer time", () => {
  const { missing } = build(
    outcome({
      offsets: { headers_s: 0.01, first_byte_s: 0.02, first_delta_s: 0.05, first_answer_s: null, end_s: 0.75 },
    }),
  );
  assert.equal(
    missing["/timings/first_answer_s"],
    "no answer text or tool call arrived: the stream finished after reasoning only",
  );
});

Deno.test("invalid client offsets become null with a reason", () => {
  const { record, missing } = build(
    outcome({
      offsets: {
        headers_s: 0,
        first_byte_s: 0,
        first_delta_s: Number.NaN,
        first_answer_s: -1,
        end_s: Number.POSITIVE_INFINITY,
      },
    }),
  );
  assert.equal(record.timings.ttft_s, null);
  assert.equal(record.timings.total_s, null);
  assert.equal(missing["/timings/ttft_s"], "the client offset is NaN, not a nonnegative finite number of seconds");
  assert.equal(
    missing["/timings/first_answer_s"],
    "the client offset is -1, not a nonnegative finite number of seconds",
  );
});

Deno.test("a record carries load's reasoning cadence from the chunk stamps, or null with why", () => {
  const stamps = { reasoning_chunk_offsets_s: [0.05, 0.07, 0.1], chunk_offsets_s: [0.4, 0.45] };
  const { record, missing } = build(outcome({ ...stamps, answer_text: "Done." }));
  assert.deepEqual(record.reasoning_cadence, {
    thinking_s: 0.4 - 0.05,
    reasoning_itl_s: [0.02, 0.03],
    reasoning_tpot_s: (0.1 - 0.05) / 2,
    answer_itl_s: [0.05],
    answer_tpot_s: (0.45 - 0.4) / 1,
  });
  const capped = build(outcome({
    reasoning_chunk_offsets_s: [0.05],
    chunk_offsets_s: [],
    finish_reason: "length",
    offsets: { headers_s: 0.01, first_byte_s: 0.02, first_delta_s: 0.05, first_answer_s: null, end_s: 0.75 },
  }));
  assert.equal(capped.record.reasoning_cadence?.thinking_s, null);
  assert.equal(capped.missing["/reasoning_cadence/thinking_s"], "no answer followed the reasoning");
  assert.equal(capped.missing["/reasoning_cadence/reasoning_tpot_s"], "fewer than two reasoning chunks");
  const plain = build(outcome({ ...stamps, reasoning_chunk_offsets_s: [], first_delta_kind: "answer" }));
  assert.equal(plain.record.reasoning_cadence, null);
  assert.equal(plain.missing["/reasoning_cadence"], "no reasoning streamed");
  assert.equal(missing["/reasoning_cadence"], undefined);
  const skipped = buildRequestRecord(fixture(), { kind: "skipped", reason: "run cancelled", concurrency: 1 });
  assert.equal(skipped.missing["/reasoning_cadence"], "request was skipped: run cancelled");
});
