import assert from "node:assert/strict";
import { executeRun, type ExecutorDeps, type ExecutorStreamOptions } from "../../../runner/executor.ts";
import { planRun } from "../../../runner/plan.ts";
import type { StreamOutcome } from "../../../contract/mod.ts";
import { stageDurationS, wallS } from "../../../score/mod.ts";
import { bodyOf, fakeFixtures, outcome } from "./_fakes.ts";

/** A fake client answering per request id, a fake /health and a clock advancing 1 s per call. */
function fakeDeps(
  answer: (id: string, options: ExecutorStreamOptions) => StreamOutcome | Promise<StreamOutcome>,
  healthy = true,
): ExecutorDeps & { sent: string[]; healthAsked: number } {
  let t = 0;
  const deps = {
    sent: [] as string[],
    healthAsked: 0,
    async streamChat(options: ExecutorStreamOptions) {
      const id = String((options.body as { id: string }).id);
      deps.sent.push(id);
      // Dispatched on the executor's clock, which the options carry; the answer's end offset counts from there.
      const dispatchMs = options.now();
      return { ...await answer(id, options), dispatch_clock_ms: dispatchMs };
    },
    checkHealth() {
      deps.healthAsked++;
      return Promise.resolve({ ok: healthy, status: healthy ? 200 : null, message: healthy ? "ok" : "refused" });
    },
    nowMs: () => (t += 1000),
  };
  return deps;
}

Deno.test("executor sends the 22 required requests in protocol order and records durations", async () => {
  const plan = planRun(fakeFixtures(false), { optionalConcurrency: false });
  const deps = fakeDeps(() => outcome());
  const ended: string[] = [];
  const facts = await executeRun({
    baseUrl: "http://127.0.0.1:1",
    plan,
    bodyOf,
    onRequestEnd: (r, p) => {
      ended.push(`${p.index}/${p.total}:${r.fixture.id}`);
    },
  }, deps);
  assert.equal(deps.sent.length, 22);
  assert.deepEqual(deps.sent.slice(0, 5), [
    "warmup",
    "performance-short-r1",
    "performance-prompt-4k-r1",
    "performance-prompt-16k-r1",
    "performance-short-r2",
  ]);
  assert.equal(deps.sent.at(-1), "sanity-T4");
  assert.equal(ended[0], "1/22:warmup");
  assert.equal(ended[21], "22/22:sanity-T4");
  assert.ok(facts.requiredDurationS !== null && facts.requiredDurationS > 0);
  assert.equal(facts.optionalDurationS, null);
  assert.match(facts.optionalDurationReason ?? "", /not selected/);
  assert.deepEqual(facts.roundWallsS, []);
  assert.equal(facts.stopReason, null);
  assert.equal(deps.healthAsked, 0);
});

Deno.test("a failed warm-up skips every later request without asking /health", async () => {
  const plan = planRun(fakeFixtures(true), { optionalConcurrency: true });
  const deps = fakeDeps((id) => id === "warmup" ? outcome("http_error", { http_status: 500 }) : outcome());
  const facts = await executeRun({ baseUrl: "http://127.0.0.1:1", plan, bodyOf }, deps);
  assert.deepEqual(deps.sent, ["warmup"]);
  const skipped = facts.requests.filter((r) => r.kind === "skipped");
  assert.equal(skipped.length, 33);
  assert.ok(skipped.every((r) => r.kind === "skipped" && /warm-up request failed/.test(r.reason)));
  assert.ok(skipped.every((r) => r.kind === "skipped" && r.reason === facts.stopReason), "no doubled prefix");
  assert.equal(facts.requiredDurationS, null);
  assert.deepEqual(facts.roundWallsS, [null, null, null]);
  assert.equal(deps.healthAsked, 0);
});

Deno.test("a failed request with a dead engine skips the rest after one /health question", async () => {
  const plan = planRun(fakeFixtures(false), { optionalConcurrency: false });
  const deps = fakeDeps((id) => id === "performance-prompt-4k-r1" ? outcome("cut") : outcome(), false);
  const facts = await executeRun({ baseUrl: "http://127.0.0.1:1", plan, bodyOf }, deps);
  assert.equal(deps.sent.length, 3);
  assert.equal(deps.healthAsked, 1);
  assert.equal(facts.requests.filter((r) => r.kind === "skipped").length, 19);
  assert.match(facts.stopReason ?? "", /did not answer \/health after performance-prompt-4k-r1/);
  assert.equal(facts.requiredDurationS, null);
  assert.ok(facts.requiredElapsedS !== null);
});

Deno.test("a failed request with a healthy engine continues with the next request", async () => {
  const plan = planRun(fakeFixtures(false), { optionalConcurrency: false });
  const deps = fakeDeps((id) => id === "sanity-I2" ? outcome("timeout") : outcome(), true);
  const facts = await executeRun({ baseUrl: "http://127.0.0.1:1", plan, bodyOf }, deps);
  assert.equal(deps.sent.length, 22);
  assert.equal(deps.healthAsked, 1);
  assert.equal(facts.stopReason, null);
  assert.ok(facts.requiredDurationS !== null);
});

