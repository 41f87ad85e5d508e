import assert from "node:assert/strict";
import { buildLoadRow } from "../../../load/metrics.ts";
import { RowStore } from "../../../load/row_store.ts";
import { summarizeLoad } from "../../../load/summary.ts";
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

Deno.test("a stored row takes about 120 bytes of typed columns, an ITL sample 8 (the 1 KB + 8 B budget)", () => {
  const store = new RowStore();
  const n = 200_000;
  for (let i = 0; i < n; i++) store.add(row(i, 0, []));
  const perRow = store.allocatedBytes / n;
  assert.ok(perRow <= 130, `bytes per row ${perRow}`);
  const withItl = new RowStore();
  for (let i = 0; i < 20_000; i++) withItl.add(row(i, 0, Array.from({ length: 50 }, () => 0.002)));
  // 50 gaps a request: the ITL pool adds 8 bytes a sample, rounded up to its last 8 MiB chunk.
  const itlBytes = withItl.allocatedBytes - 20_000 * perRow;
  assert.ok(itlBytes <= 20_000 * 50 * 8 + (8 << 20), `ITL bytes ${itlBytes}`);
});

Deno.test("summaries from the columns equal the distributions of the rows' own values, per endpoint and pooled", () => {
  const rows = Array.from({ length: 300 }, (_, i) => row(i, i % 3, [0.001 * (1 + (i % 4)), 0.003, 0.0005 * i]));
  const s = summarizeLoad(rows, { mode: "closed", effectiveMaxConcurrency: 8 });
  assert.equal(s.overall.label, "pooled_mixture");
  assert.deepEqual(s.overall.distributions.ttft_s, describeDistribution(rows.map((r) => r.ttft_s as number)));
  assert.deepEqual(s.overall.distributions.itl_s, describeDistribution(rows.flatMap((r) => r.itl_s ?? [])));
  for (const [e, summary] of s.endpoints.entries()) {
    const mine = rows.filter((r) => r.endpoint_index === e);
    assert.deepEqual(summary.distributions.latency_s, describeDistribution(mine.map((r) => r.latency_s as number)));
    assert.deepEqual(summary.distributions.itl_s, describeDistribution(mine.flatMap((r) => r.itl_s ?? [])));
  }
});
