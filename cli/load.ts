/**
 * `load`: load test of loopback chat servers by the performance methodology. Closed loop (--concurrency) or open
 * loop (--rate, seeded Poisson or constant arrivals, --max-concurrency), warm-up first, bounded by --requests or
 * --duration with a drain limit; request rows and the summary go to versioned JSONL as they happen; the console
 * prints the same summary objects. `--plan` shows the plan without traffic; `--self-check` loads the in-process
 * scripted engine to show the client's own ceiling; `--shard` runs one generator of a fleet; `load merge` joins
 * the fleet's files.
 */
import { onTerminationSignal, writeStderr, writeStdout, writeStdoutStyled } from "../runtime/mod.ts";
import {
  consoleHooks,
  describeLoadPlan,
  type LoadTestOptions,
  type LoadTestOutcome,
  profileServerStamp,
  realLoadDeps,
  renderLoadHtml,
  runLoadTest,
} from "../load/mod.ts";
import { type LoadCommand, parseLoadCommand } from "./_load_args.ts";
import { loadProgressView } from "./_load_progress.ts";
import { openProgress, progressMode } from "./_progress.ts";
import { outputStem, writePage } from "./_out_files.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { livePageContext } from "./_saved_results.ts";
import { printEnding, verdictPieces } from "./_ending.ts";
import { loadEnding, loadPlanLines, refusedLines, sloMiss } from "./_load_ending.ts";
import { main as mergeMain, parseMergeArgs } from "./_load_merge.ts";
import { runWorkers } from "./_load_workers.ts";

export { HELP } from "./_load_help.ts";
export { type LoadCommand, parseLoadCommand } from "./_load_args.ts";

/** The exit code of a finished load test, with its lines on stderr when it did not succeed. */
export function loadExitCode(options: LoadTestOptions, outcome: LoadTestOutcome): number {
  switch (outcome.status) {
    case "ok":
      return EXIT.ok;
    case "write-failed":
      writeStderr(`Cannot write "${options.out ?? options.promptMixReport}": ${outcome.reason}\n`);
      return EXIT.environment;
    case "unreachable":
      // Said in one line a URL by the ending (refusedLines).
      return EXIT.environment;
    case "warmup-limit":
      for (const reason of outcome.reasons) writeStderr(`Cannot load: ${reason}\n`);
      return EXIT.environment;
    case "interrupted": {
      const ended = outcome.runs.length;
      writeStderr(
        `load: ${outcome.reasons.join("; ")}: not a complete result; ${
          ended === 0 ? "nothing was measured" : `the ${ended === 1 ? "run's" : `${ended} runs'`} requests that ` +
            "ended before the signal are kept, marked interrupted"
        }${options.out === undefined || ended === 0 ? "" : ` in ${options.out}`}\n`,
      );
      return EXIT.interrupted;
    }
    case "no-success":
      writeStderr("load: no measured request succeeded\n");
      return EXIT.resultNotOk;
    case "audit-failed":
      for (const reason of outcome.reasons) writeStderr(`load: ${reason}\n`);
      return EXIT.resultNotOk;
    case "osl-mismatch":
      writeStderr("load: --fail-on-osl-mismatch: measured output lengths outside the OSL tolerance\n");
      return EXIT.resultNotOk;
  }
}

/** The stem of this load's files in `folder`: a shard's name says which shard it is. */
function loadStem(command: LoadCommand): string {
  const stem = outputStem(command.files.folder, "load", new Date());
  const shard = command.options.shard;
  return shard === undefined ? stem : `${stem}-shard-${shard.index}-of-${shard.count}`;
}

/** Parses load's (or load merge's) command line (for the help's examples test). @throws {UsageError}. */
export function parseCommandLine(argv: string[]): unknown {
  return argv[0] === "merge" ? parseMergeArgs(argv.slice(1)) : parseLoadCommand(argv);
}

