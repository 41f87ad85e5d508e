import assert from "node:assert/strict";
import { type LoadPlan, type LoadStreamOptions, validateLoadPlan } from "../../../load/load_plan_bounds.ts";
import { arrivalOffsets, type ScheduleOptions } from "../../../load/schedule.ts";
import { outcome, runCollected, VirtualClock } from "./_fakes.ts";

/** The first `count` offsets of a schedule. */
function scheduleOffsets(options: ScheduleOptions, count: number): number[] {
  const out: number[] = [];
  for (const t of arrivalOffsets(options)) {
    out.push(t);
    if (out.length >= count) break;
  }
  return out;
}

/** A fake client that takes `serviceS` of virtual time per request and counts the most ever in flight. */
function fakeClient(clock: VirtualClock, serviceS: number | ((n: number) => number)) {
  const state = { inFlight: 0, maxInFlight: 0, calls: [] as LoadStreamOptions[] };
  const streamChat = async (options: LoadStreamOptions) => {
    const n = state.calls.length;
    state.calls.push(options);
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const service = typeof serviceS === "number" ? serviceS : serviceS(n);
    await clock.sleepUntilS(clock.nowS() + service);
    state.inFlight--;
    return outcome({ endS: service, completionTokens: 4 });
  };
  return { state, streamChat };
}

/** A small closed-loop plan; a key given as undefined is removed. */
function plan(extra: { [K in keyof LoadPlan]?: LoadPlan[K] | undefined }): LoadPlan {
  const out: Record<string, unknown> = {
    endpoints: ["http://127.0.0.1:1"],
    mode: "closed",
    concurrency: 2,
    seed: 1,
    warmupRequests: 0,
    requests: 4,
    requestFor: (phase: string, index: number) => ({ body: { phase, index }, promptIndex: index % 3 }),
    ...extra,
  };
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k];
  return out as unknown as LoadPlan;
}

Deno.test("closed loop keeps exactly N requests outstanding and completes warm-up before the epoch", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.5);
  const facts = await clock.drive(
    runCollected(plan({ concurrency: 3, requests: 10, warmupRequests: 2 }), {
      ...client,
      nowS: clock.nowS,
      sleepUntilS: clock.sleepUntilS,
    }),
  );
  const warm = facts.samples.filter((s) => s.phase === "warmup");
  const measured = facts.samples.filter((s) => s.phase === "measure");
  assert.equal(warm.length, 2);
  assert.deepEqual(measured.map((s) => s.index), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(client.state.maxInFlight, 3);
  assert.equal(facts.warmup_s, 0.5);
  // Epoch right after warm-up: the first three measured requests go out at offset 0, the next three at 0.5.
  assert.deepEqual(measured.map((s) => s.send_offset_s), [0, 0, 0, 0.5, 0.5, 0.5, 1, 1, 1, 1.5]);
  assert.ok(measured.every((s) => s.scheduled_offset_s === null));
  assert.equal(facts.effective_max_concurrency, 3);
});

Deno.test("an open loop warms up at most 256 wide however large its cap, and no wider than its rate's second", async () => {
  for (const [ratePerS, maxConcurrency, expected] of [[2000, 1024, 256], [2000, 100, 100], [10, 1024, 10]]) {
    const clock = new VirtualClock();
    const client = fakeClient(clock, 1);
    const facts = await clock.drive(
      runCollected(
        plan({ mode: "open", ratePerS, maxConcurrency, arrival: "constant", requests: 1, warmupRequests: 600 }),
        { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
      ),
    );
    assert.equal(facts.samples.filter((s) => s.phase === "warmup").length, 600);
    // Every warm-up request takes 1 s, so the warm-up is as wide as it may be the whole time.
    assert.equal(client.state.maxInFlight, expected, `rate ${ratePerS}, cap ${maxConcurrency}`);
  }
});

Deno.test("a full garbage collection runs once, after the warm-up has ended and before the first measured send", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.5);
  const seen: string[] = [];
  const streamChat = (options: LoadStreamOptions) => {
    seen.push(`send ${(options.body as { phase: string }).phase}`);
    return client.streamChat(options);
  };
  await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: 2, warmupRequests: 2 }),
    { streamChat, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS, collectGarbage: () => void seen.push("gc") },
    { onSample: (s) => seen.push(`end ${s.phase}`) },
  ));
  assert.deepEqual(seen.slice(0, 5), ["send warmup", "send warmup", "end warmup", "end warmup", "gc"]);
  assert.deepEqual(seen.filter((e) => e === "gc"), ["gc"]);
  assert.equal(seen[5], "send measure");
});

