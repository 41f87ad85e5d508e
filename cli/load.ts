/**
 * `load`: load test of loopback chat servers by the performance methodology. Closed loop (--concurrency) or open
 * loop (--rate, seeded Poisson or constant arrivals, --max-concurrency), warm-up first, bounded by --requests or
 * --duration with a drain limit; request rows and the summary go to versioned JSONL as they happen; the console
 * prints the same summary objects. `--plan` shows the plan without traffic; `--self-check` loads the in-process
 * scripted engine to show the client's own ceiling; `--shard` runs one generator of a fleet; `load merge` joins
 * the fleet's files.
 */
import { env, onTerminationSignal, sys, writeStderr, writeStdout } from "../runtime/mod.ts";
import type { ArrivalProcess } from "../contract/mod.ts";
import {
  consoleHooks,
  DEFAULT_DRAIN_S,
  describeLoadPlan,
  type LengthTarget,
  type LoadTestOptions,
  type LoadTestOutcome,
  profileServerStamp,
  realLoadDeps,
  renderLoadHtml,
  runLoadTest,
  type Slo,
  warmsUp,
  WARMUP_LIMIT_S,
} from "../load/mod.ts";
import {
  numberFlag,
  outFolderFlag,
  parseFlags,
  pointsFlag,
  refuseInert,
  refuseSwitchValues,
  UsageError,
} from "./_args.ts";
import { parseShardFlags, SHARD_OPTIONS } from "./_shard_args.ts";
import {
  BOUND_OPTIONS,
  isWorkloadName,
  parseWorkloadFlags,
  requireLoopback,
  WORKLOAD_OPTIONS,
  workloadProfileRefusal,
} from "./_workload_args.ts";
import { loadProgressView } from "./_load_progress.ts";
import { openProgress, progressMode } from "./_progress.ts";
import { DEFAULT_OUT, OLD_FILE_SWITCHES, outputStem, writePage } from "./_out_files.ts";
import { EXIT } from "./exit_codes.ts";
import { livePageContext } from "./_saved_results.ts";
import { renderEnding } from "./_ending.ts";
import { loadEnding, loadPlanLines, sloMiss } from "./_load_ending.ts";
import { main as mergeMain, parseMergeArgs } from "./_load_merge.ts";
import { runWorkers } from "./_load_workers.ts";

export { HELP } from "./_load_help.ts";

const LOAD_OPTIONS = {
  ...WORKLOAD_OPTIONS,
  ...BOUND_OPTIONS,
  ...SHARD_OPTIONS,
  url: { type: "string", multiple: true },
  "self-check": { type: "boolean" },
  rate: { type: "string" },
  arrival: { type: "string" },
  "max-concurrency": { type: "string" },
  "drop-late-after-ms": { type: "string" },
  "late-after-ms": { type: "string" },
  repeat: { type: "string" },
  "isl-target": { type: "string" },
  "isl-tolerance": { type: "string" },
  "isl-stat": { type: "string" },
  "osl-target": { type: "string" },
  "osl-tolerance": { type: "string" },
  "osl-stat": { type: "string" },
  "fail-on-osl-mismatch": { type: "boolean" },
  "slo-ttft-ms": { type: "string" },
  "slo-tpot-ms": { type: "string" },
  "slo-e2e-ms": { type: "string" },
  "fail-on-slo": { type: "string" },
  "allow-missing-ttft": { type: "boolean" },
  "infer-ttft-from-first-byte": { type: "boolean" },
  strict: { type: "boolean" },
  "ci-safety": { type: "boolean" },
  "no-headroom-check": { type: "boolean" },
  "headroom-s": { type: "string" },
  "bin-s": { type: "string" },
  "prompt-mix-report": { type: "boolean" },
  plan: { type: "boolean" },
  "print-schedule": { type: "boolean" },
  workers: { type: "string" },
} as const;

function lengthTarget(values: Record<string, unknown>, kind: "isl" | "osl"): LengthTarget | undefined {
  const target = numberFlag("load", values, `${kind}-target`, { integer: true, min: 1 });
  const tolerance = numberFlag("load", values, `${kind}-tolerance`, { min: 0, max: 10 });
  const stat = values[`${kind}-stat`];
  if (stat !== undefined && stat !== "mean" && stat !== "median") {
    throw new UsageError(`Cannot use --${kind}-stat "${String(stat)}": expected mean or median`);
  }
  if (target === undefined) {
    if (tolerance !== undefined || stat !== undefined) {
      throw new UsageError(`Cannot use --${kind}-tolerance or --${kind}-stat without --${kind}-target`);
    }
    return undefined;
  }
  return { target, tolerance: tolerance ?? 0.1, stat: (stat as "mean" | "median" | undefined) ?? "mean" };
}

