import assert from "node:assert/strict";
import { executeLoad } from "../../../load/execute.ts";
import { buildLoadRow } from "../../../load/metrics.ts";
import { prepareWorkload } from "../../../load/prepare.ts";
import { CADENCE_COLUMNS, NUMERIC_COLUMNS, RowStore } from "../../../load/row_store.ts";
import { summarizeStore } from "../../../load/summary.ts";
import { describeDistribution } from "../../../score/percentiles.ts";
import { outcome } from "./_fakes.ts";

function row(index: number, endpoint: number, itl: number[]) {
  return buildLoadRow({
    phase: "measure",
    index,
    endpoint: `http://127.0.0.1:${endpoint + 1}`,
    endpoint_index: endpoint,
    prompt_index: 0,
    scheduled_offset_s: null,
    send_offset_s: index * 0.01,
    in_flight_at_send: 0,
    dropped: false,
    drop_reason: null,
    cancelled_at_drain: false,
    outcome: outcome({
      endS: 0.5 + (index % 7) * 0.01,
      firstDeltaS: 0.01 + (index % 5) * 0.001,
      completionTokens: 10 + (index % 3),
      chunkOffsetsS: itl.reduce((acc, gap) => [...acc, (acc.at(-1) ?? 0) + gap], [0] as number[]),
    }),
  });
}

Deno.test("a stored row takes about 120 bytes of typed columns; ITL samples a fixed histogram, not 8 B each", () => {
  const store = new RowStore();
  const n = 200_000;
  for (let i = 0; i < n; i++) store.add(row(i, 0, []));
  const perRow = store.allocatedBytes / n;
  assert.ok(perRow <= 130, `bytes per row ${perRow}`);
  const itlBytes = (requests: number) => {
    const plain = new RowStore(), withItl = new RowStore();
    for (let i = 0; i < requests; i++) {
      plain.add(row(i, 0, []));
      withItl.add(row(i, 0, Array.from({ length: 50 }, (_, k) => 0.001 + (i % 100) * 1e-5 + k * 1e-6)));
    }
    return withItl.allocatedBytes - plain.allocatedBytes;
  };
  // A million ITL samples cost what a hundred thousand do: the 4 MiB of microsecond counts.
  const few = itlBytes(2_000), many = itlBytes(20_000);
  assert.equal(few, many);
  assert.equal(many, 4 << 20);
});

Deno.test("reserved columns hold their first chunk: rows without ITL allocate nothing more, and a load reserves before its epoch", async () => {
  const store = new RowStore();
  assert.equal(store.allocatedBytes, 0);
  store.reserve();
  const reserved = store.allocatedBytes;
  // Numeric and cadence columns of 8 bytes, index and events of 4, two endpoint columns of 2, three of 1.
  const eightByte = NUMERIC_COLUMNS.length + CADENCE_COLUMNS.length;
  assert.equal(reserved, (1 << 14) * (eightByte * 8 + 2 * 4 + 2 * 2 + 3 * 1));
  for (let i = 0; i < 100; i++) store.add(row(i, 0, []));
  assert.equal(store.allocatedBytes, reserved);
  store.reserve();
  assert.equal(store.allocatedBytes, reserved, "a second reserve keeps what is there");

  const workload = await prepareWorkload(
    {
      source: { kind: "synthetic", name: "chat-short" },
      sample: 8,
      seed: 1,
      maxTokens: null,
      ignoreEos: false,
      model: undefined,
      allowRepeatedPrompt: false,
      requestTimeoutS: 60,
    },
    1000,
    () => Promise.reject(new Error("no file")),
  );
  const watched = new RowStore();
  const atEpoch: number[] = [];
  const run = await executeLoad({
    urls: ["http://127.0.0.1:1"],
    plan: { mode: "closed", concurrency: 1, warmupRequests: 0, requests: 2 },
    workload,
    seed: 1,
    lateAfterS: 0.002,
    binS: 1,
    slo: {},
    store: watched,
    onEpoch: () => atEpoch.push(watched.allocatedBytes),
  }, {
    streamChat: () => Promise.resolve(outcome({ endS: 0.01, firstDeltaS: 0.005, completionTokens: 4 })),
    nowS: () => 0,
  });
  assert.equal(run.summary.overall.counts.attempted, 2);
  assert.deepEqual(atEpoch, [reserved]);
});

Deno.test("ITL gaps longer than the dense histogram (a second) and exact microsecond ties keep the exact distribution", () => {
  const rows = Array.from({ length: 40 }, (_, i) => row(i, 0, [0.000001 * (i % 3), 1.5 + i, 2.000001, 0.25]));
  const s = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 8 });
  assert.deepEqual(s.overall.distributions.itl_s, describeDistribution(rows.flatMap((r) => r.itl_s ?? [])));
  assert.ok(rows.every((r) => (r.itl_s ?? []).every((g) => Math.round(g * 1e6) / 1e6 === g)));
});

Deno.test("summaries from the columns equal the distributions of the rows' own values, per endpoint and pooled", () => {
  const rows = Array.from({ length: 300 }, (_, i) => row(i, i % 3, [0.001 * (1 + (i % 4)), 0.003, 0.0005 * i]));
  const s = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 8 });
  assert.equal(s.overall.label, "pooled_mixture");
  assert.deepEqual(s.overall.distributions.ttft_s, describeDistribution(rows.map((r) => r.ttft_s as number)));
  assert.deepEqual(s.overall.distributions.itl_s, describeDistribution(rows.flatMap((r) => r.itl_s ?? [])));
  for (const [e, summary] of s.endpoints.entries()) {
    const mine = rows.filter((r) => r.endpoint_index === e);
    assert.deepEqual(summary.distributions.latency_s, describeDistribution(mine.map((r) => r.latency_s as number)));
    assert.deepEqual(summary.distributions.itl_s, describeDistribution(mine.flatMap((r) => r.itl_s ?? [])));
  }
});
