/**
 * `load`: load test of loopback chat servers by the performance methodology. Closed loop (--concurrency) or open
 * loop (--rate, seeded Poisson or constant arrivals, --max-concurrency), warm-up first, bounded by --requests or
 * --duration; request rows and the summary go to versioned JSONL; the console prints the same summary objects.
 * `--self-check` loads the in-process scripted engine with zero service time to show the client's own ceiling.
 */
import { parseArgs } from "node:util";
import { onTerminationSignal, readTextFile, sys, writeStderr, writeStdout, writeTextOutcome } from "../runtime/mod.ts";
import { createSanitizer, type Sanitizer } from "../report/sanitize.ts";
import { classifyServerUrl } from "../client/mod.ts";
import { type LoadDeps, type LoadPlan, runLoad } from "../runner/load_generator.ts";
import type { ArrivalProcess, LoadRunFacts } from "../contract/mod.ts";
import {
  buildLoadBody,
  checkPromptVariety,
  parsePromptJsonl,
  parseShareGpt,
  PROFILES,
  type PromptSet,
  selectionSha256,
  selectPrompts,
  syntheticProfile,
} from "../runner/load_workloads.ts";
import { buildLoadRow, type LoadRequestRow } from "../score/load_metrics.ts";
import {
  type EndpointLoadSummary,
  type LengthTarget,
  type LoadSummary,
  type Slo,
  summarizeLoad,
} from "../score/load_summary.ts";
import { aggregateRuns, type LoadAggregate } from "../score/load_aggregate.ts";
import type { DistSummary } from "../score/percentiles.ts";
import type { MockEngine, MockEngineOptions } from "../mock/mod.ts";
import { EXIT } from "./exit_codes.ts";

export const LOAD_RUN_FORMAT = "strata-load-run" as const;

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
} as const;

/** A bad command line: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Parses a number flag; undefined when absent. @throws UsageError on a malformed or out-of-range value. */
export function numberFlag(
  values: Record<string, unknown>,
  name: string,
  check: { integer?: boolean; min?: number; max?: number } = {},
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  const bad = typeof raw !== "string" || raw.trim() === "" || !Number.isFinite(n) ||
    (check.integer === true && !Number.isInteger(n)) || (check.min !== undefined && n < check.min) ||
    (check.max !== undefined && n > check.max);
  if (bad) {
    const range = `${check.integer ? "an integer" : "a number"}${check.min !== undefined ? ` >= ${check.min}` : ""}` +
      `${check.max !== undefined ? ` <= ${check.max}` : ""}`;
    throw new UsageError(`Cannot use --${name} "${String(raw)}": expected ${range}`);
  }
  return n;
}

/** What is sent: the prompt set source and how requests are built from it. */
export interface WorkloadOptions {
  source: { kind: "profile"; name: string } | { kind: "jsonl"; path: string } | { kind: "sharegpt"; path: string };
  sample: number | undefined;
  seed: number;
  maxTokens: number | null;
  ignoreEos: boolean;
  model: string | undefined;
  allowRepeatedPrompt: boolean;
  requestTimeoutS: number;
}

