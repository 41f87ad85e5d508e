import assert from "node:assert/strict";
import { buildLoadRow, type LoadRequestRow } from "../../../load/metrics.ts";
import { summarizeStore } from "../../../load/summary.ts";
import { RowStore } from "../../../load/row_store.ts";
import { binsOf, concurrencyOf, MAX_THROUGHPUT_BINS } from "../../../load/throughput.ts";
import type { LoadSample } from "../../../contract/mod.ts";
import { outcome, type OutcomeSpec, sample } from "./_fakes.ts";

function throughputBins(points: { offsetS: number; completed: boolean; outputTokens: number | null }[], width: number) {
  const at = (i: number) => points[i]!;
  return binsOf(points.length, (i) => at(i).offsetS, (i) => at(i).completed, (i) => at(i).outputTokens, width).bins;
}

function observedConcurrency(intervals: { startS: number; endS: number }[], capLevel: number) {
  const starts = Float64Array.from(intervals, (iv) => iv.startS), ends = Float64Array.from(intervals, (iv) => iv.endS);
  return concurrencyOf(starts, ends, capLevel);
}

function row(sendS: number, spec: OutcomeSpec, extra: Partial<LoadSample> = {}): LoadRequestRow {
  return buildLoadRow(sample(outcome(spec), { send_offset_s: sendS, ...extra }));
}

Deno.test("the window runs from first measured send to last terminal completion of any outcome", () => {
  const rows = [
    row(0, { endS: 1, completionTokens: 10 }),
    row(0.5, { endS: 1, completionTokens: 30 }),
    row(1, { endS: 3, end: "cut" }), // failed, ends at 4: still closes the window
    row(-5, { endS: 1 }, { phase: "warmup" }), // warm-up: ignored
  ];
  const s = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 2 }).overall;
  assert.equal(s.window_s, 4);
  assert.equal(s.counts.attempted, 3);
  assert.equal(s.counts.succeeded, 2);
  assert.equal(s.requests_per_s, 0.5);
  assert.equal(s.output_tokens_per_s, 10); // 40 server tokens / 4 s
  assert.ok(Math.abs((s.error_rate as number) - 1 / 3) < 1e-12);
  assert.equal(s.distributions.latency_s.n, 2);
});

Deno.test("token throughput is unavailable when a success lacks a server count", () => {
  const rows = [row(0, { endS: 1, completionTokens: 10 }), row(0, { endS: 2, completionTokens: null })];
  const s = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 2 }).overall;
  assert.equal(s.output_tokens_per_s, null);
  assert.match(s.missing.output_tokens_per_s as string, /no local estimate/);
  assert.equal(s.requests_per_s, 1);
});

Deno.test("goodput counts answered successes meeting every SLO over the window", () => {
  const rows = [
    row(0, { endS: 1, firstDeltaS: 0.1, completionTokens: 11 }), // tpot 0.09: good
    row(0, { endS: 2, firstDeltaS: 0.5, completionTokens: 11 }), // ttft too high
    row(0, { endS: 1, firstDeltaS: 0.1, completionTokens: 1 }), // tpot undefined: cannot show it met the SLO
    row(0, {
      endS: 1,
      firstDeltaKind: "reasoning",
      answer: "",
      reasoning: "r",
      firstAnswerS: null,
      finishReason: "length",
    }),
  ];
  const s =
    summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 4, slo: { ttftS: 0.2, tpotS: 0.1 } })
      .overall;
  assert.equal(s.window_s, 2);
  assert.equal(s.goodput_requests_per_s, 0.5);
  assert.equal(s.counts.reasoning_truncated, 1);
  const none = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 4 }).overall;
  assert.equal(none.goodput_requests_per_s, null);
});

Deno.test("throughput bins are fixed-width from the first offset and divided by their actual width", () => {
  const points = [0, 0.2, 0.9, 1.1, 2.0, 2.5].map((x) => ({ offsetS: x + 10, completed: true, outputTokens: 4 }));
  const bins = throughputBins(points, 1);
  assert.deepEqual(bins.map((b) => [b.start_s, Math.round(b.width_s * 1000) / 1000, b.completed]), [
    [0, 1, 3],
    [1, 1, 1],
    [2, 0.5, 2], // trailing partial bin: 2 requests over 0.5 s
  ]);
  assert.equal(bins[2]!.requests_per_s, 4);
  assert.equal(bins[2]!.output_tokens_per_s, 16);
  const exact = throughputBins([0, 1, 2].map((x) => ({ offsetS: x, completed: true, outputTokens: 1 })), 1);
  assert.deepEqual(exact.map((b) => b.completed), [1, 2]); // the last offset closes the final bin
});

