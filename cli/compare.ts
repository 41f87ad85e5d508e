/**
 * `compare`: release gate of a candidate server against a baseline on this machine (performance methodology,
 * release validation). At each concurrency point the two are measured in interleaved rounds (warm-up, then
 * measured issuance, alternating which side goes first), and the gate holds when output tokens/s and TPOT p50
 * are within the tolerance (5%) or the point's noise floor when wider. A missing point fails; TTFT is shown only.
 */
import { onTerminationSignal, readTextFile, writeStderr, writeStdout } from "../runtime/mod.ts";
import {
  applyCompareSpec,
  type CompareDeps,
  type CompareOutcome,
  type CompareRunOptions,
  type CompareSide,
  type CompareTarget,
  DEFAULT_WORKLOAD,
  isProfileTarget,
  planCompare,
  readSavedResults,
  realLoadDeps,
  recordedNoiseFloor,
  renderCompare,
  renderCompareHtml,
  runCompare,
  SPEC_DEFAULTS,
  WARMUP_LIMIT_S,
} from "../load/mod.ts";
import { numberFlag, outFolderFlag, parseFlags, refuseInert, refuseSwitchValues, UsageError } from "./_args.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { printEnding } from "./_ending.ts";
import { compareEnding, comparePlanLines } from "./_load_ending.ts";
import {
  BOUND_OPTIONS,
  isWorkloadName,
  parseWorkloadFlags,
  requireLoopback,
  WORKLOAD_OPTIONS,
  workloadProfileRefusal,
} from "./_workload_args.ts";
import { compareProgressView } from "./_load_progress.ts";
import { openProgress, progressMode } from "./_progress.ts";
import { DEFAULT_OUT, OLD_FILE_SWITCHES, outputStem, writePage } from "./_out_files.ts";
import { compareFrom, livePageContext } from "./_saved_results.ts";
import { HELP } from "./_compare_help.ts";

export { HELP };

/** Most bytes a compare spec may hold (a spec is a few KiB; a larger file is refused, not read). */
const MAX_SPEC_BYTES = 1024 * 1024;

