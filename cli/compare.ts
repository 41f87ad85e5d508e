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
} from "../load/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";
import { parseWorkloadFlags, requireLoopback, WORKLOAD_OPTIONS } from "./_workload_args.ts";
import { htmlFlag, writeHtml } from "./load.ts";

export const HELP = `Usage: strata-bench compare (--baseline URL | --baseline-profile NAME)
                             (--candidate URL | --candidate-profile NAME) [--spec SPEC.jsonc | options]
       strata-bench compare --plan SPEC.jsonc [sides]      (prints every run it would make; sends nothing)

Gates a candidate server against a baseline on this machine (loopback only). Each side is a running server's URL
or an engine profile (a name under profiles/ or a .jsonc path) started here; the two may be mixed. Every
measurement is a warm-up, then measured issuance. "Interleaved" means:
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

Options:
  --baseline URL            the reference server, already running
  --baseline-profile NAME   or: start the reference from an engine profile for each of its turns
  --candidate URL           the server under test, already running
  --candidate-profile NAME  or: start the server under test from an engine profile for each of its turns
  --concurrency LIST        closed-loop points, comma-separated (default 1,8,32)
  --rounds R                measured rounds per side and point (default 2; >= 2 gives intervals and a noise floor)
  --requests N              measured requests per round and side (default: 4 x the point's concurrency, >= 8)
  --duration S              instead of --requests: seconds of measured issuance per round and side
  --drain-s S               with --duration: in-flight requests are cancelled S s after it (default ${SPEC_DEFAULTS.drainS})
  --warmup-requests N       warm-up requests before each measured round (default: the point's concurrency)
  --warmup-s S              or: seconds of warm-up issuance before each measured round
  --tolerance F             gate tolerance as a fraction (default 0.05)
  --max-error-rate-increase F  most the candidate's error rate may exceed the baseline's (default ${DEFAULT_MAX_ERROR_RATE_INCREASE})
  --noise-floor LIST        noise floors to apply, e.g. 1=0.03,8=0.04 (fraction per concurrency point)
  --noise-floor-from FILE   reuse the noise floor an earlier compare recorded in its --out JSONL
  --html FILE               one self-contained page (opens offline): each point's baseline and candidate with
                            the gate band; FILE may be a folder (compare.html is written into it)
  --out FILE.jsonl          config line, each turn's server (URL, or profile and sanitized engine arguments),
                            every round's summary, and the verdict as versioned JSONL

Workload without a spec (same bytes for both sides; labelled W1; default --profile chat-short; --profile names a
workload, not an engine):
  --profile NAME | --synthetic NAME | --prompts FILE.jsonl | --sharegpt FILE.json, --workload-sha256 HEX,
  --sample N, --seed N, --max-tokens N, --min-tokens N, --ignore-eos, --temperature T, --request-seed N,
  --no-stream, --model NAME, --allow-repeated-prompt, --request-timeout S   (see load --help)

Exit codes:
  ${EXIT.ok}  the gate holds at every point
  ${EXIT.resultNotOk}  the gate fails (a metric outside tolerance, or a missing point)
  ${EXIT.usage}  usage error (unknown flag, bad value, non-loopback URL, a spec with an unknown key, a workload whose
     SHA-256 differs from its pin: all refused before any traffic)
  ${EXIT.environment}  environment failure (file unreadable, output not writable, engine failed to start)

Starting a profile's engine needs permission to run its program (as \`deno task bench:profile\` grants llama-server).
`;

const OPTIONS = {
  ...WORKLOAD_OPTIONS,
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
  html: { type: "string" },
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
  options: CompareRunOptions & { html: string | undefined };
  specPath: string | null;
  planOnly: boolean;
  noiseFloorFrom: string | null;
}

const SPEC_OWNS = [
  "profile",
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
  const values: Record<string, unknown> = parseFlags("compare", argv, OPTIONS).values;
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
  const options: CompareRunOptions & { html: string | undefined } = {
    html: htmlFlag(values),
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
    out: values.out as string | undefined,
  };
  return { options, specPath, planOnly, noiseFloorFrom: (values["noise-floor-from"] as string | undefined) ?? null };
}

/** Parses the `compare` command line without a spec. @throws UsageError. */
export function parseCompareArgs(argv: string[]): CompareRunOptions & { html: string | undefined } {
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

/** Entry point of `compare`. */
export async function main(argv: string[]): Promise<number> {
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
    writeStderr(`\n${signal}: stopping; engines started here are stopped before exit\n`);
    controller.abort(signal);
  });
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
      progress: (line) => writeStderr(`${line}\n`),
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
    const { result, lines } = await runCompare(options, deps);
    writeStdout(renderCompare(result));
    if (options.out !== undefined) {
      const written = await deps.writeText(options.out, lines.join("\n") + "\n");
      if (!written.ok) {
        writeStderr(`Cannot write "${options.out}": ${written.reason}\n`);
        return EXIT.environment;
      }
    }
    if (options.html !== undefined) {
      const page = await renderCompareHtml(result, "Release gate: candidate against baseline");
      const written = await writeHtml(options.html, "compare.html", page, deps.writeText);
      if (written !== EXIT.ok) return written;
    }
    return result.pass ? EXIT.ok : EXIT.resultNotOk;
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    if (error instanceof UsageError || error instanceof SyntaxError || error instanceof RangeError) return EXIT.usage;
    return EXIT.environment;
  } finally {
    stop();
  }
}
