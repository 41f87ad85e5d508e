/** `run`: the standard benchmark protocol against a local server, written to a result folder. */
import { onTerminationSignal, refusedPermissionFlag, writeStderr } from "../runtime/mod.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { DEFAULT_URL, parseRunArgs, type RunArgs } from "./_run_args.ts";
import { conformingFixes, type RunOptions, runProtocol, type RunReport, TemplateMismatchError } from "../runner/mod.ts";
import { templateCheckLines } from "./_template_table.ts";
import { errorLine } from "./_progress.ts";
import type { Result } from "../contract/mod.ts";
import { sanitizeCommand } from "../sanitize/mod.ts";
import { openProgress, progressMode } from "./_progress.ts";
import { runProgressView } from "./_run_progress.ts";
import { printEnding } from "./_ending.ts";

export const HELP = `Usage: strata-bench run [--url URL | --profile NAME|FILE] [options]

Runs the standard benchmark protocol (warm-up, 9 performance requests, 12 sanity checks, and optionally 3 rounds
of 4 concurrent requests) against a running OpenAI-compatible server on loopback, then writes a result folder:
bench/results/<UTC-date>-standard-<gpu>-<run-id>/ when the current folder has bench/results, else
./bench-results/<same name>/. Progress goes to stderr; the summary and the folder path go to stdout.

Server:
  --url URL                 server base URL (default ${DEFAULT_URL}); must be loopback to conform
  --profile NAME|FILE       or: the engine a JSONC profile describes (profiles/NAME.jsonc or a path): a server
                            already on its port is used and left running; otherwise the runner starts it on
                            loopback, waits for /health, attaches its log as engine.log, and stops it at the end
                            (strata-bench run grants the permission to run it)
  --no-start                with --profile: never start an engine, only use one already running
  --optional-concurrency    add the optional stage: 3 rounds of 4 short requests released together

What the engine cannot tell the runner (unset values are null with a reason, never guessed):
  --track default|custom    default: an unmodified release's setup defaults; custom (the default): anything else
  --track-notes TEXT        the setup choices (default track) or the changes (custom track) (default: none)
  --model-id ID             model repository id (e.g. Qwen/Qwen3.8-Flash-Next-GGUF)
  --model-revision REV      immutable revision of the quantized model repository
  --source-revision REV     revision of the source model the quantization was made from
  --tokenizer-revision REV  revision of the tokenizer
  --quantization TEXT       quantization name (e.g. Q4_K_M)
  --custom-pack TEXT        description of a custom pack or its preparation
  --background TEXT         other work running on the machine (repeatable; default: none)
  --build-options TEXT      an engine build option, for a source build (repeatable)
  --engine-commit SHA       the engine's full 40-character commit when the server does not report it
  --engine-source DIR       a local llama.cpp checkout: resolves the server's short commit (b7000-80fb11a) to the
                            full one, and checks the checkout has it
  --engine-args "CMDLINE"   the server's command line, where its process cannot be read (another user's process,
                            a container). Otherwise it is read from the process listening on the --url port,
                            found with ss (Linux) or lsof (macOS), its command line with ps (one line: an
                            argument holding a space is split)
  --pack-dir DIR            name the model files relative to DIR (default: by their base names)
  --no-check-template       skip the template check: before the warm-up every request is rendered and counted by
                            the server (POST /apply-template, /tokenize) and compared with the frozen counts (2%;
                            exact for the tool cases) and shared prefixes; a mismatch stops the run before
                            anything is measured
  --engine-log FILE         the server's log (llama-server ... 2> FILE): attached as engine.log, sanitized, and its
                            per-request timing lines checked against the responses (a disagreement: nonconforming)

Output:
  --out DIR                 put the result folder under DIR instead (default: bench/results or ./bench-results)
  --simulated               label the result as a simulation (the server is the scripted engine)
  --quiet                   no progress on stderr (warnings and errors still)

Progress: on a terminal one status line redrawn in place: the stage, or the model hashing (bytes, rate, ETA), or
the request in flight ([i/22] or [i/34], its id, elapsed time, TTFT once known, and what its stream delivered so
far: "deltas" are stream events that carried text, not tokens, unless the engine reports its own token count
mid-stream), with one line per finished request above it. On a pipe or file: those lines, plus the status line
every 30 s while a request runs. Skipped requests that share one reason are one line.

Refused, because they would change the workload: --concurrency, --repeat, --request-timeout.
Ctrl-C (or SIGTERM, or the terminal closing) cancels the request in flight, skips the rest and still writes the
result (partial: exit ${EXIT.resultNotOk}).

Common:
  -h, --help                this text
  --version                 the toolkit's version and commit

Examples:
  strata-bench run
  strata-bench run --url http://127.0.0.1:8080 --track custom --track-notes "flash attention on" --quantization Q4_K_M
  strata-bench run --profile tiny-qwen3 --optional-concurrency

Exit codes:
  ${EXIT.ok}  complete, conforming and valid result
  ${EXIT.resultNotOk}  result written, but partial (also after Ctrl-C), nonconforming or invalid
  ${EXIT.usage}  usage error (unknown flag, bad value, a flag with no effect, refused workload-changing flag)
  ${EXIT.environment}  environment: server unreachable, fixture bundle differs, permission refused, folder not writable
     (checked before the probe and hashing: read-only, full, or a link out of the permitted area), or a write
     failed during the run (full disk, I/O error): the message names the folder and how many requests it kept
`;

