/**
 * Every phase of `load` and `compare` ends when promised, whatever the server does: a server whose warm-up never
 * answers fails the test after --warmup-limit-s (its own reason, in the JSONL and on the console), not after the
 * request timeout; a refused preflight is said in the JSONL too.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockEngine } from "../../mock/mod.ts";
import { parseLoadCommand } from "../../cli/load.ts";
import { parseCompareCommand } from "../../cli/compare.ts";
import { realLoadDeps, renderLoadSummary, runCompare, runLoadTest } from "../../load/mod.ts";
import { TargetRefused } from "../../load/preflight.ts";
import { FileReadError } from "../../runtime/mod.ts";

/** The preflight answers (it is no request of the workload); every workload request, warm-up included, hangs. */
const HUNG_WARMUP = { preflight: {}, "*": { fault: { kind: "stall" as const } } };

Deno.test("a warm-up that never answers fails the load after --warmup-limit-s, and the JSONL says which phase", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-bounded-"));
  const engine = await startMockEngine({ timeScale: 0, script: HUNG_WARMUP });
  try {
    const options = parseLoadCommand([
      "--no-headroom-check",
      "--url",
      engine.url,
      "--concurrency",
      "2",
      "--duration",
      "5",
      "--drain-s",
      "5",
      "--warmup-limit-s",
      "0.5",
      "--synthetic",
      "chat-short",
      "--repeat",
      "2",
    ]).options;
    options.out = join(dir, "run.jsonl");
    const started = performance.now();
    const outcome = await runLoadTest(options, realLoadDeps());
    const wallS = (performance.now() - started) / 1000;
    assert.equal(outcome.status, "warmup-limit");
    assert.ok(wallS < 5, `ended after ${wallS.toFixed(2)} s; the warm-up limit is 0.5 s`);
    assert.match(outcome.reasons.join("\n"), /run 1: the warm-up did not end within its limit of 0\.5 s/);
    assert.equal(outcome.runs.length, 1, "no second run after a warm-up that overran");
    const lines = (await readFile(options.out, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    const summary = lines.find((l) => l.format === "strata-load-summary");
    assert.deepEqual(summary.phases.warmup.ended, "limit");
    assert.equal(summary.phases.warmup.limit_s, 0.5);
    assert.equal(summary.phases.measure.ended, "not-started");
    assert.equal(summary.overall.counts.attempted, 0);
    const rows = lines.filter((l) => l.format === "strata-load-request");
    assert.equal(rows.length, 2, "both warm-up requests end, cancelled");
    for (const r of rows) assert.match(r.error.message, /warm-up's drain or --warmup-limit-s/);
    assert.match(renderLoadSummary(outcome.runs[0]!.summary), /warm-up OVERRAN its limit of 0\.5 s/);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a refused preflight leaves no file behind: nothing was measured", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-bounded-"));
  const engine = await startMockEngine({
    timeScale: 0,
    script: { preflight: { fault: { kind: "http_error", status: 503, message: "loading model" } } },
  });
  try {
    const options = parseLoadCommand([
      "--no-headroom-check",
      "--url",
      engine.url,
      "--concurrency",
      "1",
      "--requests",
      "2",
      "--synthetic",
      "chat-short",
    ]).options;
    options.out = join(dir, "run.jsonl");
    let announced: string | null = null;
    const outcome = await runLoadTest(options, realLoadDeps(), { onOutput: (path) => (announced = path) });
    assert.equal(outcome.status, "unreachable");
    assert.match(outcome.reasons[0]!, /answered HTTP 503: loading model$/);
    assert.deepEqual(await readdir(dir), [], "the file opened to check --out is removed");
    assert.equal(announced, null, "no file was announced");
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a comparison whose baseline never answers its warm-up fails after --warmup-limit-s", async () => {
  const baseline = await startMockEngine({ timeScale: 0, script: HUNG_WARMUP });
  const candidate = await startMockEngine({ timeScale: 0 });
  try {
    const options = parseCompareCommand([
      "--baseline",
      baseline.url,
      "--candidate",
      candidate.url,
      "--concurrency",
      "1",
      "--requests",
      "2",
      "--warmup-limit-s",
      "0.5",
      "--synthetic",
      "chat-short",
    ]).options;
    const started = performance.now();
    await assert.rejects(
      runCompare(options, realLoadDeps()),
      (error: Error) =>
        error instanceof TargetRefused &&
        /baseline .* warm-up did not end within its limit of 0\.5 s/.test(error.message),
    );
    assert.ok(performance.now() - started < 5000);
  } finally {
    await baseline.close();
    await candidate.close();
  }
});

Deno.test("a FIFO, a device or a link to one as a prompt or ShareGPT file is refused at once, before any traffic", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-bounded-"));
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const fifo = join(dir, "prompts.jsonl");
    execFileSync("mkfifo", [fifo]);
    await symlink("/dev/zero", join(dir, "zero.json"));
    for (const [flag, path] of [["--prompts", fifo], ["--sharegpt", join(dir, "zero.json")]]) {
      const options =
        parseLoadCommand(["--url", engine.url, "--concurrency", "1", "--requests", "1", flag!, path!]).options;
      await assert.rejects(
        runLoadTest(options, realLoadDeps()),
        (e: FileReadError) => e.code === "not_regular" && /not a regular file/.test(e.message),
      );
    }
    assert.equal(engine.requests.length, 0);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("compare --plan's wall-time bound counts every preflight deadline and every warm-up limit", async () => {
  const { planCompare, PREFLIGHT_DEADLINE_S } = await import("../../load/mod.ts");
  const sides = ["--baseline", "http://127.0.0.1:9", "--candidate", "http://127.0.0.1:10"];
  const plan = [...sides, "--concurrency", "1", "--rounds", "1", "--duration", "10", "--drain-s", "1"];
  const workload = ["--workload", "chat-short", "--sample", "4"];
  const timed = await planCompare(
    parseCompareCommand([...plan, ...workload, "--warmup-s", "2", "--warmup-limit-s", "30"]).options,
    realLoadDeps(),
  );
  // Two runs of 2 s warm-up + 30 s limit + 10 s + 2 x 1 s drain, and two servers' preflights.
  assert.deepEqual(timed.runs.map((r) => r.bound_s), [44, 44]);
  assert.equal(timed.bound_s, 88 + 2 * PREFLIGHT_DEADLINE_S);
  // What it takes when nothing waits on a limit: each run's 2 s warm-up and 10 s of issuance.
  assert.deepEqual(timed.runs.map((r) => r.expected_s), [12, 12]);
  assert.equal(timed.expected_s, 24);
  // A warm-up by count is bounded by its limit too; one server on both sides is checked once.
  const counted = await planCompare(
    parseCompareCommand(
      [...plan, ...workload, "--warmup-requests", "1", "--warmup-limit-s", "30"].map((a) =>
        a === "http://127.0.0.1:10" ? "http://127.0.0.1:9" : a
      ),
    ).options,
    realLoadDeps(),
  );
  assert.deepEqual(counted.runs.map((r) => r.bound_s), [42, 42]);
  assert.equal(counted.bound_s, 84 + PREFLIGHT_DEADLINE_S);
});

Deno.test("a FIFO as a profile, a compare spec or a noise-floor file is refused at once, never waited on", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-bounded-"));
  try {
    const fifo = join(dir, "pipe.jsonc");
    execFileSync("mkfifo", [fifo]);
    const { loadProfile } = await import("../../engine/load_profile.ts");
    await assert.rejects(loadProfile(fifo, { toolkitDir: null, cwd: dir }), /not a regular file/);
    const { main } = await import("../../cli/compare.ts");
    const base = ["--baseline", "http://127.0.0.1:9", "--candidate", "http://127.0.0.1:10"];
    // Exit 3 (environment) with the reader's refusal, before any server is asked (the ports are closed).
    assert.equal(await main(["--spec", fifo, ...base]), 3);
    assert.equal(await main([...base, "--requests", "1", "--noise-floor-from", fifo]), 3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("load --publishable refuses zero warm-up and the self-check before any traffic", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const args = [
      "--url",
      engine.url,
      "--concurrency",
      "1",
      "--requests",
      "1",
      "--publishable",
      "--synthetic",
      "chat-short",
    ];
    await assert.rejects(
      runLoadTest(parseLoadCommand([...args, "--warmup-requests", "0"]).options, realLoadDeps()),
      /Cannot publish this load: zero warm-up/,
    );
    await assert.rejects(
      runLoadTest(parseLoadCommand(args).options, realLoadDeps()),
      /Cannot publish profile:chat-short|synthetic/,
    );
    assert.equal(engine.requests.length, 0);
  } finally {
    await engine.close();
  }
});
