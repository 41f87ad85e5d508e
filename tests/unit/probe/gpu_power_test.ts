/**
 * probe/gpu_power.ts: the tools' output formats and their failure modes ("[N/A]", "[Not Supported]", garbage, a
 * non-zero exit), the sampler against scripted stand-ins of nvidia-smi and amd-smi on PATH, and the energy of a
 * window integrated by hand.
 */
import assert from "node:assert/strict";
import {
  parseAmdMetric,
  parseComputeApps,
  parseNvidiaPower,
  type PowerTrace,
  startGpuPowerSampler,
  windowPower,
} from "../../../probe/gpu_power.ts";
import { runCommand } from "../../../runtime/mod.ts";
import { installGpuTools, type ToolMode, withPath } from "./_gpu_tools.ts";

Deno.test("parseNvidiaPower: numbers, [N/A], [Not Supported], the throttle bitmask decoded, bad lines skipped", () => {
  const text = "2026/12/01 20:00:00.000, 0, 250.50, 2520, 10501, 0x0000000000000044\n" +
    "2026/12/01 20:00:00.000, 1, [N/A], [Not Supported], 9501, [N/A]\r\n" +
    "garbage\n, , , , ,\n2026/12/01, x, 1, 2, 3, 0x0\n";
  assert.deepEqual(parseNvidiaPower(text), [
    {
      index: 0,
      powerW: 250.5,
      smClockMhz: 2520,
      memClockMhz: 10501,
      throttle: ["sw_power_cap", "hw_thermal_slowdown"],
    },
    { index: 1, powerW: null, smClockMhz: null, memClockMhz: 9501, throttle: null },
  ]);
  assert.deepEqual(parseNvidiaPower(""), []);
  // Past physical limits (a unit error, a hostile tool): no reading, as "[N/A]" is.
  assert.equal(parseNvidiaPower("t, 0, 5000.5, 1, 2, 0x0\nt, 1, 5000, 1, 2, 0x0")[0]!.powerW, null);
  assert.equal(parseNvidiaPower("t, 1, 5000, 1, 2, 0x0")[0]!.powerW, 5000);
  assert.deepEqual(parseNvidiaPower("a, 0, -5, 1e9, NaN, 0xZZ"), [
    { index: 0, powerW: null, smClockMhz: null, memClockMhz: null, throttle: null },
  ]);
});

Deno.test("parseAmdMetric: {value, unit} objects, plain numbers, N/A and the gpu_data wrapper; garbage is empty", () => {
  const gpu = { gpu: 0, power: { socket_power: { value: 150, unit: "W" } }, clock: { gfx_0: { clk: 2100 } } };
  assert.deepEqual(parseAmdMetric(JSON.stringify([gpu])), [
    { index: 0, powerW: 150, smClockMhz: 2100, memClockMhz: null, throttle: null },
  ]);
  assert.deepEqual(parseAmdMetric(JSON.stringify({ gpu_data: [{ gpu: 1, power: { socket_power: "N/A" } }] })), [
    { index: 1, powerW: null, smClockMhz: null, memClockMhz: null, throttle: null },
  ]);
  for (const bad of ["{not json", "42", '{"gpu_data": 3}', '[{"gpu": "x"}]', "null"]) {
    assert.deepEqual(parseAmdMetric(bad), [], bad);
  }
});

Deno.test("parseComputeApps: pid, name and memory; lines that are not three fields are skipped", () => {
  assert.deepEqual(parseComputeApps("4242, /usr/bin/python3, 1024\n999, llama-server, [N/A]\nbad line\n"), [
    { pid: 4242, processName: "/usr/bin/python3", usedMemoryMib: 1024 },
    { pid: 999, processName: "llama-server", usedMemoryMib: null },
  ]);
});

const trace = (points: [number, number | null][]): PowerTrace => ({
  tool: "nvidia-smi",
  reason: null,
  intervalMs: 100,
  samples: points.map(([atMs, powerW]) => ({
    atMs,
    gpus: [{ index: 0, powerW, smClockMhz: 2000, memClockMhz: 10000, throttle: [] }],
  })),
  processes: [],
});

Deno.test("windowPower integrates trapezoids, interpolating at the window's edges (hand-computed)", () => {
  // 100 W at 0 ms, 200 W at 1000 ms, 200 W at 2000 ms; window 500..1500 ms:
  // 150 W at 500 -> 200 W at 1000: 87.5 J x 0.5 s = 87.5 J; 200 W to 1500 ms: 100 J. Total 187.5 J, mean 187.5 W.
  const w = windowPower(trace([[0, 100], [1000, 200], [2000, 200]]), 500, 1500);
  assert.ok(!("reason" in w));
  assert.equal(w.energyJ, 187.5);
  assert.equal(w.meanPowerW, 187.5);
  assert.equal(w.peakPowerW, 200);
  // A window between two samples: the straight line between them.
  const short = windowPower(trace([[0, 100], [1000, 200]]), 250, 750);
  assert.ok(!("reason" in short));
  assert.equal(short.energyJ, 75);
});