Deno.test("the epoch waits for the collection's promise: nothing measured is sent while it settles", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.5);
  const seen: string[] = [];
  const epochs: number[] = [];
  const streamChat = (options: LoadStreamOptions) => {
    seen.push(`send ${(options.body as { phase: string }).phase} at ${clock.nowS()}`);
    return client.streamChat(options);
  };
  const collectGarbage = async () => {
    seen.push(`gc at ${clock.nowS()}`);
    await clock.sleepUntilS(clock.nowS() + 0.25);
    seen.push(`settled at ${clock.nowS()}`);
  };
  await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: 1, warmupRequests: 1 }),
    { streamChat, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS, collectGarbage },
    { onEpoch: (epochS) => epochs.push(epochS) },
  ));
  assert.deepEqual(seen, ["send warmup at 0", "gc at 0.5", "settled at 0.75", "send measure at 0.75"]);
  assert.deepEqual(epochs, [0.75]);
});

Deno.test("several endpoints get requests round-robin", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.1);
  const facts = await clock.drive(runCollected(
    plan({ endpoints: ["http://127.0.0.1:1", "http://127.0.0.1:2"], requests: 4 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  assert.deepEqual(facts.samples.map((s) => s.endpoint_index), [0, 1, 0, 1]);
  assert.deepEqual(client.state.calls.map((c) => c.baseUrl), [
    "http://127.0.0.1:1",
    "http://127.0.0.1:2",
    "http://127.0.0.1:1",
    "http://127.0.0.1:2",
  ]);
});

Deno.test("open loop sends on its absolute schedule when the cap is not reached", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.35);
  const facts = await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: 6 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  const measured = facts.samples;
  assert.deepEqual(measured.map((s) => s.scheduled_offset_s), [0, 1, 2, 3, 4, 5].map((i) => i / 10));
  assert.deepEqual(measured.map((s) => s.send_offset_s), measured.map((s) => s.scheduled_offset_s));
  assert.equal(client.state.maxInFlight, 4);
});

Deno.test("open loop at the cap sends late and records the lateness instead of moving the schedule", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.25);
  const facts = await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", maxConcurrency: 1, requests: 3 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  const s = facts.samples;
  assert.deepEqual(s.map((x) => x.scheduled_offset_s), [0, 0.1, 0.2]);
  // One slot: sends at 0, 0.25, 0.5 although scheduled at 0, 0.1, 0.2.
  assert.deepEqual(s.map((x) => x.send_offset_s), [0, 0.25, 0.5]);
  assert.ok(s.every((x) => !x.dropped));
  assert.equal(client.state.maxInFlight, 1);
});

Deno.test("open loop drops a request that would go out later than --drop-late-after", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.27);
  const facts = await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", maxConcurrency: 1, requests: 3, dropLateAfterS: 0.1 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  const s = facts.samples;
  // #0 runs 0..0.27. #1 (due 0.1, give up at 0.2) is dropped. #2 (due 0.2, give up at 0.3) goes at 0.27.
  assert.deepEqual(s.map((x) => x.dropped), [false, true, false]);
  assert.equal(s[1]!.send_offset_s, null);
  assert.match(s[1]!.drop_reason as string, /max concurrency 1/);
  assert.equal(s[2]!.send_offset_s, 0.27);
  assert.equal(client.state.calls.length, 2);
});

Deno.test("duration stops issuance; requests already sent drain and are kept", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 2);
  const facts = await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: undefined, durationS: 1 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  assert.equal(facts.samples.length, 10);
  assert.equal(facts.stopped_by, "duration");
  assert.ok(facts.samples.every((x) => x.outcome !== null));
});

Deno.test("a cancelled run stops issuing and says so", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 1);
  const controller = new AbortController();
  const facts = await clock.drive(runCollected(
    plan({ concurrency: 1, requests: 5 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
    { signal: controller.signal, onSample: () => controller.abort() },
  ));
  assert.equal(facts.samples.length, 1);
  assert.equal(facts.stopped_by, "cancelled");
});

