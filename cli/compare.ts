/**
 * `compare`: release gate of a candidate server against a baseline on this machine (performance methodology,
 * release validation). At each concurrency point the two are measured in interleaved rounds (warm-up, then
 * measured issuance, alternating which side goes first), and the gate holds when output tokens/s and TPOT p50
 * are within the tolerance (5%) or the point's noise floor when wider. A missing point fails; TTFT is shown only.
 */
import { parseArgs } from "node:util";
import { onTerminationSignal, writeStderr } from "../runtime/mod.ts";
import { compareLoad, type ComparePointInput, type CompareResult } from "../score/load_compare.ts";
import type { EndpointLoadSummary } from "../score/load_summary.ts";
import { EXIT } from "./exit_codes.ts";
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

export const HELP = `Usage: strata-bench compare --baseline URL --candidate URL [options]

Gates a candidate server against a baseline on this machine (loopback URLs only). At each concurrency point both
are measured in interleaved rounds: warm-up, then measured issuance, the first side alternating per round. The
gate holds when the candidate's output tokens/s and TPOT p50 are within --tolerance of the baseline's at every
point, or within the point's noise floor when that is wider (measured from the baseline's own rounds, or given
with --noise-floor). A point without a value fails. TTFT is reported, not gated. Engine profiles (starting the
servers from a profile) are not available yet: start both servers yourself and pass their URLs.

Options:
  --baseline URL            the reference server
  --candidate URL           the server under test
  --concurrency LIST        closed-loop points, comma-separated (default 1,8,32)
  --rounds R                measured rounds per side and point (default 2; >= 2 gives intervals and a noise floor)
  --requests N              measured requests per round and side (default: 4 x the point's concurrency, >= 8)
  --duration S              instead of --requests: seconds of measured issuance per round and side
  --warmup-requests N       warm-up requests before each measured round (default: the point's concurrency)
  --tolerance F             gate tolerance as a fraction (default 0.05)
  --noise-floor LIST        recorded noise floors, e.g. 1=0.03,8=0.04 (fraction per point)
  --out FILE.jsonl          config line, every round's summary, and the verdict as versioned JSONL

Workload (same bytes for both sides; default --profile chat-short):
  --profile NAME | --prompts FILE.jsonl | --sharegpt FILE.json, --sample N, --seed N, --max-tokens N,
  --ignore-eos, --model NAME, --allow-repeated-prompt, --request-timeout S   (see load --help)

Exit codes:
  ${EXIT.ok}  the gate holds at every point
  ${EXIT.resultNotOk}  the gate fails (a metric outside tolerance, or a missing point)
  ${EXIT.usage}  usage error (unknown flag, bad value, non-loopback URL)
  ${EXIT.environment}  environment failure (file unreadable, output not writable)
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
  baseline: string;
  candidate: string;
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

/** Parses the `compare` command line. @throws UsageError. */
export function parseCompareArgs(argv: string[]): CompareCommandOptions {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`Cannot read the command line: ${(error as Error).message}`);
  }
  if (values["baseline-profile"] !== undefined || values["candidate-profile"] !== undefined) {
    throw new UsageError(
      "Cannot compare engine profiles: starting servers from a profile is not available yet; start both servers " +
        "and pass --baseline URL --candidate URL",
    );
  }
  if (typeof values.baseline !== "string" || typeof values.candidate !== "string") {
    throw new UsageError("Cannot compare: pass both --baseline URL and --candidate URL");
  }
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
    baseline: requireLoopback(values.baseline),
    candidate: requireLoopback(values.candidate),
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

/** Measures every point in interleaved rounds and returns the gate verdict with the JSONL lines. */
export async function runCompare(
  options: CompareCommandOptions,
  deps: LoadCommandDeps,
): Promise<{ result: CompareResult; lines: string[] }> {
  const perRound = (c: number) => options.requests ?? Math.max(8, 4 * c);
  const workload = await prepareWorkload(
    options.workload,
    options.requests ?? Math.max(...options.points.map(perRound)),
    deps.readText,
  );
  const lines = [JSON.stringify({
    format: COMPARE_FORMAT_LINE,
    version: 1,
    kind: "config",
    baseline: options.baseline,
    candidate: options.candidate,
    points: options.points,
    rounds: options.rounds,
    requests_per_round: options.requests ?? null,
    duration_s_per_round: options.durationS ?? null,
    tolerance: options.tolerance,
    noise_floor: options.noiseFloor,
    workload: workload.stamp,
  })];
  const inputs: ComparePointInput[] = [];
  for (const concurrency of options.points) {
    const sides: Record<"baseline" | "candidate", EndpointLoadSummary[]> = { baseline: [], candidate: [] };
    for (let round = 0; round < options.rounds && !deps.signal?.aborted; round++) {
      const order = round % 2 === 0 ? ["baseline", "candidate"] as const : ["candidate", "baseline"] as const;
      for (const side of order) {
        if (deps.signal?.aborted) break;
        deps.stderr(`compare: concurrency ${concurrency}, round ${round + 1}/${options.rounds}, ${side}\n`);
        const plan: Parameters<typeof executeLoad>[0]["plan"] = {
          mode: "closed",
          concurrency,
          warmupRequests: options.warmupRequests ?? concurrency,
          requestDeadlineS: options.workload.requestTimeoutS,
        };
        if (options.durationS !== undefined) plan.durationS = options.durationS;
        else plan.requests = perRound(concurrency);
        const run = await executeLoad({
          urls: [options[side]],
          plan,
          workload,
          seed: (options.workload.seed + round) >>> 0,
          lateAfterS: 0.002,
          binS: 1,
          slo: {},
          ...(deps.signal ? { signal: deps.signal } : {}),
        }, deps);
        sides[side].push(run.summary.overall);
        lines.push(JSON.stringify({ side, concurrency, round, ...run.summary }));
      }
    }
    inputs.push({ concurrency, baseline: sides.baseline, candidate: sides.candidate });
  }
  const result = compareLoad(inputs, {
    seed: options.workload.seed,
    expectedConcurrency: options.points,
    toleranceFraction: options.tolerance,
    recordedNoiseFloor: options.noiseFloor,
  });
  lines.push(JSON.stringify(result));
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
  const stop = onTerminationSignal(() => controller.abort());
  try {
    const deps = await realLoadDeps(controller.signal);
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