const OPTIONS = {
  ...WORKLOAD_OPTIONS,
  ...BOUND_OPTIONS,
  baseline: { type: "string" },
  candidate: { type: "string" },
  "baseline-profile": { type: "string" },
  "candidate-profile": { type: "string" },
  spec: { type: "string" },
  plan: { type: "string" },
  rounds: { type: "string" },
  tolerance: { type: "string" },
  "max-error-rate-increase": { type: "string" },
  "noise-floor": { type: "string" },
  "noise-floor-from": { type: "string" },
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

/**
 * The flags a spec file pins, refused beside it: every workload flag but --publishable and --allow-repeated-prompt
 * (inert beside a spec, refused as such), and the plan's and the gate's.
 */
const SPEC_OWNS = [
  ...Object.keys(WORKLOAD_OPTIONS).filter((k) => k !== "publishable" && k !== "allow-repeated-prompt"),
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

/** Flags that have no effect with the others given (refused, as every command does). @throws {UsageError}. */
function refuseInertFlags(
  values: Record<string, unknown>,
  given: { planOnly: boolean; specPath: string | null; points: readonly number[]; noiseFloor: Record<string, unknown> },
): void {
  const { planOnly, specPath, points, noiseFloor } = given;
  const writesNothing = planOnly ? "with --plan, which writes nothing" : null;
  const specNames = specPath === null ? null : "with a spec file, which names its workloads:";
  const unmeasured = Object.keys(noiseFloor).filter((c) => !points.includes(Number(c)));
  refuseInert("compare", [
    ["--out", values.out !== undefined, writesNothing],
    ["--html", values.html === true, writesNothing],
    ["--quiet", values.quiet === true, planOnly ? "with --plan, which shows no progress" : null],
    [
      "--publishable",
      values.publishable === true,
      specNames && `${specNames} each is pinned by "sha256"; for a published run give each real text (not ` +
        `"synthetic") and no "sample" in the spec`,
    ],
    [
      "--allow-repeated-prompt",
      values["allow-repeated-prompt"] === true,
      specNames && `${specNames} a spec never admits one repeated prompt (name a workload of distinct prompts)`,
    ],
    [
      "--noise-floor",
      unmeasured.length > 0 && specPath === null,
      `for concurrency ${unmeasured.join(", ")}: no such point is measured (--concurrency ${points.join(",")})`,
    ],
  ]);
}

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
  const points = concurrencyPoints(values.concurrency as string | undefined);
  const noiseFloor = noiseFloorOf(values["noise-floor"]);
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
  refuseInertFlags(values, { planOnly, specPath, points, noiseFloor });
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
    warmupLimitS: numberFlag("compare", values, "warmup-limit-s", { min: 0, max: 3600 }) ?? WARMUP_LIMIT_S,
    tolerance: numberFlag("compare", values, "tolerance", { min: 0, max: 1 }) ?? SPEC_DEFAULTS.tolerance,
    maxErrorRateIncrease: numberFlag("compare", values, "max-error-rate-increase", { min: 0, max: 1 }) ??
      SPEC_DEFAULTS.maxErrorRateIncrease,
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

/** --concurrency's points (default 1,8,32), each an integer 1-4096, none repeated. @throws {UsageError} */
function concurrencyPoints(text: string | undefined): number[] {
  const points = (text ?? "1,8,32").split(",").map((x) => {
    const n = Number(x.trim());
    if (!Number.isInteger(n) || n < 1 || n > 4096) throw new UsageError(`Cannot use --concurrency point "${x}"`);
    return n;
  });
  if (new Set(points).size !== points.length) throw new UsageError("Cannot use --concurrency: a point repeats");
  return points;
}

/** --noise-floor's CONCURRENCY=FRACTION entries, per concurrency. @throws {UsageError} on a malformed entry */
function noiseFloorOf(text: unknown): Record<string, number> {
  const noiseFloor: Record<string, number> = {};
  if (typeof text === "string") {
    for (const part of text.split(",")) {
      const [c, f] = part.split("=");
      const cN = Number(c), fN = Number(f);
      if (!Number.isInteger(cN) || !(fN >= 0 && fN < 10)) {
        throw new UsageError(`Cannot use --noise-floor entry "${part}": expected CONCURRENCY=FRACTION`);
      }
      noiseFloor[String(cN)] = fN;
    }
  }
  return noiseFloor;
}

/** Parses compare's command line (for the help's examples test). @throws {UsageError}. */
export const parseCommandLine = parseCompareCommand;

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
  let code: number = result.pass ? EXIT.ok : EXIT.resultNotOk;
  if (command.files.html) {
    const context = await livePageContext({ text: `${outcome.lines.join("\n")}\n` });
    const page = await renderCompareHtml(result, "Release gate: candidate against baseline", context);
    const written = await writePage(`${stem}.html`, page, deps.writeText);
    if (written !== EXIT.ok) code = written;
  }
  printEnding(
    compareEnding(
      result,
      command.options.out ?? null,
      code,
      command.files.html ? `${stem}.html` : null,
      command.specPath !== null ? "spec" : "flag",
    ),
  );
  return code;
}

/** Entry point of `compare`. */
export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--from")) return await compareFrom(argv);
  let command: CompareCommand;
  try {
    command = parseCompareCommand(argv);
  } catch (error) {
    return endWith(error);
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
    if (command.specPath !== null) {
      options = applyCompareSpec(
        options,
        await readTextFile(command.specPath, { maxBytes: MAX_SPEC_BYTES }),
        command.specPath,
      );
    }
    if (command.noiseFloorFrom !== null) {
      options = {
        ...options,
        noiseFloor: recordedNoiseFloor(await readSavedResults(command.noiseFloorFrom, { rows: false })),
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
      for (const line of comparePlanLines(options, plan)) writeStderr(`${line}\n`);
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
    const code = endWith(error, undefined, { otherwise: EXIT.environment });
    return controller.signal.aborted ? EXIT.interrupted : code;
  } finally {
    view.finish();
    stop();
  }
}
