/** `demo`: the standard protocol end to end against the scripted engine, written as a labelled simulation. */
import { onTerminationSignal, writeStderr } from "../runtime/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { helpFooter } from "./_help.ts";
import { loadBundle } from "../fixtures/mod.ts";
import { startMockEngine } from "../mock/mod.ts";
import { sanitizeCommand } from "../sanitize/mod.ts";
import { realRunDeps, runProtocol } from "../runner/mod.ts";
import { printReport } from "./run.ts";
import { openProgress, progressMode } from "./_progress.ts";
import { runProgressView } from "./_run_progress.ts";
import { prepareDemoSite, showDemoSite } from "./_demo_site.ts";

export const HELP = `Usage: strata-bench demo [--optional-concurrency] [--time-scale X] [--out DIR] [--quiet]
       strata-bench demo --site DIR [--port N] [--optional-concurrency] [--time-scale X] [--quiet]

Starts the scripted engine on loopback (no GPU, no model), runs the standard protocol against it, and writes a
real result folder (same place as run). The result is labelled simulated and nonconforming: it shows what the
tool produces, not how fast anything is. Progress is shown as run shows it (see run --help).

Options:
  --optional-concurrency    add the optional concurrency stage
  --time-scale X            real waiting as a fraction of the scripted speeds (default 0.02; 0 is instant)
  --out DIR                 put the result folder under DIR (default: bench/results or ./bench-results)
  --site DIR                see the website without a GPU: a throwaway site of this simulated result, every page
                            marked SIMULATED (never approvable), built into DIR/site (its scratch repository with
                            the result folder in DIR/repo) and served on 127.0.0.1 until Ctrl-C. DIR must be new
                            or empty.
  --port N                  where --site serves (default 8000; 0 picks a free port)
${
  helpFooter([
    "strata-bench demo",
    "strata-bench demo --optional-concurrency --time-scale 0",
    "strata-bench demo --site demo-site",
  ], true)
}
Exit codes: ${EXIT.ok} the simulated result was written and validates; ${EXIT.resultNotOk} it does not validate;
${EXIT.usage} usage error; ${EXIT.environment} environment failure (the reason is on stderr).
`;

/** Parses the demo's command line. @throws {UsageError}. */
export function parseCommandLine(argv: readonly string[]) {
  const { values } = parseFlags("parse the demo options", argv, {
    "optional-concurrency": { type: "boolean" },
    "time-scale": { type: "string" },
    out: { type: "string" },
    site: { type: "string" },
    port: { type: "string" },
    quiet: { type: "boolean" },
  });
  const timeScale = numberFlag("run the demo", values, "time-scale", { min: 0, max: 1 }) ?? 0.02;
  const port = numberFlag("serve the demo site", values, "port", { min: 0, max: 65535, integer: true }) ?? 8000;
  if (values.site !== undefined && values.out !== undefined) {
    throw new UsageError("Cannot run the demo: --site DIR keeps the result folder in DIR/repo; drop --out");
  }
  if (values.port !== undefined && values.site === undefined) {
    throw new UsageError("Cannot run the demo: --port is where --site serves; add --site DIR");
  }
  return { values, timeScale, port };
}

/**
 * What a demo asks of the run, besides its folder, signal and progress: the scripted engine at `baseUrl`, nothing
 * declared, labelled simulated, `argv` as its sanitized command line (bench:site makes its folders with it too).
 */
export function demoRunOptions(baseUrl: string, optionalConcurrency: boolean, argv: readonly string[]) {
  return {
    baseUrl,
    optionalConcurrency,
    track: "custom" as const,
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
    command: sanitizeCommand([...argv]),
  };
}

/** Entry point of `demo`. */
export async function main(argv: string[]): Promise<number> {
  let values, timeScale, port;
  try {
    ({ values, timeScale, port } = parseCommandLine(argv));
  } catch (error) {
    return endWith(error);
  }
  const site = values.site === undefined ? null : await prepareDemoSite(values.site);
  if (site !== null && "problem" in site) {
    writeStderr(`${site.problem}\n`);
    return EXIT.environment;
  }
  const outRoot = site?.resultsRoot ?? values.out;
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale,
    slots: 4,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
  const controller = new AbortController();
  const stopListening = onTerminationSignal((signal) => controller.abort(signal));
  const progress = openProgress(progressMode(values.quiet === true), { heartbeatS: 30 });
  let folder = "";
  const view = runProgressView(progress);
  try {
    progress.line(`scripted engine listening on ${engine.url} (simulation)`);
    const report = await runProtocol({
      ...demoRunOptions(engine.url, values["optional-concurrency"] ?? false, ["strata-bench", "demo", ...argv]),
      ...(outRoot === undefined ? {} : { outRoot }),
      signal: controller.signal,
      ...view.hooks,
    }, realRunDeps({ loadBundle: () => Promise.resolve(bundle) }, { hashCacheDir: null }));
    view.finish();
    // A demo's result is always nonconforming (simulated): its exit code says whether it validates.
    const code = await printReport(report, "demo");
    if (code !== EXIT.ok && report.validationProblems.length > 0) return EXIT.resultNotOk;
    folder = report.folder;
  } catch (error) {
    view.finish();
    return endWith(error);
  } finally {
    view.finish();
    stopListening();
    await engine.close();
  }
  return site === null ? EXIT.ok : await showDemoSite(site, folder, port);
}
