/**
 * The run's power record (results.json extensions.gpu_power): the probe's sampler runs from the first request to
 * the last, each request's window is taken on the runner's clock as it is sent and as it ends, and the trace is
 * integrated per request (joules, tokens per joule, mean and peak watts, clocks, throttle reasons) and per case
 * (a performance or sanity case: its requests summed; the concurrency case: each round's window once, so that
 * requests in flight together are not counted twice). Processes on the GPU other than the engine are listed as
 * background workloads.
 */
import type { RequestRecord } from "../contract/mod.ts";
import { type GpuPowerSampler, type PowerTrace, type WindowPower, windowPower } from "../probe/mod.ts";
import { errorLine } from "../runtime/mod.ts";

/** Names of inference servers: a process so named on the GPU is taken for the engine, not a background workload. */
const ENGINE_PROCESS =
  /llama[-_]?server|llama\.cpp|ollama|vllm|sglang|lm[-_ ]?studio|koboldcpp|tabbyapi|text-generation/i;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function windowFields(w: WindowPower | { reason: string }, outputTokens: number | null) {
  if ("reason" in w) return { energy_j: null, tokens_per_j: null, reason: w.reason };
  return {
    energy_j: round3(w.energyJ),
    tokens_per_j: outputTokens === null || w.energyJ <= 0 ? null : round3(outputTokens / w.energyJ),
    mean_power_w: round3(w.meanPowerW),
    peak_power_w: round3(w.peakPowerW),
    mean_sm_clock_mhz: w.meanSmClockMhz === null ? null : Math.round(w.meanSmClockMhz),
    min_sm_clock_mhz: w.minSmClockMhz,
    mean_mem_clock_mhz: w.meanMemClockMhz === null ? null : Math.round(w.meanMemClockMhz),
    throttle_reasons: w.throttleReasons,
    samples: w.samples,
    reason: null,
  };
}

/** The most a sampler's stop may hold the result back (its last tool calls are bounded at 5 s each). */
const FINISH_MS = 15_000;

/** Records request windows while a sampler runs; `finish` stops it and gives the extension. */
export interface PowerRecorder {
  /** The sampler's first answer (wait for it before the first request). */
  ready: Promise<void>;
  requestStarted(id: string): void;
  requestEnded(id: string): void;
  /**
   * Never throws and returns within `finishMs`: a sampler that fails or does not stop in time after the requests
   * costs the run its energy figures (the extension is then only the reason), never its result.
   */
  finish(records: readonly RequestRecord[]): Promise<Record<string, unknown>>;
}

/** Starts recording against a sampler already started; `nowMs` is the sampler's clock. */
export function recordGpuPower(sampler: GpuPowerSampler, nowMs: () => number, finishMs = FINISH_MS): PowerRecorder {
  const windows = new Map<string, { startMs: number; endMs: number | null }>();
  return {
    ready: sampler.ready,
    requestStarted: (id) => windows.set(id, { startMs: nowMs(), endMs: null }),
    requestEnded: (id) => {
      const w = windows.get(id);
      if (w !== undefined) w.endMs = nowMs();
    },
    finish: async (records) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`it did not stop within ${finishMs} ms`), finishMs);
      });
      try {
        const trace = await Promise.race([sampler.stop(), late]);
        if (typeof trace === "string") return { reason: `the GPU power sampler gave no trace: ${trace}` };
        return powerExtension(trace, windows, records);
      } catch (error) {
        const why = errorLine(error);
        return { reason: `the GPU power sampler gave no trace: it failed (${why})` };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function powerExtension(
  trace: PowerTrace,
  windows: ReadonlyMap<string, { startMs: number; endMs: number | null }>,
  records: readonly RequestRecord[],
): Record<string, unknown> {
  const base = {
    source: trace.tool === null ? null : `${trace.tool}, one call at most every ${trace.intervalMs} ms`,
    reason: trace.reason,
    samples: trace.samples.length,
    gpus: trace.samples[0]?.gpus.length ?? null,
    background_workloads: trace.processes.filter((p) => !ENGINE_PROCESS.test(p.processName)).map((p) => ({
      pid: p.pid,
      process_name: p.processName,
      used_memory_mib: p.usedMemoryMib,
    })),
  };
  if (trace.samples.length === 0) return { ...base, requests: [], cases: [] };
  const of = (id: string) => {
    const w = windows.get(id);
    if (w === undefined || w.endMs === null) return { reason: "the request was not sent" };
    return windowPower(trace, w.startMs, w.endMs);
  };
  const requests = records.filter((r) => r.status !== "skipped").map((r) => ({
    request_id: r.id,
    ...windowFields(of(r.id), r.tokens.output_tokens),
  }));
  return { ...base, requests, cases: caseRows(trace, windows, records, of) };
}

function caseRows(
  trace: PowerTrace,
  windows: ReadonlyMap<string, { startMs: number; endMs: number | null }>,
  records: readonly RequestRecord[],
  of: (id: string) => WindowPower | { reason: string },
) {
  const sent = records.filter((r) => r.status !== "skipped" && windows.get(r.id)?.endMs != null);
  const cases = [...new Set(sent.filter((r) => r.phase !== "warmup").map((r) => `${r.phase}/${r.case_id}`))];
  return cases.map((key) => {
    const members = sent.filter((r) => `${r.phase}/${r.case_id}` === key);
    const [phase, caseId] = key.split("/") as [string, string];
    // Requests in flight together share one window: a concurrency case is integrated round by round.
    const parts: (WindowPower | { reason: string })[] = phase === "concurrency"
      ? [...new Set(members.map((r) => r.round))].map((round) => {
        const ws = members.filter((r) => r.round === round).map((r) => windows.get(r.id)!);
        return windowPower(trace, Math.min(...ws.map((w) => w.startMs)), Math.max(...ws.map((w) => w.endMs!)));
      })
      : members.map((r) => of(r.id));
    const tokens = members.map((r) => r.tokens.output_tokens);
    const outputTokens = tokens.some((t) => t === null) ? null : (tokens as number[]).reduce((a, b) => a + b, 0);
    const failed = parts.find((p): p is { reason: string } => "reason" in p);
    const row = { case_id: caseId, phase, requests: members.length, output_tokens: outputTokens };
    if (failed !== undefined) return { ...row, energy_j: null, tokens_per_j: null, reason: failed.reason };
    const ok = parts as WindowPower[];
    const joules = ok.reduce((a, p) => a + p.energyJ, 0);
    const seconds = ok.reduce((a, p) => a + (p.meanPowerW > 0 ? p.energyJ / p.meanPowerW : 0), 0);
    return {
      ...row,
      energy_j: round3(joules),
      tokens_per_j: outputTokens === null || joules <= 0 ? null : round3(outputTokens / joules),
      mean_power_w: seconds > 0 ? round3(joules / seconds) : null,
      peak_power_w: round3(Math.max(...ok.map((p) => p.peakPowerW))),
      min_sm_clock_mhz: ok.some((p) => p.minSmClockMhz === null)
        ? null
        : Math.min(...ok.map((p) => p.minSmClockMhz as number)),
      throttle_reasons: [...new Set(ok.flatMap((p) => p.throttleReasons))].sort(),
      reason: null,
    };
  });
}
