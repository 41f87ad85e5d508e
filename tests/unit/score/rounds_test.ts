import assert from "node:assert/strict";
import { buildConcurrencyRounds, roundQueueing } from "../../../score/mod.ts";
import { WAIT_SOURCES } from "../../../score/rounds.ts";
import type { RequestRecord } from "../../../contract/mod.ts";
import { rec } from "./_helpers.ts";

function burst(
  round: number,
  c: number,
  status: "completed" | "truncated" | "failed" | "skipped",
  outputTokens?: number | null,
) {
  return rec(`concurrency-r${round}-c${c}`, "concurrency", "short-burst", status, {
    round,
    ...(outputTokens === undefined ? {} : { outputTokens }),
  });
}

Deno.test("a round's aggregate is accepted output tokens over the executor's wall time", () => {
  // Round 1: 512 + 512 + 300 + 400 = 1724 tokens in 20 s = 86.2 tok/s. Round 2: c2 failed; 3 x 512 = 1536 in 25.6 s = 60.
  const records: RequestRecord[] = [
    burst(1, 3, "completed", 300),
    burst(1, 1, "truncated", 512),
    burst(1, 4, "completed", 400),
    burst(1, 2, "truncated", 512),
    burst(2, 1, "truncated", 512),
    burst(2, 2, "failed"),
    burst(2, 3, "truncated", 512),
    burst(2, 4, "truncated", 512),
    rec("performance-short-r1", "performance", "short", "completed"),
  ];
  const { rounds, missing } = buildConcurrencyRounds(records, [20, 25.6]);
  assert.equal(rounds.length, 2);
  assert.deepEqual(rounds[0], {
    round: 1,
    request_ids: ["concurrency-r1-c1", "concurrency-r1-c2", "concurrency-r1-c3", "concurrency-r1-c4"],
    wall_s: 20,
    output_tokens: 1724,
    aggregate_tps: 86.2,
    failed: 0,
  });
  assert.equal(rounds[1]?.output_tokens, 1536);
  assert.ok(Math.abs((rounds[1]?.aggregate_tps as number) - 60) < 1e-9);
  assert.equal(rounds[1]?.failed, 1);
  assert.deepEqual(missing, {});
});

Deno.test("a round where an accepted request lacks its output count has null tokens and rate", () => {
  const records = [
    burst(3, 1, "completed", 100),
    burst(3, 2, "completed", null),
    burst(3, 3, "completed", 1),
    burst(3, 4, "failed"),
  ];
  const { rounds, missing } = buildConcurrencyRounds(records, [10, 10, 10]);
  const third = rounds.find((r) => r.round === 3);
  assert.equal(third?.output_tokens, null);
  assert.equal(third?.aggregate_tps, null);
  const index = rounds.findIndex((r) => r.round === 3);
  assert.equal(missing[`/concurrency_rounds/${index}/output_tokens`], "output_tokens is null for concurrency-r3-c2");
  assert.equal(missing[`/concurrency_rounds/${index}/aggregate_tps`], "output_tokens of the round is null");
  // Rounds 1 and 2 have a wall time but no records: nothing was measured, so tokens and rate are null, not 0.
  assert.equal(rounds[0]?.output_tokens, null);
  assert.equal(rounds[0]?.aggregate_tps, null);
  assert.equal(missing["/concurrency_rounds/0/output_tokens"], "no request of this round was recorded");
  assert.equal(missing["/concurrency_rounds/0/aggregate_tps"], "no request of this round was recorded");
});

Deno.test("a round that never ran (all requests skipped) has null wall time, tokens and rate, each with why", () => {
  const records = [1, 2, 3, 4].map((c) => burst(2, c, "skipped"));
  const { rounds, missing } = buildConcurrencyRounds(records, [12, null]);
  assert.equal(rounds.length, 2);
  assert.deepEqual(rounds[1], {
    round: 2,
    request_ids: ["concurrency-r2-c1", "concurrency-r2-c2", "concurrency-r2-c3", "concurrency-r2-c4"],
    wall_s: null,
    output_tokens: null,
    aggregate_tps: null,
    failed: 0,
  });
  assert.equal(missing["/concurrency_rounds/1/wall_s"], "the round was not run: all its requests were skipped");
  const why = "the round was not run: all 4 of its requests were skipped (the engine died)";
  assert.equal(missing["/concurrency_rounds/1/output_tokens"], why);
  assert.equal(missing["/concurrency_rounds/1/aggregate_tps"], why);
});

