/**
 * runner/: the standard protocol run. The stage plan from the frozen fixtures, the request body of every request,
 * the executor that sends them in protocol order through the client, and the conductor `runProtocol` that joins
 * provenance, execution, scoring and the result folder (`realRunDeps` binds the real parts).
 */
export { buildChatBody } from "./request_body.ts";
export { type SchedulePosition } from "./executor.ts";
export { planRun } from "./plan.ts";
export { runProtocol } from "./run_protocol.ts";
export type { DeclaredProvenance, RunOptions, RunReport, RunStage } from "./run_options.ts";
export { TemplateMismatchError } from "./run_errors.ts";
export { compareTemplateProbe, type TemplateCheck } from "./template_check.ts";
export { conformingFixes } from "./conforming_fixes.ts";
export { realRunDeps } from "./real_deps.ts";
export { engineLogFile } from "./engine_log.ts";
