/**
 * `compare`: release gate of a candidate server against a baseline on this machine (performance methodology,
 * release validation). At each concurrency point the two are measured in interleaved rounds (warm-up, then
 * measured issuance, alternating which side goes first), and the gate holds when output tokens/s and TPOT p50
 * are within the tolerance (5%) or the point's noise floor when wider. A missing point fails; TTFT is shown only.
 */
import { parseArgs } from "node:util";
import { onTerminationSignal, writeStderr } from "../runtime/mod.ts";
import { sanitizeCommand } from "../report/sanitize.ts";
import { compareLoad, type ComparePointInput, type CompareResult } from "../score/load_compare.ts";
import type { EndpointLoadSummary } from "../score/load_summary.ts";
import { EXIT } from "./exit_codes.ts";
import {
  compareSchedule,
  type CompareSide,
  type CompareTarget,
  isProfileTarget,
  type ProfileStarter,
  runCompareSessions,
} from "./_compare_sessions.ts";
import {
  executeLoad,
  type LoadCommandDeps,
  numberFlag,
  parseWorkloadFlags,
  prepareWorkload,
  realLoadDeps,
  requireLoopback,
  UsageError,
  WORKLOAD_OPTIONS,
  type WorkloadOptions,
} from "./load.ts";

export const COMPARE_FORMAT_LINE = "strata-load-compare-run" as const;

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
} as const;

export interface CompareCommandOptions {
  baseline: CompareTarget;
  candidate: CompareTarget;
  points: number[];
  rounds: number;
  requests: number | undefined;
  durationS: number | undefined;
  warmupRequests: number | undefined;
  tolerance: number;
  noiseFloor: Record<number, number>;
  workload: WorkloadOptions;
  out: string | undefined;
}

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

/** How a side is written into the JSONL: its URL, or its profile reference with machine paths redacted. */
function targetStamp(target: CompareTarget): { url: string } | { profile: string } {
  return isProfileTarget(target) ? { profile: sanitizeCommand([target.profile]) } : { url: target.url };
}

/** Parses the `compare` command line. @throws UsageError. */
export function parseCompareArgs(argv: string[]): CompareCommandOptions {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`Cannot read the command line: ${(error as Error).message}`);
  }
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
  const requests = numberFlag(values, "requests", { integer: true, min: 1, max: 100_000 });
  const durationS = numberFlag(values, "duration", { min: 0.001, max: 3600 });
  if (requests !== undefined && durationS !== undefined) {
    throw new UsageError("Cannot compare: pass --requests or --duration, not both");
  }
  return {
    baseline,
    candidate,
    points,
    rounds: numberFlag(values, "rounds", { integer: true, min: 1, max: 50 }) ?? 2,
    requests,
    durationS,
    warmupRequests: numberFlag(values, "warmup-requests", { integer: true, min: 0, max: 100_000 }),
    tolerance: numberFlag(values, "tolerance", { min: 0, max: 1 }) ?? 0.05,
    noiseFloor,
    workload: parseWorkloadFlags(values),
    out: values.out as string | undefined,
  };
}

/** What `compare` touches outside itself: load's dependencies, plus the engine starter for profile sides. */
export interface CompareDeps extends LoadCommandDeps {
  /** Required when a side is a profile (the CLI passes engine/mod.ts's startProfileEngine). */
  startProfile?: ProfileStarter;
}

/**
 * Measures every point in interleaved rounds (see HELP for the two readings) and returns the gate verdict with
 * the JSONL lines. Engines started for profile sides are stopped before this returns or throws.
 */
