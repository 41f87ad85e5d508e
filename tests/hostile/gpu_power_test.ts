/**
 * Power through a whole run, with a scripted nvidia-smi on PATH (tests/unit/probe/_gpu_tools.ts): results.json
 * carries every sent request's energy and the per-case table (joules, tokens per joule, watts, clocks, throttle
 * reasons), another process on the GPU is a background workload (the engine's own is not), and the README shows the
 * per-case energy table. Without a tool the README says why energy was not measured.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { installGpuTools, withPath } from "../unit/probe/_gpu_tools.ts";
import { runHostile } from "./_run.ts";

Deno.test("a run with the nvidia-smi stand-in records energy per request and per case, and the README shows the table", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-gpu-run-" });
  try {
    const tools = join(dir, "tools");
    await Deno.mkdir(tools);
    const path = await installGpuTools(tools, ["nvidia-smi"], "throttle-later");
    const run = await withPath(path, () => runHostile(dir, {}));
    assert.deepEqual(run.report.validationProblems, []);
    const power = run.result.extensions?.["gpu_power"] as Record<string, unknown>;
    assert.equal(power["source"], "nvidia-smi, one call at most every 250 ms");
    assert.equal(power["reason"], null);
    assert.deepEqual(power["background_workloads"], [
      { pid: 4242, process_name: "/usr/bin/python3 train.py", used_memory_mib: 1024 },
    ]);
    const requests = power["requests"] as Record<string, unknown>[];
    const sent = run.result.requests.filter((r) => r.status !== "skipped");
    assert.equal(requests.length, sent.length);
    for (const r of requests) {
      // The stand-in draws a constant 300 W: every window's mean is 300 W and its energy 300 W x its length.
      assert.equal(r["reason"], null, String(r["request_id"]));
      assert.equal(r["mean_power_w"], 300);
      assert.equal(r["peak_power_w"], 300);
      assert.equal(r["min_sm_clock_mhz"], 1800);
      assert.ok((r["energy_j"] as number) > 0);
    }
    const cases = power["cases"] as Record<string, unknown>[];
    const performance = cases.filter((c) => c["phase"] === "performance");
    assert.equal(performance.length, 3);
    for (const c of cases) {
      const members = requests.filter((r) =>
        run.byId.get(String(r["request_id"]))?.case_id === c["case_id"] &&
        run.byId.get(String(r["request_id"]))?.phase === c["phase"]
      );
      const joules = members.reduce((a, r) => a + (r["energy_j"] as number), 0);
      assert.ok(Math.abs((c["energy_j"] as number) - joules) < 0.01, String(c["case_id"]));
      const tokens = c["output_tokens"] as number;
      const energy = c["energy_j"] as number;
      const perJoule = tokens / energy;
      // Both figures are written to 3 decimals: energy's half-unit moves tokens/energy by perJoule x 0.0005 / energy
      // (a short case's few joules make that more than 0.1%), and tokens_per_j's own rounding adds 0.0005.
      const bound = perJoule * (0.0005 / energy) * 1.001 + 0.0005 + 1e-9;
      assert.ok(Math.abs((c["tokens_per_j"] as number) - perJoule) <= bound, String(c["case_id"]));
    }
    assert.ok(cases.some((c) => (c["throttle_reasons"] as string[]).includes("sw_power_cap")));
    const readme = await readFile(join(run.folder, "README.md"), "utf8");
    assert.match(readme, /## Energy\n/);
    assert.match(readme, /\| Case \| Requests \| Output tokens \| Energy \(J\) \| Tokens\/J \| Mean W \| Peak W \|/);
    assert.match(readme, /\| performance short \| 3 \| \d+ \| \d+\.\d \| \d+\.\d{3} \| 300\.0 \| 300\.0 \| 1800 \|/);
    assert.match(readme, /Background workload on the GPU: \/usr\/bin\/python3 train\.py \(pid 4242, 1024 MiB\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run without a GPU tool says in results.json and the README why energy was not measured", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-gpu-run-" });
  try {
    const tools = join(dir, "tools");
    await Deno.mkdir(tools);
    const path = await installGpuTools(tools, [], "normal");
    const run = await withPath(path, () => runHostile(dir, {}));
    assert.deepEqual(run.report.validationProblems, []);
    const power = run.result.extensions?.["gpu_power"] as Record<string, unknown>;
    assert.match(String(power["reason"]), /^no GPU tool answered \(nvidia-smi: .*; amd-smi: .*\)$/);
    assert.deepEqual(power["cases"], []);
    const readme = await readFile(join(run.folder, "README.md"), "utf8");
    assert.match(readme, /## Energy\n\nNot measured: no GPU tool answered/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
