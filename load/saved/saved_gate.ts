/**
 * `compare --from`: the release gate over saved results, offline (the methodology's separate compare step). The
 * baseline's and the candidate's runs come from two saved load results (each run one round of its concurrency
 * point), or from the two sides of one saved compare result; gate.ts's compareLoad decides, by the same rules as a
 * live compare: every point either side measured is expected, so a point missing on one side fails. Results of
 * different workloads (prompt selection SHA-256) or loop modes are refused: a gate compares servers on one workload.
 */
import {
  compareLoad,
  type CompareOptions,
  type ComparePointInput,
  type CompareResult,
  DEFAULT_WORKLOAD,
} from "../gate/gate.ts";
import { savedPoints, type SavedResults, SavedResultsRefusal } from "./saved_results.ts";

/** What the flags of `compare --from` set: the gate's tolerances and recorded noise floors. */
export type SavedGateOptions = Pick<
  CompareOptions,
  "toleranceFraction" | "maxErrorRateIncrease" | "recordedNoiseFloor"
>;

type Fields = Record<string, unknown>;

/** Each workload label's prompt selection SHA-256 ("W1" for a load result, which runs one workload). */
function workloadHashes(saved: SavedResults): Record<string, unknown> {
  if (saved.kind === "load") {
    return { [DEFAULT_WORKLOAD]: ((saved.config.workload ?? {}) as Fields).selection_sha256 ?? null };
  }
  const workloads = (saved.config.workloads ?? {}) as Record<string, Fields>;
  return Object.fromEntries(Object.entries(workloads).map(([k, w]) => [k, w?.selection_sha256 ?? null]));
}

function modes(saved: SavedResults): string[] {
  return [...new Set(saved.summaries.map((s) => s.mode))];
}

/** The seed the live run used (its first workload's), so the same rounds give the same intervals. */
function seedOf(saved: SavedResults): number {
  const workload = saved.kind === "load"
    ? saved.config.workload
    : Object.values((saved.config.workloads ?? {}) as Fields)[0];
  const seed = (workload as Fields | undefined)?.seed;
  return typeof seed === "number" && Number.isInteger(seed) ? seed >>> 0 : 1;
}

/**
 * Gates the candidate's saved runs against the baseline's. `candidate` null: `baseline` is one saved compare
 * result, gated again from its own two sides.
 * @throws {SavedResultsRefusal} when the two cannot be gated (different workloads or modes, a compare result
 * passed as one side of two, or a load result alone).
 */
export function gateSaved(
  baseline: SavedResults,
  candidate: SavedResults | null,
  options: SavedGateOptions,
): CompareResult {
  if (candidate === null && baseline.kind !== "compare") {
    throw new SavedResultsRefusal(baseline.path, [
      "a load result alone has no candidate: pass BASELINE.jsonl CANDIDATE.jsonl, or one compare result",
    ]);
  }
  if (candidate !== null && (baseline.kind !== "load" || candidate.kind !== "load")) {
    throw new SavedResultsRefusal(baseline.kind === "load" ? candidate.path : baseline.path, [
      "a compare result holds both sides: pass it alone (compare --from FILE.jsonl), or pass two load results",
    ]);
  }
  const other = candidate ?? baseline;
  const [a, b] = [JSON.stringify(workloadHashes(baseline)), JSON.stringify(workloadHashes(other))];
  if (a !== b) {
    throw new SavedResultsRefusal(other.path, [
      `it ran another workload than "${baseline.path}" (prompt selection SHA-256 ${b} against ${a}): a gate ` +
      "compares servers on one workload",
    ]);
  }
  const modeList = [...new Set([...modes(baseline), ...modes(other)])];
  if (modeList.length > 1) {
    throw new SavedResultsRefusal(other.path, [
      `the runs mix loop modes (${modeList.join(", ")}): gate like with like`,
    ]);
  }
  const base = savedPoints(baseline, candidate === null ? "baseline" : null);
  const cand = savedPoints(other, candidate === null ? "candidate" : null);
  const keys = [...new Set([...base.keys(), ...cand.keys()])];
  const points: ComparePointInput[] = keys.map((key) => {
    const at = base.get(key) ?? cand.get(key)!;
    return {
      workload: at.workload,
      concurrency: at.concurrency,
      baseline: (base.get(key)?.rounds ?? []).map((s) => s.overall),
      candidate: (cand.get(key)?.rounds ?? []).map((s) => s.overall),
    };
  });
  const concurrency = [...new Set(points.map((p) => p.concurrency))].sort((x, y) => x - y);
  const workloads = [...new Set(points.map((p) => p.workload!))];
  return compareLoad(points, {
    seed: seedOf(baseline),
    expectedConcurrency: concurrency,
    workloads: workloads.length > 0 ? workloads : [DEFAULT_WORKLOAD],
    ...options,
  });
}
