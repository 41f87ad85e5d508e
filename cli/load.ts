/**
 * `load`: load test of loopback chat servers by the performance methodology. Closed loop (--concurrency) or open
 * loop (--rate, seeded Poisson or constant arrivals, --max-concurrency), warm-up first, bounded by --requests or
 * --duration; request rows and the summary go to versioned JSONL; the console prints the same summary objects.
 * `--self-check` loads the in-process scripted engine with zero service time to show the client's own ceiling.
 */
import { join } from "node:path";
import { onTerminationSignal, statOutcome, writeStderr, writeStdout } from "../runtime/mod.ts";
import { classifyServerUrl } from "../client/mod.ts";
import type { ArrivalProcess } from "../contract/mod.ts";
import {
  consoleHooks,
  type LengthTarget,
  type LoadTestOptions,
  type LoadTestOutcome,
  PROFILES,
  realLoadDeps,
  renderLoadHtml,
  runLoadTest,
  type Slo,
  type WorkloadOptions,
} from "../load/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";

const WORKLOAD_HELP = `Workload (one of; default --profile chat-short):
  --profile NAME            synthetic seeded profile: ${Object.keys(PROFILES).join(", ")}
  --prompts FILE.jsonl      prompt set, one request a line ({"prompt": ...} or {"messages": [...]}, "max_tokens")
  --sharegpt FILE.json      ShareGPT-format conversations (first human turn of each)
  --sample N                seeded selection of N prompts from the set (default: all; profiles generate 256)
  --seed N                  seed of the selection, the profile text and the arrivals (default 1)
  --max-tokens N            output cap where a prompt has none (required with --osl-target and a file)
  --ignore-eos              ask the engine to generate until the cap (engine extension)
  --model NAME              model field of each request
  --allow-repeated-prompt   accept a set whose requests all send the same prompt (not a real workload)
  --request-timeout S       per-request deadline (default 600)`;

export const HELP =
  `Usage: strata-bench load --url URL [--url URL ...] (--concurrency N | --rate R) (--requests N | --duration S) [options]
       strata-bench load --self-check [--concurrency N] [--requests N]

Load-tests OpenAI-compatible streaming chat servers on this machine (loopback only: 127.0.0.0/8, ::1, localhost;
other hosts are refused). Several --url values share the load round-robin; each gets its own summary plus a
pooled_mixture. Warm-up requests run and complete first; measurement starts right after them.

Load:
  --concurrency N           closed loop: N requests outstanding at all times
  --rate R                  open loop: R arrivals/s on an absolute schedule from --seed
  --arrival poisson|constant  open-loop arrival process (default poisson)
  --max-concurrency N       open loop: cap on outstanding requests; an arrival at the cap is sent late (lateness
                            recorded; coordinated-omission latency includes it) or dropped, see below
  --drop-late-after-ms MS   open loop: drop an arrival instead of sending it more than MS late (default: never)
  --late-after-ms MS        lateness above which a request counts as late (default 2)
  --requests N              measured requests (at most 100000)
  --duration S              stop issuing after S seconds of measurement (at most 3600); in-flight requests drain
  --warmup-requests N       default: the concurrency (closed) or 4 (open); 0 only for scripted/dummy servers
  --repeat K                K independent runs; adds a cross-run aggregate with seeded bootstrap 95% intervals

${WORKLOAD_HELP}

Targets and SLOs:
  --isl-target N, --isl-tolerance F (default 0.1), --isl-stat mean|median (default mean)
  --osl-target N, --osl-tolerance F (default 0.1), --osl-stat mean|median (default mean)
  --fail-on-osl-mismatch    exit ${EXIT.resultNotOk} when any measured request's output length is outside tolerance
  --slo-ttft-ms MS, --slo-tpot-ms MS, --slo-e2e-ms MS   goodput counts answered successes meeting all of them
  --bin-s S                 throughput bin width (default 1)

Output:
  --out FILE.jsonl          config line, every request row, the summary (and aggregate) as versioned JSONL
  --html FILE               one self-contained page (opens offline): latency CDFs (E2E, TTFT, TPOT, ITL,
                            coordinated-omission), throughput and requests in flight over time, per endpoint
                            and pooled; FILE may be a folder (load.html is written into it)

Self-check:
  --self-check              start the scripted engine in-process with zero service time and load it
                            (default --concurrency 64 --requests 2000): the client's own ceiling

Exit codes:
  ${EXIT.ok}  the run completed
  ${EXIT.resultNotOk}  ran, but every request failed, or --fail-on-osl-mismatch found a mismatch
  ${EXIT.usage}  usage error (unknown flag, bad value, non-loopback URL, unbounded load, repeated prompt)
  ${EXIT.environment}  environment failure (file unreadable, output not writable)
`;

