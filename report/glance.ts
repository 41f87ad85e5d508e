/**
 * A result at a glance, as plain data for a command's last screen: the status, the headline medians, what kept the
 * result from conforming with the fix for each, and the missing values in their three groups. No statistic is
 * computed here: every number is a stored median.
 */
import { PERFORMANCE_CASES, type Result } from "../contract/mod.ts";
import { leftOutOfReadout } from "../score/mod.ts";
import * as f from "./_format.ts";
import { findSummary, isSimulated, nonconformingReasons, sanityTally } from "./_report_head.ts";
import { skippedLines } from "./_report_sections.ts";
import { flagFor, missingGroup } from "./_missing_groups.ts";

/** One reason a result does not conform, and the flag or action that fixes it. */
export interface GlanceProblem {
  problem: string;
  fix: string;
}

/** A result at a glance. */
export interface ResultGlance {
  /** "nonconforming (simulated engine); sanity 12/12; 22 requests: 0 failed, 0 skipped". */
  status: string;
  /** One line per headline metric: the medians of the three performance cases. */
  numbers: string[];
  problems: GlanceProblem[];
  missing: { notGiven: string[]; notMeasurable: string[]; failed: string[] };
}

/** Fixes for reasons that name no flag, by what the reason says. */
const FIXES: readonly (readonly [RegExp, string])[] = [
  [/scripted engine|simulat/i, "measure a real engine (--url, --profile)"],
  [/loopback|remote/i, "run on the server's machine (--url http://127.0.0.1:PORT)"],
  [/hash model file|model file/i, "run where the model file is readable"],
  [/commit/i, "pass --engine-commit SHA"],
  [/skipped|partial/i, "fix what failed (README.md: Failures), run again"],
];

/** The fix for one nonconforming reason: the flag it names, else the first matching rule, else the README. */
export function fixFor(reason: string): string {
  const flag = flagFor(reason, null);
  if (flag !== null) return `pass ${flag}`;
  return FIXES.find(([pattern]) => pattern.test(reason))?.[1] ?? "see Status in README.md";
}

const HEADLINE = [["prompt_tps", "prompt tok/s"], ["decode_tps", "decode tok/s"], ["ttft_s", "TTFT s"]] as const;

function headlineLine(result: Result, metric: typeof HEADLINE[number][0], label: string): string {
  const cells = PERFORMANCE_CASES.filter((caseId) => !leftOutOfReadout(metric, caseId)).map((caseId) =>
    `${caseId} ${f.fixed(findSummary(result, "performance", caseId, metric)?.median, f.metricDecimals(metric))}`
  );
  return `${label.padEnd(13)} ${cells.join("   ")}`;
}

/**
 * The short name of the place a missing value applies to ("/model/files/0/sha256" -> "files sha256",
 * "/extensions/model_file_facts" -> "model file facts": where the project keeps a fact is not its name).
 */
function placeName(pointer: string): string {
  const parts = pointer.split("/").filter((p, i) => p !== "" && !/^\d+$/.test(p) && !(i === 1 && p === "extensions"));
  return parts.slice(-2).join(" ").replaceAll("_", " ");
}

/** The flags a conforming result needs first (the model's identity, then where its files and engine came from). */
const CONFORMANCE_FIRST = [
  "--model-id",
  "--quantization",
  "--model-revision",
  "--source-revision",
  "--tokenizer-revision",
  "--pack-dir",
  "--engine-source",
  "--engine-commit",
];

/** Flags a conforming result needs first, in that order; the rest alphabetically. */
function byConformance(a: string, b: string): number {
  const rank = (flag: string) => {
    const i = CONFORMANCE_FIRST.indexOf(flag);
    return i < 0 ? CONFORMANCE_FIRST.length : i;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

function missingOf(result: Result): ResultGlance["missing"] {
  const notGiven = new Set<string>(), notMeasurable = new Map<string, Set<string>>(), failed = new Set<string>();
  for (const [pointer, reason] of Object.entries(result.missing)) {
    if (pointer.startsWith("/requests/") || pointer.startsWith("/summaries/")) continue;
    const group = missingGroup(reason, pointer);
    if (group === "not given") notGiven.add(flagFor(reason, pointer) ?? placeName(pointer));
    else if (group === "failed") failed.add(placeName(pointer));
    else {
      const why = f.oneLine(reason).split(/[:;(]/)[0]!.trim();
      notMeasurable.set(why, (notMeasurable.get(why) ?? new Set()).add(placeName(pointer)));
    }
  }
  const failedRequests = result.requests.filter((r) => r.status === "failed" || r.status === "skipped");
  for (const r of failedRequests.slice(0, 3)) failed.add(`${r.id} (${r.status})`);
  if (failedRequests.length > 3) failed.add(`${failedRequests.length - 3} more requests`);
  return {
    notGiven: [...notGiven].sort(byConformance),
    // Fewest places first: a single GPU or file says more than seven engine settings nobody reports.
    notMeasurable: [...notMeasurable].sort(([, a], [, b]) => a.size - b.size).map(([why, what]) =>
      `${what.size > 2 ? `${what.size} ${[...what][0]!.split(" ")[0]} values` : [...what].join(", ")} (${why})`
    ),
    failed: [...failed],
  };
}

/** What interrupted the run (a signal, the parent's exit), as its cancelled requests say; null when nothing did. */
export function interruptedBy(result: Result): string | null {
  for (const r of result.requests) {
    const by = /the run was cancelled \(([^)]+)\)/.exec(r.error?.message ?? "")?.[1];
    if (by !== undefined && (r.status === "skipped" || r.error?.kind === "cancelled")) return by;
  }
  return null;
}

/** The result at a glance; an interrupted run says so first, before the status its partial evidence earned. */
export function resultGlance(result: Result): ResultGlance {
  const counts = Object.values(result.request_counts);
  const sum = (key: "planned" | "failed" | "skipped") => counts.reduce((n, c) => n + c[key], 0);
  const reasons = [...nonconformingReasons(result), ...skippedLines(result)];
  const interrupted = interruptedBy(result);
  return {
    status: `${interrupted === null ? "" : `INTERRUPTED (${interrupted}), `}${result.run.status}` +
      `${isSimulated(result) ? " (simulated engine)" : ""}; sanity ` +
      `${result.quality.passed}/${result.quality.total}${sanityTally(result)}; ${sum("planned")} requests: ${
        sum("failed")
      } failed, ` +
      `${sum("skipped")} skipped`,
    numbers: HEADLINE.map(([metric, label]) => headlineLine(result, metric, label)),
    problems: reasons.map((reason) => ({ problem: f.oneLine(reason), fix: fixFor(reason) })),
    missing: missingOf(result),
  };
}
