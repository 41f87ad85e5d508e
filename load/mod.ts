/**
 * load/: load tests and release gates by the performance methodology. The generator (closed loop, or open loop on
 * a seeded schedule), workloads (synthetic profiles, JSONL and ShareGPT prompt sets), per-request rows and
 * distributions, run summaries, the cross-run aggregate, the compare gate and its interleaved sessions, the two
 * conductors (`runLoadTest`, `runCompare`) and their console text.
 */
export { type CompareSide, type CompareTarget, isProfileTarget, profileServerStamp } from "./gate/compare_sessions.ts";
export { planCompare, runCompare } from "./gate/compare_run.ts";
export type {
  CompareDeps,
  CompareHooks,
  CompareMeasurement,
  CompareOutcome,
  CompareRunOptions,
  PlannedRun,
} from "./gate/_compare_types.ts";
export { applyCompareSpec, SPEC_DEFAULTS } from "./gate/compare_spec.ts";
export { executeLoad, type LoadRunResult } from "./execute.ts";
export { type CompareResult, DEFAULT_WORKLOAD } from "./gate/gate.ts";
export { runLoad } from "./generator.ts";
export { DEFAULT_DRAIN_S, LOAD_LIMITS, type LoadPlan, warmsUp } from "./load_plan_bounds.ts";
export { runLoadTest } from "./load_run.ts";
export type { LoadTestHooks, LoadTestOptions, LoadTestOutcome } from "./_load_types.ts";
export { PREFLIGHT_DEADLINE_S, WARMUP_LIMIT_S } from "./_load_stages.ts";
export { refusalAdvice } from "./preflight.ts";
export { buildLoadRow, type LoadRequestRow } from "./metrics.ts";
export { prepareWorkload, type WorkloadOptions } from "./prepare.ts";
export { promptMixReport } from "./prompt_mix.ts";
export { corpusFiles, useEmbeddedCorpus } from "./real_text.ts";
export { RowStore } from "./row_store.ts";
export { type ShardRun, shardStartFrom, START_WINDOW_S } from "./shard.ts";
export { realLoadDeps } from "./real_deps.ts";
export {
  consoleHooks,
  renderAggregate,
  renderCompare,
  renderEndpointSummary,
  renderLoadSummary,
  signedPercent,
} from "./render.ts";
export { type LengthTarget, type Slo, summarizeStore } from "./summary.ts";
export { buildLoadBody, PROFILES, syntheticProfile } from "./workloads.ts";
export { describeLoadPlan } from "./load_plan.ts";
export { DEFAULT_MAX_CLOCK_SPREAD_S, mergeShardFiles } from "./merge.ts";
export { renderCompareHtml, renderLoadHtml } from "./html_report.ts";
export { type PageContext } from "./_html_parts.ts";
export {
  parseSavedResults,
  readSavedResults,
  recordedNoiseFloor,
  type SavedResults,
  SavedResultsRefusal,
} from "./saved/saved_results.ts";
export { gateSaved } from "./saved/saved_gate.ts";
export { curvePoints, loadLevel, savedCsv } from "./saved/saved_report.ts";
