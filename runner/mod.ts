/**
 * runner/: the standard protocol run. The stage plan from the frozen fixtures, the request body of every request,
 * the executor that sends them in protocol order through the client, and the conductor `runProtocol` that joins
 * provenance, execution, scoring and the result folder (`realRunDeps` binds the real parts).
 */
export { type BudgetSetting, buildChatBody, type ChatBody } from "./request_body.ts";
export {
  type ExecuteOptions,
  executeRun,
  type ExecutorDeps,
  type ExecutorStreamOptions,
  type SchedulePosition,
} from "./executor.ts";
export { type PlannedBatch, planRun, type RunPlan } from "./plan.ts";
export { runProtocol, TEMPLATE_CHECK_FILE } from "./run_protocol.ts";
export { profileSettingsOf } from "./_run_record.ts";
export type { DeclaredProvenance, RunDeps, RunOptions, RunReport, RunStage } from "./run_options.ts";
export { TemplateMismatchError } from "./run_errors.ts";
export { compareTemplateProbe, type TemplateCheck, type TemplateCheckRow } from "./template_check.ts";
export { type ConformingFix, conformingFixes } from "./conforming_fixes.ts";
export { realRunDeps, type RealRunSettings } from "./real_deps.ts";
export { engineLogFile } from "./engine_log.ts";
