/**
 * Power, clocks and throttling of the GPUs while a run's requests are in flight, from the vendor tool: nvidia-smi
 * (`--query-gpu=... --format=csv,noheader,nounits`, one call per sample) or amd-smi (`metric --power --clock
 * --json`), at a bounded rate (one call at a time, at most one every `intervalMs`), and the other processes on the
 * GPU (`nvidia-smi --query-compute-apps`) as background workloads. The tool's output is untrusted: "[N/A]",
 * "[Not Supported]" and garbage are nulls, a failing tool stops the sampling with a reason, never the run.
 * `windowPower` integrates the samples over one request's window (energy in joules, mean and peak watts, clocks,
 * throttle reasons seen).
 */
import type { ProbeDeps } from "./_deps.ts";

/** One GPU at one sample; null where the tool said "[N/A]", "[Not Supported]" or nothing readable. */
export interface GpuReading {
  index: number;
  powerW: number | null;
  smClockMhz: number | null;
  memClockMhz: number | null;
  /** Active clock-throttle reasons by name (nvidia-smi's bitmask decoded); null where the tool gives none. */
  throttle: string[] | null;
}

/** One sample: the monotonic time (ms) halfway through the tool's call, and every GPU's reading. */
export interface PowerSample {
  atMs: number;
  gpus: GpuReading[];
}

/** A process on a GPU during the run, as the tool listed it. */
export interface GpuProcess {
  pid: number;
  processName: string;
  usedMemoryMib: number | null;
}

/** What the sampler recorded. */
export interface PowerTrace {
  tool: "nvidia-smi" | "amd-smi" | null;
  /** Why there are no samples, or why sampling stopped early; null when it ran to the end. */
  reason: string | null;
  intervalMs: number;
  samples: PowerSample[];
  /** Every process seen on a GPU (pid and name), first listing kept. */
  processes: GpuProcess[];
}

type RunTool = ProbeDeps["runCommand"];

export const NVIDIA_POWER_QUERY = [
  "--query-gpu=timestamp,index,power.draw,clocks.sm,clocks.mem,clocks_throttle_reasons.active",
  "--format=csv,noheader,nounits",
] as const;
export const NVIDIA_APPS_QUERY = ["--query-compute-apps=pid,process_name,used_memory", "--format=csv,noheader,nounits"];
export const AMD_METRIC_ARGS = ["metric", "--power", "--clock", "--json"] as const;

/** nvidia-smi's clocks_throttle_reasons bits (nvml.h nvmlClocksThrottleReason*). */
const THROTTLE_BITS: readonly [number, string][] = [
  [0x1, "gpu_idle"],
  [0x2, "applications_clocks_setting"],
  [0x4, "sw_power_cap"],
  [0x8, "hw_slowdown"],
  [0x10, "sync_boost"],
  [0x20, "sw_thermal_slowdown"],
  [0x40, "hw_thermal_slowdown"],
  [0x80, "hw_power_brake_slowdown"],
  [0x100, "display_clock_setting"],
];

