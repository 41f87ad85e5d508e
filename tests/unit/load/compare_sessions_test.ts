/** compare's server turns: the schedule, starting engines in turn, and always stopping what was started. */
import assert from "node:assert/strict";
import {
  compareSchedule,
  type CompareServer,
  type CompareSession,
  type CompareTarget,
  type ProfileStarter,
  runCompareSessions,
} from "../../../load/gate/compare_sessions.ts";

/** A fake engine starter that logs every start, measurement and stop into `events`. */
function fakeEngines(options: { reusedProfiles?: string[]; portOf?: Record<string, number> } = {}) {
  const events: string[] = [];
  const lines: Record<string, unknown>[] = [];
  let nextPort = 9000;
  const startProfile: ProfileStarter = (ref) => {
    const reused = options.reusedProfiles?.includes(ref) ?? false;
    const port = options.portOf?.[ref] ?? nextPort++;
    events.push(`${reused ? "reuse" : "start"} ${ref}`);
    const server: CompareServer = {
      baseUrl: `http://127.0.0.1:${port}`,
      started: !reused,
      engineArgs: reused ? null : ["-m", `/home/alice/models/${ref}.gguf`, "--port", String(port)],
      engineCommit: null,
      stop: () => {
        events.push(`stop ${ref}`);
        return Promise.resolve(reused ? null : { code: 0, signal: null });
      },
    };
    return Promise.resolve(server);
  };
  return { events, lines, startProfile, record: (line: Record<string, unknown>) => lines.push(line) };
}

const PROFILES: Record<"baseline" | "candidate", CompareTarget> = {
  baseline: { profile: "old" },
  candidate: { profile: "new" },
};

Deno.test("two URLs alternate at each point, the first side alternating per round", () => {
  const sessions = compareSchedule({
    baseline: { url: "http://127.0.0.1:1" },
    candidate: { url: "http://127.0.0.1:2" },
  }, [
    1,
    8,
  ], 2);
  assert.deepEqual(
    sessions.map((s) => `${s.side[0]}${s.round}:${s.points.join(",")}`),
    ["b0:1", "c0:1", "c1:1", "b1:1", "b0:8", "c0:8", "c1:8", "b1:8"],
  );
});

Deno.test("with a profile, each round gives the baseline then the candidate one turn over every point", () => {
  const sessions = compareSchedule({ baseline: { url: "http://127.0.0.1:1" }, candidate: { profile: "new" } }, [
    1,
    8,
    32,
  ], 2);
  assert.deepEqual(
    sessions.map((s) => `${s.side[0]}${s.round}:${s.points.join(",")}`),
    ["b0:1,8,32", "c0:1,8,32", "b1:1,8,32", "c1:1,8,32"],
  );
});

Deno.test("two profiles start and stop in turn, B C B C, each measuring every point while it runs", async () => {
  const fake = fakeEngines();
  await runCompareSessions(PROFILES, compareSchedule(PROFILES, [1, 8], 2), {
    startProfile: fake.startProfile,
    measure: (side, url, concurrency, round) => {
      fake.events.push(`measure ${side} c=${concurrency} r=${round} ${url}`);
      return Promise.resolve();
    },
    record: fake.record,
    progress: () => {},
  });
  assert.deepEqual(fake.events, [
    "start old",
    "measure baseline c=1 r=0 http://127.0.0.1:9000",
    "measure baseline c=8 r=0 http://127.0.0.1:9000",
    "stop old",
    "start new",
    "measure candidate c=1 r=0 http://127.0.0.1:9001",
    "measure candidate c=8 r=0 http://127.0.0.1:9001",
    "stop new",
    "start old",
    "measure baseline c=1 r=1 http://127.0.0.1:9002",
    "measure baseline c=8 r=1 http://127.0.0.1:9002",
    "stop old",
    "start new",
    "measure candidate c=1 r=1 http://127.0.0.1:9003",
    "measure candidate c=8 r=1 http://127.0.0.1:9003",
    "stop new",
  ]);
});

Deno.test("each turn records its profile and its engine arguments with machine paths redacted", async () => {
  const fake = fakeEngines();
  await runCompareSessions(PROFILES, compareSchedule(PROFILES, [1], 1), {
    startProfile: fake.startProfile,
    measure: () => Promise.resolve(),
    record: fake.record,
    progress: () => {},
  });
  const started = fake.lines.filter((l) => l.kind === "server");
  assert.deepEqual(started.map((l) => [l.side, l.profile, l.started]), [["baseline", "old", true], [
    "candidate",
    "new",
    true,
  ]]);
  const args = started[0]!.engine_args as string;
  assert.ok(args.includes("--port 9000"), args);
  assert.ok(!args.includes("/home/alice"), args);
  assert.ok(args.includes("old.gguf"), args);
  assert.deepEqual(fake.lines.filter((l) => l.kind === "server-stopped").map((l) => [l.side, l.exit]), [
    ["baseline", { code: 0, signal: null }],
    ["candidate", { code: 0, signal: null }],
  ]);
});

