/**
 * score/: every formula of the toolkit lives here. Strict JSON, the twelve sanity checks, request records from
 * raw stream outcomes (token accounting, reuse and prompt-length checks), speed summaries, request counts,
 * concurrency round aggregates, the sanity score and the run status.
 */
export { DEFAULT_MAX_DEPTH, parseStrictJson } from "./strict_json.ts";
export type { JsonNumber, JsonObject, JsonValue, StrictJsonOptions, StrictJsonResult } from "./strict_json.ts";
export {
  describeJsonDifference,
  jsonEquals,
  jsonKind,
  parseStrictJsonPlain,
  renderJson,
  toJsonValue,
  toPlain,
} from "./json_value.ts";
export { EXACT_TEXT_STRIP, scoreSanity, stripAsciiWhitespace } from "./sanity.ts";
export {
  buildRequestRecord,
  CLIENT_CLOCK_SOURCE,
  describeReuse,
  isPromptLengthOutOfRange,
  isUnexpectedReuse,
  PROMPT_LENGTH_TARGETS,
  PROMPT_LENGTH_TOLERANCE,
  recordOf,
  REUSE_SLACK_TOKENS,
} from "./request_record.ts";
export type { BuiltRecord, RecordFlags, RecordInput } from "./request_record.ts";
export { decodeAgreementToleranceTokens } from "./_accounting.ts";
export { classifyOutcome } from "./_outcome.ts";
export { exclusionReason, metricValue, summarizeRequests } from "./summaries.ts";
export type { SummaryFacts } from "./summaries.ts";
export { countCapped, countRequests } from "./counts.ts";
export {
  type CaseReadout,
  includedMetricValues,
  LEFT_OUT_NOTE,
  leftOutOfReadout,
  rangeOf,
  readCase,
  readCases,
  type ValueRange,
} from "./case_readout.ts";
export { buildConcurrencyRounds, type RequestWait, type RoundQueueing, roundQueueing, WAIT_SOURCES } from "./rounds.ts";
export { type RequestSpan, spanEndS, stageDurationS, wallS } from "./durations.ts";
export { checkResolvedConfig, type ComparedSetting, type ConfigCheck } from "./resolved_config.ts";
export { SANITY_CATEGORY_TOTAL, SANITY_TOTAL, scoreQuality } from "./quality.ts";
export { decideRunStatus, nonconformingReasonsOf, REQUIRED_PHASES, reuseNonconformingReason } from "./status.ts";
export type { RunStatusInput } from "./status.ts";
export { mean, median, orderStatistics } from "./stats.ts";
export { type CdfPoint, empiricalCdf, empiricalCdfCounted, levelOverTime, type LevelStep } from "./timeline.ts";
export * from "./percentiles.ts";
export * from "./bootstrap.ts";
