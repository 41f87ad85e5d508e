/**
 * `load`'s command line: the flag table and the parser, in stages (the target, the plan and its sweep, the SLOs, the
 * refusals of flags that cannot go together), each a function of the parsed flags.
 */
import { env, sys } from "../runtime/mod.ts";
import type { ArrivalProcess } from "../contract/mod.ts";
import {
  DEFAULT_DRAIN_S,
  type LengthTarget,
  type LoadTestOptions,
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
import { DEFAULT_OUT, OLD_FILE_SWITCHES } from "./_out_files.ts";

type Values = Record<string, unknown>;

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
  "timings-per-token": { type: "boolean" },
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

function lengthTarget(values: Values, kind: "isl" | "osl"): LengthTarget | undefined {
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

/** Who is loaded: the --url servers (loopback only), the self-check's own engine, or a --profile's. */
function targetOf(values: Values): { urls: string[]; selfCheck: boolean; profile: string | undefined } {
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
  return { urls, selfCheck, profile };
}

/**
 * The plan (loop mode, bound, warm-up, drain) and, for a comma list of concurrencies or rates, the sweep: one run per
 * point, the plan being the largest point (the headroom check measures its shape) and each run setting its own.
 */
function planOf(
  values: Values,
  selfCheck: boolean,
): { plan: LoadTestOptions["plan"]; sweep: LoadTestOptions["sweep"] } {
  const concurrencies = pointsFlag("load", values, "concurrency", { integer: true, min: 1, max: 4096 });
  const rates = pointsFlag("load", values, "rate", { min: 0.001, max: 10_000 });
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
  return { plan, sweep };
}

/** The SLOs from --slo-ttft-ms, --slo-tpot-ms and --slo-e2e-ms, in seconds. */
function sloOf(values: Values): Slo {
  const slo: Slo = {};
  const ttft = numberFlag("load", values, "slo-ttft-ms", { min: 0 });
  const tpot = numberFlag("load", values, "slo-tpot-ms", { min: 0 });
  const e2e = numberFlag("load", values, "slo-e2e-ms", { min: 0 });
  if (ttft !== undefined) slo.ttftS = ttft / 1000;
  if (tpot !== undefined) slo.tpotS = tpot / 1000;
  if (e2e !== undefined) slo.e2eS = e2e / 1000;
  return slo;
}

/** Flags that have no effect with the others given (refused, as every command does). @throws {UsageError}. */
function refuseInertFlags(values: Values, selfCheck: boolean, ciSafety: boolean): void {
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
    [
      "--timings-per-token",
      values["timings-per-token"] === true,
      values["no-stream"] === true ? "with --no-stream" : null,
    ],
  ]);
  if (values["print-schedule"] === true && !planOnly) {
    throw new UsageError("Cannot use --print-schedule without --plan");
  }
}

/** --workers N, refused with what a set of local shards of one plan cannot do. @throws {UsageError}. */
function workersOf(values: Values, given: ReadonlyArray<readonly [string, boolean]>): number | null {
  const workers = numberFlag("load", values, "workers", { integer: true, min: 2, max: 64 }) ?? null;
  const clash = given.find(([, on]) => workers !== null && on);
  if (clash !== undefined) {
    throw new UsageError(
      `Cannot combine --workers with ${clash[0]}: the workers run shards of one plan against --url servers, ` +
        "merged into one JSON result",
    );
  }
  return workers;
}

/** --osl-target and the flags that need it or a streamed answer, checked against the workload. @throws {UsageError}. */
function oslOf(values: Values, workload: LoadTestOptions["workload"]): LengthTarget | undefined {
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
  return osl;
}

/** Parses the `load` command line with its --plan flags. @throws UsageError. */
export function parseLoadCommand(argv: string[]): LoadCommand {
  refuseSwitchValues("load", argv, OLD_FILE_SWITCHES);
  const values: Values = parseFlags("load", argv, LOAD_OPTIONS).values;
  const { urls, selfCheck, profile } = targetOf(values);
  const { plan, sweep } = planOf(values, selfCheck);
  const workload = parseWorkloadFlags("load", values);
  if (values["timings-per-token"] === true) workload.timingsPerToken = true;
  plan.requestDeadlineS = workload.requestTimeoutS;
  const slo = sloOf(values);
  const osl = oslOf(values, workload);
  const ciSafety = values["ci-safety"] === true;
  if (ciSafety && !warmsUp(plan) && !selfCheck) {
    throw new UsageError(
      "Cannot use --ci-safety with zero warm-up: warm up at least as many requests as the concurrency",
    );
  }
  refuseInertFlags(values, selfCheck, ciSafety);
  const planOnly = values.plan === true;
  const headroomS = numberFlag("load", values, "headroom-s", { min: 0.1, max: 60 }) ?? 2;
  const repeat = sweep?.length ?? numberFlag("load", values, "repeat", { integer: true, min: 1, max: 100 }) ?? 1;
  const host = sys.hostname();
  const shard = parseShardFlags(values, { env, hostname: host.ok ? host.value : null, wallMs: Date.now() });
  if (shard !== undefined && repeat > 1) {
    throw new UsageError("Cannot use --repeat or a sweep with --shard: every shard starts once, at --start-at");
  }
  if (shard !== undefined && selfCheck) throw new UsageError("Cannot shard the self-check");
  const workers = workersOf(values, [
    ["--shard", shard !== undefined],
    ["--self-check", selfCheck],
    ["--profile", profile !== undefined],
    ["a sweep (a comma list)", sweep !== undefined],
    ["--repeat", repeat > 1],
    ["--plan", planOnly],
    ["--html", values.html === true],
    ["--prompt-mix-report", values["prompt-mix-report"] === true],
  ]);
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
function sloGateFlag(values: Values, slo: Slo): number | null {
  const share = numberFlag("load", values, "fail-on-slo", { min: 0, max: 1 });
  if (share === undefined) return null;
  const none = Object.keys(slo).length === 0 ? "without --slo-ttft-ms, --slo-tpot-ms or --slo-e2e-ms" : null;
  refuseInert("load", [["--fail-on-slo", true, none]]);
  return share;
}
