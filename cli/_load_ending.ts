/**
 * The last screens of `load` and `compare` as plain data for `renderEnding`: the status, the headline
 * percentiles (Hyndman-Fan type 7, as computed by load/), what kept the result from passing with the flag that
 * changes it, the values a summary lacks, the next command and the file. No statistic is computed here.
 */
import {
  type CompareResult,
  loadLevel,
  type LoadRunResult,
  type LoadTestOptions,
  type LoadTestOutcome,
  signedPercent,
} from "../load/mod.ts";
import { type CompareRunOptions, type PlannedRun, refusalAdvice, type SavedResults } from "../load/mod.ts";
import { missingGroup } from "../report/mod.ts";
import type { Ending, EndingMissing, EndingProblem } from "./_ending.ts";

function ms(seconds: number | null | undefined): string {
  return seconds === null || seconds === undefined ? "-" : (seconds * 1000).toFixed(1);
}

function per(value: number | null, decimals: number): string {
  return value === null ? "-" : value.toFixed(decimals);
}

/** The distribution's fields the ending prints: p50, p95, p99 and the tail flags that percentiles.ts sets. */
interface Dist {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  unreliable: { p95: boolean; p99: boolean };
}

/** A tail percentile in ms, with "*" where too few samples make it unreliable (as the run's table marks it). */
function tail(d: Dist, p: "p95" | "p99"): string {
  return `${ms(d[p])}${d[p] !== null && d.unreliable[p] ? "*" : ""}`;
}

/** "p50 156.9  p95 165.1  p99 165.7*" in ms. */
function percentiles(d: Dist | undefined): string {
  return d === undefined ? "-" : `p50 ${ms(d.p50)}  p95 ${tail(d, "p95")}  p99 ${tail(d, "p99")}`;
}

/** The legend for "*", when a printed line carries one. */
function legend(lines: readonly string[]): string[] {
  return lines.some((line) => /\d\*/.test(line))
    ? ["* = unreliable at this n (p95 under 20, p99 under 100 samples)"]
    : [];
}

/** A summary's missing values: flags to pass, and what this target cannot give. */
function summaryMissing(missing: Readonly<Record<string, string>>): EndingMissing {
  const notGiven = new Set<string>(), notMeasurable: string[] = [];
  for (const [field, reason] of Object.entries(missing)) {
    if (missingGroup(reason, null) === "not given") {
      for (const flag of reason.match(/--[a-z][a-z0-9-]*/g) ?? []) notGiven.add(flag);
    } else notMeasurable.push(`${field.replaceAll("_", " ")} (${reason.split(/[:;(]/)[0]!.trim()})`);
  }
  return { notGiven: [...notGiven], notMeasurable, failed: [] };
}

/** What kept a load from an ok result, with what to change. */
function loadProblems(outcome: LoadTestOutcome): EndingProblem[] {
  const fixes: Record<string, string> = {
    "no-success": "check the server's log; --url must be a streaming chat server",
    "audit-failed": "see the audit above; load --help lists --allow-missing-ttft",
    "osl-mismatch": "check --max-tokens, --min-tokens and --ignore-eos",
    "interrupted": "run again and let it finish",
  };
  // A refused preflight ("unreachable") is said in one line a URL instead (refusedLines).
  const fix = fixes[outcome.status];
  if (fix === undefined) return [];
  const reasons = outcome.reasons.length > 0 ? outcome.reasons : [outcome.status];
  return reasons.map((problem) => ({ problem, fix }));
}

/**
 * A load refused before anything was measured, in one line a URL: the verdict (UNREACHABLE when nothing answered,
 * REFUSED when a server answered but not as a streaming chat server), why, and the fix where the reason has none.
 */
export function refusedLines(outcome: LoadTestOutcome, code: number): string[] {
  return outcome.reasons.map((reason) => {
    const { verdict, fix } = refusalAdvice(reason);
    return `load: ${verdict} (exit ${code}): ${reason}${fix === null ? "" : `; ${fix}`}; nothing was measured`;
  });
}