/** What `load` was asked to do beyond the test itself. */
export interface LoadCommand {
  /** The test; `out` and `promptMixReport` are set by the caller from `files` (new names in the --out folder). */
  options: LoadTestOptions;
  /** The --out folder and which extra files to write there. */
  files: { folder: string; html: boolean; promptMix: boolean };
  /** The engine profile to start (--profile), or null. */
  profile: string | null;
  /** --plan: print the plan and send nothing; --print-schedule adds every request. */
  planOnly: boolean;
  printSchedule: boolean;
  quiet: boolean;
  /** --workers N: the plan as N shards in N child processes on this host, merged; null: one process. */
  workers: number | null;
  /** --worker-of PID: the parent this worker must have (set by --workers); null otherwise. */
  workerOf: number | null;
  /** --fail-on-slo: the least share of measured requests that must meet every SLO, or null. */
  failOnSlo: number | null;
}

/** Parses the `load` command line with its --plan flags. @throws UsageError. */
export function parseLoadCommand(argv: string[]): LoadCommand {
  refuseSwitchValues("load", argv, OLD_FILE_SWITCHES);
  const values: Record<string, unknown> = parseFlags("load", argv, LOAD_OPTIONS).values;
  const selfCheck = values["self-check"] === true;
  const profile = values.profile as string | undefined;
  if (profile !== undefined && isWorkloadName(profile)) throw workloadProfileRefusal("load", profile);
  if (profile !== undefined && profile.trim() === "") throw new UsageError("Cannot load: --profile needs a name");
  const urls = ((values.url as string[] | undefined) ?? []).map(requireLoopback);
  if (selfCheck && urls.length > 0) {
    throw new UsageError("Cannot combine --self-check with --url: it loads its own engine");
  }
  if (profile !== undefined && (urls.length > 0 || selfCheck)) {
    throw new UsageError(
      `Cannot combine --profile with ${
        selfCheck ? "--self-check" : "--url"
      }: the profile names the engine and its port`,
    );
  }
  if (!selfCheck && urls.length === 0 && profile === undefined) {
    throw new UsageError("Cannot load: no --url; pass --url http://127.0.0.1:8080 (or --profile NAME)");
  }
  const concurrencies = pointsFlag("load", values, "concurrency", { integer: true, min: 1, max: 4096 });
  const rates = pointsFlag("load", values, "rate", { min: 0.001, max: 10_000 });
  // The plan is the sweep's largest point (the headroom check measures its shape); each run sets its own.
  const concurrency = concurrencies?.at(-1), rate = rates?.at(-1);
  if (concurrency !== undefined && rate !== undefined) {
    throw new UsageError("Cannot load: --concurrency (closed loop) and --rate (open loop) exclude each other");
  }
  const open = rate !== undefined;
  for (const flag of ["arrival", "max-concurrency", "drop-late-after-ms", "late-after-ms"]) {
    if (!open && values[flag] !== undefined) throw new UsageError(`Cannot use --${flag} without --rate (open loop)`);
  }
  const arrival = values.arrival ?? "poisson";
  if (arrival !== "poisson" && arrival !== "constant") {
    throw new UsageError(`Cannot use --arrival "${String(arrival)}": expected poisson or constant`);
  }
  let requests = numberFlag("load", values, "requests", { integer: true, min: 1, max: 100_000 });
  const durationS = numberFlag("load", values, "duration", { min: 0.001, max: 3600 });
  const closedConcurrency = concurrency ?? (selfCheck ? 64 : undefined);
  if (selfCheck && requests === undefined && durationS === undefined) requests = 2000;
  if (!open && closedConcurrency === undefined) {
    throw new UsageError("Cannot load: choose --concurrency N (closed loop) or --rate R (open loop)");
  }
  if (requests === undefined && durationS === undefined) {
    throw new UsageError("Cannot load: it would be unbounded; pass --requests N or --duration S");
  }
  const maxConcurrency = numberFlag("load", values, "max-concurrency", { integer: true, min: 1, max: 4096 });
  const dropLateMs = numberFlag("load", values, "drop-late-after-ms", { min: 0 });
  const warmupS = numberFlag("load", values, "warmup-s", { min: 0, max: 3600 });
  const warmupFlag = numberFlag("load", values, "warmup-requests", { integer: true, min: 0, max: 100_000 });
  if (warmupS !== undefined && warmupFlag !== undefined) {
    throw new UsageError("Cannot load: pass --warmup-requests N or --warmup-s S, not both");
  }
  const openDefault = (r: number) => maxConcurrency ?? Math.min(256, Math.max(4, Math.ceil(r)));
  const warmupOf = (point: number) => (warmupS !== undefined ? 0 : warmupFlag ?? (open ? openDefault(point) : point));
  const plan: LoadTestOptions["plan"] = {
    mode: open ? "open" : "closed",
    warmupRequests: warmupOf(rate ?? closedConcurrency as number),
  };
  if (warmupS !== undefined) plan.warmupS = warmupS;
  plan.warmupLimitS = numberFlag("load", values, "warmup-limit-s", { min: 0, max: 3600 }) ?? WARMUP_LIMIT_S;
  if (!open) plan.concurrency = closedConcurrency as number;
  if (open) {
    plan.ratePerS = rate;
    plan.arrival = arrival as ArrivalProcess;
    if (maxConcurrency !== undefined) plan.maxConcurrency = maxConcurrency;
    if (dropLateMs !== undefined) plan.dropLateAfterS = dropLateMs / 1000;
  }
  if (requests !== undefined) plan.requests = requests;
  if (durationS !== undefined) plan.durationS = durationS;
  const drainS = numberFlag("load", values, "drain-s", { min: 0, max: 3600 });
  if (drainS !== undefined) plan.drainLimitS = drainS;
  else if (durationS !== undefined) plan.drainLimitS = DEFAULT_DRAIN_S;
  const workload = parseWorkloadFlags("load", values);
  plan.requestDeadlineS = workload.requestTimeoutS;
  const slo: Slo = {};
  const ttft = numberFlag("load", values, "slo-ttft-ms", { min: 0 });
  const tpot = numberFlag("load", values, "slo-tpot-ms", { min: 0 });
  const e2e = numberFlag("load", values, "slo-e2e-ms", { min: 0 });
  if (ttft !== undefined) slo.ttftS = ttft / 1000;
  if (tpot !== undefined) slo.tpotS = tpot / 1000;
  if (e2e !== undefined) slo.e2eS = e2e / 1000;
  const osl = lengthTarget(values, "osl");
  const named = workload.source.kind === "profile" || workload.source.kind === "synthetic";
  if (values["fail-on-osl-mismatch"] === true && osl === undefined && !named) {
    throw new UsageError("Cannot use --fail-on-osl-mismatch without --osl-target (or a named --workload)");
  }
  if (osl !== undefined && !named && workload.maxTokens === null) {
    throw new UsageError("Cannot target an OSL with a prompt file without --max-tokens N");
  }
  if (values["infer-ttft-from-first-byte"] === true && workload.stream !== false) {
    throw new UsageError(
      "Cannot use --infer-ttft-from-first-byte on streamed requests: TTFT comes from the first token there; add --no-stream",
    );
  }
  const ciSafety = values["ci-safety"] === true;
  if (ciSafety && !warmsUp(plan) && !selfCheck) {
    throw new UsageError(
      "Cannot use --ci-safety with zero warm-up: warm up at least as many requests as the concurrency",
    );
  }
  const planOnly = values.plan === true;
  const writesNothing = planOnly ? "with --plan, which writes nothing" : null;
  const isCeiling = selfCheck ? "with --self-check (it is the ceiling)" : null;
  refuseInert("load", [
    ["--strict", values.strict === true, ciSafety ? "with --ci-safety, which includes it" : null],
    ["--no-headroom-check", values["no-headroom-check"] === true, isCeiling],
    [
      "--headroom-s",
      values["headroom-s"] !== undefined,
      isCeiling ?? (values["no-headroom-check"] === true ? "with --no-headroom-check" : null),
    ],
    ["--out", values.out !== undefined, writesNothing],
    ["--html", values.html === true, writesNothing],
    ["--prompt-mix-report", values["prompt-mix-report"] === true, writesNothing],
    ["--quiet", values.quiet === true, planOnly ? "with --plan, which shows no progress" : null],
  ]);
  const headroomS = numberFlag("load", values, "headroom-s", { min: 0.1, max: 60 }) ?? 2;
  const points = concurrencies ?? rates ?? [];
  const sweep = points.length < 2
    ? undefined
    : points.map((point) => ({ [open ? "ratePerS" : "concurrency"]: point, warmupRequests: warmupOf(point) }));
  for (const flag of ["repeat", "fail-on-slo"]) {
    if (sweep && values[flag] !== undefined) {
      throw new UsageError(
        `Cannot use --${flag} with a sweep: each point is one measured run; sweep again, or load one`,
      );
    }
  }
  const repeat = sweep?.length ?? numberFlag("load", values, "repeat", { integer: true, min: 1, max: 100 }) ?? 1;
  const host = sys.hostname();
  const shard = parseShardFlags(values, { env, hostname: host.ok ? host.value : null, wallMs: Date.now() });
  if (shard !== undefined && repeat > 1) {
    throw new UsageError("Cannot use --repeat or a sweep with --shard: every shard starts once, at --start-at");
  }
  if (shard !== undefined && selfCheck) throw new UsageError("Cannot shard the self-check");
  const workers = numberFlag("load", values, "workers", { integer: true, min: 2, max: 64 }) ?? null;
  const clash = ([
    ["--shard", shard !== undefined],
    ["--self-check", selfCheck],
    ["--profile", profile !== undefined],
    ["a sweep (a comma list)", sweep !== undefined],
    ["--repeat", repeat > 1],
    ["--plan", planOnly],
    ["--html", values.html === true],
    ["--prompt-mix-report", values["prompt-mix-report"] === true],
  ] as const).find(([, given]) => workers !== null && given);
  if (clash !== undefined) {
    throw new UsageError(
      `Cannot combine --workers with ${clash[0]}: the workers run shards of one plan against --url servers, ` +
        "merged into one JSON result",
    );
  }
  if (values["print-schedule"] === true && !planOnly) {
    throw new UsageError("Cannot use --print-schedule without --plan");
  }
  const options: LoadTestOptions = {
    urls,
    selfCheck,
    plan,
    workload,
    lateAfterS: (numberFlag("load", values, "late-after-ms", { min: 0 }) ?? 2) / 1000,
    repeat,
    isl: lengthTarget(values, "isl"),
    osl,
    failOnOslMismatch: values["fail-on-osl-mismatch"] === true,
    slo,
    binS: numberFlag("load", values, "bin-s", { min: 0.001, max: 3600 }) ?? 1,
    out: undefined,
    inferTtftFromFirstByte: values["infer-ttft-from-first-byte"] === true,
    strict: values.strict === true || ciSafety,
    ciSafety,
    allowMissingTtft: values["allow-missing-ttft"] === true,
    headroom: { mode: values["no-headroom-check"] === true ? "off" : "auto", durationS: headroomS },
  };
  if (shard !== undefined) options.shard = shard;
  if (sweep !== undefined) options.sweep = sweep;
  return {
    options,
    files: {
      folder: outFolderFlag("load", values, DEFAULT_OUT),
      html: values.html === true,
      promptMix: values["prompt-mix-report"] === true,
    },
    profile: profile ?? null,
    planOnly,
    printSchedule: values["print-schedule"] === true,
    quiet: values.quiet === true,
    workers,
    workerOf: numberFlag("load", values, "worker-of", { integer: true, min: 1 }) ?? null,
    failOnSlo: sloGateFlag(values, slo),
  };
}

