import assert from "node:assert/strict";
import { renderCompare, renderLoadSummary } from "../../../load/mod.ts";
import { buildLoadRow } from "../../../load/metrics.ts";
import { summarizeStore } from "../../../load/summary.ts";
import { RowStore } from "../../../load/row_store.ts";
import { compareLoad } from "../../../load/gate/gate.ts";
import { headroomStamp } from "../../../load/headroom.ts";
import { outcome } from "./_fakes.ts";
import { ENDING_MAX_COLUMNS } from "../../../cli/_ending.ts";

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

Deno.test("the headroom line says when and under what load the client's ceiling was measured", () => {
  const summary = summarizeStore(RowStore.of(rows(3)), { mode: "closed", effectiveMaxConcurrency: 4 });
  const ceiling = {
    shape: { concurrency: 4, outputTokens: 20 },
    requests_per_s: 500,
    events_per_s: 40_000,
    measured_s: 2,
    requests: 1000,
    source: "measured" as const,
    measured_at: "2026-06-01T12:00:00.000Z",
    load_per_cpu: 1.5,
    age_s: 0,
    key: "k",
  };
  summary.client_headroom = { ...headroomStamp(ceiling, { eventsPerS: 4_000, requestsPerS: 50 }) };
  // The console wraps long lines at the ending's 100 columns: read the wrapped line as one.
  const unwrapped = () => renderLoadSummary(summary).replace(/\n {2,}/g, " ");
  assert.match(
    unwrapped(),
    /client headroom: 10\.0% of the client's ceiling \(40000 events\/s, measured at the start of this run, 2026-06-01T12:00:00\.000Z, under load 1\.50 per CPU\)/,
  );
  summary.client_headroom = {
    ...headroomStamp({ ...ceiling, source: "cache", age_s: 7200 }, { eventsPerS: 4_000, requestsPerS: 50 }),
  };
  assert.match(
    unwrapped(),
    /cached, measured 2026-06-01T12:00:00\.000Z under load 1\.50 per CPU, 7200 s ago/,
  );
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
  // The TTFT rows' caveat is printed once under the table, as the verdict's JSON and page carry it.
  assert.equal(
    text.match(/^TTFT p50 ms: informational: TTFT is not gated; it depends on the cohort and issuance/gm)?.length,
    1,
  );
  assert.match(text, /gate: FAIL/);
  // A delta that rounds to zero (here -0.01%) reads +0.0%, never -0.0%.
  const barely = structuredClone(s);
  barely.output_tokens_per_s = s.output_tokens_per_s! * 0.9999;
  const same = renderCompare(compareLoad([{ concurrency: 1, baseline: [s, s], candidate: [barely, barely] }], {
    seed: 1,
    expectedConcurrency: [1],
  }));
  assert.doesNotMatch(same, /-0\.0%/);
  assert.match(same, /output tok\/s .* \+0\.0%/);
});