Deno.test("aborting the signal cancels the in-flight request and skips the rest", async () => {
  const plan = planRun(fakeFixtures(false), { optionalConcurrency: false });
  const controller = new AbortController();
  const deps = fakeDeps((id, options) => {
    if (id !== "performance-short-r2") return outcome();
    controller.abort("SIGINT");
    assert.equal(options.signal?.aborted, true);
    return outcome("cancelled");
  });
  const facts = await executeRun({
    baseUrl: "http://127.0.0.1:1",
    plan,
    bodyOf,
    signal: controller.signal,
  }, deps);
  assert.equal(deps.sent.at(-1), "performance-short-r2");
  assert.equal(deps.sent.length, 5);
  assert.equal(facts.cancelled, true);
  const skipped = facts.requests.filter((r) => r.kind === "skipped");
  assert.equal(skipped.length, 17);
  assert.ok(skipped.every((r) => r.kind === "skipped" && /cancelled \(SIGINT\)/.test(r.reason)));
  assert.equal(deps.healthAsked, 0);
});

Deno.test("optional rounds release four requests together and measure the round wall", async () => {
  const plan = planRun(fakeFixtures(true), { optionalConcurrency: true });
  const inFlight: number[] = [];
  let open = 0;
  let release: () => void = () => {};
  let gate = new Promise<void>((r) => (release = r));
  const deps = fakeDeps(async (id) => {
    if (!id.startsWith("concurrency")) return outcome();
    open++;
    inFlight.push(open);
    if (open === 4) {
      release();
      gate = new Promise<void>((r) => (release = r));
    } else await gate;
    open--;
    return outcome();
  });
  const facts = await executeRun({ baseUrl: "http://127.0.0.1:1", plan, bodyOf }, deps);
  assert.equal(Math.max(...inFlight), 4);
  assert.equal(facts.roundWallsS.length, 3);
  assert.ok(facts.roundWallsS.every((w) => w !== null && w > 0));
  assert.ok(facts.optionalDurationS !== null && facts.optionalDurationS > 0);
  const c = facts.requests.filter((r) => r.fixture.phase === "concurrency");
  assert.ok(c.every((r) => r.concurrency === 4 && r.kind === "outcome"));
});

Deno.test("the deadline defaults to the protocol's 1800 s and can be shortened by the library caller", async () => {
  const plan = planRun(fakeFixtures(false), { optionalConcurrency: false });
  const seen: (number | undefined)[] = [];
  const deps = fakeDeps((_id, options) => {
    seen.push(options.deadlineS);
    return outcome();
  });
  await executeRun({ baseUrl: "http://127.0.0.1:1", plan, bodyOf }, deps);
  await executeRun({ baseUrl: "http://127.0.0.1:1", plan, bodyOf, deadlineS: 0.5 }, deps);
  assert.equal(seen[0], 1800);
  assert.equal(seen.at(-1), 0.5);
});

Deno.test("a batch fixture missing from plan.fixtures is a RangeError before any request is sent", async () => {
  const plan = planRun(fakeFixtures(false), { optionalConcurrency: false });
  const stray = { ...plan.fixtures[3]!, id: "performance-unplanned-r1" };
  const batches = plan.batches.map((b, i) => (i === 2 ? { ...b, fixtures: [stray] } : b));
  const deps = fakeDeps(() => outcome());
  await assert.rejects(
    executeRun({ baseUrl: "http://127.0.0.1:1", plan: { ...plan, batches }, bodyOf }, deps),
    (error: unknown) =>
      error instanceof RangeError && /"performance-unplanned-r1".*not in plan\.fixtures/.test(error.message),
  );
  assert.deepEqual(deps.sent, [], "nothing was sent, so no record of another request was overwritten");
});

Deno.test("durations come from each request's dispatch and end offset, not from when the client's promise resolved", async () => {
  const plan = planRun(fakeFixtures(true), { optionalConcurrency: true });
  let t = 0;
  const deps: ExecutorDeps = {
    async streamChat(options) {
      const id = String((options.body as { id: string }).id);
      const dispatchMs = options.now();
      // A busy scheduler: the caller hears of the end long after it was stamped (here 7 s of the clock later).
      await Promise.resolve();
      t += 7000;
      return outcome("finished", {
        dispatch_clock_ms: dispatchMs,
        offsets: { headers_s: 0, first_byte_s: 0, first_delta_s: 0.1, first_answer_s: 0.2, end_s: id.length / 10 },
      });
    },
    checkHealth: () => Promise.resolve({ ok: true, status: 200, message: "ok" }),
    nowMs: () => (t += 10),
  };
  const facts = await executeRun({ baseUrl: "http://127.0.0.1:1", plan, bodyOf }, deps);
  const sent = facts.requests.filter((r) => r.kind === "outcome");
  const span = (id: string) => {
    const r = sent.find((s) => s.fixture.id === id)!;
    return { dispatchOffsetS: r.dispatchOffsetS, endOffsetS: r.outcome.offsets.end_s };
  };
  assert.equal(facts.requiredDurationS, stageDurationS(span("warmup"), span("sanity-T4")));
  const round2 = ["1", "2", "3", "4"].map((c) => span(`concurrency-r2-c${c}`));
  assert.equal(facts.roundWallsS[1], wallS(round2));
  assert.equal(
    facts.optionalDurationS,
    wallS(sent.filter((r) => r.fixture.phase === "concurrency").map((r) => span(r.fixture.id))),
  );
  // The 7 s of late resolution appear in no duration: a round's wall is its slowest request plus the dispatch spread.
  assert.ok(facts.roundWallsS[1]! < 7);
});
