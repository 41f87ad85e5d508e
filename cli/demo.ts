/** `demo`: the standard protocol end to end against the scripted engine, written as a labelled simulation. */
import { onTerminationSignal, writeStderr, writeStdout } from "../runtime/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";
import { loadBundle } from "../fixtures/mod.ts";
import { startMockEngine } from "../mock/mod.ts";
import { renderConsoleSummary, sanitizeCommand } from "../report/mod.ts";
import { realRunDeps, runProtocol, RunRefusedError, RunWriteError } from "../runner/mod.ts";
import { progressLine } from "./run.ts";

export const HELP = `Usage: strata-bench demo [--optional-concurrency] [--time-scale X] [--out DIR]

Starts the scripted engine on loopback (no GPU, no model), runs the standard protocol against it, and writes a
real result folder (same place as run). The result is labelled simulated and nonconforming: it shows what the
tool produces, not how fast anything is.

  --optional-concurrency    add the optional concurrency stage
  --time-scale X            real waiting as a fraction of the scripted speeds (default 0.02; 0 is instant)
  --out DIR                 put the result folder under DIR

Exit codes: ${EXIT.ok} the simulated result was written and validates; ${EXIT.resultNotOk} it does not validate;
${EXIT.usage} usage error; ${EXIT.environment} environment failure.
`;

/** Entry point of `demo`. */
export async function main(argv: string[]): Promise<number> {
  let values, timeScale;
  try {
    ({ values } = parseFlags("parse the demo options", argv, {
      "optional-concurrency": { type: "boolean" },
      "time-scale": { type: "string" },
      out: { type: "string" },
    }));
    timeScale = numberFlag("run the demo", values, "time-scale", { min: 0, max: 1 }) ?? 0.02;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeStderr(`${error.message}\n`);
    return EXIT.usage;
  }
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale,
    slots: 4,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
  const controller = new AbortController();
  const stopListening = onTerminationSignal((signal) => controller.abort(signal));
  try {
    writeStderr(`scripted engine listening on ${engine.url} (simulation)\n`);
    const report = await runProtocol({
      baseUrl: engine.url,
      optionalConcurrency: values["optional-concurrency"] ?? false,
      track: "custom",
      trackNotes: "demo: the scripted engine, no model and no GPU; every number is simulated",
      declared: {
        modelId: null,
        modelRevision: null,
        sourceRevision: null,
        tokenizerRevision: null,
        quantization: null,
        customPack: null,
        background: [],
        buildOptions: null,
        engineCommit: null,
      },
      simulated: true,
      ...(values.out === undefined ? {} : { outRoot: values.out }),
      signal: controller.signal,
      command: sanitizeCommand(["strata-bench", "demo", ...argv]),
      onRequestEnd: (record, position) =>
        writeStderr(`[${position.index}/${position.total}] ${progressLine(record)}\n`),
    }, realRunDeps({ loadBundle: () => Promise.resolve(bundle) }, { hashCacheDir: null }));
    writeStdout(`${renderConsoleSummary(report.result)}\n${report.folder}\n`);
    if (report.validationProblems.length > 0) {
      writeStderr(`ERROR: the written results.json fails strict validation (${report.validationProblems.length}):\n`);
      for (const p of report.validationProblems) writeStderr(`  ${p.pointer || "/"}: ${p.message}\n`);
      return EXIT.resultNotOk;
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof RunRefusedError || error instanceof RunWriteError) {
      writeStderr(`${error.message}\n`);
      return EXIT.environment;
    }
    throw error;
  } finally {
    stopListening();
    await engine.close();
  }
}
