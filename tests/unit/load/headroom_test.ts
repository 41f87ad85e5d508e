import assert from "node:assert/strict";
import { clientCeiling, type HeadroomCeiling, type HeadroomDeps, headroomStamp } from "../../../load/headroom.ts";

const ceiling: HeadroomCeiling = {
  shape: { concurrency: 64, outputTokens: 64 },
  requests_per_s: 500,
  events_per_s: 40_000,
  measured_s: 2,
  requests: 1000,
  source: "measured",
  measured_at: new Date().toISOString(),
  load_per_cpu: 0.1,
  age_s: 0,
  key: "k",
};

Deno.test("a run near the client's own ceiling warns that the client may be the limit", () => {
  const far = headroomStamp(ceiling, { eventsPerS: 4_000, requestsPerS: 50 });
  assert.equal(far.fraction_of_ceiling, 0.1);
  assert.equal(far.warning, null);
  const near = headroomStamp(ceiling, { eventsPerS: 30_000, requestsPerS: 400 });
  assert.equal(near.fraction_of_ceiling, 0.75);
  assert.match(near.warning as string, /client may be the limit: this run ingested 75%/);
  const none = headroomStamp(null, { eventsPerS: 10, requestsPerS: 1 }, "not measured (--no-headroom-check)");
  assert.equal(none.fraction_of_ceiling, null);
  assert.match(none.missing as string, /--no-headroom-check/);
});

Deno.test("a cached ceiling for the same machine, commit and shape is used without measuring", async () => {
  let started = 0;
  let written = "";
  const key = "machine-1|c=64|tokens=64";
  const deps = {
    streamChat: () => Promise.reject(new Error("must not send")),
    nowS: () => 0,
    startMockEngine: () => {
      started++;
      return Promise.reject(new Error("must not start"));
    },
    cacheIdentity: () => Promise.resolve("machine-1"),
    readCache: () => Promise.resolve(JSON.stringify({ [key]: { ...ceiling, key } })),
    writeCache: (t: string) => {
      written = t;
      return Promise.resolve();
    },
  } as unknown as HeadroomDeps;
  const hit = await clientCeiling({ concurrency: 64, outputTokens: 64 }, { durationS: 1, useCache: true }, deps);
  assert.equal(hit.source, "cache");
  assert.equal(hit.events_per_s, 40_000);
  assert.equal(started, 0);
  assert.equal(written, "");
  await assert.rejects(
    clientCeiling({ concurrency: 8, outputTokens: 64 }, { durationS: 1, useCache: true }, deps),
    /must not start/,
  );
  assert.equal(started, 1);
});

Deno.test("a cached ceiling that is stale or was measured on a busy machine is measured again; a busy measurement is not cached", async () => {
  const key = "machine-1|c=64|tokens=64";
  const nowMs = Date.parse("2026-06-02T00:00:00.000Z");
  let written: string | null = null;
  const depsWith = (entry: Partial<HeadroomCeiling>, loadPerCpu: number) =>
    ({
      streamChat: () => Promise.reject(new Error("must not send")),
      nowS: () => 0,
      wallMs: () => nowMs,
      loadPerCpu: () => loadPerCpu,
      startMockEngine: () => Promise.reject(new Error("measured again")),
      cacheIdentity: () => Promise.resolve("machine-1"),
      readCache: () => Promise.resolve(JSON.stringify({ [key]: { ...ceiling, key, ...entry } })),
      writeCache: (t: string) => {
        written = t;
        return Promise.resolve();
      },
    }) as unknown as HeadroomDeps;
  const shape = { concurrency: 64, outputTokens: 64 };
  const options = { durationS: 1, useCache: true };
  const fresh = await clientCeiling(shape, options, depsWith({ measured_at: "2026-06-01T12:00:00.000Z" }, 0.1));
  assert.equal(fresh.source, "cache");
  assert.equal(fresh.age_s, 12 * 3600);
  assert.equal(fresh.load_per_cpu, 0.1);
  await assert.rejects(
    clientCeiling(shape, options, depsWith({ measured_at: "2026-05-31T23:00:00.000Z" }, 0.1)),
    /measured again/,
    "older than a day",
  );
  await assert.rejects(
    clientCeiling(shape, options, depsWith({ measured_at: "2026-06-01T12:00:00.000Z", load_per_cpu: 2.5 }, 0.1)),
    /measured again/,
    "measured when the machine was busy",
  );
  await assert.rejects(
    clientCeiling(shape, options, depsWith({ measured_at: "2026-06-01T12:00:00.000Z", load_per_cpu: null }, 0.1)),
    /measured again/,
    "measured under an unknown load",
  );
  assert.equal(written, null);
});

Deno.test("the warning names where the ceiling came from: cached, when, and under what load", () => {
  const cached: HeadroomCeiling = { ...ceiling, source: "cache", load_per_cpu: 0.25, age_s: 3600 };
  const near = headroomStamp(cached, { eventsPerS: 30_000, requestsPerS: 400 });
  assert.match(near.warning as string, /cached, measured .* under load 0\.25 per CPU, 3600 s ago/);
});