Deno.test("Poisson schedule is reproducible from its seed with mean gap 1 / rate", () => {
  const a = scheduleOffsets({ ratePerS: 50, process: "poisson", seed: 7 }, 20_000);
  const b = scheduleOffsets({ ratePerS: 50, process: "poisson", seed: 7 }, 20_000);
  const c = scheduleOffsets({ ratePerS: 50, process: "poisson", seed: 8 }, 20_000);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.slice(0, 10), c.slice(0, 10));
  assert.equal(a[0], 0);
  const meanGap = (a[a.length - 1] as number) / (a.length - 1);
  assert.ok(Math.abs(meanGap - 0.02) < 0.02 * 0.03, `mean gap ${meanGap}`);
  for (let i = 1; i < a.length; i++) assert.ok((a[i] as number) >= (a[i - 1] as number));
});

Deno.test("plans without a bound, a mode setting, or within limits are refused", () => {
  assert.throws(() => validateLoadPlan(plan({ requests: undefined })), /unbounded/);
  assert.throws(() => validateLoadPlan(plan({ concurrency: undefined })), /--concurrency/);
  assert.throws(() => validateLoadPlan(plan({ mode: "open" })), /rate/);
  assert.throws(() => validateLoadPlan(plan({ requests: 1_000_001 })), RangeError);
  assert.throws(() => validateLoadPlan(plan({ durationS: 7200 })), RangeError);
  assert.throws(() => validateLoadPlan(plan({ endpoints: [] })), /--url/);
  validateLoadPlan(plan({}));
});

/** A client whose requests hang until their signal aborts (then they end as cancelled). */
function hangingClient(clock: VirtualClock) {
  const state = { calls: 0 };
  const streamChat = (options: LoadStreamOptions) => {
    state.calls++;
    const sentAt = clock.nowS();
    return new Promise<ReturnType<typeof outcome>>((resolve) => {
      const end = () => resolve(outcome({ endS: clock.nowS() - sentAt, end: "cancelled", finishReason: null }));
      if (options.signal?.aborted) return end();
      options.signal?.addEventListener("abort", end, { once: true });
    });
  };
  return { state, streamChat };
}