Deno.test("windowPower says why: no sample before or after the window, an unreadable power inside it", () => {
  assert.deepEqual(windowPower(trace([[100, 1]]), 0, 50), { reason: "no power sample before the request began" });
  assert.deepEqual(windowPower(trace([[0, 1]]), 10, 50), { reason: "no power sample after it ended" });
  assert.match(
    String((windowPower(trace([[0, 1], [5, null], [9, 1]]), 1, 8) as { reason: string }).reason),
    /unreadable \(the tool printed no number, a negative one or more than 5000 W\)/,
  );
});

async function sampled(tools: ("nvidia-smi" | "amd-smi")[], mode: ToolMode, waitMs = 150): Promise<PowerTrace> {
  const dir = await Deno.makeTempDir({ prefix: "strata-gpu-tools-" });
  try {
    const path = await installGpuTools(dir, tools, mode);
    return await withPath(path, async () => {
      const sampler = startGpuPowerSampler({ runCommand, nowMs: () => performance.now(), intervalMs: 20 });
      await sampler.ready;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      return await sampler.stop();
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("sampler with the nvidia-smi stand-in: samples at a bounded rate, other GPU processes listed", async () => {
  const t = await sampled(["nvidia-smi"], "throttle-later");
  assert.equal(t.tool, "nvidia-smi");
  assert.equal(t.reason, null);
  assert.ok(t.samples.length >= 3, `${t.samples.length} samples`);
  for (let i = 1; i < t.samples.length; i++) assert.ok(t.samples[i]!.atMs > t.samples[i - 1]!.atMs);
  assert.deepEqual(t.samples[0]!.gpus, [{ index: 0, powerW: 300, smClockMhz: 1800, memClockMhz: 10501, throttle: [] }]);
  assert.deepEqual(t.samples.at(-1)!.gpus[0]!.throttle, ["sw_power_cap", "sw_thermal_slowdown"]);
  assert.deepEqual(t.processes.map((p) => p.pid), [4242, 999]);
});

Deno.test("sampler: a failing nvidia-smi falls back to the amd-smi stand-in", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-gpu-tools-" });
  try {
    const path = await installGpuTools(dir, ["amd-smi"], "normal");
    const t = await withPath(path, async () => {
      const sampler = startGpuPowerSampler({ runCommand, nowMs: () => performance.now(), intervalMs: 20 });
      await sampler.ready;
      return await sampler.stop();
    });
    assert.equal(t.tool, "amd-smi");
    assert.deepEqual(t.samples[0]!.gpus, [{
      index: 0,
      powerW: 150,
      smClockMhz: 2100,
      memClockMhz: 1250,
      throttle: null,
    }]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const mode of ["fail", "garbage"] as const) {
  Deno.test(`sampler: both stand-ins in mode ${mode} give no samples and a reason naming each tool`, async () => {
    const t = await sampled(["nvidia-smi", "amd-smi"], mode, 0);
    assert.equal(t.tool, null);
    assert.deepEqual(t.samples, []);
    assert.match(t.reason ?? "", /^no GPU tool answered \(nvidia-smi: .+; amd-smi: .+\)$/);
    if (mode === "fail") assert.match(t.reason ?? "", /exited with code 9 \(NVIDIA-SMI has failed/);
    else assert.match(t.reason ?? "", /printed no GPU reading that could be read/);
  });
}

Deno.test("sampler: no tool on PATH at all is a reason, never a crash", async () => {
  const t = await sampled([], "normal", 0);
  assert.equal(t.tool, null);
  assert.match(t.reason ?? "", /no GPU tool answered/);
});

Deno.test("sampler: [N/A] and [Not Supported] readings are kept as nulls, and a window over them says why", async () => {
  for (const mode of ["na", "not-supported"] as const) {
    const t = await sampled(["nvidia-smi"], mode, 60);
    assert.equal(t.tool, "nvidia-smi", mode);
    assert.equal(t.samples[0]!.gpus[0]!.powerW, null);
    const w = windowPower(t, t.samples[0]!.atMs, t.samples.at(-1)!.atMs);
    assert.ok("reason" in w, mode);
  }
});
