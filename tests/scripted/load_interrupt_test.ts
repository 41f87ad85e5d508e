/**
 * Honest interruption: a load or a comparison stopped by a signal keeps what ended, marks it interrupted (JSONL and
 * summary), counts requests in flight as cancelled (not failed), and makes no aggregate or gate verdict of it.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLoadCommand } from "../../cli/load.ts";
import { parseCompareCommand } from "../../cli/compare.ts";
import { realLoadDeps, runCompare, runLoadTest } from "../../load/mod.ts";
import { startMockEngine } from "../../mock/mod.ts";
import { lineErrors } from "../unit/contract/_load_lines.ts";

Deno.test("a load interrupted mid-run keeps its ended rows, cancels the in-flight ones and says interrupted", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-interrupt-"));
  // Slow enough that 3 requests are still streaming when the first ends.
  const engine = await startMockEngine({ timeScale: 1, decodeTps: 400, slots: 4 });
  const controller = new AbortController();
  try {
    const options = parseLoadCommand([
      "--url",
      engine.url,
      "--concurrency",
      "3",
      "--requests",
      "30",
      "--warmup-requests",
      "0",
      "--synthetic",
      "chat-short",
      "--no-headroom-check",
      "--repeat",
      "2",
    ]).options;
    options.out = join(dir, "run.jsonl");
    let measuredEnded = 0;
    const outcome = await runLoadTest(options, realLoadDeps(controller.signal), {
      onRow: (row) => {
        if (row.phase === "measure" && ++measuredEnded === 2) controller.abort("SIGINT");
      },
    });
    assert.equal(outcome.status, "interrupted");
    assert.equal(outcome.aggregate, null, "no cross-run aggregate of an interrupted test");
    assert.equal(outcome.runs.length, 1, "the second run never starts");
    const lines = (await readFile(options.out, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    const rows = lines.filter((l) => l.format === "strata-load-request");
    const cancelled = rows.filter((r) => r.status === "cancelled");
    assert.ok(cancelled.length >= 1, JSON.stringify(rows.map((r) => r.status)));
    for (const r of cancelled) assert.equal(r.error.kind, "cancelled");
    assert.equal(rows.filter((r) => r.status === "failed").length, 0, "an interruption is no failure of the server");
    const summary = lines.find((l) => l.format === "strata-load-summary");
    assert.equal(summary.interrupted.by, "SIGINT");
    assert.equal(summary.overall.counts.cancelled, cancelled.length);
    assert.equal(summary.overall.counts.failed, 0);
    assert.equal(summary.overall.error_rate, 0);
    assert.equal(summary.overall.counts.succeeded, rows.filter((r) => r.status === "success").length);
    const last = lines.at(-1);
    assert.deepEqual([last.kind, last.by, last.runs_planned, last.runs_ended], ["interrupted", "SIGINT", 2, 1]);
    for (const [i, line] of lines.entries()) assert.deepEqual(lineErrors(line), [], `line ${i + 1}`);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a comparison interrupted mid-measurement gives no verdict, keeps what ended, and says so", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-interrupt-"));
  const baseline = await startMockEngine({ timeScale: 1, decodeTps: 400, slots: 4 });
  const candidate = await startMockEngine({ timeScale: 1, decodeTps: 400, slots: 4 });
  const controller = new AbortController();
  try {
    const options = parseCompareCommand([
      "--baseline",
      baseline.url,
      "--candidate",
      candidate.url,
      "--concurrency",
      "1,2",
      "--rounds",
      "2",
      "--requests",
      "8",
      "--warmup-requests",
      "0",
      "--synthetic",
      "chat-short",
    ]).options;
    options.out = join(dir, "gate.jsonl");
    let measurements = 0;
    const deps = {
      ...realLoadDeps(controller.signal),
      hooks: {
        onMeasure: () => {
          measurements++;
        },
        onRow: () => {
          if (measurements === 2) controller.abort("SIGTERM");
        },
      },
    };
    const outcome = await runCompare(options, deps);
    assert.equal(outcome.result, null, "no gate verdict of a partial comparison");
    assert.deepEqual(outcome.interrupted, { by: "SIGTERM", measured: 1, planned: 8 });
    const lines = (await readFile(options.out, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.filter((l) => l.format === "strata-load-compare").length, 0, "no verdict line");
    const summaries = lines.filter((l) => l.format === "strata-load-summary");
    assert.equal(summaries.length, 2);
    assert.equal(summaries[0].interrupted, undefined);
    assert.equal(summaries[1].interrupted.by, "SIGTERM");
    assert.equal(lines.at(-1).kind, "interrupted");
    for (const [i, line] of lines.entries()) assert.deepEqual(lineErrors(line), [], `line ${i + 1}`);
    assert.equal(lines.filter((l) => l.kind === "noise-floor").length, 0);
  } finally {
    await baseline.close();
    await candidate.close();
    await rm(dir, { recursive: true, force: true });
  }
});
