import assert from "node:assert/strict";
import { renderCompare, renderLoadSummary } from "../../../load/mod.ts";
import { buildLoadRow } from "../../../load/metrics.ts";
import { summarizeStore } from "../../../load/summary.ts";
import { RowStore } from "../../../load/row_store.ts";
import { compareLoad } from "../../../load/gate.ts";
import { outcome } from "./_fakes.ts";

function rows(n: number, endpointIndex = 0) {
  return Array.from({ length: n }, (_, i) =>
    buildLoadRow({
      phase: "measure",
      index: i,
      endpoint: `http://127.0.0.1:${endpointIndex + 1}`,
      endpoint_index: endpointIndex,
      prompt_index: i,
      scheduled_offset_s: null,
      send_offset_s: i * 0.1,
      in_flight_at_send: 0,
      dropped: false,
      drop_reason: null,
      cancelled_at_drain: false,
      outcome: outcome({ endS: 1 + i / 100, firstDeltaS: 0.1 + i / 1000, completionTokens: 20 }),
    }));
}

Deno.test("console summary prints the summary's own numbers and marks unreliable tail percentiles", () => {
  const summary = summarizeStore(RowStore.of(rows(30)), { mode: "closed", effectiveMaxConcurrency: 4 });
  const text = renderLoadSummary(summary);
  const d = summary.overall.distributions.ttft_s;
  assert.ok(text.includes(`${summary.overall.requests_per_s!.toFixed(2)} req/s`));
  assert.ok(text.includes((d.p50! * 1000).toFixed(2)));
  assert.ok(text.includes(`${(d.p99! * 1000).toFixed(2)}*`), "p99 at n=30 carries the unreliable mark");
  assert.ok(!text.includes(`${(d.p95! * 1000).toFixed(2)}*`), "p95 at n=30 is reliable");
  assert.match(text, /Hyndman-Fan type 7/);
});

Deno.test("several endpoints print each endpoint and the pooled mixture", () => {
  const summary = summarizeStore(RowStore.of([...rows(3, 0), ...rows(3, 1)]), {
    mode: "closed",
    effectiveMaxConcurrency: 2,
  });
  const text = renderLoadSummary(summary);
  assert.match(text, /== http:\/\/127\.0\.0\.1:1/);
  assert.match(text, /== http:\/\/127\.0\.0\.1:2/);
  assert.match(text, /== pooled_mixture/);
});

Deno.test("compare table shows each point's deltas, intervals and the gate verdict", () => {
  const s = summarizeStore(RowStore.of(rows(10)), { mode: "closed", effectiveMaxConcurrency: 1 }).overall;
  const slower = structuredClone(s);
  slower.output_tokens_per_s = s.output_tokens_per_s! * 0.9;
  const result = compareLoad([{ concurrency: 1, baseline: [s, s], candidate: [slower, slower] }], {
    seed: 1,
    expectedConcurrency: [1, 8],
  });
  const text = renderCompare(result);
  assert.match(text, /W1@1\s+output tok\/s .* -10\.0% .*FAIL/);
  assert.match(text, /W1@8\s+output tok\/s .*FAIL \(missing\)/);
  assert.match(text, /TTFT p50 ms .* info/);
  assert.match(text, /gate: FAIL/);
});
