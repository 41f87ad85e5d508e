/**
 * `compare`: release gate of a candidate server against a baseline on this machine (performance methodology,
 * release validation). At each concurrency point the two are measured in interleaved rounds (warm-up, then
 * measured issuance, alternating which side goes first), and the gate holds when output tokens/s and TPOT p50
 * are within the tolerance (5%) or the point's noise floor when wider. A missing point fails; TTFT is shown only.
 */
import { onTerminationSignal, readTextFile, writeStderr, writeStdout } from "../runtime/mod.ts";
import { sha256Hex } from "../contract/mod.ts";
import {
  type CompareDeps,
  type CompareOutcome,
  type CompareRunOptions,
  type CompareSide,
  type CompareTarget,
  DEFAULT_MAX_ERROR_RATE_INCREASE,
  DEFAULT_WORKLOAD,
  isProfileTarget,
  parseCompareSpec,
  planCompare,
  readRecordedNoiseFloor,
  realLoadDeps,
  renderCompare,
  renderCompareHtml,
  runCompare,
  SPEC_DEFAULTS,
  specWorkloadOptions,
  TargetRefused,
} from "../load/mod.ts";
import { numberFlag, outFolderFlag, parseFlags, refuseInert, refuseSwitchValues, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";
import {
  isWorkloadName,
  parseWorkloadFlags,
  requireLoopback,
  WORKLOAD_OPTIONS,
  workloadProfileRefusal,
} from "./_workload_args.ts";
import { DEFAULT_OUT, OLD_FILE_SWITCHES, writePage } from "./load.ts";
import { compareProgressView } from "./_load_progress.ts";
import { openProgress, progressMode } from "./_progress.ts";
import { outputStem } from "./_out_files.ts";
import { compareFrom, livePageContext } from "./_saved_results.ts";

export const HELP = `Usage: strata-bench compare (--baseline URL | --baseline-profile NAME|FILE)
                             (--candidate URL | --candidate-profile NAME|FILE) [--spec SPEC.jsonc | options]
       strata-bench compare --plan SPEC.jsonc [sides]      (prints every run it would make; sends nothing)
       strata-bench compare --from BASELINE.jsonl CANDIDATE.jsonl | --from COMPARE.jsonl [--tolerance F]
                            (gates saved results offline: two load results, or a compare result's two sides)

Gates a candidate server against a baseline on this machine (loopback only). Each side is a running server's URL
or an engine profile (a name under profiles/ or a .jsonc path) started here; the two may be mixed. Before anything
is measured, each server must answer one small streamed chat request (exit ${EXIT.environment} with the status and content type
it got otherwise) and --out must be writable. Every measurement is a warm-up, then measured issuance.
"Interleaved" means:
  two URLs      at each concurrency point the sides alternate round by round, the first side alternating per
                round (B C, C B, ...)
  any profile   the engines run in turn, never together (two may not fit one GPU): each round starts the
                baseline, measures every point, stops it, then does the same for the candidate; rounds repeat
                (B, C, B, C, ...) so drift touches both sides alike. A profile whose port already answers is used
                as it is and left running; every engine started here is stopped, also on error or Ctrl-C.
The gate holds when the candidate's output tokens/s and TPOT p50 are within --tolerance of the baseline's at every
point, or within the point's recorded noise floor when that is wider: the baseline's own round-to-round noise,
measured in this run and recorded in the JSONL, or a floor recorded by an earlier run (--noise-floor-from) or
given (--noise-floor). The candidate's own spread never widens its tolerance. The candidate's error rate may not
exceed the baseline's by more than --max-error-rate-increase. A point without a value fails. TTFT is reported,
not gated.

Spec file (the methodology's versioned harness; JSONC, unknown keys refused; see README "Release gate"):
  --spec FILE               workloads W1/W2 pinned by SHA-256, points (default 1,8,32), request parameters,
                            durations (default ${SPEC_DEFAULTS.warmupS} s warm-up, ${SPEC_DEFAULTS.measureS} s measured issuance, ${SPEC_DEFAULTS.drainS} s drain limit per
                            point), rounds, gate settings and the serving stack's identity; the flags below that
                            choose the workload, points, rounds or durations are refused with it
  --plan SPEC               print every run the spec would make, in order, with its bound in seconds; no traffic

Sides:
  --baseline URL            the reference server, already running
  --baseline-profile NAME|FILE   or: start the reference from an engine profile for each of its turns
  --candidate URL           the server under test, already running
  --candidate-profile NAME|FILE  or: start the server under test from an engine profile for each of its turns

Measurement:
  --concurrency LIST        closed-loop points, comma-separated (default 1,8,32)
  --rounds R                measured rounds per side and point (default 2; >= 2 gives intervals and a noise floor)
  --requests N              measured requests per round and side (default: 4 x the point's concurrency, >= 8)
  --duration S              instead of --requests: seconds of measured issuance per round and side
  --drain-s S               with --duration: in-flight requests are cancelled S s after it (default ${SPEC_DEFAULTS.drainS})
  --warmup-requests N       warm-up requests before each measured round (default: the point's concurrency)
  --warmup-s S              or: seconds of warm-up issuance before each measured round
  --tolerance F             gate tolerance as a fraction (default 0.05)
  --max-error-rate-increase F  most the candidate's error rate may exceed the baseline's (default ${DEFAULT_MAX_ERROR_RATE_INCREASE})
  --noise-floor LIST        noise floors to apply, e.g. 1=0.03,8=0.04 (fraction per concurrency point; default:
                            none beyond the one this run measures)
  --noise-floor-from FILE   reuse the noise floor an earlier compare recorded in its JSONL

Workload without a spec (same bytes for both sides; labelled W1; default --workload chat-short):
  --workload NAME | --synthetic NAME | --prompts FILE.jsonl | --sharegpt FILE.json, --workload-sha256 HEX,
  --sample N, --seed N, --max-tokens N, --min-tokens N, --ignore-eos, --temperature T, --request-seed N,
  --no-stream, --model NAME, --allow-repeated-prompt, --request-timeout S   (defaults as in load --help)

Output:
  --out DIR                 folder for the new files (default bench-results): <UTC-date>-compare-<run-id>.jsonl
                            with the config line, each turn's server (URL, or profile and sanitized engine
                            arguments), every round's summary, and the verdict, written as they happen
  --html                    also write <same name>.html: one self-contained page (opens offline) with each
                            point's baseline and candidate and the gate band
  --quiet                   no progress on stderr (warnings and errors still)

Progress: on a terminal one status line redrawn in place: the measurement i of n, point, round and side, then
load's figures (phase, sent / ok / failed / in flight, rates, TTFT p50); on a pipe or file, that line every 10 s.
Ctrl-C or SIGTERM stops at once: engines started here are stopped, the measurements that ended are kept in the
JSONL, no gate verdict is printed or written, and the exit code is ${EXIT.interrupted}.

Common:
  -h, --help                this text
  --version                 the toolkit's version and commit

Examples:
  strata-bench compare --baseline http://127.0.0.1:8080 --candidate http://127.0.0.1:8081 --concurrency 1,8
  strata-bench compare --baseline-profile tiny-qwen3 --candidate http://127.0.0.1:8081 --rounds 3 --html
  strata-bench compare --plan gate.jsonc

Exit codes:
  ${EXIT.ok}  the gate holds at every point
  ${EXIT.resultNotOk}  the gate fails (a metric outside tolerance, or a missing point)
  ${EXIT.usage}  usage error (unknown flag, bad value, a flag with no effect in the combination, non-loopback URL, a
     spec with an unknown key, a workload whose SHA-256 differs from its pin: all refused before any traffic)
  ${EXIT.environment}  environment failure (a side that does not answer as a streaming chat server, a file unreadable,
     --out not writable, an engine that does not start)
  ${EXIT.interrupted}  interrupted by a signal: no verdict; the measurements that ended are kept, marked interrupted

Starting a profile's engine needs permission to run its program (deno task compare:profile grants llama-server).
`;

const OPTIONS = {
  ...WORKLOAD_OPTIONS,
  profile: { type: "string" },
  quiet: { type: "boolean" },
  baseline: { type: "string" },
  candidate: { type: "string" },
  "baseline-profile": { type: "string" },
  "candidate-profile": { type: "string" },
  spec: { type: "string" },
  plan: { type: "string" },
  concurrency: { type: "string" },
  rounds: { type: "string" },
  requests: { type: "string" },
  duration: { type: "string" },
  "drain-s": { type: "string" },
  "warmup-requests": { type: "string" },
  "warmup-s": { type: "string" },
  tolerance: { type: "string" },
  "max-error-rate-increase": { type: "string" },
  "noise-floor": { type: "string" },
  "noise-floor-from": { type: "string" },
  out: { type: "string" },
  html: { type: "boolean" },
} as const;

function targetOf(values: Record<string, unknown>, side: CompareSide, optional: boolean): CompareTarget {
  const url = values[side], profile = values[`${side}-profile`];
  if (url !== undefined && profile !== undefined) {
    throw new UsageError(`Cannot compare: pass --${side} URL or --${side}-profile NAME, not both`);
  }
  if (typeof profile === "string") {
    if (profile.trim() === "") throw new UsageError(`Cannot use --${side}-profile: the profile name is empty`);
    return { profile };
  }
  if (typeof url === "string") return { url: requireLoopback(url) };
  if (optional) return { url: `<${side}>` };
  throw new UsageError(
    "Cannot compare: pass both sides, each as a URL or a profile: --baseline URL | --baseline-profile NAME, and " +
      "--candidate URL | --candidate-profile NAME",
  );
}

/** What `compare` was asked to do: the options, a spec file to read, and whether only to print the plan. */
export interface CompareCommand {
  /** `out` is set by the caller: a new file in `files.folder`. */
  options: CompareRunOptions;
  files: { folder: string; html: boolean };
  specPath: string | null;
  planOnly: boolean;
  noiseFloorFrom: string | null;
  quiet: boolean;
}

const SPEC_OWNS = [
  "workload",
  "synthetic",
  "prompts",
  "sharegpt",
  "workload-sha256",
  "sample",
  "seed",
  "max-tokens",
  "min-tokens",
  "ignore-eos",
  "temperature",
  "request-seed",
  "no-stream",
  "model",
  "request-timeout",
  "concurrency",
  "rounds",
  "requests",
  "duration",
  "drain-s",
  "warmup-requests",
  "warmup-s",
  "tolerance",
  "max-error-rate-increase",
];

/** Parses the `compare` command line (a spec file is read later, by the caller). @throws UsageError. */
export function parseCompareCommand(argv: string[]): CompareCommand {
  refuseSwitchValues("compare", argv, { "--html": OLD_FILE_SWITCHES["--html"] });
  const values: Record<string, unknown> = parseFlags("compare", argv, OPTIONS).values;
  if (typeof values.profile === "string") {
    if (isWorkloadName(values.profile)) throw workloadProfileRefusal("compare", values.profile);
    throw new UsageError(
      "Cannot compare: --profile names one engine, and compare has two sides: pass --baseline-profile NAME and/or " +
        "--candidate-profile NAME",
    );
  }
  if (values.spec !== undefined && values.plan !== undefined) {
    throw new UsageError("Cannot compare: pass --spec FILE to run a spec or --plan FILE to print it, not both");
  }
  const specPath = (values.spec ?? values.plan ?? null) as string | null;
  const planOnly = values.plan !== undefined;
  const baseline = targetOf(values, "baseline", planOnly);
  const candidate = targetOf(values, "candidate", planOnly);
  if (specPath !== null) {
    const owned = SPEC_OWNS.filter((k) => values[k] !== undefined);
    if (owned.length > 0) {
      throw new UsageError(`Cannot use --${owned[0]} with a spec file: the spec pins it (edit the spec instead)`);
    }
  }
  const points = ((values.concurrency as string | undefined) ?? "1,8,32").split(",").map((x) => {
    const n = Number(x.trim());
    if (!Number.isInteger(n) || n < 1 || n > 4096) throw new UsageError(`Cannot use --concurrency point "${x}"`);
    return n;
  });
  if (new Set(points).size !== points.length) throw new UsageError("Cannot use --concurrency: a point repeats");
  const noiseFloor: Record<string, number> = {};
  if (typeof values["noise-floor"] === "string") {
    for (const part of values["noise-floor"].split(",")) {
      const [c, f] = part.split("=");
      const cN = Number(c), fN = Number(f);
      if (!Number.isInteger(cN) || !(fN >= 0 && fN < 10)) {
        throw new UsageError(`Cannot use --noise-floor entry "${part}": expected CONCURRENCY=FRACTION`);
      }
      noiseFloor[String(cN)] = fN;
    }
  }
  if (values["noise-floor"] !== undefined && values["noise-floor-from"] !== undefined) {
    throw new UsageError("Cannot compare: pass --noise-floor or --noise-floor-from, not both");
  }
  const requests = numberFlag("compare", values, "requests", { integer: true, min: 1, max: 100_000 });
  const durationS = numberFlag("compare", values, "duration", { min: 0.001, max: 3600 });
  if (requests !== undefined && durationS !== undefined) {
    throw new UsageError("Cannot compare: pass --requests or --duration, not both");
  }
  const warmupRequests = numberFlag("compare", values, "warmup-requests", { integer: true, min: 0, max: 100_000 });
  const warmupS = numberFlag("compare", values, "warmup-s", { min: 0, max: 3600 });
  if (warmupRequests !== undefined && warmupS !== undefined) {
    throw new UsageError("Cannot compare: pass --warmup-requests or --warmup-s, not both");
  }
  const drainS = numberFlag("compare", values, "drain-s", { min: 0, max: 3600 });
  if (drainS !== undefined && durationS === undefined) throw new UsageError("Cannot use --drain-s without --duration");
  const unmeasured = Object.keys(noiseFloor).filter((c) => !points.includes(Number(c)));
  refuseInert("compare", [
    ["--out", values.out !== undefined, planOnly ? "with --plan, which writes nothing" : null],
    ["--html", values.html === true, planOnly ? "with --plan, which writes nothing" : null],
    ["--quiet", values.quiet === true, planOnly ? "with --plan, which shows no progress" : null],
    [
      "--noise-floor",
      unmeasured.length > 0 && specPath === null,
      `for concurrency ${unmeasured.join(", ")}: no such point is measured (--concurrency ${points.join(",")})`,
    ],
  ]);
  const options: CompareRunOptions = {
    baseline,
    candidate,
    workloads: specPath === null ? [{ label: DEFAULT_WORKLOAD, options: parseWorkloadFlags("compare", values) }] : [],
    points,
    rounds: numberFlag("compare", values, "rounds", { integer: true, min: 1, max: 50 }) ?? 2,
    requests,
    durationS,
    warmupRequests,
    warmupS,
    drainS: drainS ?? (durationS !== undefined ? SPEC_DEFAULTS.drainS : undefined),
    tolerance: numberFlag("compare", values, "tolerance", { min: 0, max: 1 }) ?? 0.05,
    maxErrorRateIncrease: numberFlag("compare", values, "max-error-rate-increase", { min: 0, max: 1 }) ??
      DEFAULT_MAX_ERROR_RATE_INCREASE,
    noiseFloor,
    out: undefined,
  };
  return {
    options,
    files: { folder: outFolderFlag("compare", values, DEFAULT_OUT), html: values.html === true },
    specPath,
    planOnly,
    noiseFloorFrom: (values["noise-floor-from"] as string | undefined) ?? null,
    quiet: values.quiet === true,
  };
}

/** Parses compare's command line (for the help's examples test). @throws {UsageError}. */
export function parseCommandLine(argv: string[]): CompareCommand {
  return parseCompareCommand(argv);
}

/** Parses the `compare` command line without a spec (no file named yet: out stays undefined). @throws UsageError. */
export function parseCompareArgs(argv: string[]): CompareRunOptions {
  return parseCompareCommand(argv).options;
}

/** Fills the options from a spec file's text. @throws SyntaxError for a bad spec (every problem listed). */
export function applySpec<T extends CompareRunOptions>(options: T, text: string, path: string): T {
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const spec = parseCompareSpec(text, dir, sha256Hex(text));
  return {
    ...options,
    workloads: spec.workloads.map((w) => ({ label: w.label, options: specWorkloadOptions(spec, w) })),
    points: spec.points,
    rounds: spec.rounds,
    requests: undefined,
    durationS: spec.durations.measureS,
    warmupRequests: undefined,
    warmupS: spec.durations.warmupS,
    drainS: spec.durations.drainS,
    tolerance: spec.gate.tolerance,
    maxErrorRateIncrease: spec.gate.maxErrorRateIncrease,
    noiseFloor: { ...spec.gate.noiseFloor, ...options.noiseFloor },
    spec: { name: spec.name, sha256: spec.sha256, servingStack: spec.servingStack, path: path.split(/[\\/]/).pop()! },
  };
}

/** Prints a comparison's outcome and returns the exit code. */
async function finishCompare(
  outcome: CompareOutcome,
  command: CompareCommand,
  stem: string,
  deps: CompareDeps,
): Promise<number> {
  if (outcome.written !== null && !outcome.written.ok) {
    writeStderr(`Cannot write "${command.options.out}": ${outcome.written.reason}\n`);
    return EXIT.environment;
  }
  if (outcome.result === null) {
    const i = outcome.interrupted!;
    writeStderr(
      `compare: INTERRUPTED by ${i.by} after ${i.measured} of ${i.planned} measurements: no gate verdict is made ` +
        `of a partial comparison; what ended is kept in ${command.options.out}, marked interrupted\n`,
    );
    return EXIT.interrupted;
  }
  const { result } = outcome;
  writeStdout(renderCompare(result));
  writeStderr(`compare: wrote ${outcome.lines.length} JSONL lines to ${command.options.out}\n`);
  if (command.files.html) {
    const context = await livePageContext({ text: `${outcome.lines.join("\n")}\n` });
    const page = await renderCompareHtml(result, "Release gate: candidate against baseline", context);
    const written = await writePage(`${stem}.html`, page, deps.writeText);
    if (written !== EXIT.ok) return written;
  }
  return result.pass ? EXIT.ok : EXIT.resultNotOk;
}

/** Entry point of `compare`. */
export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--from")) return await compareFrom(argv);
  let command: CompareCommand;
  try {
    command = parseCompareCommand(argv);
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  let options = command.options;
  const controller = new AbortController();
  const stop = onTerminationSignal((signal) => {
    if (controller.signal.aborted) return;
    writeStderr(`\n${signal}: stopping; engines started here are stopped before exit; no verdict will be made\n`);
    controller.abort(signal);
  });
  const progress = openProgress(command.planOnly ? "quiet" : progressMode(command.quiet), { heartbeatS: 10 });
  const view = compareProgressView(progress);
  try {
    if (command.specPath !== null) options = applySpec(options, await readTextFile(command.specPath), command.specPath);
    if (command.noiseFloorFrom !== null) {
      options = {
        ...options,
        noiseFloor: readRecordedNoiseFloor(await readTextFile(command.noiseFloorFrom)),
        noiseFloorFrom: command.noiseFloorFrom.split(/[\\/]/).pop()!,
      };
    }
    const stream = options.workloads.every((w) => w.options.stream !== false);
    const deps: CompareDeps = {
      ...realLoadDeps(controller.signal, { stream }),
      progress: (line) => progress.line(line),
      hooks: view.hooks,
    };
    if (command.planOnly) {
      const plan = await planCompare(options, deps);
      writeStdout(
        JSON.stringify(deps.sanitizer.json({ kind: "compare-plan", spec: options.spec ?? null, ...plan }), null, 2) +
          "\n",
      );
      return EXIT.ok;
    }
    if (isProfileTarget(options.baseline) || isProfileTarget(options.candidate)) {
      // Loaded only when needed, as `run --profile` does: URL-only comparisons never touch the engine part.
      const { startProfileEngine } = await import("../engine/mod.ts");
      deps.startProfile = startProfileEngine;
    }
    const stem = outputStem(command.files.folder, "compare", new Date());
    options = { ...options, out: `${stem}.jsonl` };
    command.options = options;
    const outcome = await runCompare(options, deps);
    view.finish();
    return await finishCompare(outcome, command, stem, deps);
  } catch (error) {
    view.finish();
    writeStderr(`${(error as Error).message}\n`);
    if (controller.signal.aborted) return EXIT.interrupted;
    if (error instanceof TargetRefused) return EXIT.environment;
    if (error instanceof UsageError || error instanceof SyntaxError || error instanceof RangeError) return EXIT.usage;
    return EXIT.environment;
  } finally {
    view.finish();
    stop();
  }
}