/**
 * The ending of `load`: the last run's overall summary (each run's table is printed above it); for a sweep, one line
 * per point (output tok/s, TTFT and TPOT p50 and p99) and the requests of every point.
 */
export function loadEnding(
  outcome: LoadTestOutcome,
  file: string | null,
  code: number,
  html: string | null,
  sloMissed: EndingProblem | null = null,
): Ending {
  const run: LoadRunResult | undefined = outcome.runs.at(-1);
  const s = run?.summary.overall;
  const levels = outcome.runs.length > 1 ? outcome.runs.map((r) => loadLevel(r.summary)) : [];
  const sweep = new Set(levels).size > 1;
  const counted = (sweep ? outcome.runs : outcome.runs.slice(-1)).map((r) => r.summary.overall.counts);
  const sum = (key: "attempted" | "succeeded" | "failed" | "dropped" | "late") =>
    counted.reduce((n, c) => n + c[key], 0);
  const runs = sweep
    ? ` (sweep of ${levels.length} points)`
    : outcome.runs.length > 1
    ? ` (run ${outcome.runs.length} of ${outcome.runs.length})`
    : "";
  const word = sloMissed !== null && outcome.status === "ok" ? "SLO MISSED" : outcome.status.toUpperCase();
  const status = `load: ${outcome.status === "ok" && sloMissed === null ? "ok" : word}${runs} (exit ${code})` +
    (s === undefined
      ? "; nothing was measured"
      : `; ${sum("attempted")} requests: ${sum("succeeded")} ok, ${sum("failed")} failed, ${sum("dropped")} ` +
        `dropped, ${sum("late")} late`);
  const points = () =>
    outcome.runs.map(({ summary: { overall: o } }, i) =>
      `${levels[i]!.padEnd(11)}${per(o.output_tokens_per_s, 1).padStart(8)} output tok/s  TTFT ms p50 ` +
      `${ms(o.distributions.ttft_s.p50)} p99 ${tail(o.distributions.ttft_s, "p99")}  TPOT ms p50 ` +
      `${ms(o.distributions.tpot_s.p50)} p99 ${tail(o.distributions.tpot_s, "p99")}`
    );
  const numbers = s === undefined ? [] : sweep ? points() : [
    `throughput  ${per(s.requests_per_s, 2)} req/s  ${per(s.output_tokens_per_s, 1)} output tok/s  goodput ` +
    `${s.goodput_requests_per_s === null ? "- (no SLO)" : `${per(s.goodput_requests_per_s, 2)} req/s`}`,
    `TTFT ms     ${percentiles(s.distributions.ttft_s)}`,
    `TPOT ms     ${percentiles(s.distributions.tpot_s)}`,
    `e2e ms      ${percentiles(s.distributions.latency_s)}`,
  ];
  return {
    status,
    numbers: [...numbers, ...legend(numbers)],
    problems: [...loadProblems(outcome), ...(sloMissed === null ? [] : [sloMissed])],
    problemsHeading: "kept from passing:",
    missing: s === undefined ? { notGiven: [], notMeasurable: [], failed: [] } : summaryMissing(s.missing),
    // A refused write names no file to open: stderr has said what could not be written and why.
    next: outcome.status === "write-failed" ? [] : [
      html === null
        ? `add --html for an offline page${sweep ? " with the throughput-latency curve" : ""}`
        : `open ${html}`,
      "compare gates a candidate against a baseline",
    ],
    folder: outcome.status === "write-failed" ? null : file,
  };
}

