import assert from "node:assert/strict";
import type { Progress, StatusRender } from "../../../cli/_progress.ts";
import { plainText } from "../../../cli/_progress.ts";
import { deliveredText, runProgressView } from "../../../cli/_run_progress.ts";
import { loadBundle } from "../../../fixtures/mod.ts";
import { newStreamProgress, type RequestRecord } from "../../../contract/mod.ts";

/** A display that keeps what it was given, on a clock the test moves. */
function recorder(mode: Progress["mode"] = "live") {
  const lines: string[] = [];
  let render: StatusRender | null = null;
  const progress: Progress = {
    mode,
    status: (r) => render = r,
    line: (t) => lines.push(t),
    refresh: () => {},
    stop: () => render = null,
  };
  return { progress, lines, status: () => (render?.() === null || render === null ? null : plainText(render()!)) };
}

function skipped(id: string, reason: string): RequestRecord {
  return { id, status: "skipped", error: { kind: "skipped", message: reason } } as unknown as RequestRecord;
}

Deno.test("the status of a streaming request: i/22, id, elapsed, TTFT once known, deltas that are not tokens", async () => {
  const { fixtures } = await loadBundle();
  let now = 1000;
  const r = recorder();
  const view = runProgressView(r.progress, () => now);
  view.hooks.onStage("requests");
  const live = newStreamProgress();
  view.hooks.onRequestStart(fixtures[3]!, { index: 4, total: 22 }, live);
  now += 2500;
  assert.equal(r.status(), "[4/22] performance-prompt-16k-r1 · 2.5 s · TTFT waiting · 0 deltas (not tokens)");
  live.firstDeltaS = 1.234;
  live.deltas = 318;
  assert.equal(r.status(), "[4/22] performance-prompt-16k-r1 · 2.5 s · TTFT 1.23 s · 318 deltas (not tokens)");
  // An engine that reports its own count mid-stream (llama.cpp's timings) is shown as tokens, and says whose count.
  live.timings = { predicted_n: 300 };
  assert.equal(deliveredText(live), "300 tokens (engine count)");
});

Deno.test("skipped requests that share a reason are one line, not twenty", () => {
  const r = recorder("lines");
  const view = runProgressView(r.progress, () => 0);
  const reason = "the warm-up request failed (HTTP 404: a markup (HTML) body of 9 bytes that is no JSON error)";
  for (let i = 2; i <= 22; i++) view.hooks.onRequestEnd(skipped(`r${i}`, reason), { index: i, total: 22 });
  assert.deepEqual(r.lines, []);
  view.finish();
  assert.deepEqual(r.lines, [`[2-22/22] 21 requests skipped (${reason})`]);
});

Deno.test("in lines mode the status is a heartbeat: it says the request is still running", async () => {
  const { fixtures } = await loadBundle();
  const r = recorder("lines");
  const view = runProgressView(r.progress, () => 0);
  view.hooks.onStage("requests");
  view.hooks.onRequestStart(fixtures[0]!, { index: 1, total: 22 }, newStreamProgress());
  assert.match(r.status() ?? "", /^still running: \[1\/22\] warmup/);
});
