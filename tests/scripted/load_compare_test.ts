/** The compare gate between scripted engines: identical ones pass, a 10% slower decode fails, profiles run in turn. */
import assert from "node:assert/strict";
import { startMockEngine } from "../../mock/mod.ts";
import { parseCompareCommand } from "../../cli/compare.ts";
import { realLoadDeps, runCompare } from "../../load/mod.ts";
import type { ProfileStarter } from "../../load/gate/compare_sessions.ts";

// 16 answer tokens at 50 tok/s reported, run 4x faster: about 5 ms a token, 80 ms a request.
const ENGINE = {
  promptTps: 1_000_000,
  timeScale: 0.25,
  slots: 4,
  script: {
    "*": {
      answer: {
        kind: "text" as const,
        text: Array.from({ length: 16 }, () => "tok").join(" "),
      },
      reasoningTokens: 0,
    },
  },
};

/**
 * The gate between two scripted engines that decode at the given speeds. Only TPOT is steady enough here to gate at
 * 5%: output tokens/s over 4-request rounds moves by up to ~10% with the load of a shared 2-core machine (the noise
 * floor is the baseline's own spread, which three such rounds do not always show), so `tolerance` widens the gate
 * where a test asserts a pass.
 */
async function gate(baselineTps: number, candidateTps: number, tolerance = 0.05) {
  const baseline = await startMockEngine({ ...ENGINE, decodeTps: baselineTps });
  const candidate = await startMockEngine({ ...ENGINE, decodeTps: candidateTps });
  try {
    const options = parseCompareCommand([
      "--baseline",
      baseline.url,
      "--candidate",
      candidate.url,
      "--concurrency",
      "1,4",
      "--rounds",
      "3",
      "--requests",
      "4",
      "--warmup-requests",
      "1",
      "--workload",
      "chat-short",
      "--sample",
      "16",
      "--tolerance",
      String(tolerance),
    ]).options;
    const deps = realLoadDeps();
    const outcome = await runCompare(options, deps);
    assert.ok(outcome.result !== null, "an uninterrupted comparison has a verdict");
    return { result: outcome.result, lines: outcome.lines };
  } finally {
    await baseline.close();
    await candidate.close();
  }
}

Deno.test("compare passes between two identical scripted engines", async () => {
  const { result, lines } = await gate(50, 50, 0.25);
  assert.equal(result.pass, true, JSON.stringify(result.points.map((p) => p.metrics.map((m) => m.reason))));
  assert.deepEqual(result.points.map((p) => p.concurrency), [1, 4]);
  assert.deepEqual(result.points[0]!.rounds, { baseline: 3, candidate: 3 });
  for (const line of lines) {
    const parsed = JSON.parse(line);
    assert.ok(typeof parsed.format === "string" && parsed.version === 3, line.slice(0, 80));
  }
});

Deno.test("compare fails when the candidate decodes 10% slower", async () => {
  const { result } = await gate(50, 45);
  assert.equal(result.pass, false);
  const tpot = result.points[0]!.metrics.find((m) => m.metric === "tpot_p50_s")!;
  assert.equal(tpot.pass, false);
  assert.ok((tpot.delta_fraction as number) > 0.05, `TPOT delta ${tpot.delta_fraction}`);
});

Deno.test("compare of a URL against a profile starts the profile's engine each round and stops it", async () => {
  const baseline = await startMockEngine({ ...ENGINE, decodeTps: 50 });
  const started: string[] = [];
  let running = 0;
  // Stands in for startProfileEngine: a scripted engine per turn, in this process.
  const startProfile: ProfileStarter = async (ref) => {
    const engine = await startMockEngine({ ...ENGINE, decodeTps: 50 });
    started.push(ref);
    running++;
    return {
      baseUrl: engine.url,
      started: true,
      engineArgs: ["--port", engine.url.split(":").at(-1)!],
      engineCommit: null,
      stop: async () => {
        await engine.close();
        running--;
        return { code: 0, signal: null };
      },
    };
  };
  try {
    const options = parseCompareCommand([
      "--baseline",
      baseline.url,
      "--candidate-profile",
      "fake-engine",
      "--concurrency",
      "1,4",
      "--rounds",
      "2",
      "--requests",
      "4",
      "--warmup-requests",
      "1",
      "--sample",
      "16",
    ]).options;
    const deps = { ...realLoadDeps(), startProfile };
    const { result, lines } = await runCompare(options, deps);
    assert.ok(result !== null);
    assert.deepEqual(started, ["fake-engine", "fake-engine"]);
    assert.equal(running, 0);
    assert.deepEqual(result.points.map((p) => p.rounds), [{ baseline: 2, candidate: 2 }, {
      baseline: 2,
      candidate: 2,
    }]);
    const parsed = lines.map((l) => JSON.parse(l));
    assert.equal(parsed[0].schedule, "engines-in-turn");
    assert.deepEqual(parsed[0].candidate, { profile: "fake-engine" });
    assert.deepEqual(parsed[0].baseline, { url: baseline.url });
    const turns = parsed.filter((l) => l.kind === "server").map((l) => `${l.side}:${l.round}:${l.started}`);
    assert.deepEqual(turns, ["baseline:0:false", "candidate:0:true", "baseline:1:false", "candidate:1:true"]);
    assert.equal(parsed.filter((l) => l.kind === "server-stopped").length, 2);
  } finally {
    await baseline.close();
  }
});

Deno.test("every compare output line passes through the sanitizer, as run and load outputs do", async () => {
  const engine = await startMockEngine({ ...ENGINE });
  try {
    const options = parseCompareCommand([
      "--baseline",
      engine.url,
      "--candidate",
      engine.url,
      "--concurrency",
      "1",
      "--rounds",
      "1",
      "--requests",
      "2",
      "--warmup-requests",
      "0",
      "--workload",
      "chat-short",
      "--sample",
      "4",
    ]).options;
    let passed = 0;
    const sanitizer = {
      text: (text: string) => text,
      json: (value: unknown) => {
        passed += 1;
        return { ...(value as Record<string, unknown>), sanitized_mark: true };
      },
    };
    const deps = { ...realLoadDeps(), sanitizer };
    const { lines } = await runCompare(options, deps);
    assert.ok(lines.length >= 4, `config, two turns, summaries, result: got ${lines.length}`);
    assert.equal(passed, lines.length);
    for (const line of lines) assert.equal(JSON.parse(line).sanitized_mark, true, line.slice(0, 120));
  } finally {
    await engine.close();
  }
});
