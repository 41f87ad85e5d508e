/**
 * What a reader of one performance case wants besides its speed summaries: how many requests it had, how many
 * reached the output cap, failed or were skipped, and the actual token counts the engine reported (input,
 * cached, output) as median, min and max over the requests that have a count. Renderers (README, comparison,
 * pictures) show these numbers; they are computed only here.
 */
import {
  CLIENTS_PER_ROUND,
  CONCURRENCY_CASE,
  type Metric,
  PERFORMANCE_CASES,
  type ReasoningCadence,
  type ReasoningItl,
  type RequestRecord,
  type Result,
} from "../contract/mod.ts";
import type { ReasoningCadence as StreamCadence } from "./cadence.ts";
import { orderStatistics } from "./stats.ts";
import { metricValue } from "./summaries.ts";

/**
 * Whether a readout for people (README, console, comparison, pictures) leaves a case's metric out: the short prompt
 * (and the optional stage's short burst, the same prompt) is only a few dozen tokens, so its prompt rate measures
 * the fixed cost of a request, not prompt processing (spec, "How the runner reads the protocol": "Reading it
 * out"). results.json keeps it.
 */
export function leftOutOfReadout(metric: Metric, caseId: string): boolean {
  return metric === "prompt_tps" && (caseId === "short" || caseId === CONCURRENCY_CASE);
}

/** The footnote of every readout that leaves a metric out (leftOutOfReadout), marked "(*)" where it is. */
export const LEFT_OUT_NOTE =
  "(*) The short prompt is only a few dozen tokens, so its prompt rate measures the fixed cost of a request rather " +
  "than prompt processing; it is kept in results.json and left out of this readout.";

/** Median, min, max and n of a sample; every statistic null (n 0) when it is empty (never a measured zero). */
export interface ValueRange {
  median: number | null;
  min: number | null;
  max: number | null;
  n: number;
}

/** The range of a sample of finite numbers. @throws {RangeError} on a value that is not finite. */
export function rangeOf(values: readonly number[]): ValueRange {
  return values.length === 0 ? { median: null, min: null, max: null, n: 0 } : orderStatistics(values);
}

/** One case of one result, read out for people. */
export interface CaseReadout {
  phase: "performance" | "concurrency";
  caseId: string;
  concurrency: number;
  /** Records of the case (3 for a performance case, 12 for short-burst). */
  records: number;
  /** Completed or capped: the requests with measurements. */
  measured: number;
  /** Requests that reached the output cap (status truncated). */
  capped: number;
  failed: number;
  skipped: number;
  /** Over the measured requests that have the count. */
  inputTokens: ValueRange;
  cachedTokens: ValueRange;
  outputTokens: ValueRange;
}

function tokens(records: readonly RequestRecord[], pick: (r: RequestRecord) => number | null): ValueRange {
  const values: number[] = [];
  for (const record of records) {
    const value = pick(record);
    if (value !== null) values.push(value);
  }
  return rangeOf(values);
}

/** The readout of one case from its records (any order). */
export function readCase(
  requests: readonly RequestRecord[],
  phase: "performance" | "concurrency",
  caseId: string,
): CaseReadout {
  const records = requests.filter((r) => r.phase === phase && r.case_id === caseId);
  const measured = records.filter((r) => r.status === "completed" || r.status === "truncated");
  return {
    phase,
    caseId,
    concurrency: phase === "concurrency" ? CLIENTS_PER_ROUND : 1,
    records: records.length,
    measured: measured.length,
    capped: records.filter((r) => r.status === "truncated").length,
    failed: records.filter((r) => r.status === "failed").length,
    skipped: records.filter((r) => r.status === "skipped").length,
    inputTokens: tokens(measured, (r) => r.tokens.input_tokens),
    cachedTokens: tokens(measured, (r) => r.tokens.cached_tokens),
    outputTokens: tokens(measured, (r) => r.tokens.output_tokens),
  };
}

/** The reasoning cadence of one case, over its measured requests that streamed reasoning. */
export interface CaseCadence {
  reasoned: number;
  measured: number;
  /** Per request (median, min, max and n over the requests that reasoned). */
  thinkingS: ValueRange;
  reasoningTpotS: ValueRange;
  answerTpotS: ValueRange;
  /** Every gap between successive chunks of those requests, pooled (results.json /extensions/reasoning_itl). */
  reasoningItlS: ValueRange;
  answerItlS: ValueRange;
}

