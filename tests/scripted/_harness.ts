/** Runs the whole protocol in-process against the scripted engine, with a temp results root and model file. */
import { join } from "node:path";
import { loadBundle } from "../../fixtures/mod.ts";
import type { Fixture, RequestRecord, Result } from "../../contract/mod.ts";
import { type MockEngine, type MockEngineOptions, startMockEngine } from "../../mock/mod.ts";
import { realRunDeps, type RunOptions, runProtocol, type RunReport } from "../../runner/mod.ts";
import type { RunDeps } from "../../runner/run_options.ts";
import { validateResultText } from "../../report/validate.ts";

/** A full 40-hex engine commit for runs that should be identity-complete. */
export const ENGINE_COMMIT = "80fb11a0000000000000000000000000000000aa";

let bundle: { fixtures: Fixture[]; corpusSha256: string } | null = null;
/** The committed bundle, loaded (and verified) once per test process. */
export async function sharedBundle(): Promise<{ fixtures: Fixture[]; corpusSha256: string }> {
  bundle ??= await loadBundle();
  return bundle;
}

/** max_shared_prefix_tokens of every bundle fixture, for the validator. */
export async function maxSharedPrefixTokens(): Promise<Record<string, number>> {
  return Object.fromEntries((await sharedBundle()).fixtures.map((f) => [f.id, f.max_shared_prefix_tokens]));
}

/** What the harness's runs declare about their model and engine (a test changes one field from it). */
export const SCRIPTED_DECLARED: RunOptions["declared"] = {
  modelId: "scripted/model",
  modelRevision: "rev1",
  sourceRevision: "src1",
  tokenizerRevision: "tok1",
  quantization: "Q4_K_M",
  customPack: null,
  background: [],
  buildOptions: ["GGML_NATIVE=OFF"],
  engineCommit: ENGINE_COMMIT,
};

export interface ScriptedRun {
  report: RunReport;
  result: Result;
  engine: MockEngine;
  /** Records by request id. */
  byId: Map<string, RequestRecord>;
  /** Problems of validateResultText on the written results.json (re-read from disk). */
  problems: { pointer: string; message: string }[];
  /** outputs.jsonl lines, parsed. */
  outputs: Record<string, unknown>[];
  dir: string;
}

export interface ScriptedRunOptions {
  mock?: MockEngineOptions;
  run?: Partial<RunOptions>;
  deps?: Partial<RunDeps>;
  /** Runs against an engine the caller owns (not closed here). */
  engine?: MockEngine;
  /** Temp folder to reuse (for a second run). */
  dir?: string;
  /** Called with the engine before the run starts (to wait on its request log from a run hook). */
  onEngine?: (engine: MockEngine) => void;
}

/** Starts the engine (unless given), runs the protocol, reads back the folder. The caller closes engine and dir. */
export async function runScripted(options: ScriptedRunOptions = {}): Promise<ScriptedRun> {
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "strata-run-" });
  const modelPath = join(dir, "model-Q4_K_M.gguf");
  await Deno.writeFile(modelPath, new TextEncoder().encode("GGUF scripted model bytes"));
  const { fixtures } = await sharedBundle();
  const engine = options.engine ?? await startMockEngine({
    timeScale: 0,
    // Look exactly like llama-server, so these tests exercise a conforming run's logic.
    announceScripted: false,
    modelPath,
    tokenCounts: Object.fromEntries(fixtures.map((f) => [f.id, f.input_tokens])),
    ...options.mock,
  });
  try {
    options.onEngine?.(engine);
    return await runAndRead(engine, dir, options);
  } catch (error) {
    if (!options.engine) await engine.close();
    if (!options.dir) await Deno.remove(dir, { recursive: true });
    throw error;
  }
}

async function runAndRead(engine: MockEngine, dir: string, options: ScriptedRunOptions): Promise<ScriptedRun> {
  const { fixtures, corpusSha256 } = await sharedBundle();
  const deps = realRunDeps({
    loadBundle: () => Promise.resolve({ fixtures, corpusSha256 }),
    ...options.deps,
  }, { hashCacheDir: null });
  const report = await runProtocol({
    baseUrl: engine.url,
    optionalConcurrency: false,
    track: "custom",
    trackNotes: "scripted engine test",
    declared: SCRIPTED_DECLARED,
    simulated: false,
    outRoot: join(dir, "results"),
    command: "strata-bench run --url <mock>",
    ...options.run,
  }, deps);
  const text = await Deno.readTextFile(join(report.folder, "results.json"));
  const problems = await validateResultText(text, {
    maxSharedPrefixTokens: await maxSharedPrefixTokens(),
    fixtures,
    readArtifact: async (path) => {
      try {
        return await Deno.readFile(join(report.folder, path));
      } catch {
        return null;
      }
    },
  });
  const outputs = (await Deno.readTextFile(join(report.folder, "outputs.jsonl"))).trim().split("\n")
    .map((line) => JSON.parse(line));
  const result = JSON.parse(text) as Result;
  return {
    report,
    result,
    engine,
    byId: new Map(result.requests.map((r) => [r.id, r])),
    problems,
    outputs,
    dir,
  };
}

/** Closes what runScripted opened. */
export async function cleanup(run: { engine: MockEngine; dir: string } | undefined): Promise<void> {
  if (!run) return;
  await run.engine.close();
  await Deno.remove(run.dir, { recursive: true });
}
