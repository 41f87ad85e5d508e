/**
 * `compare`: release gate of a candidate server against a baseline on this machine (performance methodology,
 * release validation). At each concurrency point the two are measured in interleaved rounds (warm-up, then
 * measured issuance, alternating which side goes first), and the gate holds when output tokens/s and TPOT p50
 * are within the tolerance (5%) or the point's noise floor when wider. A missing point fails; TTFT is shown only.
 */
import { onTerminationSignal, writeStderr, writeStdout } from "../runtime/mod.ts";
import {
  type CompareDeps,
  type CompareRunOptions,
  type CompareSide,
  type CompareTarget,
  isProfileTarget,
  realLoadDeps,
  renderCompare,
  renderCompareHtml,
  runCompare,
} from "../load/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";
import { htmlFlag, parseWorkloadFlags, requireLoopback, WORKLOAD_OPTIONS, writeHtml } from "./load.ts";

export const HELP = `Usage: strata-bench compare (--baseline URL | --baseline-profile NAME)
                             (--candidate URL | --candidate-profile NAME) [options]

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
point, or within the point's noise floor when that is wider (measured from the baseline's own rounds, or given
with --noise-floor). A point without a value fails. TTFT is reported, not gated.

Options:
  --baseline URL            the reference server, already running
  --baseline-profile NAME   or: start the reference from an engine profile for each of its turns
  --candidate URL           the server under test, already running
  --candidate-profile NAME  or: start the server under test from an engine profile for each of its turns
  --concurrency LIST        closed-loop points, comma-separated (default 1,8,32)
  --rounds R                measured rounds per side and point (default 2; >= 2 gives intervals and a noise floor)
  --requests N              measured requests per round and side (default: 4 x the point's concurrency, >= 8)
  --duration S              instead of --requests: seconds of measured issuance per round and side
  --warmup-requests N       warm-up requests before each measured round (default: the point's concurrency)
  --tolerance F             gate tolerance as a fraction (default 0.05)
  --noise-floor LIST        recorded noise floors, e.g. 1=0.03,8=0.04 (fraction per point)
  --out FILE.jsonl          config line, each turn's server (URL, or profile and sanitized engine arguments),
                            every round's summary, and the verdict as versioned JSONL
  --html FILE               one self-contained page (opens offline): each point's baseline and candidate with
                            the gate band; FILE may be a folder (compare.html is written into it)

Workload (same bytes for both sides; default --profile chat-short; --profile names a workload, not an engine):
  --profile NAME | --prompts FILE.jsonl | --sharegpt FILE.json, --sample N, --seed N, --max-tokens N,
  --ignore-eos, --model NAME, --allow-repeated-prompt, --request-timeout S   (see load --help)

Exit codes:
  ${EXIT.ok}  the gate holds at every point
  ${EXIT.resultNotOk}  the gate fails (a metric outside tolerance, or a missing point)
  ${EXIT.usage}  usage error (unknown flag, bad value, non-loopback URL)
  ${EXIT.environment}  environment failure (file unreadable, output not writable, engine failed to start)

Starting a profile's engine needs permission to run its program (as \`deno task bench:profile\` grants llama-server).
`;

const OPTIONS = {
  ...WORKLOAD_OPTIONS,
  baseline: { type: "string" },
  candidate: { type: "string" },
  "baseline-profile": { type: "string" },
  "candidate-profile": { type: "string" },
  concurrency: { type: "string" },
  rounds: { type: "string" },
  requests: { type: "string" },
  duration: { type: "string" },
  "warmup-requests": { type: "string" },
  tolerance: { type: "string" },
  "noise-floor": { type: "string" },
  out: { type: "string" },
  html: { type: "string" },
} as const;

function targetOf(values: Record<string, unknown>, side: CompareSide): CompareTarget {
  const url = values[side], profile = values[`${side}-profile`];
  if (url !== undefined && profile !== undefined) {
    throw new UsageError(`Cannot compare: pass --${side} URL or --${side}-profile NAME, not both`);
  }
  if (typeof profile === "string") {
    if (profile.trim() === "") throw new UsageError(`Cannot use --${side}-profile: the profile name is empty`);
    return { profile };
  }
  if (typeof url === "string") return { url: requireLoopback(url) };
  throw new UsageError(
    "Cannot compare: pass both sides, each as a URL or a profile: --baseline URL | --baseline-profile NAME, and " +
      "--candidate URL | --candidate-profile NAME",
  );
}

/** Parses the `compare` command line. @throws UsageError. */
export function parseCompareArgs(argv: string[]): CompareRunOptions & { html: string | undefined } {
  const values: Record<string, unknown> = parseFlags("compare", argv, OPTIONS).values;
  const baseline = targetOf(values, "baseline");
  const candidate = targetOf(values, "candidate");
  const points = ((values.concurrency as string | undefined) ?? "1,8,32").split(",").map((x) => {
    const n = Number(x.trim());
    if (!Number.isInteger(n) || n < 1 || n > 4096) throw new UsageError(`Cannot use --concurrency point "${x}"`);
    return n;
  });
  if (new Set(points).size !== points.length) throw new UsageError("Cannot use --concurrency: a point repeats");
  const noiseFloor: Record<number, number> = {};
  if (typeof values["noise-floor"] === "string") {
    for (const part of values["noise-floor"].split(",")) {
      const [c, f] = part.split("=");
      const cN = Number(c), fN = Number(f);
      if (!Number.isInteger(cN) || !(fN >= 0 && fN < 10)) {
        throw new UsageError(`Cannot use --noise-floor entry "${part}": expected CONCURRENCY=FRACTION`);
      }
      noiseFloor[cN] = fN;
    }
  }
  const requests = numberFlag("compare", values, "requests", { integer: true, min: 1, max: 100_000 });
  const durationS = numberFlag("compare", values, "duration", { min: 0.001, max: 3600 });
  if (requests !== undefined && durationS !== undefined) {
    throw new UsageError("Cannot compare: pass --requests or --duration, not both");
  }
  return {
    baseline,
    candidate,
    points,
    rounds: numberFlag("compare", values, "rounds", { integer: true, min: 1, max: 50 }) ?? 2,
    requests,
    durationS,
    warmupRequests: numberFlag("compare", values, "warmup-requests", { integer: true, min: 0, max: 100_000 }),
    tolerance: numberFlag("compare", values, "tolerance", { min: 0, max: 1 }) ?? 0.05,
    noiseFloor,
    workload: parseWorkloadFlags("compare", values),
    out: values.out as string | undefined,
    html: htmlFlag(values),
  };
}

/** Entry point of `compare`. */
export async function main(argv: string[]): Promise<number> {
  let options: CompareRunOptions & { html: string | undefined };
  try {
    options = parseCompareArgs(argv);
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const controller = new AbortController();
  const stop = onTerminationSignal((signal) => {
    if (controller.signal.aborted) return;
    writeStderr(`\n${signal}: stopping; engines started here are stopped before exit\n`);
    controller.abort(signal);
  });
  try {
    const deps: CompareDeps = { ...realLoadDeps(controller.signal), progress: (line) => writeStderr(`${line}\n`) };
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
