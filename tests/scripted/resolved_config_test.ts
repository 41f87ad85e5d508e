/**
 * The resolved configuration is verified per request against the scripted engine's /slots, which reports each
 * slot's last task and its params as llama-server does.
 */
import assert from "node:assert/strict";
import { cleanup, runScripted, type ScriptedRun } from "./_harness.ts";

interface Checks {
  verified: number;
  differing: number;
  not_verified: number;
  requests: Record<string, { verified: boolean | null; reason: string | null; differing: string[] }>;
}

function checks(run: ScriptedRun): Checks {
  return run.result.extensions?.resolved_configuration as Checks;
}

Deno.test("every request of a run is verified against /slots, and the server defaults it overrode are recorded", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted();
    assert.deepEqual(run.problems, []);
    const c = checks(run);
    assert.equal(c.verified, 22, JSON.stringify(c.requests));
    assert.equal(run.result.run.status, "complete");
    const reading = run.outputs.find((o) => o.request_id === "performance-short-r2")!.slot_reading as {
      params: Record<string, number>;
    };
    assert.equal(reading.params.top_p, 0.949999988079071, "float32 as llama-server prints it");
    assert.equal(reading.params.seed, 2);
    const defaults = run.result.extensions?.server_defaults as { overridden: Record<string, { server: unknown }> };
    assert.equal(defaults.overridden.temperature?.server, 0.800000011920929);
    assert.equal(defaults.overridden.top_k?.server, 40);
  } finally {
    await cleanup(run);
  }
});

Deno.test("an engine that runs a request with its own temperature makes the run nonconforming with that reason", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { script: { "sanity-I2": { resolvedParams: { temperature: 0.3, seed: 99 } } } } });
    assert.deepEqual(run.problems, []);
    const check = checks(run).requests["sanity-I2"]!;
    assert.equal(check.verified, false);
    assert.deepEqual(check.differing, ["temperature", "seed"]);
    assert.equal(run.result.run.status, "nonconforming");
    const reasons = run.result.extensions?.nonconforming_reasons as string[];
    assert.ok(
      reasons.some((r) => /^sanity-I2: the engine ran the request with temperature 0\.3/.test(r)),
      reasons.join("\n"),
    );
    assert.equal(checks(run).verified, 21);
  } finally {
    await cleanup(run);
  }
});

Deno.test("--no-slots: every check is null with the reason, and the run is not failed for it", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { slotsEndpoint: false } });
    assert.deepEqual(run.problems, []);
    const c = checks(run);
    assert.equal(c.not_verified, 22);
    for (const check of Object.values(c.requests)) {
      assert.equal(check.verified, null);
      assert.match(check.reason ?? "", /GET \/slots answered HTTP 501 \(llama-server started with --no-slots\)/);
    }
    assert.equal(run.result.run.status, "complete");
  } finally {
    await cleanup(run);
  }
});

Deno.test("optional rounds on one slot: the last request of each round is verified, the others say why not", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { slots: 1 }, run: { optionalConcurrency: true } });
    assert.deepEqual(run.problems, []);
    const c = checks(run);
    assert.equal(c.verified, 22 + 3, JSON.stringify(c.requests, null, 1));
    assert.equal(c.not_verified, 9);
    for (const [id, check] of Object.entries(c.requests)) {
      if (check.verified !== null) continue;
      assert.match(id, /^concurrency-r\d-c\d$/);
      assert.match(check.reason ?? "", /ran a later request of the same round/);
    }
  } finally {
    await cleanup(run);
  }
});

Deno.test("optional rounds on four slots: all 34 requests are verified, matched by seed", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({ mock: { slots: 4 }, run: { optionalConcurrency: true } });
    assert.deepEqual(run.problems, []);
    assert.equal(checks(run).verified, 34, JSON.stringify(checks(run).requests, null, 1));
  } finally {
    await cleanup(run);
  }
});