/** Entry point of `load` (and of `load merge`). */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "merge") return await mergeMain(argv.slice(1));
  let command: LoadCommand;
  try {
    command = parseLoadCommand(argv);
  } catch (error) {
    return endWith(error);
  }
  const { options } = command;
  if (command.workers !== null) return await runWorkers(argv, options, command.files.folder, command.workers);
  const controller = new AbortController();
  const stop = onTerminationSignal((signal) => {
    if (controller.signal.aborted) return;
    writeStderr(`\n${signal}: stopping the load; the requests that ended are kept, marked interrupted\n`);
    controller.abort(signal);
  }, command.workerOf === null ? {} : { parentPid: command.workerOf });
  const progress = openProgress(command.planOnly ? "quiet" : progressMode(command.quiet), { heartbeatS: 10 });
  const shown = {
    requests: options.plan.requests ?? null,
    durationS: options.plan.durationS ?? null,
    warmupRequests: options.plan.warmupRequests,
    warmupS: options.plan.warmupS ?? null,
  };
  const view = loadProgressView(progress, shown);
  let engine: import("../engine/mod.ts").EngineHandle | null = null;
  try {
    const deps = realLoadDeps(controller.signal, { stream: options.workload.stream !== false });
    if (command.planOnly) {
      const described = await describeLoadPlan(options, deps, command.printSchedule);
      for (const line of loadPlanLines(options)) writeStderr(`${line}\n`);
      writeStdout(JSON.stringify(deps.sanitizer.json(described.plan), null, command.printSchedule ? 0 : 2) + "\n");
      for (const r of described.requests ?? []) writeStdout(JSON.stringify({ kind: "request", ...r }) + "\n");
      return EXIT.ok;
    }
    if (command.profile !== null) {
      const { startProfileEngine } = await import("../engine/mod.ts");
      try {
        engine = await startProfileEngine(command.profile, {
          signal: controller.signal,
          progress: (line) => progress.line(line),
        });
      } catch (error) {
        view.finish();
        const code = endWith(error, undefined, { otherwise: EXIT.environment });
        return controller.signal.aborted ? EXIT.interrupted : code;
      }
      options.urls = [engine.baseUrl];
      options.engine = profileServerStamp(command.profile, engine);
    }
    const stem = loadStem(command);
    options.out = `${stem}.jsonl`;
    if (command.files.promptMix) options.promptMixReport = `${stem}.prompt-mix.json`;
    const printed = consoleHooks(options, { stdout: writeStdout, stderr: (text) => progress.line(text.trimEnd()) });
    const outcome = await runLoadTest(options, deps, {
      ...printed,
      ...view.hooks,
      onRunStart: (run, runs, urls) => {
        // A sweep's point warms up at its own level: the progress line counts that run's warm-up.
        shown.warmupRequests = options.sweep?.[run]?.warmupRequests ?? options.plan.warmupRequests;
        printed.onRunStart?.(run, runs, urls);
        view.hooks.onRunStart?.(run, runs, urls);
      },
      onOutput: (path) => progress.line(`load: writing ${path}`),
    });
    view.finish();
    return await reportOutcome(command, outcome, stem, deps);
  } catch (error) {
    view.finish();
    return endWith(error, undefined, { otherwise: EXIT.environment });
  } finally {
    view.finish();
    if (engine?.started) writeStderr(`stopping the engine (exit: ${JSON.stringify(await engine.stop())})\n`);
    stop();
  }
}

/** The page (with --html), the ending printed, and the exit code: the run's own, an SLO missed, or the page's. */
async function reportOutcome(
  command: LoadCommand,
  outcome: Awaited<ReturnType<typeof runLoadTest>>,
  stem: string,
  deps: ReturnType<typeof realLoadDeps>,
): Promise<number> {
  const { options } = command;
  const code = loadExitCode(options, outcome);
  if (outcome.status === "unreachable") {
    for (const line of refusedLines(outcome, code)) writeStdoutStyled(verdictPieces(`${line}\n`));
    return code;
  }
  let written: number = EXIT.ok;
  if (command.files.html && outcome.runs.length > 0) {
    const context = options.out === undefined ? undefined : await livePageContext({ path: options.out });
    const heading = `Load test of ${options.urls.join(", ") || "the scripted engine"}`;
    const page = await renderLoadHtml(outcome.runs, heading, context);
    written = await writePage(`${stem}.html`, page, deps.writeText);
  }
  const missed = sloMiss(outcome, command.failOnSlo);
  const final = code !== EXIT.ok ? code : missed !== null ? EXIT.resultNotOk : written;
  const html = command.files.html ? `${stem}.html` : null;
  printEnding(loadEnding(outcome, options.out ?? null, final, html, missed));
  return final;
}
