/**
 * Load metrics against the scripted engine through the project's streaming client: token counts equal what the
 * engine reported, TTFT/first reasoning/first answer follow the stream's deltas, TPOT follows its formula, and
 * open-loop lateness and drops happen where the schedule forces them. Only lower bounds on time are asserted.
 */
import assert from "node:assert/strict";
import { type MockEngineOptions, startMockEngine } from "../../mock/mod.ts";
import { streamChat } from "../../client/mod.ts";
import type { LoadPlan } from "../../load/load_plan_bounds.ts";
import { runCollected } from "../unit/load/_fakes.ts";
import { buildLoadRow } from "../../load/metrics.ts";
import { summarizeStore } from "../../load/summary.ts";
import { RowStore } from "../../load/row_store.ts";
import { describeDistribution } from "../../score/mod.ts";

const WORDS = (n: number) => Array.from({ length: n }, () => "tok").join(" ");
const deps = { streamChat, nowS: () => performance.now() / 1000 };

function bodyFor(id: string, maxTokens = 256): Record<string, unknown> {
  return {
    messages: [{ role: "user", content: `[case ${id}] load test prompt ${id}` }],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: maxTokens,
  };
}

async function withEngine<T>(
  options: MockEngineOptions,
  fn: (url: string, engine: Awaited<ReturnType<typeof startMockEngine>>) => Promise<T>,
) {
  const engine = await startMockEngine({ promptTps: 1_000_000, ...options });
  try {
    return await fn(engine.url, engine);
  } finally {
    await engine.close();
  }
}

Deno.test("closed loop against the scripted engine: server token counts, TTFT on the first reasoning delta, TPOT formula", async () => {
  await withEngine({
    decodeTps: 400,
    timeScale: 1,
    slots: 4,
    script: {
      "*": { answer: { kind: "text", text: WORDS(12) }, reasoningTokens: 4, keepAliveEvery: 3, emptyDeltaEvery: 2 },
    },
  }, async (url, engine) => {
    const plan: LoadPlan = {
      endpoints: [url],
      mode: "closed",
      concurrency: 4,
      seed: 1,
      warmupRequests: 2,
      requests: 8,
      requestFor: (phase, i) => ({ body: bodyFor(`${phase}-${i}`), promptIndex: i }),
    };
    const facts = await runCollected(plan, deps);
    const rows = facts.samples.map((s) => buildLoadRow(s));
    const measured = rows.filter((r) => r.phase === "measure");
    assert.equal(measured.length, 8);
    for (const row of measured) {
      const log = engine.requests.find((l) => l.requestId === `measure-${row.index}`)!;
      assert.equal(row.status, "success");
      assert.equal(row.answer, "answered");
      assert.equal(row.output_tokens, log.completionTokens); // 4 reasoning + 12 answer + EOS
      assert.equal(row.output_tokens, 17);
      assert.equal(row.input_tokens, log.promptTokens);
      assert.equal(row.first_reasoning_s, row.ttft_s);
      // Equal when the last reasoning delta and the first answer delta arrived in one network read.
      assert.ok((row.first_answer_s as number) >= (row.ttft_s as number));
      assert.ok((row.first_byte_s as number) <= (row.ttft_s as number));
      assert.equal(row.tpot_s, ((row.latency_s as number) - (row.ttft_s as number)) / 16);
      assert.ok((row.latency_s as number) >= (row.ttft_s as number));
      // The load path asks the client for chunk offsets: 12 visible chunks (empty deltas excluded), 11 gaps.
      assert.ok(row.itl_s !== null, `itl_s missing: ${row.missing.itl_s}`);
      assert.equal(row.itl_s.length, 11);
      assert.ok(row.itl_s.every((gap) => gap >= 0));
      assert.ok(Number.isFinite(row.connect_s) && (row.connect_s as number) >= 0, `connect_s ${row.connect_s}`);
      assert.equal(row.prefill_s, (row.ttft_s as number) - (row.connect_s as number));
      assert.equal(row.missing.connect_s, undefined);
    }
    // A fresh engine: the warm-up requests open connections, which the measured requests take from the pool.
    for (const row of rows.filter((r) => r.phase === "warmup")) assert.ok((row.connect_s as number) > 0);
    assert.ok(measured.some((row) => row.connect_s === 0), `connect_s ${measured.map((r) => r.connect_s)}`);
    const summary = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 4 }).overall;
    assert.equal(summary.counts.succeeded, 8);
    assert.equal(summary.distributions.output_tokens.mean, 17);
    assert.ok(summary.concurrency.max <= 4);
  });
});