/** Parses run's command line (for the help's examples test). @throws {UsageError}. */
export function parseCommandLine(argv: string[]): RunArgs {
  return parseRunArgs(argv);
}

/** Entry point of `run`. */
export async function main(argv: string[]): Promise<number> {
  let args: RunArgs;
  try {
    args = parseRunArgs(argv);
  } catch (error) {
    return endWith(error);
  }
  const controller = new AbortController();
  const progress = openProgress(progressMode(args.quiet), { heartbeatS: 30 });
  const view = runProgressView(progress);
  const stopListening = onTerminationSignal((signal) => {
    if (controller.signal.aborted) return;
    writeStderr(`\n${signal}: cancelling the request in flight; the result will still be written\n`);
    controller.abort(signal);
  });
  let engine: import("../engine/mod.ts").EngineHandle | null = null;
  try {
    if (args.profile !== null) {
      const { startProfileEngine } = await import("../engine/mod.ts");
      try {
        engine = await startProfileEngine(args.profile, {
          noStart: args.noStart,
          signal: controller.signal,
          progress: (line) => progress.line(line),
        });
      } catch (error) {
        view.finish();
        return endWith(error, undefined, { otherwise: EXIT.environment });
      }
    }
    const { engineLogFile, realRunDeps } = await import("../runner/mod.ts");
    const options = { ...runOptionsOf(args, argv, controller.signal), ...view.hooks };
    if (engine !== null) {
      options.baseUrl = engine.baseUrl;
      options.engineModelFiles = engine.modelFiles;
      // --engine-commit wins; else the profile's declared commit (llama-server itself reports a short one).
      if (options.declared.engineCommit === null) options.declared.engineCommit = engine.engineCommit;
      if (engine.started) {
        options.engineArgs = engine.engineArgs;
        options.engineLog = engine.log;
        options.engineLoadSeconds = engine.loadSeconds;
        options.engineEnv = engine.env;
      }
    }
    if (args.engineLog !== null) options.engineLogSource = engineLogFile(args.engineLog);
    const report = await runProtocol(options, realRunDeps({}, { onHashProgress: (p) => view.onHashProgress(p) }));
    view.finish();
    return printReport(report);
  } catch (error) {
    view.finish();
    return environmentFailure(error);
  } finally {
    view.finish();
    if (engine?.started) writeStderr(`stopping the engine (exit: ${JSON.stringify(await engine.stop())})\n`);
    stopListening();
  }
}

