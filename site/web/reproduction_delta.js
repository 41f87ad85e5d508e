// @ts-check
/**
 * An entry against one of its reproductions, case by case, by the rules `report A B` states (written here again:
 * the site shares no code with the report): the reproduction's median against the entry's as a relative delta,
 * median(R) / median(E) - 1, with a seeded 95% percentile-bootstrap interval over the values behind each median
 * (the case's repetitions; the optional stage's per-round aggregates). Where a side has fewer than two values, the
 * entry's median is 0, or the interval holds 0, the data cannot tell: "not resolved". A reproduction is another
 * configuration (another person's machine): it is set against the entry alone, never pooled with the entry or with
 * another reproduction.
 */
import { medianOfSorted } from "./check_derived.js";
import { BURST_CASE } from "./protocol.js";

/** @typedef {import("./facts.js").ResultFacts} ResultFacts */
/** @typedef {import("./facts.js").Stat} Stat */

/**
 * One metric of one case.
 * @typedef {{ caseId: string, concurrency: number, metric: string, entry: number | null, reproduction: number | null,
 *   delta: { estimate: number, lower: number, upper: number } | null, verdict: "better" | "worse" | "not resolved",
 *   why: string | null }} DeltaRow
 */

/** The seed of every interval: the same results give the same intervals. */
export const DELTA_SEED = 27;
const RESAMPLES = 10_000;

/** The metrics compared: their label, and whether lower is better (latencies). */
const METRICS = /** @type {const} */ ([
  ["decode_tps", "Decode tok/s", false],
  ["prompt_tps", "Prompt tok/s", false],
  ["ttft_s", "TTFT s", true],
]);

/** Uniform numbers in [0, 1) from a seed (Marsaglia's xorshift32). @param {number} seed */
function uniform(seed) {
  let x = (seed ^ 0x9e3779b9) >>> 0 || 1;
  return () => {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    return x / 2 ** 32;
  };
}

/** @param {readonly number[]} values */
function median(values) {
  return /** @type {number} */ (medianOfSorted([...values].sort((a, b) => a - b)));
}

/**
 * The reproduction's values against the entry's.
 * @param {readonly number[]} entry @param {readonly number[]} reproduction @param {boolean} lowerIsBetter
 * @returns {Pick<DeltaRow, "delta" | "verdict" | "why">}
 */
export function relativeDelta(entry, reproduction, lowerIsBetter) {
  if (entry.length < 2 || reproduction.length < 2) {
    return { delta: null, verdict: "not resolved", why: "fewer than 2 values on a side" };
  }
  const base = median(entry);
  if (base === 0) return { delta: null, verdict: "not resolved", why: "the entry's median is 0" };
  const next = uniform(DELTA_SEED);
  const resample = (/** @type {readonly number[]} */ values) =>
    values.map(() => /** @type {number} */ (values[Math.floor(next() * values.length)]));
  /** @type {number[]} */
  const deltas = [];
  for (let i = 0; i < RESAMPLES; i++) {
    const b = median(resample(entry));
    if (b !== 0) deltas.push(median(resample(reproduction)) / b - 1);
  }
  deltas.sort((a, b) => a - b);
  const at = (/** @type {number} */ q) => /** @type {number} */ (deltas[Math.floor(q * (deltas.length - 1))]);
  const delta = { estimate: median(reproduction) / base - 1, lower: at(0.025), upper: at(0.975) };
  if (delta.lower <= 0 && delta.upper >= 0) return { delta, verdict: "not resolved", why: "the interval includes 0" };
  return { delta, verdict: (delta.lower > 0) !== lowerIsBetter ? "better" : "worse", why: null };
}

/**
 * Per case the entry and the reproduction share, each metric's medians and the delta; the optional stage's round
 * aggregate too.
 * @param {ResultFacts} entry @param {ResultFacts} reproduction @returns {DeltaRow[]}
 */
export function reproductionDeltas(entry, reproduction) {
  return entry.cases.flatMap((row) => {
    const other = reproduction.cases.find((c) => c.phase === row.phase && c.caseId === row.caseId);
    if (other === undefined) return [];
    // The spec's "Reading it out": the short prompt's prompt rate (a few dozen tokens) measures a request's fixed
    // cost, not prompt processing; readouts, the report's comparison included, leave it out.
    const shortPrompt = row.caseId === "short" || row.caseId === BURST_CASE;
    /** @type {[string, Stat | null | undefined, Stat | null | undefined, boolean][]} */
    const pairs = METRICS.filter(([key]) => !(shortPrompt && key === "prompt_tps"))
      .map(([key, label, lower]) => [label, row.metrics[key], other.metrics[key], lower]);
    if (row.aggregateTps !== null) pairs.push(["Aggregate tok/s", row.aggregateTps, other.aggregateTps, false]);
    return pairs.filter(([, a, b]) => a && b).map(([metric, a, b, lower]) => ({
      caseId: row.caseId,
      concurrency: row.concurrency,
      metric,
      entry: a?.median ?? null,
      reproduction: b?.median ?? null,
      ...relativeDelta(a?.values ?? [], b?.values ?? [], lower),
    }));
  });
}
