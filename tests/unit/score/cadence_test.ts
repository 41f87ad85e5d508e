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
  assert.equal(reading.tokens_from, "events");
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
    tokens_from: "events",
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

Deno.test("TPOT divides by the engine's predicted_n differences when every stamped chunk carries one", () => {
  // Reasoning: 3 chunks carrying tokens 1, 2-4, 5 (counts 1, 4, 5); answer: 3 chunks, 6, 7-9, 10 (counts 6, 9, 10).
  const reading = reasoningCadence(
    outcome({
      reasoning_chunk_offsets_s: [0.1, 0.16, 0.18],
      reasoning_chunk_predicted_n: [1, 4, 5],
      chunk_offsets_s: [0.2, 0.26, 0.28],
      chunk_predicted_n: [6, 9, 10],
    }),
    0.1,
    0.2,
  );
  assert.ok(reading.cadence !== null);
  assert.equal(reading.tokens_from, "engine");
  assert.equal(reading.cadence.reasoning_tpot_s, (0.18 - 0.1) / (5 - 1));
  assert.equal(reading.cadence.answer_tpot_s, (0.28 - 0.2) / (10 - 6));
  // ITL stays the gaps between chunks, whatever each carried.
  assert.deepEqual(reading.cadence.reasoning_itl_s, [0.06, 0.02]);
});

Deno.test("TPOT falls back to one token a chunk when a count is missing, repeated or falling, in either list", () => {
  const offsets = { reasoning_chunk_offsets_s: [0.1, 0.16, 0.18], chunk_offsets_s: [0.2, 0.26, 0.28] };
  const cases: Record<string, Partial<Parameters<typeof outcome>[0]>> = {
    "a chunk without a count": { reasoning_chunk_predicted_n: [1, null, 5], chunk_predicted_n: [6, 9, 10] },
    "a count repeated": { reasoning_chunk_predicted_n: [1, 4, 5], chunk_predicted_n: [6, 6, 10] },
    "a count falling": { reasoning_chunk_predicted_n: [1, 4, 3], chunk_predicted_n: [6, 9, 10] },
    "one list without counts": { reasoning_chunk_predicted_n: [1, 4, 5] },
    "a list of another length": { reasoning_chunk_predicted_n: [1, 4], chunk_predicted_n: [6, 9, 10] },
  };
  for (const [name, counts] of Object.entries(cases)) {
    const reading = reasoningCadence(outcome({ ...offsets, ...counts }), 0.1, 0.2);
    assert.ok(reading.cadence !== null, name);
    assert.equal(reading.tokens_from, "events", name);
    assert.equal(reading.cadence.reasoning_tpot_s, (0.18 - 0.1) / 2, name);
    assert.equal(reading.cadence.answer_tpot_s, (0.28 - 0.2) / 2, name);
  }
});