/** --fail-on-slo F, refused without an SLO to gate on. @throws {UsageError}. */
function sloGateFlag(values: Record<string, unknown>, slo: Slo): number | null {
  const share = numberFlag("load", values, "fail-on-slo", { min: 0, max: 1 });
  if (share === undefined) return null;
  const none = Object.keys(slo).length === 0 ? "without --slo-ttft-ms, --slo-tpot-ms or --slo-e2e-ms" : null;
  refuseInert("load", [["--fail-on-slo", true, none]]);
  return share;
}

/** The exit code of a finished load test, with its lines on stderr when it did not succeed. */
export function loadExitCode(options: LoadTestOptions, outcome: LoadTestOutcome): number {
  switch (outcome.status) {
    case "ok":
      return EXIT.ok;
    case "write-failed":
      writeStderr(`Cannot write "${options.out ?? options.promptMixReport}": ${outcome.reason}\n`);
      return EXIT.environment;
    case "unreachable":
      for (const reason of outcome.reasons) writeStderr(`Cannot load: ${reason}; nothing was measured\n`);
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
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
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
        writeStderr(`${(error as Error).message}\n`);
        return controller.signal.aborted ? EXIT.interrupted : EXIT.environment;
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
    const code = loadExitCode(options, outcome);
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
    writeStdout(renderEnding(loadEnding(outcome, options.out ?? null, final, html, missed)));
    return final;
  } catch (error) {
    view.finish();
    writeStderr(`${(error as Error).message}\n`);
    if (error instanceof UsageError || error instanceof SyntaxError || error instanceof RangeError) return EXIT.usage;
    return EXIT.environment;
  } finally {
    view.finish();
    if (engine?.started) writeStderr(`stopping the engine (exit: ${JSON.stringify(await engine.stop())})\n`);
    stop();
  }
}
