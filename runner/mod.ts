/**
 * runner/: the standard protocol run. The stage plan from the frozen fixtures, the request body of every request,
 * and the executor that sends them in protocol order through the client and records what happened.
 */
export { type BudgetSetting, buildChatBody, type ChatBody } from "./request_body.ts";
export {
  type ExecutedRequest,
  type ExecuteOptions,
  executeRun,
  type ExecutionFacts,
  type ExecutorDeps,
  type ExecutorStreamOptions,
  type HealthAnswer,
  type SchedulePosition,
} from "./executor.ts";
export { type PlannedBatch, planRun, type RunPlan } from "./plan.ts";