function runOptionsOf(args: RunArgs, argv: readonly string[], signal: AbortSignal): RunOptions {
  return {
    baseUrl: args.url,
    optionalConcurrency: args.optionalConcurrency,
    track: args.track,
    trackNotes: args.trackNotes,
    declared: {
      modelId: args.modelId,
      modelRevision: args.modelRevision,
      sourceRevision: args.sourceRevision,
      tokenizerRevision: args.tokenizerRevision,
      quantization: args.quantization,
      customPack: args.customPack,
      background: args.background,
      buildOptions: args.buildOptions,
      engineCommit: args.engineCommit,
      engineSource: args.engineSource,
      engineCommandLine: args.engineCommandLine,
    },
    simulated: args.simulated,
    packDir: args.packDir,
    checkTemplate: args.checkTemplate,
    ...(args.out === null ? {} : { outRoot: args.out }),
    signal,
    // No machine paths in the folder: absolute paths (--out /srv/x/c) keep only their last part.
    command: sanitizeCommand(["strata-bench", "run", ...argv]),
  };
}

/**
 * One line when the warm-up got no event stream (an HTTP error, an HTML page, a closed port): everything after it
 * was skipped, so the reason is said once, with what to check.
 */
export function warmupStopLine(result: Result): string | null {
  const warmup = result.requests.find((r) => r.phase === "warmup");
  if (warmup?.status !== "failed" || warmup.error === null) return null;
  const kind = warmup.error.kind;
  if (kind !== "http_error" && kind !== "malformed" && kind !== "connect_error") return null;
  return `run: stopped after the warm-up, which got no event stream (${errorLine(warmup.error.message)}); every ` +
    "other request was skipped. Check that --url is an OpenAI-compatible streaming server (llama-server: " +
    "http://127.0.0.1:8080)";
}

/**
 * Prints the last screen (status, headline medians, what kept the result from conforming, the missing values, the
 * next command and the folder) on stdout and the validation problems on stderr; returns the exit code. The full
 * audit is the folder's README.md and `strata-bench report`.
 */
export async function printReport(report: RunReport, command = "run"): Promise<number> {
  const { resultGlance } = await import("../report/mod.ts");
  const stopped = warmupStopLine(report.result);
  if (stopped !== null) writeStderr(`${stopped}\n`);
  let ok = report.result.run.status === "complete";
  // After a failed warm-up the server is the problem, not the result's identity: no fix list then.
  const fixes = stopped === null ? conformingFixes(report.result) : [];
  if (report.unexplainedNulls.length > 0) {
    writeStderr(`WARNING: nulls with only a generic reason (a runner defect): ${report.unexplainedNulls.join(", ")}\n`);
  }
  if (report.validationProblems.length > 0) {
    ok = false;
    writeStderr(`ERROR: the written results.json fails strict validation (${report.validationProblems.length}):\n`);
    for (const p of report.validationProblems) writeStderr(`  ${p.pointer || "/"}: ${p.message}\n`);
  }
  const glance = resultGlance(report.result);
  const invalid = report.validationProblems.length > 0 ? "; results.json INVALID (see stderr)" : "";
  printEnding({
    ...glance,
    // runner's fix list says what would make the next run conforming; the result's own reasons where it is empty.
    problems: fixes.length > 0 ? fixes : glance.problems,
    status: `${command}: ${glance.status}${invalid}`,
    next: ["strata-bench report FOLDER (the full audit; --pr: the pull request text)"],
    folder: report.folder,
  });
  return ok ? EXIT.ok : EXIT.resultNotOk;
}

function environmentFailure(error: unknown): number {
  if (error instanceof TemplateMismatchError) writeStderr(`${templateCheckLines(error.check).join("\n")}\n`);
  if (refusedPermissionFlag(error) === null) return endWith(error);
  return endWith(
    error,
    (detail) =>
      `Cannot run: a permission was refused (${detail}). Run it as "strata-bench run ...", which grants what a ` +
      "run needs (loopback servers, writing bench-results and --out)",
  );
}
