import assert from "node:assert/strict";
import { chunkGaps, reasoningCadence } from "../../../score/mod.ts";
import { outcome } from "./_helpers.ts";

Deno.test("the cadence of a reasoned answer: thinking time, gaps to the microsecond, mean gap per chunk", () => {
  const reading = reasoningCadence(
    outcome({ reasoning_chunk_offsets_s: [0.1, 0.12, 0.1400004, 0.19], chunk_offsets_s: [0.4, 0.43, 0.5] }),
    0.1,
    0.4,
  );
  assert.ok(reading.cadence !== null);
  assert.equal(reading.cadence.thinking_s, 0.4 - 0.1);
  assert.deepEqual(reading.cadence.reasoning_itl_s, [0.02, 0.02, 0.05]);
  assert.equal(reading.cadence.reasoning_tpot_s, (0.19 - 0.1) / 3);
  assert.deepEqual(reading.cadence.answer_itl_s, [0.03, 0.07]);
  assert.equal(reading.cadence.answer_tpot_s, (0.5 - 0.4) / 2);
  assert.deepEqual(reading.missing, {});
});

Deno.test("reasoning cut at the cap: no thinking time and no answer TPOT, each with its reason", () => {
  const reading = reasoningCadence(outcome({ reasoning_chunk_offsets_s: [0.1], chunk_offsets_s: [] }), 0.1, null);
  assert.deepEqual(reading, {
    cadence: { thinking_s: null, reasoning_itl_s: [], reasoning_tpot_s: null, answer_itl_s: [], answer_tpot_s: null },
    missing: {
      thinking_s: "no answer followed the reasoning",
      reasoning_tpot_s: "fewer than two reasoning chunks",
      answer_tpot_s: "fewer than two answer chunks",
    },
  });
});

Deno.test("no cadence without reasoning, without recorded offsets, or for a failed stream", () => {
  const offsets = { reasoning_chunk_offsets_s: [0.1, 0.2], chunk_offsets_s: [0.3, 0.4] };
  assert.deepEqual(reasoningCadence(outcome({ ...offsets, reasoning_chunk_offsets_s: [] }), null, 0.3), {
    cadence: null,
    why: "no reasoning streamed",
  });
  assert.deepEqual(reasoningCadence(outcome(), 0.05, 0.4), {
    cadence: null,
    why: "the stream client did not record chunk offsets",
  });
  assert.deepEqual(reasoningCadence(outcome({ ...offsets, end: "cut" }), 0.1, 0.3), {
    cadence: null,
    why: "failed request",
  });
  assert.deepEqual(chunkGaps([1]), []);
});

Deno.test("no cadence when chunks went unstamped past the client's bound: the first stamps alone would mislead", () => {
  const offsets = { reasoning_chunk_offsets_s: [0.1, 0.2], chunk_offsets_s: [0.3, 0.4], unstamped_chunks: 6 };
  assert.deepEqual(reasoningCadence(outcome(offsets), 0.1, 0.3), {
    cadence: null,
    why: "the stream carried 10 answer and reasoning chunks; the client stamped only the first 4 (a request's bound " +
      "on kept stamps)",
  });
});
