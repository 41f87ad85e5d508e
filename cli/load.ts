/**
 * `load`: load test of loopback chat servers by the performance methodology. Closed loop (--concurrency) or open
 * loop (--rate, seeded Poisson or constant arrivals, --max-concurrency), warm-up first, bounded by --requests or
 * --duration with a drain limit; request rows and the summary go to versioned JSONL as they happen; the console
 * prints the same summary objects. `--plan` shows the plan without traffic; `--self-check` loads the in-process
 * scripted engine to show the client's own ceiling; `--shard` runs one generator of a fleet; `load merge` joins
 * the fleet's files.
 */
import { join } from "node:path";
import { env, onTerminationSignal, statOutcome, sys, writeStderr, writeStdout } from "../runtime/mod.ts";
import type { ArrivalProcess } from "../contract/mod.ts";
import {
  consoleHooks,
  describeLoadPlan,
  type LengthTarget,
  type LoadTestOptions,
  type LoadTestOutcome,
  realLoadDeps,
  renderLoadHtml,
  runLoadTest,
  type Slo,
} from "../load/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { parseShardFlags, SHARD_HELP, SHARD_OPTIONS } from "./_shard_args.ts";
import { parseWorkloadFlags, requireLoopback, WORKLOAD_HELP, WORKLOAD_OPTIONS } from "./_workload_args.ts";
import { EXIT } from "./exit_codes.ts";
import { main as mergeMain, MERGE_HELP } from "./_load_merge.ts";

export { parseWorkloadFlags, requireLoopback, WORKLOAD_OPTIONS };

/** Default drain limit of a --duration run, seconds. */
export const DEFAULT_DRAIN_S = 30;

export const HELP =
  `Usage: strata-bench load --url URL [--url URL ...] (--concurrency N | --rate R) (--requests N | --duration S) [options]
       strata-bench load --self-check [--concurrency N] [--requests N]
       strata-bench load --plan [--print-schedule] ...   (shows the plan; sends nothing)
       strata-bench load merge FILE... [--out FILE]

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
  --duration S              measured issuance for S seconds (at most 3600), then the drain limit
  --drain-s S               in-flight requests still running S seconds after issuance stops are cancelled and
                            recorded as failed, "cancelled by the drain limit" (default ${DEFAULT_DRAIN_S} with --duration;
                            without --duration: none, each request's own --request-timeout bounds it)
  --warmup-requests N       default: the concurrency (closed), --max-concurrency (open), else the rate's one
                            second (4 to 256); 0 only for scripted/dummy servers (a warning says so)
  --warmup-s S              warm up by time instead: S seconds of warm-up issuance
  --repeat K                K independent runs; adds a cross-run aggregate with seeded bootstrap 95% intervals

${WORKLOAD_HELP}

Targets, SLOs and audits:
  --isl-target N, --isl-tolerance F (default 0.1), --isl-stat mean|median (default mean)
  --osl-target N, --osl-tolerance F (default 0.1), --osl-stat mean|median (default mean)
                            a target no run of the workload can meet is refused before any traffic
  --fail-on-osl-mismatch    exit ${EXIT.resultNotOk} when any measured request's output length is outside tolerance
  --slo-ttft-ms MS, --slo-tpot-ms MS, --slo-e2e-ms MS   goodput counts answered successes meeting all of them
  --allow-missing-ttft      the TTFT audit accepts successes without a TTFT (it fails the run otherwise)
  --infer-ttft-from-first-byte  with --no-stream: TTFT is the HTTP response headers (labelled so), not a token
  --strict                  reject reasoning-truncated answers (only reasoning until the cap): the run fails
  --ci-safety               --strict, plus every measured request must succeed and the warm-up must not be zero
  --bin-s S                 throughput bin width (default 1)

Client headroom:
  --no-headroom-check       skip measuring the client's own ceiling for this run's shape (cached per machine and
                            toolkit commit; otherwise measured for --headroom-s seconds, default 2, before the load)
  --headroom-s S            length of that check

Output:
  --out FILE.jsonl          config line, every request row (written as it ends), the summary (and aggregate)
  --prompt-mix-report FILE  the prompt-mix report (provenance, targets, achieved ISL/OSL) as JSON
  --html FILE               one self-contained page (opens offline): latency CDFs (E2E, TTFT, TPOT, ITL,
                            coordinated-omission), throughput and requests in flight over time, per endpoint
                            and pooled; FILE may be a folder (load.html is written into it)
  --plan                    print the plan (workload, pins, schedule hash, defaults) and send nothing
  --print-schedule          with --plan: every request this generator would issue, one JSON line each

${SHARD_HELP}

Self-check:
  --self-check              start the scripted engine in-process with zero service time and load it
                            (default --concurrency 64 --requests 2000): the client's own ceiling

Exit codes:
  ${EXIT.ok}  the run completed
  ${EXIT.resultNotOk}  ran, but every request failed, an audit failed (TTFT, --strict, --ci-safety), or
     --fail-on-osl-mismatch found a mismatch
  ${EXIT.usage}  usage error (unknown flag, bad value, non-loopback URL, unbounded load, repeated prompt, pin
     mismatch, a target that cannot be met, a start time in the past)
  ${EXIT.environment}  environment failure (file unreadable, output not writable)

${MERGE_HELP}`;