/** The ending of `compare`: one line per point with the gated metrics, baseline -> candidate (delta). */
export function compareEnding(
  result: CompareResult,
  file: string | null,
  code: number,
  html: string | null,
  rounds: "flag" | "spec" | "saved" = "flag",
): Ending {
  // A spec pins its rounds (--rounds beside it is refused), a saved gate has the rounds it had: the advice names
  // where more are set.
  const moreRounds = {
    flag: "a regression, or noise: more --rounds",
    spec: "a regression, or noise: more rounds in the spec",
    saved: "a regression, or noise: compare again with more --rounds",
  }[rounds];
  // A metric by the name its column shows, never its key.
  const named = (metric: string) =>
    ({ output_tokens_per_s: "tok/s", tpot_p50_s: "TPOT p50", error_rate: "errors" })[metric] ??
      metric.replace(/_s$/, "").replaceAll("_", " ");
  const failing = result.points.flatMap((p) =>
    p.metrics.filter((m) => m.pass === false).map((m) => ({ problem: `${p.key} ${named(m.metric)}: ${m.reason}`, m }))
  );
  const numbers = result.points.map((p) => {
    const cells = p.metrics.filter((m) => m.gated).map((m) => {
      const tps = m.metric === "output_tokens_per_s";
      const show = (
        x: number | null,
      ) => (m.metric === "error_rate" ? signedPercent(x).replace("+", "") : tps ? per(x, 1) : ms(x));
      const name = tps ? "tok/s" : m.metric === "tpot_p50_s" ? "TPOT p50 ms" : "errors";
      return `${name} ${show(m.baseline)}->${show(m.candidate)}${
        m.metric === "error_rate" ? "" : ` ${signedPercent(m.delta_fraction)}`
      }`;
    });
    return `${p.key.padEnd(6)} ${cells.join("  ")}  ${p.pass ? "pass" : "FAIL"}`;
  });
  return {
    status: `compare: gate ${result.pass ? "PASS" : "FAIL"} (exit ${code}); tolerance ` +
      `+-${(result.tolerance_fraction * 100).toFixed(1)}% or the noise floor; ${result.points.length} point(s)`,
    numbers,
    problemsHeading: "kept from passing:",
    problems: failing.map(({ problem }) => ({ problem, fix: moreRounds })),
    missing: { notGiven: [], notMeasurable: [], failed: [] },
    next: [
      html === null ? "add --html for an offline page" : `open ${html}`,
      "--noise-floor-from FILE reuses this noise floor",
    ],
    folder: file,
  };
}

/**
 * --fail-on-slo's verdict: the share of the last run's measured requests (cancelled ones left out) that met every
 * SLO is goodput times the window (load/summary.ts counts them); below `least` it is a problem.
 */
export function sloMiss(outcome: LoadTestOutcome, least: number | null): EndingProblem | null {
  const s = outcome.runs.at(-1)?.summary.overall;
  if (least === null || s === undefined) return null;
  const counted = s.counts.attempted - s.counts.cancelled;
  const good = s.goodput_requests_per_s === null || s.window_s === null ? 0 : s.goodput_requests_per_s * s.window_s;
  const share = counted > 0 ? Math.round(good) / counted : 0;
  if (share >= least) return null;
  return {
    problem: `${(share * 100).toFixed(1)}% of ${counted} requests met every SLO, below --fail-on-slo ${least}`,
    fix: "a faster server, a lighter load or a looser SLO",
  };
}

/**
 * The few lines `load --plan` opens with (on stderr, before its JSON on stdout): the load's shape, how many
 * requests, and a bound on the wall time where the plan has one (every run's, a sweep's points included).
 */
export function loadPlanLines(options: LoadTestOptions): string[] {
  const p = options.plan;
  const targets = options.selfCheck ? "the in-process scripted engine" : options.urls.join(", ");
  const levels = options.sweep?.map((x) => (p.mode === "open" ? x.ratePerS : x.concurrency)).join(", ");
  const warmups = options.sweep?.map((x) => x.warmupRequests).join(", ") ?? p.warmupRequests;
  const warmup = p.warmupS !== undefined ? `${p.warmupS} s of warm-up` : `${warmups} warm-up requests`;
  const shape = (p.mode === "open"
    ? `open loop, ${p.arrival ?? "poisson"} arrivals at ${levels ?? p.ratePerS} req/s` +
      (p.maxConcurrency === undefined ? "" : `, at most ${p.maxConcurrency} in flight`)
    : `closed loop, ${levels ?? p.concurrency} concurrent streams`) + (levels ? " (a sweep: a run per point)" : "");
  const amount = p.requests !== undefined
    ? `${p.requests} measured requests`
    : p.mode === "open" && p.ratePerS !== undefined && p.durationS !== undefined && levels === undefined
    ? `${p.durationS} s of measured issuance (about ${Math.round(p.ratePerS * p.durationS)} requests)`
    : `${p.durationS} s of measured issuance`;
  const drain = p.drainLimitS ?? 0;
  const runs = options.repeat ?? 1;
  const bound = p.durationS !== undefined
    ? `wall time at most about ${((p.warmupS ?? 0) + p.durationS + drain) * runs} s${
      p.warmupS === undefined ? " + warm-up" : ""
    }` +
      ` (${drain} s drain limit${runs > 1 ? " a run" : ""} included)`
    : `wall time: no fixed bound (a request may take up to ${p.requestDeadlineS ?? "-"} s)`;
  return [
    `load --plan (nothing is sent): ${shape} against ${targets}`,
    `  ${warmup}, then ${amount}${runs > 1 ? ` a run, ${runs} runs` : ""}`,
    `  ${bound}; the JSON plan follows on stdout`,
  ];
}