Deno.test("an engine is stopped when a measurement throws, and the error reaches the caller", async () => {
  const fake = fakeEngines();
  await assert.rejects(
    runCompareSessions(PROFILES, compareSchedule(PROFILES, [1, 8], 2), {
      startProfile: fake.startProfile,
      measure: (side, _url, concurrency) => {
        if (side === "candidate" && concurrency === 8) return Promise.reject(new Error("disk full"));
        return Promise.resolve();
      },
      record: fake.record,
      progress: () => {},
    }),
    /disk full/,
  );
  assert.deepEqual(fake.events, ["start old", "stop old", "start new", "stop new"]);
});

Deno.test("a profile whose server was already running is used but never stopped", async () => {
  const fake = fakeEngines({ reusedProfiles: ["old"] });
  const measured: string[] = [];
  await runCompareSessions(PROFILES, compareSchedule(PROFILES, [1], 2), {
    startProfile: fake.startProfile,
    measure: (side, url) => {
      measured.push(`${side} ${url}`);
      return Promise.resolve();
    },
    record: fake.record,
    progress: () => {},
  });
  assert.deepEqual(fake.events, ["reuse old", "start new", "stop new", "reuse old", "start new", "stop new"]);
  assert.equal(measured.length, 4);
  const reused = fake.lines.find((l) => l.kind === "server" && l.side === "baseline")!;
  assert.equal(reused.started, false);
  assert.equal(reused.engine_args, null);
});

Deno.test("a URL side is measured as is while the profile side starts and stops in each round", async () => {
  const fake = fakeEngines();
  const targets = { baseline: { url: "http://127.0.0.1:7001" }, candidate: { profile: "new" } };
  await runCompareSessions(targets, compareSchedule(targets, [4], 2), {
    startProfile: fake.startProfile,
    measure: (side, url, concurrency, round) => {
      fake.events.push(`measure ${side} c=${concurrency} r=${round} ${url}`);
      return Promise.resolve();
    },
    record: fake.record,
    progress: () => {},
  });
  assert.deepEqual(fake.events, [
    "measure baseline c=4 r=0 http://127.0.0.1:7001",
    "start new",
    "measure candidate c=4 r=0 http://127.0.0.1:9000",
    "stop new",
    "measure baseline c=4 r=1 http://127.0.0.1:7001",
    "start new",
    "measure candidate c=4 r=1 http://127.0.0.1:9001",
    "stop new",
  ]);
  assert.deepEqual(fake.lines.filter((l) => l.side === "baseline" && l.kind === "server").map((l) => l.url), [
    "http://127.0.0.1:7001",
    "http://127.0.0.1:7001",
  ]);
});

Deno.test("a profile that finds the other side's server running is refused instead of measuring it twice", async () => {
  const fake = fakeEngines({ reusedProfiles: ["new"], portOf: { new: 7001 } });
  const targets = { baseline: { url: "http://127.0.0.1:7001" }, candidate: { profile: "new" } };
  let measurements = 0;
  await assert.rejects(
    runCompareSessions(targets, compareSchedule(targets, [1], 1), {
      startProfile: fake.startProfile,
      measure: () => Promise.resolve(void measurements++),
      record: fake.record,
      progress: () => {},
    }),
    /candidate profile "new" found a server already running at http:\/\/127\.0\.0\.1:7001, where the baseline/,
  );
  assert.equal(measurements, 1);
  assert.deepEqual(fake.events, ["reuse new"]);
});

Deno.test("a cancelled comparison stops the running engine and starts no other", async () => {
  const fake = fakeEngines();
  const controller = new AbortController();
  await runCompareSessions(PROFILES, compareSchedule(PROFILES, [1, 8], 2), {
    startProfile: fake.startProfile,
    measure: (side, _url, concurrency) => {
      fake.events.push(`measure ${side} c=${concurrency}`);
      if (side === "baseline" && concurrency === 1) controller.abort();
      return Promise.resolve();
    },
    record: fake.record,
    progress: () => {},
    signal: controller.signal,
  });
  assert.deepEqual(fake.events, ["start old", "measure baseline c=1", "stop old"]);
});

Deno.test("a profile side without an engine starter is refused before any measurement", async () => {
  const sessions: CompareSession[] = compareSchedule(PROFILES, [1], 1);
  await assert.rejects(
    runCompareSessions(PROFILES, sessions, {
      measure: () => Promise.reject(new Error("must not measure")),
      record: () => {},
      progress: () => {},
    }),
    /Cannot start profile "old": no engine starter/,
  );
});