const LOAD_OPTIONS = {
  ...WORKLOAD_OPTIONS,
  ...SHARD_OPTIONS,
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
  "drain-s": { type: "string" },
  "warmup-requests": { type: "string" },
  "warmup-s": { type: "string" },
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
  "allow-missing-ttft": { type: "boolean" },
  "infer-ttft-from-first-byte": { type: "boolean" },
  strict: { type: "boolean" },
  "ci-safety": { type: "boolean" },
  "no-headroom-check": { type: "boolean" },
  "headroom-s": { type: "string" },
  "bin-s": { type: "string" },
  out: { type: "string" },
  "prompt-mix-report": { type: "string" },
  html: { type: "string" },
  plan: { type: "boolean" },
  "print-schedule": { type: "boolean" },
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

/** The test's options and where its page goes. */
export type LoadOptionsWithHtml = LoadTestOptions & { html: string | undefined };

/** What `load` was asked to do beyond the test itself. */
export interface LoadCommand {
  options: LoadOptionsWithHtml;
  /** --plan: print the plan and send nothing; --print-schedule adds every request. */
  planOnly: boolean;
  printSchedule: boolean;
}

/** Parses the `load` command line. @throws UsageError. */
export function parseLoadArgs(argv: string[]): LoadOptionsWithHtml {
  return parseLoadCommand(argv).options;
}

/** Parses the `load` command line with its --plan flags. @throws UsageError. */
export function parseLoadCommand(argv: string[]): LoadCommand {
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
  const warmupS = numberFlag("load", values, "warmup-s", { min: 0, max: 3600 });
  const warmupFlag = numberFlag("load", values, "warmup-requests", { integer: true, min: 0, max: 100_000 });
  if (warmupS !== undefined && warmupFlag !== undefined) {
    throw new UsageError("Cannot load: pass --warmup-requests N or --warmup-s S, not both");
  }
  const openDefault = maxConcurrency ?? Math.min(256, Math.max(4, Math.ceil(rate ?? 0)));
  const plan: LoadTestOptions["plan"] = {
    mode: open ? "open" : "closed",
    warmupRequests: warmupS !== undefined ? 0 : warmupFlag ?? (open ? openDefault : closedConcurrency as number),
  };
  if (warmupS !== undefined) plan.warmupS = warmupS;
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
    throw new UsageError("Cannot use --fail-on-osl-mismatch without --osl-target (or a --profile)");
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
  const zeroWarmup = plan.warmupRequests === 0 && !(warmupS !== undefined && warmupS > 0);
  if (ciSafety && zeroWarmup && !selfCheck) {
    throw new UsageError(
      "Cannot use --ci-safety with zero warm-up: warm up at least as many requests as the concurrency",
    );
  }
  const headroomS = numberFlag("load", values, "headroom-s", { min: 0.1, max: 60 }) ?? 2;
  if (values["no-headroom-check"] === true && values["headroom-s"] !== undefined) {
    throw new UsageError("Cannot use --headroom-s with --no-headroom-check");
  }
  const repeat = numberFlag("load", values, "repeat", { integer: true, min: 1, max: 100 }) ?? 1;
  const host = sys.hostname();
  const shard = parseShardFlags(values, { env, hostname: host.ok ? host.value : null, wallMs: Date.now() });
  if (shard !== undefined && repeat > 1) {
    throw new UsageError("Cannot use --repeat with --shard: every shard starts once, at --start-at");
  }
  if (shard !== undefined && selfCheck) throw new UsageError("Cannot shard the self-check");
  if (values["print-schedule"] === true && values.plan !== true) {
    throw new UsageError("Cannot use --print-schedule without --plan");
  }
  const options: LoadOptionsWithHtml = {
    html: htmlFlag(values),
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
    out: values.out as string | undefined,
    inferTtftFromFirstByte: values["infer-ttft-from-first-byte"] === true,
    strict: values.strict === true || ciSafety,
    ciSafety,
    allowMissingTtft: values["allow-missing-ttft"] === true,
    headroom: { mode: values["no-headroom-check"] === true ? "off" : "auto", durationS: headroomS },
  };
  if (shard !== undefined) options.shard = shard;
  if (values["prompt-mix-report"] !== undefined) options.promptMixReport = values["prompt-mix-report"] as string;
  return { options, planOnly: values.plan === true, printSchedule: values["print-schedule"] === true };
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

/** The exit code of a finished load test, with its lines on stderr when it did not succeed. */
export function loadExitCode(options: LoadTestOptions, outcome: LoadTestOutcome): number {
  switch (outcome.status) {
    case "ok":
      return EXIT.ok;
    case "write-failed":
      writeStderr(`Cannot write "${options.out ?? options.promptMixReport}": ${outcome.reason}\n`);
      return EXIT.environment;
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
  const controller = new AbortController();
  const stop = onTerminationSignal(() => controller.abort());
  try {
    const deps = realLoadDeps(controller.signal, { stream: options.workload.stream !== false });
    if (command.planOnly) {
      const described = await describeLoadPlan(options, deps, command.printSchedule);
      writeStdout(JSON.stringify(deps.sanitizer.json(described.plan), null, command.printSchedule ? 0 : 2) + "\n");
      for (const r of described.requests ?? []) writeStdout(JSON.stringify({ kind: "request", ...r }) + "\n");
      return EXIT.ok;
    }
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