/**
 * The ending of `report FILE.jsonl`: a saved load as load's own ending, a saved comparison as compare's (its gate
 * read again), headed "report:"; the page it wrote and what to run next.
 */
export function savedEnding(saved: SavedResults, code: number, html: string | null): Ending {
  const open = html === null ? [] : [`open ${html}`];
  if (saved.kind === "load") {
    const interrupted = saved.interrupted === null ? [] : [`interrupted by ${String(saved.interrupted.by)}`];
    const outcome = { status: interrupted.length > 0 ? "interrupted" : "ok", runs: saved.runs, reasons: interrupted };
    const ending = loadEnding(outcome as unknown as LoadTestOutcome, saved.path, code, html);
    return {
      ...ending,
      status: ending.status.replace(/^load: /, "report: saved load "),
      next: [...open, "compare --from BASELINE.jsonl CANDIDATE.jsonl gates two saved loads"],
    };
  }
  if (saved.verdict === null) {
    return {
      status: `report: saved compare INTERRUPTED (exit ${code}): no gate verdict of a partial comparison`,
      numbers: [],
      problems: [],
      missing: { notGiven: [], notMeasurable: [], failed: [] },
      next: open,
      folder: saved.path,
    };
  }
  const ending = compareEnding(saved.verdict, saved.path, code, html, "saved");
  return { ...ending, status: ending.status.replace(/^compare: /, "report: saved compare, "), next: open };
}

/**
 * The few lines `compare --plan` opens with (on stderr, before its JSON on stdout): the spec, the sides, how many
 * runs in what order, and the time: what it takes when nothing waits on a limit, beside the bound where every
 * warm-up, drain and preflight reaches its limit.
 */
export function comparePlanLines(
  options: Pick<CompareRunOptions, "baseline" | "candidate" | "spec">,
  plan: { runs: readonly PlannedRun[]; bound_s: number | null; expected_s: number | null },
): string[] {
  const side = (t: CompareRunOptions["baseline"]) => ("url" in t ? t.url : `the profile ${t.profile}`);
  const count = (values: readonly unknown[]) => new Set(values).size;
  const { runs } = plan;
  const shape = `${count(runs.map((r) => `${r.workload}@${r.concurrency}`))} point(s) x ` +
    `${count(runs.map((r) => r.round))} round(s) x 2 sides, interleaved`;
  const time = plan.expected_s === null ? ["time: no fixed bound (counted requests take what the servers take)"] : [
    `about ${Math.round(plan.expected_s)} s of warm-up and measured issuance, plus each run's drain;`,
    `at most ${Math.round(plan.bound_s ?? plan.expected_s)} s if every warm-up, drain and preflight reaches its limit`,
  ];
  const named = options.spec ? `spec ${options.spec.name}, ` : "";
  return [
    `compare --plan (nothing is sent): ${named}${runs.length} runs (${shape})`,
    `  baseline ${side(options.baseline)}, candidate ${side(options.candidate)}`,
    ...time.map((line) => `  ${line}`),
    "  the JSON plan follows on stdout",
  ];
}