/** The measured requests of one case: completed or capped. */
function measuredOf(requests: readonly RequestRecord[], phase: string, caseId: string): RequestRecord[] {
  return requests.filter((r) =>
    r.phase === phase && r.case_id === caseId && (r.status === "completed" || r.status === "truncated")
  );
}

/** A request's cadence as results.json keeps it: its gaps go to its case's pool (pooledItl). */
export function keptCadence(cadence: StreamCadence | null): ReasoningCadence | null {
  if (cadence === null) return null;
  const { thinking_s, reasoning_tpot_s, answer_tpot_s } = cadence;
  return { thinking_s, reasoning_tpot_s, answer_tpot_s };
}

/**
 * Per case of a readout (performance and the optional stage, as readCases) with a measured request that streamed
 * reasoning, in the order of the records: every gap of those requests pooled (results.json /extensions/reasoning_itl).
 * `cadenceOf` gives a request's cadence with its gaps.
 */
export function pooledItl(
  requests: readonly RequestRecord[],
  cadenceOf: (id: string) => StreamCadence | null | undefined,
): ReasoningItl[] {
  const cases: { phase: ReasoningItl["phase"]; caseId: string }[] = [];
  for (const r of requests) {
    if (r.phase !== "performance" && r.phase !== "concurrency") continue;
    if (cases.some((c) => c.phase === r.phase && c.caseId === r.case_id)) continue;
    cases.push({ phase: r.phase, caseId: r.case_id });
  }
  return cases.flatMap(({ phase, caseId }) => {
    const cadences = measuredOf(requests, phase, caseId).flatMap((r) => cadenceOf(r.id) ?? []);
    if (cadences.length === 0) return [];
    return [{
      phase,
      case_id: caseId,
      reasoning_itl_s: rangeOf(cadences.flatMap((c) => c.reasoning_itl_s)),
      answer_itl_s: rangeOf(cadences.flatMap((c) => c.answer_itl_s)),
    }];
  });
}

/**
 * The reasoning cadence of a case from its records, their cadences (results.json's /extensions/reasoning_cadence,
 * by request id) and its pooled gaps (/extensions/reasoning_itl); null when none of its measured requests reasoned.
 */
export function readCadence(
  result: Pick<Result, "requests" | "extensions">,
  phase: "performance" | "concurrency",
  caseId: string,
): CaseCadence | null {
  const cadenceOf = result.extensions?.reasoning_cadence;
  const measured = measuredOf(result.requests, phase, caseId);
  const cadences = measured.flatMap((r) =>
    (cadenceOf !== undefined && Object.hasOwn(cadenceOf, r.id) && cadenceOf[r.id]) || []
  );
  if (cadences.length === 0) return null;
  const range = (pick: (c: ReasoningCadence) => number | null) => rangeOf(cadences.flatMap((c) => pick(c) ?? []));
  const pooled = result.extensions?.reasoning_itl?.find((p) => p.phase === phase && p.case_id === caseId);
  const none = rangeOf([]);
  return {
    reasoned: cadences.length,
    measured: measured.length,
    thinkingS: range((c) => c.thinking_s),
    reasoningTpotS: range((c) => c.reasoning_tpot_s),
    answerTpotS: range((c) => c.answer_tpot_s),
    reasoningItlS: pooled?.reasoning_itl_s ?? none,
    answerItlS: pooled?.answer_itl_s ?? none,
  };
}

/** Readouts of the performance cases, then short-burst when the optional stage was selected. */
export function readCases(result: Pick<Result, "requests" | "run">): CaseReadout[] {
  const out = PERFORMANCE_CASES.map((caseId) => readCase(result.requests, "performance", caseId));
  if (result.run.optional_concurrency) out.push(readCase(result.requests, "concurrency", CONCURRENCY_CASE));
  return out;
}

/**
 * One run's values of one metric over the requests its summary of the case included (as in its own results.json),
 * in the summary's order; a comparison reads several runs of one configuration from these.
 * @throws {RangeError} when an included id has no record.
 */
export function includedMetricValues(
  run: { requests: readonly RequestRecord[]; includedRequestIds: readonly string[] },
  metric: Metric,
): number[] {
  const byId = new Map(run.requests.map((r) => [r.id, r]));
  const values: number[] = [];
  for (const id of run.includedRequestIds) {
    const record = byId.get(id);
    if (record === undefined) throw new RangeError(`Cannot read ${metric}: included request "${id}" has no record`);
    const value = metricValue(record, metric);
    if (value !== null) values.push(value);
  }
  return values;
}