export async function runCompare(
  options: CompareCommandOptions,
  deps: CompareDeps,
): Promise<{ result: CompareResult; lines: string[] }> {
  const perRound = (c: number) => options.requests ?? Math.max(8, 4 * c);
  const workload = await prepareWorkload(
    options.workload,
    options.requests ?? Math.max(...options.points.map(perRound)),
    deps.readText,
  );
  const targets = { baseline: options.baseline, candidate: options.candidate };
  const sessions = compareSchedule(targets, options.points, options.rounds);
  // Every line passes the sanitizer, as run and load outputs do: summaries can carry server error text.
  const encode = (value: unknown): string => JSON.stringify(deps.sanitizer.json(value));
  const lines = [encode({
    format: COMPARE_FORMAT_LINE,
    version: 1,
    kind: "config",
    baseline: targetStamp(options.baseline),
    candidate: targetStamp(options.candidate),
    schedule: sessions.some((s) => s.points.length > 1) ? "engines-in-turn" : "alternate-per-point",
    points: options.points,
    rounds: options.rounds,
    requests_per_round: options.requests ?? null,
    duration_s_per_round: options.durationS ?? null,
    tolerance: options.tolerance,
    noise_floor: options.noiseFloor,
    workload: workload.stamp,
  })];
  const rounds = new Map<number, Record<CompareSide, EndpointLoadSummary[]>>(
    options.points.map((c) => [c, { baseline: [], candidate: [] }]),
  );
  await runCompareSessions(targets, sessions, {
    ...(deps.startProfile ? { startProfile: deps.startProfile } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    progress: (line) => deps.stderr(`${line}\n`),
    record: (line) => lines.push(encode({ format: COMPARE_FORMAT_LINE, version: 1, ...line })),
    measure: async (side, url, concurrency, round) => {
      const plan: Parameters<typeof executeLoad>[0]["plan"] = {
        mode: "closed",
        concurrency,
        warmupRequests: options.warmupRequests ?? concurrency,
        requestDeadlineS: options.workload.requestTimeoutS,
      };
      if (options.durationS !== undefined) plan.durationS = options.durationS;
      else plan.requests = perRound(concurrency);
      const run = await executeLoad({
        urls: [url],
        plan,
        workload,
        seed: (options.workload.seed + round) >>> 0,
        lateAfterS: 0.002,
        binS: 1,
        slo: {},
        ...(deps.signal ? { signal: deps.signal } : {}),
      }, deps);
      rounds.get(concurrency)![side].push(run.summary.overall);
      lines.push(encode({ side, concurrency, round, ...run.summary }));
    },
  });
  const inputs: ComparePointInput[] = options.points.map((concurrency) => ({
    concurrency,
    ...rounds.get(concurrency)!,
  }));
  const result = compareLoad(inputs, {
    seed: options.workload.seed,
    expectedConcurrency: options.points,
    toleranceFraction: options.tolerance,
    recordedNoiseFloor: options.noiseFloor,
  });
  lines.push(encode(result));
  return { result, lines };
}

function pct(x: number | null): string {
  return x === null ? "-" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
}

function num(x: number | null, unit: "ms" | ""): string {
  if (x === null) return "-";
  return unit === "ms" ? (x * 1000).toFixed(2) : x.toFixed(1);
}

/** Table of deltas with intervals, from the verdict object. */
export function renderCompare(result: CompareResult): string {
  const header = ["point", "metric", "baseline", "candidate", "delta", "95% interval", "allowed", "verdict"];
  const rows: string[][] = [];
  for (const p of result.points) {
    for (const m of p.metrics) {
      const unit = m.metric === "output_tokens_per_s" ? "" : "ms";
      rows.push([
        `c=${p.concurrency}`,
        m.metric === "output_tokens_per_s" ? "output tok/s" : m.metric === "tpot_p50_s" ? "TPOT p50 ms" : "TTFT p50 ms",
        num(m.baseline, unit),
        num(m.candidate, unit),
        pct(m.delta_fraction),
        m.delta_interval ? `[${pct(m.delta_interval.lower)}, ${pct(m.delta_interval.upper)}]` : "-",
        m.allowed_fraction === null ? "-" : `+-${(m.allowed_fraction * 100).toFixed(1)}%`,
        m.pass === null ? "info" : m.pass ? "pass" : `FAIL${m.reason.startsWith("missing") ? " (missing)" : ""}`,
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [
    `compare: tolerance +-${(result.tolerance_fraction * 100).toFixed(1)}% or the point's noise floor; ` +
    `intervals: seeded percentile bootstrap over rounds (seed ${result.seed})`,
    line(header),
    ...rows.map(line),
    `gate: ${result.pass ? "PASS" : "FAIL"}`,
  ].join("\n") + "\n";
}

/** Entry point of `compare`. */
export async function main(argv: string[]): Promise<number> {
  let options: CompareCommandOptions;
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
    const deps: CompareDeps = await realLoadDeps(controller.signal);
    if (isProfileTarget(options.baseline) || isProfileTarget(options.candidate)) {
      // Loaded only when needed, as `run --profile` does: URL-only comparisons never touch the engine part.
      const { startProfileEngine } = await import("../engine/mod.ts");
      deps.startProfile = startProfileEngine;
    }
    const { result, lines } = await runCompare(options, deps);
    deps.stdout(renderCompare(result));
    if (options.out !== undefined) {
      const written = await deps.writeText(options.out, lines.join("\n") + "\n");
      if (!written.ok) {
        deps.stderr(`Cannot write "${options.out}": ${written.reason}\n`);
        return EXIT.environment;
      }
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