/** A number the tool printed, or null for "[N/A]", "[Not Supported]", "N/A" and anything else not a number. */
function reading(text: string | undefined): number | null {
  const t = (text ?? "").trim();
  if (!/^-?\d+(?:\.\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** One GPU draws at most about 1.5 kW; a reading past this bound (docs/results.md, "Plausibility") is no reading. */
const MAX_GPU_WATTS = 5000;

/** A power reading within physical limits, or null. */
function watts(n: number | null): number | null {
  return n !== null && n <= MAX_GPU_WATTS ? n : null;
}

function throttleNames(text: string | undefined): string[] | null {
  const t = (text ?? "").trim();
  if (!/^0x[0-9a-fA-F]{1,16}$/.test(t)) return null;
  const mask = BigInt(t);
  return THROTTLE_BITS.filter(([bit]) => (mask & BigInt(bit)) !== 0n).map(([, name]) => name);
}

/** The trimmed fields of each CSV line (nvidia-smi --format=csv,noheader) that has exactly `count` of them. */
function csvRows(text: string, count: number): string[][] {
  return text.split(/\r?\n/).map((line) => line.split(",").map((f) => f.trim())).filter((f) => f.length === count);
}

/** nvidia-smi's CSV (timestamp, index, power.draw, clocks.sm, clocks.mem, throttle bitmask); bad lines skipped. */
export function parseNvidiaPower(text: string): GpuReading[] {
  const out: GpuReading[] = [];
  for (const fields of csvRows(text, 6)) {
    const index = reading(fields[1]);
    if (index === null || !Number.isSafeInteger(index)) continue;
    out.push({
      index,
      powerW: watts(reading(fields[2])),
      smClockMhz: reading(fields[3]),
      memClockMhz: reading(fields[4]),
      throttle: throttleNames(fields[5]),
    });
  }
  return out;
}

/** A value of amd-smi's JSON: a number, a numeric string, or {value, unit}; "N/A" is null. */
function amdValue(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value === "string") return reading(value);
  if (value !== null && typeof value === "object") return amdValue((value as Record<string, unknown>)["value"]);
  return null;
}

function field(value: unknown, ...path: string[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== "object" || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** amd-smi metric --power --clock --json: a list of GPUs (or {gpu_data: [...]}, as newer releases print). */
export function parseAmdMetric(text: string): GpuReading[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  const list = Array.isArray(value) ? value : field(value, "gpu_data");
  if (!Array.isArray(list)) return [];
  const out: GpuReading[] = [];
  for (const gpu of list) {
    const index = amdValue(field(gpu, "gpu"));
    if (index === null || !Number.isSafeInteger(index)) continue;
    const power = field(gpu, "power");
    out.push({
      index,
      powerW: watts(
        amdValue(field(power, "socket_power")) ?? amdValue(field(power, "current_socket_power")) ??
          amdValue(field(power, "average_socket_power")),
      ),
      smClockMhz: amdValue(field(gpu, "clock", "gfx_0", "clk")),
      memClockMhz: amdValue(field(gpu, "clock", "mem_0", "clk")),
      throttle: null,
    });
  }
  return out;
}

/** nvidia-smi --query-compute-apps CSV (pid, process_name, used_memory); bad lines skipped. */
export function parseComputeApps(text: string): GpuProcess[] {
  const out: GpuProcess[] = [];
  for (const fields of csvRows(text, 3)) {
    const pid = reading(fields[0]);
    if (pid === null || !Number.isSafeInteger(pid) || fields[1] === "") continue;
    out.push({ pid, processName: fields[1]!.slice(0, 200), usedMemoryMib: reading(fields[2]) });
  }
  return out;
}

/** Options of the sampler. */
export interface GpuPowerOptions {
  runCommand: RunTool;
  nowMs(): number;
  /** At most one tool call every this many milliseconds (default 250; at least 20). */
  intervalMs?: number;
}

/** A running sampler. */
export interface GpuPowerSampler {
  /** Resolves once the first call answered (or no tool did): a window that starts after it has a sample before it. */
  ready: Promise<void>;
  /** Ends the sampling with one last sample (so the last window has one after it) and returns the trace. */
  stop(): Promise<PowerTrace>;
}

const TOOL_TIMEOUT_MS = 5_000;
/** The most samples kept (14 hours at 250 ms); sampling stops there, with a reason. */
const MAX_SAMPLES = 200_000;
/** A tool that fails this many calls in a row is given up (its last problem is the reason). */
const MAX_FAILURES = 3;

type Sampled = { ok: true; value: GpuReading[] } | { ok: false; reason: string };

async function sampleOnce(run: RunTool, tool: "nvidia-smi" | "amd-smi"): Promise<Sampled> {
  const args = tool === "nvidia-smi" ? NVIDIA_POWER_QUERY : AMD_METRIC_ARGS;
  const result = await run(tool, args, { timeoutMs: TOOL_TIMEOUT_MS });
  if (!result.ok) return { ok: false, reason: result.reason };
  if (result.value.code !== 0) {
    const said = result.value.stderr.trim().split("\n")[0]?.slice(0, 200) ?? "";
    return { ok: false, reason: `${tool} exited with code ${result.value.code}${said ? ` (${said})` : ""}` };
  }
  const gpus = tool === "nvidia-smi" ? parseNvidiaPower(result.value.stdout) : parseAmdMetric(result.value.stdout);
  if (gpus.length === 0) return { ok: false, reason: `${tool} printed no GPU reading that could be read` };
  return { ok: true, value: gpus };
}

/**
 * Starts sampling: the first tool that answers (nvidia-smi, then amd-smi) is sampled until `stop()`. Never throws;
 * a machine without either tool gives a trace with no samples and the reason.
 */
export function startGpuPowerSampler(options: GpuPowerOptions): GpuPowerSampler {
  const intervalMs = Math.max(20, options.intervalMs ?? 250);
  const trace: PowerTrace = { tool: null, reason: null, intervalMs, samples: [], processes: [] };
  let stopped = false;
  let wake: (() => void) | null = null;
  const seen = new Set<string>();
  let failures = 0;
  /** One timed call; false once the tool is given up. */
  const take = async (tool: "nvidia-smi" | "amd-smi"): Promise<boolean> => {
    const startMs = options.nowMs();
    const sample = await sampleOnce(options.runCommand, tool);
    const endMs = options.nowMs();
    if (sample.ok) {
      failures = 0;
      trace.samples.push({ atMs: (startMs + endMs) / 2, gpus: sample.value });
    } else if (++failures >= MAX_FAILURES) {
      trace.reason = `sampling stopped after ${MAX_FAILURES} failed calls in a row: ${sample.reason}`;
      return false;
    }
    if (trace.samples.length >= MAX_SAMPLES) {
      trace.reason = `sampling stopped at ${MAX_SAMPLES} samples`;
      return false;
    }
    return true;
  };
  const listApps = async () => {
    const apps = await options.runCommand("nvidia-smi", NVIDIA_APPS_QUERY, { timeoutMs: TOOL_TIMEOUT_MS });
    if (!apps.ok || apps.value.code !== 0) return;
    for (const p of parseComputeApps(apps.value.stdout)) {
      const key = `${p.pid}/${p.processName}`;
      if (!seen.has(key) && seen.size < 256) {
        seen.add(key);
        trace.processes.push(p);
      }
    }
  };
  const ready = firstAnsweringTool(options, trace);
  const loop = (async () => {
    await ready;
    const tool = trace.tool;
    if (tool === null) return;
    for (let calls = 0; !stopped; calls++) {
      const startMs = options.nowMs();
      // The compute-apps listing is not needed at the power rate: every eighth call.
      if (tool === "nvidia-smi" && calls % 8 === 0) await listApps();
      const waitMs = startMs + intervalMs - options.nowMs();
      if (waitMs > 0 && !stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
      if (!(await take(tool))) return;
    }
  })();
  return {
    ready,
    stop: async () => {
      const stopAtMs = options.nowMs();
      stopped = true;
      wake?.();
      await loop;
      const last = trace.samples.at(-1)?.atMs ?? -Infinity;
      if (trace.tool !== null && trace.reason === null && last < stopAtMs) await take(trace.tool);
      return trace;
    },
  };
}

/** Samples with nvidia-smi, else amd-smi: the first that answers becomes the trace's tool, else the trace says why. */
async function firstAnsweringTool(options: GpuPowerOptions, trace: PowerTrace): Promise<void> {
  const problems: string[] = [];
  for (const tool of ["nvidia-smi", "amd-smi"] as const) {
    const startMs = options.nowMs();
    const first = await sampleOnce(options.runCommand, tool);
    if (first.ok) {
      trace.tool = tool;
      trace.samples.push({ atMs: (startMs + options.nowMs()) / 2, gpus: first.value });
      return;
    }
    problems.push(`${tool}: ${first.reason}`);
  }
  trace.reason = `no GPU tool answered (${problems.join("; ")})`;
}

/** Power over one window (a request from dispatch to its end). */
export interface WindowPower {
  energyJ: number;
  meanPowerW: number;
  peakPowerW: number;
  meanSmClockMhz: number | null;
  minSmClockMhz: number | null;
  meanMemClockMhz: number | null;
  /** Throttle reasons any sample in or around the window showed (gpu_idle left out). */
  throttleReasons: string[];
  samples: number;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => (xs.length === 0 ? null : sum(xs) / xs.length);

/** All GPUs' power at a sample, or null when any GPU's power is unreadable. */
function totalPower(sample: PowerSample): number | null {
  const watts = sample.gpus.map((g) => g.powerW);
  return watts.some((w) => w === null) ? null : sum(watts as number[]);
}

/**
 * Integrates the summed GPU power over [startMs, endMs] (trapezoids between samples, linear at the edges, from the
 * samples that bracket the window), or says why it cannot: no sample on one side of the window, or one with an
 * unreadable power.
 */
export function windowPower(trace: PowerTrace, startMs: number, endMs: number): WindowPower | { reason: string } {
  const points = trace.samples.map((s) => ({ s, w: totalPower(s) }));
  const before = points.findLast((p) => p.s.atMs <= startMs);
  const after = points.find((p) => p.s.atMs >= endMs);
  if (before === undefined || after === undefined) {
    return { reason: `no power sample ${before === undefined ? "before the request began" : "after it ended"}` };
  }
  const used = points.filter((p) => p.s.atMs >= before.s.atMs && p.s.atMs <= after.s.atMs);
  if (used.some((p) => p.w === null)) {
    return {
      reason: "a power sample during the request was unreadable (the tool printed no number, a negative one or " +
        `more than ${MAX_GPU_WATTS} W)`,
    };
  }
  const at = (t: number) => {
    const i = used.findIndex((p) => p.s.atMs >= t);
    const right = used[Math.max(0, i)]!;
    const left = used[Math.max(0, i - 1)]!;
    const span = right.s.atMs - left.s.atMs;
    return span <= 0 ? right.w! : left.w! + ((right.w! - left.w!) * (t - left.s.atMs)) / span;
  };
  const curve = [
    { t: startMs, w: at(startMs) },
    ...used.filter((p) => p.s.atMs > startMs && p.s.atMs < endMs).map((p) => ({ t: p.s.atMs, w: p.w! })),
    { t: endMs, w: at(endMs) },
  ];
  let joules = 0;
  for (let i = 1; i < curve.length; i++) {
    joules += ((curve[i]!.w + curve[i - 1]!.w) / 2) * ((curve[i]!.t - curve[i - 1]!.t) / 1000);
  }
  const durationS = (endMs - startMs) / 1000;
  const gpus = used.flatMap((p) => p.s.gpus);
  const sm = gpus.map((g) => g.smClockMhz).filter((c): c is number => c !== null);
  const mem = gpus.map((g) => g.memClockMhz).filter((c): c is number => c !== null);
  const throttle = new Set(gpus.flatMap((g) => g.throttle ?? []).filter((r) => r !== "gpu_idle"));
  return {
    energyJ: joules,
    meanPowerW: durationS > 0 ? joules / durationS : curve[0]!.w,
    peakPowerW: Math.max(...curve.map((c) => c.w)),
    meanSmClockMhz: mean(sm),
    minSmClockMhz: sm.length === 0 ? null : Math.min(...sm),
    meanMemClockMhz: mean(mem),
    throttleReasons: [...throttle].sort(),
    samples: used.length,
  };
}
