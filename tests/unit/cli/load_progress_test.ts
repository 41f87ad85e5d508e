import assert from "node:assert/strict";
import { LoadCounters, TTFT_WINDOW } from "../../../cli/_load_progress.ts";
import { plainText } from "../../../cli/_progress.ts";
import type { LoadRequestRow } from "../../../load/mod.ts";
import { describeDistribution } from "../../../score/mod.ts";

function row(status: LoadRequestRow["status"], ttftS: number | null, tokens = 10): LoadRequestRow {
  return { phase: "measure", status, ttft_s: ttftS, output_tokens: tokens } as unknown as LoadRequestRow;
}

Deno.test("load status: elapsed of the plan, sent / ok / failed / in flight, rates so far, TTFT p50", () => {
  const c = new LoadCounters({ requests: null, durationS: 60, warmupRequests: 4, warmupS: null }, 0);
  assert.equal(plainText(c.segments(0)), "warm-up 0/4 done · 0 in flight");
  c.epochMs = 1000;
  c.phase = "measure";
  for (let i = 0; i < 12; i++) c.onSend("measure");
  c.onRow(row("success", 0.2));
  c.onRow(row("success", 0.4));
  c.onRow(row("failed", null, 0));
  assert.equal(
    plainText(c.segments(11_000)),
    "measure 10.0 s of 1 min 00 s · 12 sent, 2 ok, 1 failed, 9 in flight · 0.2 req/s, 2 tok/s · TTFT p50 300 ms (all 2)",
  );
  assert.match(plainText(c.segments(65_000)), /^drain 4\.0 s after 1 min 00 s of 1 min 00 s/);
});

Deno.test("the running TTFT p50 is score's type 7 median of the latest window, whatever the run's length", () => {
  const c = new LoadCounters({ requests: 5000, durationS: null, warmupRequests: 0, warmupS: null }, 0);
  const values = Array.from({ length: TTFT_WINDOW + 500 }, (_, i) => (i % 97) / 100);
  for (const v of values) c.onRow(row("success", v));
  const latest = values.slice(-TTFT_WINDOW);
  const p50 = c.ttftP50()!;
  assert.equal(p50.n, TTFT_WINDOW);
  assert.equal(p50.all, false);
  assert.equal(p50.p50S, describeDistribution(latest).p50);
});

Deno.test("cancelled requests (an interruption) are neither ok nor failed", () => {
  const c = new LoadCounters({ requests: 4, durationS: null, warmupRequests: 0, warmupS: null }, 0);
  c.epochMs = 0;
  for (let i = 0; i < 4; i++) c.onSend("measure");
  c.onRow(row("cancelled", null, 0));
  assert.match(plainText(c.segments(1000)), /0 ok, 0 failed, 3 in flight/);
});
