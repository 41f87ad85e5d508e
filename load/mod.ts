/**
 * load/: load tests and release gates by the performance methodology. The generator (closed loop, or open loop on
 * a seeded schedule), workloads (synthetic profiles, JSONL and ShareGPT prompt sets), per-request rows and
 * distributions, run summaries, the cross-run aggregate, the compare gate and its interleaved sessions, the two
 * conductors (`runLoadTest`, `runCompare`) and their console text.
 */
export {
  type AggregatedMetric,
  aggregateRuns,
  HEADLINES,
  LOAD_AGGREGATE_FORMAT,
  type LoadAggregate,
} from "./aggregate.ts";
export {
  compareSchedule,
  type CompareServer,
  type CompareSession,
  type CompareSessionIo,
  type CompareSide,
  type CompareTarget,
  isProfileTarget,
  type ProfileStarter,
  runCompareSessions,
} from "./compare_sessions.ts";
export {
  COMPARE_FORMAT_LINE,
  COMPARE_RUN_VERSION,
  type CompareDeps,
  type CompareHooks,
  type CompareMeasurement,
  type CompareOutcome,
  type ComparePoint,
  type CompareRunOptions,
  type CompareWorkload,
  planCompare,
  type PlannedRun,
  readRecordedNoiseFloor,
  runCompare,
} from "./compare_run.ts";
export {
  COMPARE_SPEC_FORMAT,
  type CompareSpec,
  parseCompareSpec,
  SPEC_DEFAULTS,
  type SpecWorkload,
  specWorkloadOptions,
} from "./compare_spec.ts";
export { type AuditOptions, auditRun, executeLoad, type ExecuteLoadOptions, type LoadRunResult } from "./execute.ts";
export {
  COMPARE_METRICS,
  compareLoad,
  type CompareMetric,
  type CompareOptions,
  type ComparePointInput,
  type ComparePointResult,
  type CompareResult,
  DEFAULT_GATE_TOLERANCE,
  DEFAULT_MAX_ERROR_RATE_INCREASE,
  DEFAULT_WORKLOAD,
  LOAD_COMPARE_FORMAT,
  LOAD_COMPARE_VERSION,
  type MetricDelta,
  pointKey,
} from "./gate.ts";
export {
  LOAD_LIMITS,
  type LoadDeps,
  type LoadPlan,
  type LoadStreamOptions,
  runLoad,
  type RunLoadOptions,
  shardShare,
  validateLoadPlan,
} from "./generator.ts";
export {
  clientCeiling,
  HEADROOM_WARN_FRACTION,
  type HeadroomCeiling,
  type HeadroomDeps,
  type HeadroomShape,
  type HeadroomStamp,
  headroomStamp,
  measureCeiling,
} from "./headroom.ts";
export {
  interruptedStamp,
  type LineSink,
  LOAD_RUN_FORMAT,
  LOAD_RUN_VERSION,
  type LoadTestDeps,
  type LoadTestHooks,
  type LoadTestOptions,
  type LoadTestOutcome,
  PREFLIGHT_DEADLINE_S,
  prepareLoadTest,
  runLoadTest,
  SELF_CHECK_ENGINE,
  ZERO_WARMUP_WARNING,
} from "./load_run.ts";
export {
  type AnswerState,
  buildLoadRow,
  CONNECT_UNAVAILABLE,
  DRAIN_MESSAGE_PREFIX,
  INTERRUPTED_MESSAGE,
  LOAD_FORMAT_VERSION,
  LOAD_REQUEST_FORMAT,
  type LoadRequestRow,
  type LoadRowOptions,
  type LoadRowStatus,
  serverTokenCounts,
} from "./metrics.ts";
export {
  checkTargetsFeasible,
  type PreparedWorkload,
  prepareWorkload,
  type WorkloadOptions,
  WorkloadRefusal,
} from "./prepare.ts";
export {
  checkStreamingServer,
  PREFLIGHT_PROMPT,
  preflightBody,
  type PreflightDeps,
  type PreflightResult,
  TargetRefused,
} from "./preflight.ts";
export { PROMPT_MIX_FORMAT, promptMixReport } from "./prompt_mix.ts";
export { CHARS_PER_TOKEN_ESTIMATE, corpusManifestSha256, type CorpusProvenance, realTextProfile } from "./real_text.ts";
export { NUMERIC_COLUMNS, RowStore } from "./row_store.ts";
export {
  scheduleIdentity,
  type ScheduleInput,
  scheduleSha256,
  type ShardRun,
  shardStamp,
  type ShardStart,
  shardStartFrom,
  START_WINDOW_S,
} from "./shard.ts";
export { realLoadDeps } from "./real_deps.ts";
export {
  consoleHooks,
  type ConsoleWriters,
  renderAggregate,
  renderCompare,
  renderEndpointSummary,
  renderLoadSummary,
  renderSelfCheck,
} from "./render.ts";
export { arrivalOffsets, scheduleOffsets, type ScheduleOptions } from "./schedule.ts";
export {
  type EndpointLoadSummary,
  type LengthCheck,
  type LengthTarget,
  LOAD_SUMMARY_FORMAT,
  type LoadAudits,
  type LoadDistributions,
  type LoadSummary,
  type LoadSummaryOptions,
  meetsSlo,
  type ObservedConcurrency,
  observedConcurrency,
  POOLED_LABEL,
  type RowSelection,
  type Slo,
  summarizeLoad,
  summarizeSelection,
  summarizeStore,
  type ThroughputBin,
  throughputBins,
  UNCAPPED_REASON,
} from "./summary.ts";
export {
  type BodyOptions,
  buildLoadBody,
  type ChatTurn,
  checkPromptVariety,
  parsePromptJsonl,
  parseShareGpt,
  PROFILE_VERSION,
  type ProfileName,
  PROFILES,
  type PromptEntry,
  type PromptSet,
  selectionSha256,
  selectPrompts,
  syntheticProfile,
} from "./workloads.ts";
export {
  describeLoadPlan,
  LOAD_PLAN_FORMAT,
  MAX_LISTED_REQUESTS,
  type PlannedRequest,
  plannedRequests,
} from "./load_plan.ts";
export {
  checkShards,
  DEFAULT_MAX_CLOCK_SPREAD_S,
  LOAD_MERGE_FORMAT,
  type MergeDeps,
  type MergedShard,
  MergeRefusal,
  type MergeResult,
  mergeShardFiles,
  mergeShards,
  readShardFile,
} from "./merge.ts";
export { renderCompareHtml, renderLoadHtml } from "./html_report.ts";
export { type PageContext } from "./_html_parts.ts";
export {
  parseSavedResults,
  readSavedResults,
  SAVED_JSONL_CAP_BYTES,
  savedPoints,
  type SavedReadOptions,
  type SavedResults,
  SavedResultsRefusal,
  type SavedRun,
  type SavedSummary,
} from "./saved_results.ts";
export { gateSaved, type SavedGateOptions } from "./saved_gate.ts";
export { curvePoints, loadLevel, savedCsv } from "./saved_report.ts";