/** Flags shared by `load` and `compare` that choose what is sent. */
export const WORKLOAD_OPTIONS = {
  profile: { type: "string" },
  prompts: { type: "string" },
  sharegpt: { type: "string" },
  sample: { type: "string" },
  seed: { type: "string" },
  "max-tokens": { type: "string" },
  "ignore-eos": { type: "boolean" },
  model: { type: "string" },
  "allow-repeated-prompt": { type: "boolean" },
  "request-timeout": { type: "string" },
} as const;

const LOAD_OPTIONS = {
  ...WORKLOAD_OPTIONS,
  url: { type: "string", multiple: true },
  "self-check": { type: "boolean" },
  concurrency: { type: "string" },
  rate: { type: "string" },
  arrival: { type: "string" },
  "max-concurrency": { type: "string" },
  "drop-late-after-ms": { type: "string" },
  "late-after-ms": { type: "string" },
  requests: { type: "string" },
  duration: { type: "string" },
  "warmup-requests": { type: "string" },
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
  "bin-s": { type: "string" },
  out: { type: "string" },
  html: { type: "string" },
} as const;

/** Reads the workload flags. @throws UsageError. */
export function parseWorkloadFlags(action: string, values: Record<string, unknown>): WorkloadOptions {
  const chosen = ["profile", "prompts", "sharegpt"].filter((k) => values[k] !== undefined);
  if (chosen.length > 1) {
    throw new UsageError(`Cannot ${action}: pass only one workload: --profile, --prompts or --sharegpt`);
  }
  const profile = values.profile as string | undefined;
  if (profile !== undefined && !Object.hasOwn(PROFILES, profile)) {
    throw new UsageError(`Cannot use --profile "${profile}": choose one of ${Object.keys(PROFILES).join(", ")}`);
  }
  const source: WorkloadOptions["source"] = values.prompts !== undefined
    ? { kind: "jsonl", path: values.prompts as string }
    : values.sharegpt !== undefined
    ? { kind: "sharegpt", path: values.sharegpt as string }
    : { kind: "profile", name: profile ?? "chat-short" };
  return {
    source,
    sample: numberFlag(action, values, "sample", { integer: true, min: 1, max: 100_000 }),
    seed: numberFlag(action, values, "seed", { integer: true, min: 0, max: 4294967295 }) ?? 1,
    maxTokens: numberFlag(action, values, "max-tokens", { integer: true, min: 1 }) ?? null,
    ignoreEos: values["ignore-eos"] === true,
    model: values.model as string | undefined,
    allowRepeatedPrompt: values["allow-repeated-prompt"] === true,
    requestTimeoutS: numberFlag(action, values, "request-timeout", { min: 0.001, max: 3600 }) ?? 600,
  };
}

/** Refuses anything but loopback: this tool never sends load off the machine. @throws UsageError. */
export function requireLoopback(url: string): string {
  let verdict;
  try {
    verdict = classifyServerUrl(url);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!verdict.loopback) {
    throw new UsageError(`Cannot load "${url}": ${verdict.reason}; load is only ever sent to this machine`);
  }
  return url.replace(/\/+$/, "");
}

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

/** A `load` command line: the test's options and where its page goes. */
export type LoadCommand = LoadTestOptions & { html: string | undefined };

