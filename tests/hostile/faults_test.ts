/**
 * The hostile-engine suite: every fault kind of _faults.ts is sent to a real protocol run (in-process conductor,
 * real client, raw-socket engine). Each fault must give its exact request status and error kind; the run must go on
 * after a fault the protocol survives (the next request is sent) and stop after one it does not (the rest skipped);
 * nothing measured before the fault may be lost (every earlier record and evidence line kept); and the result the
 * run wrote must pass its own strict validation.
 */
import assert from "node:assert/strict";
import { scheduleIds } from "../../contract/mod.ts";
import { type FaultName, FAULTS } from "./_faults.ts";
import { runHostile } from "./_run.ts";

const ALL = Object.keys(FAULTS) as FaultName[];
const SURVIVABLE = ALL.filter((name) => FAULTS[name].expect.stops !== true);
const STOPPING = ALL.filter((name) => FAULTS[name].expect.stops === true);
/** Every request but the warm-up can carry a fault (a failed warm-up skips everything: tested on its own). */
const FAULTABLE = scheduleIds(false).filter((id) => id !== "warmup");

function assertExpected(name: FaultName, record: { status: string; error: { kind: string } | null } | undefined) {
  const expect = FAULTS[name].expect;
  assert.ok(record !== undefined, `no record for "${name}"`);
  assert.equal(record.status, expect.status, `"${name}": status`);
  assert.equal(record.error?.kind ?? null, expect.kind, `"${name}": error kind (${JSON.stringify(record.error)})`);
}

Deno.test(`the suite has at least 45 fault kinds (${ALL.length})`, () => {
  assert.ok(ALL.length >= 45);
});

const groups: FaultName[][] = [];
for (let i = 0; i < SURVIVABLE.length; i += FAULTABLE.length) groups.push(SURVIVABLE.slice(i, i + FAULTABLE.length));

groups.forEach((group, g) => {
  Deno.test(`survivable faults, run ${g + 1}/${groups.length}: ${group.length} kinds, each its status and kind`, async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "strata-hostile-" });
    try {
      const faults = Object.fromEntries(group.map((name, i) => [FAULTABLE[i]!, name]));
      const run = await runHostile(dir, { faults });
      for (const [id, name] of Object.entries(faults)) {
        await t.step(name, () => {
          const record = run.byId.get(id);
          assertExpected(name, record);
          const fact = FAULTS[name].expect.record;
          if (fact === "output_tokens null") assert.equal(record?.tokens.output_tokens, null);
          if (fact === "decode_tps null") assert.equal(record?.metrics.decode_tps, null);
          if (fact === "nonconforming") assert.equal(run.result.run.status, "nonconforming");
        });
      }
      // The run went on after every fault: nothing skipped, and every request has its whole evidence line.
      assert.deepEqual(run.result.requests.filter((r) => r.status === "skipped").map((r) => r.id), []);
      assert.deepEqual(run.lines.map((line) => line["request_id"]), scheduleIds(false));
      assert.equal(run.engine.chats.length, 22);
      assert.deepEqual(run.report.validationProblems, []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

for (const name of STOPPING) {
  Deno.test(`a fault the run cannot survive stops it and keeps what came before: ${name}`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "strata-hostile-" });
    try {
      const at = "performance-prompt-4k-r2";
      const run = await runHostile(dir, { faults: { [at]: name } });
      const ids = scheduleIds(false);
      const index = ids.indexOf(at);
      assertExpected(name, run.byId.get(at));
      for (const id of ids.slice(0, index)) assert.notEqual(run.byId.get(id)?.status, "skipped", `${id} was lost`);
      for (const id of ids.slice(index + 1)) {
        const record = run.byId.get(id);
        assert.equal(record?.status, "skipped", id);
        assert.match(record?.error?.message ?? "", /did not answer \/health after performance-prompt-4k-r2 failed/);
      }
      assert.equal(run.result.run.status, "partial");
      assert.deepEqual(run.lines.map((line) => line["request_id"]), ids);
      assert.deepEqual(run.report.validationProblems, []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a failed warm-up skips everything after it, and the result says why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-hostile-" });
  try {
    const run = await runHostile(dir, { faults: { warmup: "http 500 with a llama.cpp error body" } });
    assertExpected("http 500 with a llama.cpp error body", run.byId.get("warmup"));
    for (const record of run.result.requests.slice(1)) {
      assert.equal(record.status, "skipped", record.id);
      assert.match(record.error?.message ?? "", /the warm-up request failed/);
    }
    assert.equal(run.engine.chats.length, 1);
    assert.deepEqual(run.report.validationProblems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