Deno.test("a request that streams reasoning gets its own cadence: thinking time, reasoning ITL and TPOT, answer TPOT", async () => {
  await withEngine({
    decodeTps: 400,
    timeScale: 1,
    slots: 2,
    script: {
      "plain-*": { answer: { kind: "text", text: WORDS(6) }, reasoningTokens: 0 },
      "*": { answer: { kind: "text", text: WORDS(6) }, reasoningTokens: 10 },
    },
  }, async (url) => {
    const plan: LoadPlan = {
      endpoints: [url],
      mode: "closed",
      concurrency: 2,
      seed: 1,
      warmupRequests: 0,
      requests: 6,
      requestFor: (phase, i) => ({ body: bodyFor(i < 2 ? `plain-${i}` : `${phase}-${i}`), promptIndex: i }),
    };
    const rows = (await runCollected(plan, deps)).samples.map((s) => buildLoadRow(s));
    for (const row of rows.filter((r) => r.index >= 2)) {
      assert.equal(row.status, "success");
      // 10 reasoning deltas, 9 gaps; then the answer: thinking time from the first reasoning to the first answer.
      assert.equal(row.reasoning_itl_s?.length, 9, JSON.stringify(row.missing));
      const thinking = (row.first_answer_s as number) - (row.first_reasoning_s as number);
      assert.equal(row.thinking_s, thinking);
      assert.ok(thinking > 0);
      const reasoningGaps = row.reasoning_itl_s!.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs((row.reasoning_tpot_s as number) * 9 - reasoningGaps) < 1e-5);
      const answerGaps = row.itl_s!.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs((row.answer_tpot_s as number) * (row.itl_s!.length) - answerGaps) < 1e-5);
    }
    for (const row of rows.filter((r) => r.index < 2)) {
      assert.deepEqual([row.thinking_s, row.reasoning_itl_s, row.reasoning_tpot_s, row.answer_tpot_s], [
        null,
        null,
        null,
        null,
      ]);
      assert.equal(row.missing.thinking_s, "no reasoning streamed");
    }
    const d = summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 2 }).overall.distributions;
    const reasoning = rows.filter((r) => r.index >= 2);
    assert.equal(d.thinking_s?.n, 4);
    assert.equal(d.reasoning_itl_s?.n, 36);
    assert.deepEqual(d.reasoning_itl_s, describeDistribution(reasoning.flatMap((r) => r.reasoning_itl_s!)));
    assert.deepEqual(d.thinking_s, describeDistribution(reasoning.map((r) => r.thinking_s as number)));
    assert.equal(d.answer_tpot_s?.n, 4);
  });
});

Deno.test("reasoning-only cap is reasoning_truncated, early EOS is no_output_token, HTTP 500 counts in the error rate", async () => {
  await withEngine({
    timeScale: 0,
    script: {
      "cap-*": { answer: { kind: "cap" } },
      "eos-*": { answer: { kind: "early_eos", tokens: 3 } },
      "fail-*": { fault: { kind: "http_error", status: 500 } },
      "*": { answer: { kind: "text", text: WORDS(4) }, reasoningTokens: 2 },
    },
  }, async (url) => {
    const ids = ["cap-0", "eos-1", "fail-2", "ok-3"];
    const facts = await runCollected({
      endpoints: [url],
      mode: "closed",
      concurrency: 1,
      seed: 1,
      warmupRequests: 0,
      requests: 4,
      requestFor: (_p, i) => ({ body: bodyFor(ids[i]!, 8), promptIndex: i }),
    }, deps);
    const rows = facts.samples.map((s) => buildLoadRow(s));
    assert.deepEqual(rows.map((r) => r.answer), ["reasoning_truncated", "no_output_token", null, "answered"]);
    assert.equal(rows[0]!.finish_reason, "length");
    assert.equal(rows[0]!.ttft_s, rows[0]!.first_reasoning_s);
    assert.equal(rows[2]!.status, "failed");
    assert.equal(rows[2]!.error?.kind, "http_error");
    const s =
      summarizeStore(RowStore.of(rows), { mode: "closed", effectiveMaxConcurrency: 1, slo: { e2eS: 60 } }).overall;
    assert.equal(s.error_rate, 0.25);
    assert.equal(s.counts.reasoning_truncated, 1);
    assert.equal(s.counts.no_output_token, 1);
    // Goodput counts only the answered success.
    assert.equal(s.goodput_requests_per_s, 1 / (s.window_s as number));
  });
});

Deno.test("open loop at its cap sends late with lateness in CO latency, or drops past --drop-late-after", async () => {
  // Each request takes at least 9 gaps of 2.5 ms; arrivals every 10 ms with one slot must wait.
  await withEngine({
    decodeTps: 400,
    timeScale: 1,
    script: { "*": { answer: { kind: "text", text: WORDS(9) }, reasoningTokens: 0 } },
  }, async (url) => {
    const base = {
      endpoints: [url],
      mode: "open" as const,
      ratePerS: 100,
      arrival: "constant" as const,
      maxConcurrency: 1,
      seed: 1,
      warmupRequests: 0,
      requests: 4,
      requestFor: (_p: string, i: number) => ({ body: bodyFor(`o-${i}`), promptIndex: i }),
    };
    const late = (await runCollected(base, deps)).samples.map((s) => buildLoadRow(s));
    assert.ok(late.every((r) => r.status === "success"));
    for (const r of late.slice(1)) {
      assert.ok((r.lateness_s as number) >= 0.0225 * 0.9 - 0.01, `lateness ${r.lateness_s}`);
      assert.equal(r.co_latency_s, (r.latency_s as number) + (r.lateness_s as number));
      assert.equal(r.late, true);
    }
    // Four arrivals within 30 ms, each sent one holding the only slot for >= 22.5 ms, and 5 ms of grace: at most two
    // can go out, so at least two are dropped. Which ones depends on how punctually the first arrival went out (a
    // busy machine can make even the first one late), so the test counts rather than naming indexes.
    const dropped = (await runCollected({ ...base, dropLateAfterS: 0.005 }, deps)).samples.map((s) => buildLoadRow(s));
    const gone = dropped.filter((r) => r.status === "dropped");
    assert.ok(gone.length >= 2, `dropped ${gone.length}`);
    for (const r of gone) assert.equal(r.send_offset_s, null);
    assert.ok(dropped.every((r) => r.status === "dropped" || r.status === "success"));
    const s = summarizeStore(RowStore.of(dropped), { mode: "open", effectiveMaxConcurrency: 1 }).overall;
    assert.equal(s.counts.dropped, gone.length);
    assert.equal(s.counts.attempted + s.counts.dropped, 4);
  });
});