Deno.test("compare's table keeps to 100 columns with long values; metric names and units are the load console's", () => {
  const s = summarizeStore(RowStore.of(rows(10)), { mode: "closed", effectiveMaxConcurrency: 1 }).overall;
  const result = compareLoad([{ concurrency: 4096, baseline: [s, s], candidate: [s, s] }], {
    seed: 4_294_967_295,
    expectedConcurrency: [4096],
  });
  const point = result.points[0]!;
  point.key = "a workload label of several words, long enough to need a line of its own@4096";
  const tpot = point.metrics.find((m) => m.metric === "tpot_p50_s")!;
  const reason = "informational: the reasoning cadence is not gated";
  for (const metric of ["thinking_p50_s", "reasoning_tpot_p50_s", "answer_tpot_p50_s"] as const) {
    point.metrics.push({ ...tpot, metric, pass: null, allowed_fraction: null, noise_floor_fraction: null, reason });
  }
  for (const m of point.metrics) {
    // A 600 s latency against 2.5 s, six digits of tokens/s, a tenfold delta, a wide interval, a recorded floor.
    const [baseline, candidate] = m.metric === "output_tokens_per_s"
      ? [123456.7, 98765.4]
      : m.metric === "error_rate"
      ? [0.25, 0.5]
      : [600, 2.5];
    Object.assign(m, { baseline, candidate, delta_fraction: 9.0001 });
    m.delta_interval = { ...m.delta_interval!, lower: -0.999, upper: 12.345 };
    if (m.noise_floor_fraction !== null) {
      Object.assign(m, { noise_floor_fraction: 0.876, noise_floor_source: "recorded", allowed_fraction: 0.876 });
    }
  }
  tpot.pass = false;
  tpot.reason = "missing: a round of this point has no value";
  const text = renderCompare(result);
  for (const line of text.trimEnd().split("\n")) {
    assert.ok(line.length <= ENDING_MAX_COLUMNS, `${line.length} columns: ${line}`);
  }
  assert.match(text, /^a workload label .*@4096 \(noise floor recorded\)$/m);
  // Every row on one line: latencies in ms (600 s is 600000 ms, without decimals, as the load console's table).
  const interval = String.raw` +\+900\.0% \[-99\.9%, \+1234\.5%\]`;
  assert.match(
    text,
    new RegExp(String.raw`^  output tok/s +123456\.7 +98765\.4${interval} +\+-87\.6% +87\.6% pass$`, "m"),
  );
  assert.match(
    text,
    new RegExp(String.raw`^  TPOT p50 ms +600000 +2500\.00${interval} +\+-87\.6% +87\.6% FAIL \(missing\)$`, "m"),
  );
  assert.match(text, new RegExp(String.raw`^  error rate +25\.0% +50\.0%${interval} +\+1\.0% +- pass$`, "m"));
  for (const name of ["TTFT p50 ms", "thinking p50 ms", "reasoning TPOT p50 ms", "answer TPOT p50 ms"]) {
    assert.match(text, new RegExp(String.raw`^  ${name} +600000 +2500\.00${interval} +- +- info$`, "m"), name);
  }
  assert.doesNotMatch(text, /_p50_s|tokens_per_s/, "no raw key of the verdict");
  assert.match(
    text,
    /^thinking p50 ms, reasoning TPOT p50 ms, answer TPOT p50 ms: informational: the reasoning cadence is\n {2}not gated$/m,
  );
});

Deno.test("the per-run table keeps to the ending's 100 columns: long latencies, huge counts, every note line", () => {
  const slow = Array.from({ length: 300 }, (_, i) =>
    buildLoadRow({
      phase: "measure",
      index: i,
      endpoint: "http://127.0.0.1:8080",
      endpoint_index: 0,
      prompt_index: i,
      scheduled_offset_s: i * 0.1,
      send_offset_s: i * 0.1,
      in_flight_at_send: 0,
      dropped: false,
      drop_reason: null,
      cancelled_at_drain: false,
      // E2E up to 400 s, TTFT of seconds, 2000 output tokens: five and six digits of milliseconds.
      outcome: outcome({ endS: 100 + i, firstDeltaS: 1.1 + i / 100, completionTokens: 2000, promptTokens: 131072 }),
    }));
  const summary = summarizeStore(RowStore.of(slow), { mode: "open", effectiveMaxConcurrency: null });
  summary.overall.counts.cancelled_at_drain = 123456;
  summary.overall.counts.cancelled = 654321;
  summary.overall.distributions.itl_s = { ...summary.overall.distributions.ttft_s, n: 98_765_432 };
  summary.endpoints = [summary.overall];
  summary.interrupted = { by: "SIGINT", note: "stopped before its plan was done: ".repeat(6) };
  summary.phases = {
    warmup: { ended: "completed", seconds: 12.345, limit_s: 120 },
    measure: { ended: "duration", seconds: 1234.5 },
    drain: { limit_s: 30, cancelled: 123456 },
  };
  const text = renderLoadSummary(summary);
  const lines = text.trimEnd().split("\n");
  for (const line of lines) assert.ok(line.length <= ENDING_MAX_COLUMNS, `${line.length} columns: ${line}`);
  assert.match(text, /^e2e latency +300 +\d{6} /m, "a value at or above 100,000 ms drops its decimals");
  assert.match(text, /^itl \(chunks\) +98765432 /m);
  assert.match(text, /^load: INTERRUPTED by SIGINT: NOT A COMPLETE RESULT; /);
  assert.match(text, /123456 cancelled at the drain limit/);
  assert.ok(lines.length > 15, "the per-run table is the full audit, not the ending");
});
