/**
 * `load --timings-per-token` against the scripted engine: llama.cpp's running timings on every chunk, chunks that
 * carry several tokens, and reasoning and answer TPOT from the engine's counts instead of one token a chunk.
 */
import assert from "node:assert/strict";
import { startMockEngine } from "../../mock/mod.ts";
import { parseLoadCommand } from "../../cli/load.ts";
import { type LoadRequestRow, realLoadDeps, runLoadTest } from "../../load/mod.ts";

/** 12 reasoning tokens then 8 answer tokens; events carry 1, 3, 1, 3, ... tokens (the cycle runs on across kinds). */
const SCRIPT = {
  "*": {
    reasoningTokens: 12,
    answer: { kind: "text" as const, text: "one two three four five six seven eight" },
    tokensPerEvent: [1, 3],
  },
};
// Reasoning events carry 1, 3, 1, 3, 1, 3 tokens: counts 1 .. 12, 11 tokens after the first chunk, in 5 gaps.
// Answer events carry 1, 3, 1, 3: counts 13 .. 20, 7 tokens after the first chunk, in 3 gaps.
const REASONING = { tokens: 11, gaps: 5 };
const ANSWER = { tokens: 7, gaps: 3 };

const FLAGS = ["--no-headroom-check", "--concurrency", "2", "--requests", "4", "--warmup-requests", "0"];

async function loadRows(url: string, extra: string[]): Promise<LoadRequestRow[]> {
  const rows: LoadRequestRow[] = [];
  const options = parseLoadCommand(["--url", url, ...FLAGS, "--synthetic", "chat-short", ...extra]).options;
  const outcome = await runLoadTest(options, realLoadDeps(), { onRow: (row) => rows.push(row) });
  assert.equal(outcome.status, "ok", outcome.reasons.join("\n"));
  return rows.filter((row) => row.phase === "measure");
}

/** The gaps' sum (first to last chunk, to within the microsecond rounding of each gap). */
function span(gaps: number[] | null | undefined): number {
  return (gaps ?? []).reduce((a, b) => a + b, 0);
}

Deno.test("--timings-per-token: reasoning and answer TPOT divide by the engine's predicted_n differences", async () => {
  const engine = await startMockEngine({ decodeTps: 400, timeScale: 1, slots: 2, script: SCRIPT });
  try {
    const rows = await loadRows(engine.url, ["--timings-per-token"]);
    assert.equal(rows.length, 4);
    // The preflight's one small request does not ask; every measured request does.
    const asked = engine.requests.filter((r) => (r.body as Record<string, unknown>).timings_per_token === true);
    assert.equal(asked.length, 4);
    assert.equal(engine.requests.length, 5);
    let timed = 0;
    for (const row of rows) {
      assert.equal(row.status, "success");
      assert.equal(row.tokens_from, "engine", JSON.stringify(row.missing));
      assert.equal(row.reasoning_itl_s?.length, REASONING.gaps);
      assert.equal(row.itl_s?.length, ANSWER.gaps);
      const reasoningSpan = span(row.reasoning_itl_s), answerSpan = span(row.itl_s);
      // The count-based value, not the event-based one (which would be 11/5 and 7/3 times as long).
      assert.ok(Math.abs((row.reasoning_tpot_s as number) * REASONING.tokens - reasoningSpan) < 1e-5);
      assert.ok(Math.abs((row.answer_tpot_s as number) * ANSWER.tokens - answerSpan) < 1e-5);
      if (reasoningSpan > 0 && answerSpan > 0) timed++;
    }
    // Chunks that reach the client in one socket read share its stamp (a busy machine can deliver a whole phase in
    // one read: a span of 0, where both divisions agree); the division is told apart on the rows with time in them.
    assert.ok(timed > 0, "no request spread its chunks over more than one read");
  } finally {
    await engine.close();
  }
});

Deno.test("without --timings-per-token the body does not ask and TPOT counts one token a chunk", async () => {
  const engine = await startMockEngine({ decodeTps: 400, timeScale: 1, slots: 2, script: SCRIPT });
  try {
    const rows = await loadRows(engine.url, []);
    for (const request of engine.requests) {
      assert.equal("timings_per_token" in (request.body as Record<string, unknown>), false);
    }
    for (const row of rows) {
      assert.equal(row.tokens_from, "events");
      assert.ok(Math.abs((row.reasoning_tpot_s as number) * REASONING.gaps - span(row.reasoning_itl_s)) < 1e-5);
      assert.ok(Math.abs((row.answer_tpot_s as number) * ANSWER.gaps - span(row.itl_s)) < 1e-5);
    }
  } finally {
    await engine.close();
  }
});

Deno.test("--timings-per-token warns about a server that is not llama.cpp and is refused with --no-stream", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const args = ["--url", engine.url, ...FLAGS, "--synthetic", "chat-short", "--timings-per-token"];
    const options = parseLoadCommand(args).options;
    const deps = realLoadDeps();
    deps.dialectOf = () => Promise.resolve({ dialect: "unknown", evidence: "no build_info" });
    const warned: string[] = [];
    const warn = (w: string) => /timings_per_token/.test(w) && warned.push(w);
    assert.equal((await runLoadTest(options, deps, { onWarning: warn })).status, "ok");
    assert.equal(warned.length, 1, warned.join("\n"));
    assert.match(warned[0]!, /is unknown \(no build_info\): timings_per_token is llama\.cpp's field/);
    warned.length = 0;
    assert.equal((await runLoadTest(options, realLoadDeps(), { onWarning: warn })).status, "ok");
    assert.deepEqual(warned, []);
  } finally {
    await engine.close();
  }
  assert.throws(
    () => parseLoadCommand(["--url", "http://127.0.0.1:1", ...FLAGS, "--timings-per-token", "--no-stream"]),
    /--timings-per-token has no effect with --no-stream/,
  );
});
