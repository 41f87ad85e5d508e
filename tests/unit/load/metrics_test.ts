import assert from "node:assert/strict";
import { buildLoadRow } from "../../../load/metrics.ts";
import type { StreamOutcome } from "../../../contract/mod.ts";
import { outcome, sample } from "./_fakes.ts";

const close = (a: number | null, b: number) => a !== null && Math.abs(a - b) < 1e-12;

Deno.test("E2E is completion minus actual send; TTFT the first nonempty delta; first byte the headers", () => {
  const row = buildLoadRow(sample(outcome({ endS: 1.5, headersS: 0.04, firstDeltaS: 0.25, completionTokens: 11 })));
  assert.equal(row.status, "success");
  assert.equal(row.latency_s, 1.5);
  assert.equal(row.ttft_s, 0.25);
  assert.equal(row.first_byte_s, 0.04);
  assert.equal(row.end_offset_s, 3.5);
  assert.ok(close(row.tpot_s, (1.5 - 0.25) / 10));
});

Deno.test("coordinated-omission latency adds the delay between scheduled and actual send", () => {
  const row = buildLoadRow(
    sample(outcome({ endS: 1, completionTokens: 5 }), { scheduled_offset_s: 1.7, send_offset_s: 2 }),
    { lateAfterS: 0.01 },
  );
  assert.ok(close(row.lateness_s, 0.3));
  assert.ok(close(row.co_latency_s, 1.3));
  assert.equal(row.late, true);
  const onTime = buildLoadRow(sample(outcome({ endS: 1 }), { scheduled_offset_s: 1.999, send_offset_s: 2 }), {
    lateAfterS: 0.01,
  });
  assert.equal(onTime.late, false);
});

Deno.test("closed loop has no schedule: CO latency and lateness are null with a reason", () => {
  const row = buildLoadRow(sample(outcome({ endS: 1 })));
  assert.equal(row.co_latency_s, null);
  assert.match(row.missing.co_latency_s as string, /closed loop/);
  assert.match(row.missing.lateness_s as string, /closed loop/);
});

Deno.test("TPOT is undefined below two completion tokens and without server counts", () => {
  const one = buildLoadRow(sample(outcome({ endS: 1, completionTokens: 1 })));
  assert.equal(one.tpot_s, null);
  assert.match(one.missing.tpot_s as string, />= 2/);
  const none = buildLoadRow(sample(outcome({ endS: 1, completionTokens: null })));
  assert.equal(none.output_tokens, null);
  assert.equal(none.tpot_s, null);
  assert.match(none.missing.output_tokens as string, /neither usage nor timings/);
});

Deno.test("token counts fall back to llama.cpp timings, never to a local estimate", () => {
  const row = buildLoadRow(
    sample(outcome({ endS: 2, completionTokens: null, timings: { predicted_n: 9, prompt_n: 3, cache_n: 7 } })),
  );
  assert.equal(row.output_tokens, 9);
  assert.equal(row.input_tokens, 10);
  assert.equal(row.token_source, "timings");
});

Deno.test("a reasoning-only length finish is reasoning_truncated and its TTFT is the first reasoning delta", () => {
  const row = buildLoadRow(sample(outcome({
    endS: 3,
    firstDeltaS: 0.2,
    firstDeltaKind: "reasoning",
    firstAnswerS: null,
    answer: "",
    reasoning: "thinking",
    finishReason: "length",
    completionTokens: 64,
  })));
  assert.equal(row.answer, "reasoning_truncated");
  assert.equal(row.ttft_s, 0.2);
  assert.equal(row.first_reasoning_s, 0.2);
  assert.equal(row.first_answer_s, null);
});

Deno.test("a completed stream with no output is no_output_token with a null TTFT", () => {
  const row = buildLoadRow(sample(outcome({
    endS: 0.5,
    firstDeltaS: null,
    firstDeltaKind: null,
    firstAnswerS: null,
    answer: "",
    completionTokens: 1,
  })));
  assert.equal(row.status, "success");
  assert.equal(row.answer, "no_output_token");
  assert.equal(row.ttft_s, null);
  const reasoningStop = buildLoadRow(sample(outcome({
    endS: 0.5,
    firstDeltaKind: "reasoning",
    firstAnswerS: null,
    answer: "",
    reasoning: "hmm",
    finishReason: "stop",
  })));
  assert.equal(reasoningStop.answer, "no_output_token");
  assert.equal(reasoningStop.first_reasoning_s, 0.01);
});

Deno.test("ITL is every gap between successive visible-output chunks", () => {
  const row = buildLoadRow(sample(outcome({ endS: 1, chunkOffsetsS: [0.1, 0.15, 0.3, 0.31] })));
  assert.deepEqual(row.itl_s?.map((x) => Math.round(x * 1000)), [50, 150, 10]);
  const without = buildLoadRow(sample(outcome({ endS: 1 })));
  assert.equal(without.itl_s, null);
  assert.match(without.missing.itl_s as string, /chunk offsets/);
});

Deno.test("connect time is null with a reason because fetch cannot see connector time or reuse", () => {
  const row = buildLoadRow(sample(outcome({ endS: 1 })));
  assert.equal(row.connect_s, null);
  assert.match(row.missing.connect_s as string, /did not report connect time/);
  assert.equal(row.prefill_s, null);
});

