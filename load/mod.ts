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
export { COMPARE_FORMAT_LINE, type CompareDeps, type CompareRunOptions, runCompare } from "./compare_run.ts";
export { executeLoad, type ExecuteLoadOptions, type LoadRunResult } from "./execute.ts";
export { renderCompareHtml, renderLoadHtml } from "./html_report.ts";
export {
  compareLoad,
  type CompareMetric,
  type CompareOptions,
  type ComparePointInput,
  type ComparePointResult,
  type CompareResult,
  DEFAULT_GATE_TOLERANCE,
  LOAD_COMPARE_FORMAT,
  type MetricDelta,
} from "./gate.ts";
export {
  LOAD_LIMITS,
  type LoadDeps,
  type LoadPlan,
  type LoadStreamOptions,
  runLoad,
  type RunLoadOptions,
  validateLoadPlan,
} from "./generator.ts";
export {
  LOAD_RUN_FORMAT,
  type LoadTestDeps,
  type LoadTestHooks,
  type LoadTestOptions,
  type LoadTestOutcome,
  runLoadTest,
  SELF_CHECK_ENGINE,
} from "./load_run.ts";
export {
  type AnswerState,
  buildLoadRow,
  CONNECT_UNAVAILABLE,
  LOAD_FORMAT_VERSION,
  LOAD_REQUEST_FORMAT,
  type LoadRequestRow,
  type LoadRowOptions,
  type LoadRowStatus,
  serverTokenCounts,
} from "./metrics.ts";
export { type PreparedWorkload, prepareWorkload, type WorkloadOptions } from "./prepare.ts";
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
  type LoadDistributions,
  type LoadSummary,
  type LoadSummaryOptions,
  meetsSlo,
  type ObservedConcurrency,
  observedConcurrency,
  POOLED_LABEL,
  type Slo,
  summarizeLoad,
  type ThroughputBin,
  throughputBins,
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