Deno.test("open-loop bins use scheduled offsets, closed-loop bins use send offsets", () => {
  const open = [
    row(0.4, { endS: 1 }, { scheduled_offset_s: 0 }),
    row(1.6, { endS: 1 }, { scheduled_offset_s: 0.5 }),
    row(2.2, { endS: 1 }, { scheduled_offset_s: 2 }),
  ];
  const s = summarizeStore(RowStore.of(open), { mode: "open", effectiveMaxConcurrency: 8 }).overall;
  assert.deepEqual(s.bins.map((b) => b.completed), [2, 1]);
  assert.equal(s.distributions.lateness_s.n, 3);
  assert.ok(Math.abs((s.distributions.co_latency_s.max as number) - 2.1) < 1e-12);
  const closed = summarizeStore(RowStore.of(open), { mode: "closed", effectiveMaxConcurrency: 8 }).overall;
  assert.deepEqual(closed.bins.map((b) => b.completed), [1, 2]);
});

Deno.test("observed concurrency is time-weighted over the window with time at the cap", () => {
  // 0-1: one in flight; 1-2: two; 2-4: one.
  const c = observedConcurrency([{ startS: 0, endS: 2 }, { startS: 1, endS: 4 }], 2);
  assert.equal(c.max, 2);
  assert.equal(c.mean, 1.25);
  assert.equal(c.p50, 1);
  assert.equal(c.cap_engaged_fraction, 0.25);
  // A slot freed and refilled at the same instant does not count as two.
  assert.equal(observedConcurrency([{ startS: 0, endS: 1 }, { startS: 1, endS: 2 }], 1).max, 1);
});

Deno.test("several endpoints get their own summaries and a pooled_mixture", () => {
  const rows = [
    row(0, { endS: 1, completionTokens: 5 }),
    row(0, { endS: 2, completionTokens: 7 }, { endpoint: "http://127.0.0.1:2", endpoint_index: 1 }),
  ];
  const s = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 2 });
  assert.equal(s.overall.label, "pooled_mixture");
  assert.deepEqual(s.endpoints.map((e) => e.label), ["http://127.0.0.1:1", "http://127.0.0.1:2"]);
  assert.equal(s.endpoints[1]!.distributions.latency_s.p50, 2);
  assert.equal(s.overall.distributions.latency_s.n, 2);
  assert.equal(s.format, "strata-load-summary");
  assert.equal(s.version, 3);
});

Deno.test("OSL target reports the achieved stat and counts each request outside tolerance", () => {
  const rows = [60, 64, 64, 70, 80].map((n) => row(0, { endS: 1, completionTokens: n }));
  const s = summarizeStore(RowStore.of(rows), {
    mode: "closed",
    effectiveMaxConcurrency: 1,
    osl: { target: 64, tolerance: 0.1, stat: "median" },
  }).overall;
  assert.deepEqual(s.osl, {
    target: 64,
    tolerance: 0.1,
    stat: "median",
    achieved: 64,
    within: true,
    mismatches: 1, // 80 is beyond 64 +- 6.4; 70 is 6 away, inside
    checked: 5,
  });
});

Deno.test("bins widen by doubling to fit the cap, conserve every completion and say the width used", () => {
  const offsets = [0, 0.5, 3, 1e12];
  const { widthS, bins } = binsOf(offsets.length, (i) => offsets[i]!, () => true, () => 2, 1);
  assert.ok(bins.length <= MAX_THROUGHPUT_BINS && bins.length > MAX_THROUGHPUT_BINS / 2, String(bins.length));
  assert.equal(widthS, 2 ** Math.ceil(Math.log2(1e12 / MAX_THROUGHPUT_BINS)));
  assert.equal(bins.reduce((n, b) => n + b.completed, 0), 4);
  assert.equal(bins[0]!.completed, 3);
  assert.equal(bins.at(-1)!.completed, 1);
  const narrow = binsOf(offsets.length - 1, (i) => offsets[i]!, () => true, () => 2, 1);
  assert.deepEqual([narrow.widthS, narrow.bins.map((b) => b.completed)], [1, [2, 0, 1]]);
  assert.throws(() => binsOf(2, (i) => [0, Infinity][i]!, () => true, () => 1, 1), /offsets span "Infinity" s/);
});
