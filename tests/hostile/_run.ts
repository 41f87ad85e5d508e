/** Runs the protocol in-process against the hostile engine and reads the result folder back. */
import { join } from "node:path";
import { loadBundle, type LoadedBundle } from "../../fixtures/mod.ts";
import { type RequestRecord, type Result } from "../../contract/mod.ts";
import { realRunDeps, type RunOptions, runProtocol, type RunReport } from "../../runner/mod.ts";
import type { RunDeps } from "../../runner/run_options.ts";
import { type HostileEngine, type HostileEngineOptions, startHostileEngine } from "./_hostile_engine.ts";

let bundle: LoadedBundle | null = null;
export async function sharedBundle(): Promise<LoadedBundle> {
  bundle ??= await loadBundle();
  return bundle;
}

export interface HostileRun {
  report: RunReport;
  result: Result;
  byId: Map<string, RequestRecord>;
  /** outputs.jsonl, parsed line by line. */
  lines: Record<string, unknown>[];
  folder: string;
  engine: HostileEngine;
}

/**
 * Starts a hostile engine (with a GGUF model file it names in /props), runs the protocol with a short per-request
 * deadline, and reads the folder back. The caller removes `dir` (given) and nothing else is left running.
 */
export async function runHostile(
  dir: string,
  engineOptions: HostileEngineOptions,
  run: Partial<RunOptions> = {},
  deps: Partial<RunDeps> = {},
): Promise<HostileRun> {
  const { fixtures, corpusSha256 } = await sharedBundle();
  const model = join(dir, "hostile-Q4_K_M.gguf");
  await Deno.writeFile(model, new TextEncoder().encode("GGUF hostile model"));
  const engine = startHostileEngine({
    ...engineOptions,
    props: { model_path: model, ...engineOptions.props },
    promptTokens: { ...Object.fromEntries(fixtures.map((f) => [f.id, f.input_tokens])), ...engineOptions.promptTokens },
  });
  try {
    const report = await runProtocol({
      baseUrl: engine.url,
      optionalConcurrency: false,
      track: "custom",
      trackNotes: "hostile engine test",
      declared: {
        modelId: "hostile/model",
        modelRevision: "rev1",
        sourceRevision: "src1",
        tokenizerRevision: "tok1",
        quantization: "Q4_K_M",
        customPack: null,
        background: [],
        buildOptions: ["GGML_NATIVE=OFF"],
        engineCommit: "80fb11a0000000000000000000000000000000aa",
      },
      simulated: false,
      outRoot: join(dir, "results"),
      command: "strata-bench run --url <hostile>",
      deadlineS: 2,
      ...run,
    }, realRunDeps({ loadBundle: () => Promise.resolve({ fixtures, corpusSha256 }), ...deps }, { hashCacheDir: null }));
    const text = await Deno.readTextFile(join(report.folder, "results.json"));
    const result = JSON.parse(text) as Result;
    const lines = (await Deno.readTextFile(join(report.folder, "outputs.jsonl"))).trimEnd().split("\n")
      .map((line) => JSON.parse(line));
    return {
      report,
      result,
      byId: new Map(result.requests.map((r) => [r.id, r])),
      lines,
      folder: report.folder,
      engine,
    };
  } finally {
    await engine.close();
  }
}