/** Parses the `load` command line. @throws UsageError. */
export function parseLoadArgs(argv: string[]): LoadCommand {
  const values: Record<string, unknown> = parseFlags("load", argv, LOAD_OPTIONS).values;
  const selfCheck = values["self-check"] === true;
  const urls = ((values.url as string[] | undefined) ?? []).map(requireLoopback);
  if (selfCheck && urls.length > 0) {
    throw new UsageError("Cannot combine --self-check with --url: it loads its own engine");
  }
  if (!selfCheck && urls.length === 0) throw new UsageError("Cannot load: no --url; pass --url http://127.0.0.1:8080");
  const concurrency = numberFlag("load", values, "concurrency", { integer: true, min: 1, max: 4096 });
  const rate = numberFlag("load", values, "rate", { min: 0.001, max: 10_000 });
  if (concurrency !== undefined && rate !== undefined) {
    throw new UsageError("Cannot load: --concurrency (closed loop) and --rate (open loop) exclude each other");
  }
  const open = rate !== undefined;
  for (const flag of ["arrival", "max-concurrency", "drop-late-after-ms"]) {
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
  const plan: LoadTestOptions["plan"] = {
    mode: open ? "open" : "closed",
    warmupRequests: numberFlag("load", values, "warmup-requests", { integer: true, min: 0, max: 100_000 }) ??
      (open ? 4 : closedConcurrency as number),
  };
  if (!open) plan.concurrency = closedConcurrency as number;
  if (open) {
    plan.ratePerS = rate;
    plan.arrival = arrival as ArrivalProcess;
    if (maxConcurrency !== undefined) plan.maxConcurrency = maxConcurrency;
    if (dropLateMs !== undefined) plan.dropLateAfterS = dropLateMs / 1000;
  }
  if (requests !== undefined) plan.requests = requests;
  if (durationS !== undefined) plan.durationS = durationS;
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
  if (values["fail-on-osl-mismatch"] === true && osl === undefined && workload.source.kind !== "profile") {
    throw new UsageError("Cannot use --fail-on-osl-mismatch without --osl-target (or a --profile)");
  }
  if (osl !== undefined && workload.source.kind !== "profile" && workload.maxTokens === null) {
    throw new UsageError("Cannot target an OSL with a prompt file without --max-tokens N");
  }
  return {
    urls,
    selfCheck,
    plan,
    workload,
    lateAfterS: (numberFlag("load", values, "late-after-ms", { min: 0 }) ?? 2) / 1000,
    repeat: numberFlag("load", values, "repeat", { integer: true, min: 1, max: 100 }) ?? 1,
    isl: lengthTarget(values, "isl"),
    osl,
    failOnOslMismatch: values["fail-on-osl-mismatch"] === true,
    slo,
    binS: numberFlag("load", values, "bin-s", { min: 0.001, max: 3600 }) ?? 1,
    out: values.out as string | undefined,
    html: htmlFlag(values),
  };
}

/** --html's value. @throws UsageError for an empty one. */
export function htmlFlag(values: Record<string, unknown>): string | undefined {
  const html = values.html;
  if (html === undefined) return undefined;
  if (typeof html !== "string" || html.trim() === "") throw new UsageError("Cannot use --html: the path is empty");
  return html;
}

/**
 * Writes a page to `target`, or to `target`/`name` when target is a folder; returns the exit code and says where.
 */
export async function writeHtml(
  target: string,
  name: string,
  html: string,
  write: (path: string, text: string) => Promise<{ ok: true } | { ok: false; reason: string }>,
): Promise<number> {
  const folder = await statOutcome(target);
  const path = folder.ok && folder.value.isDirectory ? join(target, name) : target;
  const written = await write(path, html);
  if (!written.ok) {
    writeStderr(`Cannot write "${path}": ${written.reason}\n`);
    return EXIT.environment;
  }
  writeStderr(`page written to ${path} (self-contained; opens offline)\n`);
  return EXIT.ok;
}

/** The exit code of a finished load test, with its one line on stderr when it did not succeed. */
export function loadExitCode(options: LoadTestOptions, outcome: LoadTestOutcome): number {
  switch (outcome.status) {
    case "ok":
      return EXIT.ok;
    case "write-failed":
      writeStderr(`Cannot write "${options.out}": ${outcome.reason}\n`);
      return EXIT.environment;
    case "no-success":
      writeStderr("load: no measured request succeeded\n");
      return EXIT.resultNotOk;
    case "osl-mismatch":
      writeStderr("load: --fail-on-osl-mismatch: measured output lengths outside the OSL tolerance\n");
      return EXIT.resultNotOk;
  }
}

/** Entry point of `load`. */
export async function main(argv: string[]): Promise<number> {
  let options: LoadCommand;
  try {
    options = parseLoadArgs(argv);
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const controller = new AbortController();
  const stop = onTerminationSignal(() => controller.abort());
  try {
    const deps = realLoadDeps(controller.signal);
    const outcome = await runLoadTest(
      options,
      deps,
      consoleHooks(options, { stdout: writeStdout, stderr: writeStderr }),
    );
    const code = loadExitCode(options, outcome);
    if (options.html === undefined || outcome.runs.length === 0) return code;
    const page = await renderLoadHtml(outcome.runs, `Load test of ${options.urls.join(", ") || "the scripted engine"}`);
    const written = await writeHtml(options.html, "load.html", page, deps.writeText);
    return code === EXIT.ok ? written : code;
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    if (error instanceof UsageError || error instanceof SyntaxError || error instanceof RangeError) return EXIT.usage;
    return EXIT.environment;
  } finally {
    stop();
  }
}