Deno.test("a failed stream has no E2E, TTFT or TPOT but keeps its terminal time for the window", () => {
  const row = buildLoadRow(sample(outcome({ endS: 0.7, end: "cut", completionTokens: 5 })));
  assert.equal(row.status, "failed");
  assert.equal(row.latency_s, null);
  assert.equal(row.ttft_s, null);
  assert.equal(row.tpot_s, null);
  assert.equal(row.end_offset_s, 2.7);
  assert.deepEqual(row.error, { kind: "cut", message: "boom" });
});

Deno.test("a dropped request is a row with status dropped and its scheduled time, never a measured zero", () => {
  const row = buildLoadRow(sample(null, {
    dropped: true,
    drop_reason: "too late",
    send_offset_s: null,
    scheduled_offset_s: 4,
  }));
  assert.equal(row.status, "dropped");
  assert.equal(row.scheduled_offset_s, 4);
  assert.equal(row.latency_s, null);
  assert.match(row.missing.latency_s as string, /too late/);
});

Deno.test("a reported connect time moves every offset to count from the send and gives the prefill proxy", () => {
  const o = outcome({ endS: 1, headersS: 0.05, firstDeltaS: 0.2, completionTokens: 5 });
  o.connect_s = 0.03;
  const row = buildLoadRow(sample(o));
  assert.equal(row.connect_s, 0.03);
  assert.ok(close(row.latency_s, 1.03));
  assert.ok(close(row.ttft_s, 0.23));
  assert.ok(close(row.first_byte_s, 0.08));
  assert.ok(close(row.prefill_s, 0.2));
  assert.ok(close(row.end_offset_s, 3.03));
  assert.ok(close(row.tpot_s, (1.03 - 0.23) / 4));
  const reused = outcome({ endS: 1 });
  reused.connect_s = 0;
  assert.equal(buildLoadRow(sample(reused)).connect_s, 0);
});

Deno.test("first reasoning comes from its own stamp, also when visible output came first", () => {
  const o = {
    ...outcome({ endS: 1, firstDeltaS: 0.1, firstDeltaKind: "answer", reasoning: "r" }),
    first_reasoning_s: 0.3,
  };
  const row = buildLoadRow(sample(o));
  assert.equal(row.first_reasoning_s, 0.3);
  assert.equal(row.ttft_s, 0.1);
  const none = buildLoadRow(sample({ ...outcome({ endS: 1 }), first_reasoning_s: null }));
  assert.equal(none.first_reasoning_s, null);
  assert.match(none.missing.first_reasoning_s as string, /no reasoning delta/);
});

Deno.test("a non-streaming success has no TTFT unless first-byte inference is asked for, and then says so", () => {
  const o = outcome({ endS: 1, headersS: 0.9, firstDeltaS: null, firstAnswerS: null, completionTokens: 5 });
  const plain = buildLoadRow(sample(o), { nonStreaming: true });
  assert.equal(plain.ttft_s, null);
  assert.equal(plain.ttft_source, null);
  assert.match(plain.missing.ttft_s as string, /non-streaming/);
  assert.equal(plain.tpot_s, null);
  const inferred = buildLoadRow(sample(o), { nonStreaming: true, inferTtftFromFirstByte: true });
  assert.equal(inferred.ttft_s, 0.9);
  assert.equal(inferred.ttft_source, "http_first_byte");
  const streamed = buildLoadRow(sample(outcome({ endS: 1, firstDeltaS: 0.2, completionTokens: 5 })));
  assert.equal(streamed.ttft_source, "stream");
});

Deno.test("a request the drain limit cancelled fails with a message that says so", () => {
  const o = outcome({ endS: 12, end: "cancelled", finishReason: null });
  const row = buildLoadRow(sample(o, { cancelled_at_drain: true }), { drainLimitS: 5 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.kind, "cancelled");
  assert.match(row.error?.message as string, /^cancelled by the drain limit: still in flight 5 s after/);
});

Deno.test("a row says what its reasoning and answer TPOT divided by, and why it has no such TPOT", () => {
  const streamed: StreamOutcome = {
    ...outcome({ endS: 1, firstDeltaS: 0.1, firstAnswerS: 0.5, reasoning: "r", chunkOffsetsS: [0.5, 0.6, 0.8] }),
    first_reasoning_s: 0.1,
    reasoning_chunk_offsets_s: [0.1, 0.2, 0.3],
  };
  const events = buildLoadRow(sample(streamed));
  assert.equal(events.tokens_from, "events");
  assert.ok(close(events.answer_tpot_s ?? null, (0.8 - 0.5) / 2));
  // The engine's running predicted_n beside each stamp: reasoning 1, 3, 6; answer 7, 9, 13.
  const counted = buildLoadRow(sample({
    ...streamed,
    reasoning_chunk_predicted_n: [1, 3, 6],
    chunk_predicted_n: [7, 9, 13],
  }));
  assert.equal(counted.tokens_from, "engine");
  assert.ok(close(counted.reasoning_tpot_s ?? null, (0.3 - 0.1) / 5));
  assert.ok(close(counted.answer_tpot_s ?? null, (0.8 - 0.5) / 6));
  const plain = buildLoadRow(sample(outcome({ endS: 1, chunkOffsetsS: [0.1, 0.2] })));
  assert.equal(plain.tokens_from, null);
  assert.equal(plain.missing.tokens_from, "the stream client did not record chunk offsets");
  const dropped = buildLoadRow(sample(null, { dropped: true, send_offset_s: null, drop_reason: "late" }));
  assert.equal(dropped.tokens_from, null);
  assert.equal(dropped.missing.tokens_from, "dropped: late");
});