Deno.test("a round with one failed request and the rest skipped ran: 0 accepted tokens is a measurement", () => {
  const records = [burst(1, 1, "failed"), ...[2, 3, 4].map((c) => burst(1, c, "skipped"))];
  const { rounds, missing } = buildConcurrencyRounds(records, [3]);
  assert.equal(rounds[0]?.output_tokens, 0);
  assert.equal(rounds[0]?.failed, 1);
  assert.equal(
    missing["/concurrency_rounds/0/aggregate_tps"],
    "no output tokens were accepted in this round (0 completed or capped, 1 failed, 3 skipped)",
  );
});

Deno.test("an invalid or zero wall time never produces Infinity", () => {
  const records = [burst(1, 1, "completed", 10)];
  const zero = buildConcurrencyRounds(records, [0]);
  assert.equal(zero.rounds[0]?.aggregate_tps, null);
  assert.equal(zero.missing["/concurrency_rounds/0/aggregate_tps"], "wall_s of the round is 0");
  const invalid = buildConcurrencyRounds(records, [Number.NaN]);
  assert.equal(invalid.rounds[0]?.wall_s, null);
  assert.match(invalid.missing["/concurrency_rounds/0/wall_s"] ?? "", /NaN is not a nonnegative finite number/);
});

Deno.test("no optional stage means no rounds", () => {
  assert.deepEqual(buildConcurrencyRounds([rec("warmup", "warmup", "short", "completed")], []), {
    rounds: [],
    missing: {},
  });
});

/** A round request with the given client total and engine prompt/decode seconds. */
function timed(
  round: number,
  c: number,
  totalS: number,
  promptS: number | null,
  decodeS: number | null,
): RequestRecord {
  const record = burst(round, c, "completed", 100);
  return { ...record, timings: { ...record.timings, total_s: totalS, prompt_s: promptS, decode_s: decodeS } };
}

Deno.test("queueing on one slot: the request the engine began first had the slot, three waited, from engine timers", () => {
  // Each takes 0.1 s prompt + 2 s decode on the engine; client totals show the queue: 2.15, 4.3, 6.4, 8.55 s.
  const records = [
    timed(1, 1, 4.3, 0.1, 2),
    timed(1, 2, 2.15, 0.1, 2),
    timed(1, 3, 8.55, 0.1, 2),
    timed(1, 4, 6.4, 0.1, 2),
  ];
  const [q] = roundQueueing(records, {}, 1);
  assert.equal(q!.waited, 3);
  assert.equal(q!.capacity, 1);
  const waits = Object.fromEntries(
    q!.requests.map((w) => [w.request_id, [Math.round(w.wait_s! * 100) / 100, w.queued]]),
  );
  assert.deepEqual(waits, {
    "concurrency-r1-c1": [2.2, true],
    "concurrency-r1-c2": [0.05, false],
    "concurrency-r1-c3": [6.45, true],
    "concurrency-r1-c4": [4.3, true],
  });
  assert.ok(q!.requests.every((w) => w.source === WAIT_SOURCES.engine));
});

Deno.test("queueing without engine timers uses the client's response-headers stamp, labelled as such", () => {
  const records = [1, 2, 3, 4].map((c) => timed(2, c, 3, null, null));
  const headers = Object.fromEntries(records.map((r, i) => [r.id, 0.01 + i]));
  const [q] = roundQueueing(records, headers, 2);
  assert.equal(q!.waited, 2);
  assert.deepEqual(q!.requests.map((w) => w.queued), [false, false, true, true]);
  assert.ok(q!.requests.every((w) => w.source === WAIT_SOURCES.client));
});

Deno.test("queueing: four slots for four requests means none waited; an unknown capacity cannot tell", () => {
  const records = [1, 2, 3, 4].map((c) => timed(1, c, 2.2, 0.1, 2));
  assert.equal(roundQueueing(records, {}, 4)[0]!.waited, 0);
  const unknown = roundQueueing(records, {}, null)[0]!;
  assert.equal(unknown.waited, null);
  assert.match(unknown.reason, /slot count is unknown/);
  const noFigure = roundQueueing([...records.slice(0, 3), timed(1, 4, 2.2, null, null)], {}, 1)[0]!;
  assert.equal(noFigure.waited, null, "one wait unknown: the order is unknown");
});

Deno.test("a round's output tokens that add up beyond 2^53-1 are null with a reason, never a rounded sum", () => {
  const huge = Number.MAX_SAFE_INTEGER - 10;
  const { rounds, missing } = buildConcurrencyRounds([burst(1, 1, "completed", huge), burst(1, 2, "completed", huge)], [
    5,
  ]);
  assert.equal(rounds[0]!.output_tokens, null);
  assert.match(missing["/concurrency_rounds/0/output_tokens"] ?? "", /beyond 2\^53-1: no exact count/);
});