Deno.test("--duration ends a run of hanging requests at the window plus the drain limit, marking each cancelled", async () => {
  const clock = new VirtualClock();
  const client = hangingClient(clock);
  const facts = await clock.drive(runCollected(
    plan({ concurrency: 3, requests: undefined, durationS: 10, drainLimitS: 2 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  assert.equal(clock.nowValue, 12);
  assert.equal(facts.drain.end_s, 12);
  assert.equal(facts.drain.cancelled, 3);
  assert.equal(facts.samples.length, 3);
  assert.ok(facts.samples.every((s) => s.cancelled_at_drain && s.outcome?.end === "cancelled"));
  assert.equal(client.state.calls, 3);
});

Deno.test("an open loop blocked at its cap by hanging requests stops at the drain limit and drops what is left", async () => {
  const clock = new VirtualClock();
  const client = hangingClient(clock);
  const facts = await clock.drive(runCollected(
    plan({
      mode: "open",
      ratePerS: 2,
      arrival: "constant",
      maxConcurrency: 1,
      requests: undefined,
      durationS: 3,
      drainLimitS: 1,
    }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  assert.equal(clock.nowValue, 4);
  assert.equal(client.state.calls, 1);
  const [first, ...rest] = facts.samples;
  assert.equal(first!.cancelled_at_drain, true);
  assert.ok(rest.length >= 1 && rest.every((s) => s.dropped && /drain limit/.test(s.drop_reason as string)));
});

Deno.test("shards of an open loop take arrivals by index modulo N at their unsharded times; their union is the whole", async () => {
  const run = async (shard?: { index: number; count: number }) => {
    const clock = new VirtualClock();
    const client = fakeClient(clock, 0.05);
    return (await clock.drive(runCollected(
      plan({ mode: "open", ratePerS: 20, requests: 30, ...(shard ? { shard } : {}) }),
      { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
    ))).samples.map((s) => [s.index, s.scheduled_offset_s, s.prompt_index]);
  };
  const whole = await run();
  const parts = [
    await run({ index: 0, count: 3 }),
    await run({ index: 1, count: 3 }),
    await run({ index: 2, count: 3 }),
  ];
  for (const [i, part] of parts.entries()) assert.ok(part.every(([index]) => (index as number) % 3 === i));
  const union = parts.flat().sort((a, b) => (a[0] as number) - (b[0] as number));
  assert.deepEqual(union, whole);
});

Deno.test("shards of a closed loop split the workers and the request indices", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 1);
  const facts = await clock.drive(runCollected(
    plan({ concurrency: 5, requests: 20, shard: { index: 1, count: 2 } }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  assert.equal(client.state.maxInFlight, 2); // floor(5 / 2); shard 0 gets the remainder
  assert.deepEqual(facts.samples.map((s) => s.index), [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
  assert.equal(facts.effective_max_concurrency, 2);
  assert.throws(() => validateLoadPlan(plan({ concurrency: 1, shard: { index: 0, count: 2 } })), /at least one worker/);
  assert.throws(() => validateLoadPlan(plan({ shard: { index: 2, count: 2 } })), /shard index/);
});

Deno.test("an uncapped open loop stamps no effective max concurrency and its internal limit beside it", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.1);
  const facts = await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, requests: 3 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  assert.equal(facts.effective_max_concurrency, null);
  assert.equal(facts.internal_concurrency_limit, 4096);
});

Deno.test("a start time makes the epoch: warm-up before it, the first arrival at it", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.5);
  const facts = await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: 2, warmupRequests: 2, startAtS: 5 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  const measured = facts.samples.filter((s) => s.phase === "measure");
  // 5.1 - 5 in floating point: the offsets count from the start time, not from the end of the warm-up (0.5).
  assert.deepEqual(measured.map((s) => s.send_offset_s), [0, 5.1 - 5]);
  assert.equal(facts.warmup_s, 5);
});

Deno.test("an open loop resolves only once every request it sent has ended", async () => {
  const clock = new VirtualClock();
  // Later requests take longer, so the last arrivals are still in flight when issuance ends.
  const client = fakeClient(clock, (n) => 0.1 + n * 0.2);
  const facts = await clock.drive(runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: 5 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  ));
  assert.equal(facts.samples.length, 5);
  assert.ok(facts.samples.every((s) => s.outcome !== null), "every sample ended before runLoad resolved");
  assert.equal(client.state.inFlight, 0);
  // The last request was sent at 0.4 s and took 0.9 s: the run ends at 1.3 s, not at the last send.
  assert.ok(Math.abs(facts.drain.end_s - 1.3) < 1e-9, String(facts.drain.end_s));
});

Deno.test("an open loop whose sample hand-over throws rejects with that error, the last request's too", async () => {
  for (const throwAt of [2, 8]) {
    const clock = new VirtualClock();
    const client = fakeClient(clock, 0.35);
    let handed = 0;
    const run = runCollected(
      plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: 8 }),
      { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
      {
        onSample: () => {
          if (++handed === throwAt) throw new Error(`the row store is full at ${throwAt}`);
        },
      },
    );
    await assert.rejects(clock.drive(run), new RegExp(`the row store is full at ${throwAt}`));
  }
});

Deno.test("an open loop rejects when its failure happens, not at the next arrival", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.5);
  let rejectedAt: number | null = null;
  const run = runCollected(
    // One arrival every 100 s: the first request ends at 0.5 s and its hand-over throws.
    plan({ mode: "open", ratePerS: 0.01, arrival: "constant", requests: 3 }),
    { ...client, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
    {
      onSample: () => {
        throw new Error("the row store is full");
      },
    },
  ).catch((error) => {
    rejectedAt = clock.nowS();
    throw error;
  });
  await assert.rejects(clock.drive(run), /the row store is full/);
  assert.equal(rejectedAt, 0.5);
  assert.equal(client.state.calls.length, 1);
});

Deno.test("an open loop whose client rejects while an arrival waits at the cap rejects instead of hanging", async () => {
  const clock = new VirtualClock();
  const client = fakeClient(clock, 0.35);
  let calls = 0;
  const streamChat = async (options: LoadStreamOptions) => {
    if (calls++ === 0) {
      await clock.sleepUntilS(clock.nowS() + 0.35);
      throw new Error("a client defect");
    }
    return await client.streamChat(options);
  };
  const run = runCollected(
    plan({ mode: "open", ratePerS: 10, arrival: "constant", requests: 4, maxConcurrency: 1 }),
    { streamChat, nowS: clock.nowS, sleepUntilS: clock.sleepUntilS },
  );
  await assert.rejects(clock.drive(run), /a client defect/);
});