/** Reads the workload flags. @throws UsageError. */
export function parseWorkloadFlags(values: Record<string, unknown>): WorkloadOptions {
  const chosen = ["profile", "prompts", "sharegpt"].filter((k) => values[k] !== undefined);
  if (chosen.length > 1) {
    throw new UsageError("Cannot choose a workload: pass only one of --profile, --prompts, --sharegpt");
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
    sample: numberFlag(values, "sample", { integer: true, min: 1, max: 100_000 }),
    seed: numberFlag(values, "seed", { integer: true, min: 0, max: 4294967295 }) ?? 1,
    maxTokens: numberFlag(values, "max-tokens", { integer: true, min: 1 }) ?? null,
    ignoreEos: values["ignore-eos"] === true,
    model: values.model as string | undefined,
    allowRepeatedPrompt: values["allow-repeated-prompt"] === true,
    requestTimeoutS: numberFlag(values, "request-timeout", { min: 0.001, max: 3600 }) ?? 600,
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

/** Options of one `load` command line. */
export interface LoadCommandOptions {
  urls: string[];
  selfCheck: boolean;
  plan: Omit<LoadPlan, "endpoints" | "requestFor" | "seed">;
  workload: WorkloadOptions;
  lateAfterS: number;
  repeat: number;
  isl: LengthTarget | undefined;
  osl: LengthTarget | undefined;
  failOnOslMismatch: boolean;
  slo: Slo;
  binS: number;
  out: string | undefined;
}

function lengthTarget(values: Record<string, unknown>, kind: "isl" | "osl"): LengthTarget | undefined {
  const target = numberFlag(values, `${kind}-target`, { integer: true, min: 1 });
  const tolerance = numberFlag(values, `${kind}-tolerance`, { min: 0, max: 10 });
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

/** Parses the `load` command line. @throws UsageError. */
export function parseLoadArgs(argv: string[]): LoadCommandOptions {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options: LOAD_OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`Cannot read the command line: ${(error as Error).message}`);
  }
  const selfCheck = values["self-check"] === true;
  const urls = ((values.url as string[] | undefined) ?? []).map(requireLoopback);
  if (selfCheck && urls.length > 0) {
    throw new UsageError("Cannot combine --self-check with --url: it loads its own engine");
  }
  if (!selfCheck && urls.length === 0) throw new UsageError("Cannot load: no --url; pass --url http://127.0.0.1:8080");
  const concurrency = numberFlag(values, "concurrency", { integer: true, min: 1, max: 4096 });
  const rate = numberFlag(values, "rate", { min: 0.001, max: 10_000 });
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
  let requests = numberFlag(values, "requests", { integer: true, min: 1, max: 100_000 });
  const durationS = numberFlag(values, "duration", { min: 0.001, max: 3600 });
  const closedConcurrency = concurrency ?? (selfCheck ? 64 : undefined);
  if (selfCheck && requests === undefined && durationS === undefined) requests = 2000;
  if (!open && closedConcurrency === undefined) {
    throw new UsageError("Cannot load: choose --concurrency N (closed loop) or --rate R (open loop)");
  }
  if (requests === undefined && durationS === undefined) {
    throw new UsageError("Cannot load: it would be unbounded; pass --requests N or --duration S");
  }
  const maxConcurrency = numberFlag(values, "max-concurrency", { integer: true, min: 1, max: 4096 });
  const dropLateMs = numberFlag(values, "drop-late-after-ms", { min: 0 });
  const plan: LoadCommandOptions["plan"] = {
    mode: open ? "open" : "closed",
    warmupRequests: numberFlag(values, "warmup-requests", { integer: true, min: 0, max: 100_000 }) ??
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
  const workload = parseWorkloadFlags(values);
  plan.requestDeadlineS = workload.requestTimeoutS;
  const slo: Slo = {};
  const ttft = numberFlag(values, "slo-ttft-ms", { min: 0 });
  const tpot = numberFlag(values, "slo-tpot-ms", { min: 0 });
  const e2e = numberFlag(values, "slo-e2e-ms", { min: 0 });
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
    lateAfterS: (numberFlag(values, "late-after-ms", { min: 0 }) ?? 2) / 1000,
    repeat: numberFlag(values, "repeat", { integer: true, min: 1, max: 100 }) ?? 1,
    isl: lengthTarget(values, "isl"),
    osl,
    failOnOslMismatch: values["fail-on-osl-mismatch"] === true,
    slo,
    binS: numberFlag(values, "bin-s", { min: 0.001, max: 3600 }) ?? 1,
    out: values.out as string | undefined,
  };
}

/** A loaded, selected workload ready to hand requests to the generator. */
export interface PreparedWorkload {
  set: PromptSet;
  selected: number[];
  requestFor: LoadPlan["requestFor"];
  /** Facts stamped into the JSONL config line and the summary config. */
  stamp: Record<string, unknown>;
}

/**
 * Loads and selects the workload; `requestCount` is how many requests will use it (for the repeat check).
 * @throws UsageError for a repeated prompt; SyntaxError/RangeError for a malformed set; FileReadError.
 */
export async function prepareWorkload(
  options: WorkloadOptions,
  requestCount: number,
  readText: (path: string) => Promise<string>,
): Promise<PreparedWorkload> {
  const src = options.source;
  const set = src.kind === "profile"
    ? syntheticProfile(src.name, { seed: options.seed, count: options.sample ?? 256 })
    : src.kind === "jsonl"
    ? parsePromptJsonl(await readText(src.path), basename(src.path))
    : parseShareGpt(await readText(src.path), basename(src.path));
  const selected = selectPrompts(set, { seed: options.seed, count: options.sample ?? set.entries.length });
  try {
    checkPromptVariety(set, selected, requestCount, options.allowRepeatedPrompt);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const bodies = selected.map((i) => {
    const body: Parameters<typeof buildLoadBody>[1] = { maxTokens: options.maxTokens, ignoreEos: options.ignoreEos };
    if (options.model !== undefined) body.model = options.model;
    return buildLoadBody(set.entries[i]!, body);
  });
  return {
    set,
    selected,
    requestFor: (_phase, index) => ({
      body: bodies[index % bodies.length]!,
      promptIndex: selected[index % selected.length]!,
    }),
    stamp: {
      source: set.source,
      prompt_set_sha256: set.sha256,
      selection_sha256: selectionSha256(set, selected),
      selected_prompts: selected.length,
      skipped_entries: set.skipped,
      seed: options.seed,
      profile: set.profile,
      max_tokens: options.maxTokens,
      ignore_eos: options.ignoreEos,
      allow_repeated_prompt: options.allowRepeatedPrompt,
    },
  };
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** One run: raw facts, request rows, and the summary computed from the rows. */
export interface LoadRunResult {
  facts: LoadRunFacts;
  rows: LoadRequestRow[];
  summary: LoadSummary;
}

export interface ExecuteLoadOptions {
  urls: readonly string[];
  plan: Omit<LoadPlan, "endpoints" | "requestFor" | "seed">;
  workload: PreparedWorkload;
  seed: number;
  lateAfterS: number;
  binS: number;
  slo: Slo;
  isl?: LengthTarget | undefined;
  osl?: LengthTarget | undefined;
  signal?: AbortSignal;
}

/** Runs the generator once and turns its samples into rows and a summary. */
export async function executeLoad(options: ExecuteLoadOptions, deps: LoadDeps): Promise<LoadRunResult> {
  const plan: LoadPlan = {
    ...options.plan,
    endpoints: options.urls,
    requestFor: options.workload.requestFor,
    seed: options.seed,
  };
  const facts = await runLoad(plan, deps, options.signal ? { signal: options.signal } : {});
  const rows = facts.samples.map((s) => buildLoadRow(s, { lateAfterS: options.lateAfterS }));
  const summaryOptions: Parameters<typeof summarizeLoad>[1] = {
    mode: facts.mode,
    effectiveMaxConcurrency: facts.effective_max_concurrency,
    binWidthS: options.binS,
    slo: options.slo,
    config: {
      ...options.workload.stamp,
      requested_rate_per_s: facts.requested_rate_per_s,
      arrival: facts.arrival,
      warmup_requests: options.plan.warmupRequests,
      warmup_s: facts.warmup_s,
      stopped_by: facts.stopped_by,
      late_after_s: options.lateAfterS,
    },
  };
  if (options.isl) summaryOptions.isl = options.isl;
  if (options.osl) summaryOptions.osl = options.osl;
  return { facts, rows, summary: summarizeLoad(rows, summaryOptions) };
}

// ---------------------------------------------------------------- rendering (numbers come from the summary)

function fmt(value: number | null, unit: "s" | "ms" | "" = "", digits = 2): string {
  if (value === null) return "-";
  if (unit === "ms") return (value * 1000).toFixed(digits);
  return value.toFixed(digits);
}

function distRow(name: string, d: DistSummary, unit: "ms" | ""): string {
  const flag = (x: number | null, unreliable: boolean) => `${fmt(x, unit)}${unreliable && x !== null ? "*" : ""}`;
  const cells = [
    name.padEnd(22),
    String(d.n).padStart(6),
    fmt(d.mean, unit).padStart(10),
    fmt(d.sd, unit).padStart(9),
    fmt(d.mad, unit).padStart(9),
    fmt(d.p50, unit).padStart(10),
    flag(d.p90, d.unreliable.p90).padStart(10),
    flag(d.p95, d.unreliable.p95).padStart(10),
    flag(d.p99, d.unreliable.p99).padStart(10),
    fmt(d.max, unit).padStart(10),
  ];
  return cells.join(" ");
}

/** Console text of one endpoint summary. */
export function renderEndpointSummary(s: EndpointLoadSummary): string {
  const c = s.counts;
  const lines = [
    `== ${s.label}`,
    `requests: ${c.attempted} sent, ${c.succeeded} ok (${c.answered} answered, ${c.reasoning_truncated} reasoning_truncated, ` +
    `${c.no_output_token} no_output_token), ${c.failed} failed, ${c.dropped} dropped, ${c.late} late`,
    `window ${fmt(s.window_s, "s", 3)} s | ${fmt(s.requests_per_s)} req/s | ${
      fmt(s.output_tokens_per_s, "", 1)
    } output tok/s` +
    ` | goodput ${fmt(s.goodput_requests_per_s)} req/s | error rate ${fmt(s.error_rate, "", 4)}` +
    (s.achieved_send_rate_per_s !== null ? ` | achieved send rate ${fmt(s.achieved_send_rate_per_s, "", 3)}/s` : ""),
    `in flight: mean ${fmt(s.concurrency.mean)} p50 ${fmt(s.concurrency.p50, "", 0)} max ${s.concurrency.max}` +
    (s.concurrency.cap_engaged_fraction !== null
      ? ` | at cap ${fmt(s.concurrency.cap_engaged_fraction * 100, "", 1)}%`
      : ""),
    `${"metric (ms; tokens)".padEnd(22)} ${"n".padStart(6)} ${"mean".padStart(10)} ${"sd".padStart(9)} ${
      "mad".padStart(9)
    } ${"p50".padStart(10)} ${"p90".padStart(10)} ${"p95".padStart(10)} ${"p99".padStart(10)} ${"max".padStart(10)}`,
  ];
  const d = s.distributions;
  for (
    const [name, dist] of [
      ["e2e latency", d.latency_s],
      ["co latency", d.co_latency_s],
      ["ttft", d.ttft_s],
      ["first byte", d.first_byte_s],
      ["first reasoning", d.first_reasoning_s],
      ["first answer", d.first_answer_s],
      ["tpot", d.tpot_s],
      ["itl (chunks)", d.itl_s],
      ["lateness", d.lateness_s],
    ] as const
  ) if (dist.n > 0) lines.push(distRow(name, dist, "ms"));
  for (const [name, dist] of [["input tokens", d.input_tokens], ["output tokens", d.output_tokens]] as const) {
    if (dist.n > 0) lines.push(distRow(name, dist, ""));
  }
  for (const [name, check] of [["ISL", s.isl], ["OSL", s.osl]] as const) {
    if (check === null) continue;
    lines.push(
      `${name}: target ${check.target} +-${fmt(check.tolerance * 100, "", 0)}% | achieved ${check.stat} ` +
        `${fmt(check.achieved, "", 1)} (${
          check.within ? "within" : "outside"
        }) | ${check.mismatches}/${check.checked} requests outside`,
    );
  }
  return lines.join("\n") + "\n";
}

/** Console text of a run summary: per endpoint, then the pooled mixture when there are several. */
export function renderLoadSummary(summary: LoadSummary): string {
  const head = `load: ${summary.mode} loop, effective max concurrency ${summary.effective_max_concurrency}, ` +
    "percentiles Hyndman-Fan type 7 (* = unreliable at this n)\n";
  const parts = summary.endpoints.map(renderEndpointSummary);
  if (summary.endpoints.length > 1) parts.push(renderEndpointSummary(summary.overall));
  return head + parts.join("");
}

/** Console text of a cross-run aggregate. */
export function renderAggregate(agg: LoadAggregate): string {
  const lines = [`across ${agg.runs} runs (seeded percentile bootstrap, 95%, seed ${agg.seed}):`];
  for (const m of agg.metrics) {
    if (m.n === 0) continue;
    const iv = m.interval ? `[${m.interval.lower.toPrecision(4)}, ${m.interval.upper.toPrecision(4)}]` : "-";
    lines.push(`  ${m.metric.padEnd(24)} mean ${m.mean?.toPrecision(4)} sd ${m.sd?.toPrecision(3) ?? "-"} 95% ${iv}`);
  }
  return lines.join("\n") + "\n";
}

// ---------------------------------------------------------------- command

/** Everything `load` touches outside itself. */
export interface LoadCommandDeps extends LoadDeps {
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  stdout(text: string): void;
  stderr(text: string): void;
  startMockEngine(options: MockEngineOptions): Promise<MockEngine>;
  /** Redacts home folders, user and host names and secrets from every --out line (rows carry server error text). */
  sanitizer: Sanitizer;
  signal?: AbortSignal;
}

/** Scripted engine of the self-check: no service time, many slots, 64 visible tokens a request. */
export const SELF_CHECK_ENGINE: MockEngineOptions = {
  timeScale: 0,
  slots: 512,
  script: {
    "*": {
      answer: { kind: "text", text: Array.from({ length: 63 }, () => "tok").join(" ") },
      reasoningTokens: 0,
    },
  },
};

/** Runs a parsed `load` command; returns its exit code. */
export async function runLoadCommand(options: LoadCommandOptions, deps: LoadCommandDeps): Promise<number> {
  let engine: MockEngine | null = null;
  try {
    let urls = options.urls;
    if (options.selfCheck) {
      engine = await deps.startMockEngine(SELF_CHECK_ENGINE);
      urls = [engine.url];
    }
    const requestCount = options.plan.requests ?? 2;
    const workload = await prepareWorkload(options.workload, requestCount, deps.readText);
    const profile = workload.set.profile;
    const osl = options.osl ??
      (profile && options.failOnOslMismatch ? { target: profile.osl_target, tolerance: 0.1, stat: "mean" } : undefined);
    const isl = options.isl;
    const lines: string[] = [];
    /** Adds one --out JSONL line, sanitized like run's published files. */
    const emit = (value: unknown) => lines.push(JSON.stringify(deps.sanitizer.json(value)));
    const config = {
      format: LOAD_RUN_FORMAT,
      version: 1,
      kind: "config",
      urls,
      self_check: options.selfCheck,
      plan: options.plan,
      workload: workload.stamp,
      repeat: options.repeat,
      slo: options.slo,
      isl: isl ?? null,
      osl: osl ?? null,
      bin_s: options.binS,
      late_after_s: options.lateAfterS,
    };
    emit(config);
    const runs: LoadRunResult[] = [];
    for (let r = 0; r < options.repeat; r++) {
      if (deps.signal?.aborted) break;
      deps.stderr(`load: run ${r + 1}/${options.repeat} against ${urls.join(", ")}\n`);
      const run = await executeLoad({
        urls,
        plan: options.plan,
        workload,
        seed: (options.workload.seed + r) >>> 0,
        lateAfterS: options.lateAfterS,
        binS: options.binS,
        slo: options.slo,
        isl,
        osl,
        ...(deps.signal ? { signal: deps.signal } : {}),
      }, deps);
      runs.push(run);
      for (const row of run.rows) emit({ run: r, ...row });
      emit({ run: r, ...run.summary });
      deps.stdout(renderLoadSummary(run.summary));
      if (options.selfCheck) deps.stdout(renderSelfCheck(run));
    }
    let aggregate: LoadAggregate | null = null;
    if (runs.length > 1) {
      aggregate = aggregateRuns(runs.map((r) => r.summary.overall), { seed: options.workload.seed });
      emit(aggregate);
      deps.stdout(renderAggregate(aggregate));
    }
    if (options.out !== undefined) {
      const written = await deps.writeText(options.out, lines.join("\n") + "\n");
      if (!written.ok) {
        deps.stderr(`Cannot write "${options.out}": ${written.reason}\n`);
        return EXIT.environment;
      }
      deps.stderr(`load: wrote ${lines.length} JSONL lines to ${options.out}\n`);
    }
    const last = runs[runs.length - 1];
    if (last === undefined || last.summary.overall.counts.succeeded === 0) {
      deps.stderr("load: no measured request succeeded\n");
      return EXIT.resultNotOk;
    }
    if (options.failOnOslMismatch && runs.some((r) => (r.summary.overall.osl?.mismatches ?? 0) > 0)) {
      deps.stderr("load: --fail-on-osl-mismatch: measured output lengths outside the OSL tolerance\n");
      return EXIT.resultNotOk;
    }
    return EXIT.ok;
  } finally {
    await engine?.close();
  }
}

/** Self-check figures: the client's own ceiling against a zero-service-time engine. */
export function renderSelfCheck(run: LoadRunResult): string {
  const s = run.summary.overall;
  const events = run.facts.samples.reduce((n, x) => n + (x.phase === "measure" ? x.outcome?.events ?? 0 : 0), 0);
  const eventsPerS = s.window_s !== null && s.window_s > 0 ? events / s.window_s : null;
  return `self-check (scripted engine in-process, zero service time; client and engine share these cores):\n` +
    `  client ceiling: ${fmt(s.requests_per_s, "", 1)} req/s, ${fmt(s.output_tokens_per_s, "", 0)} output tok/s, ` +
    `${fmt(eventsPerS, "", 0)} SSE events/s at ${run.facts.effective_max_concurrency} concurrent streams; ` +
    `TTFT p50 ${fmt(s.distributions.ttft_s.p50, "ms")} ms p99 ${fmt(s.distributions.ttft_s.p99, "ms")} ms\n` +
    "  a real target's throughput must stay well below this ceiling for its numbers to describe the server\n";
}

/** The real dependencies: runtime clock, files and console, the project's one streaming client. */
export async function realLoadDeps(signal?: AbortSignal): Promise<LoadCommandDeps> {
  const { streamChat } = await import("../client/mod.ts");
  const { startMockEngine } = await import("../mock/mod.ts");
  const user = sys.username();
  const host = sys.hostname();
  const home = sys.homeDir();
  const deps: LoadCommandDeps = {
    streamChat: (o) => streamChat(o),
    nowS: () => performance.now() / 1000,
    readText: (path) => readTextFile(path),
    writeText: async (path, text) => {
      const r = await writeTextOutcome(path, text);
      return r.ok ? { ok: true } : { ok: false, reason: r.reason };
    },
    stdout: writeStdout,
    stderr: writeStderr,
    startMockEngine,
    sanitizer: createSanitizer({
      username: user.ok ? user.value : null,
      hostname: host.ok ? host.value : null,
      homeDir: home.ok ? home.value : null,
    }),
  };
  if (signal) deps.signal = signal;
  return deps;
}

/** Entry point of `load`. */
export async function main(argv: string[]): Promise<number> {
  let options: LoadCommandOptions;
  try {
    options = parseLoadArgs(argv);
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const controller = new AbortController();
  const stop = onTerminationSignal(() => controller.abort());
  try {
    return await runLoadCommand(options, await realLoadDeps(controller.signal));
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    if (error instanceof UsageError || error instanceof SyntaxError || error instanceof RangeError) return EXIT.usage;
    return EXIT.environment;
  } finally {
    stop();
  }
}
