import assert from "node:assert/strict";
import { clientCeiling, type HeadroomCeiling, type HeadroomDeps, headroomStamp } from "../../../load/headroom.ts";

const ceiling: HeadroomCeiling = {
  shape: { concurrency: 64, outputTokens: 64 },
  requests_per_s: 500,
  events_per_s: 40_000,
  measured_s: 2,
  requests: 1000,
  source: "measured",
  measured_at: "2026-01-01T00:00:00.000Z",
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
