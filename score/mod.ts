/**
 * score/: every formula of the toolkit lives here. Strict JSON, the twelve sanity checks, request records from
 * raw stream outcomes (token accounting, reuse and prompt-length checks), speed summaries, request counts,
 * concurrency round aggregates, the sanity score and the run status.
 */
export { parseStrictJsonPlain, renderJson, toJsonValue } from "./json_value.ts";
export { type JsonValue, parseStrictJson } from "./strict_json.ts";
export { parseStrictJsonc } from "./strict_jsonc.ts";
export {
  buildRequestRecord,
  isPromptLengthOutOfRange,
  isUnexpectedReuse,
  PROMPT_LENGTH_TOLERANCE,
  recordOf,
  REUSE_SLACK_TOKENS,
} from "./request_record.ts";
export type { BuiltRecord, RecordInput, ScoredRecord } from "./request_record.ts";
export { classifyOutcome } from "./_outcome.ts";
export { chunkGaps, reasoningCadence } from "./cadence.ts";
export { summarizeRequests } from "./summaries.ts";
export { countRequests } from "./counts.ts";
export {
  type CaseReadout,
  includedMetricValues,
  keptCadence,
  LEFT_OUT_NOTE,
  leftOutOfReadout,
  pooledItl,
  rangeOf,
  readCadence,
  readCase,
  readCases,
  type ValueRange,
} from "./case_readout.ts";
export { buildConcurrencyRounds, roundQueueing } from "./rounds.ts";
export { type RequestSpan, spanEndS, stageDurationS, wallS } from "./durations.ts";
export { checkResolvedConfig, type ConfigCheck, SENT_AS_ENGINE_PARAMETER } from "./resolved_config.ts";
export { scoreQuality } from "./quality.ts";
export { decideRunStatus, nonconformingReasonsOf } from "./status.ts";
export { mean, median } from "./stats.ts";
export { type CdfPoint, empiricalCdf, empiricalCdfCounted, levelOverTime } from "./timeline.ts";
export { describeDistribution, describeSortedRuns, type DistSummary, percentileType7 } from "./percentiles.ts";
export { BOOTSTRAP_RESAMPLES, type BootstrapInterval, bootstrapInterval, bootstrapRelativeDelta } from "./bootstrap.ts";
