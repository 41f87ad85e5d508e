/** The runner: one streamed chat completion at a time (client, SSE, request bodies, health). */
export { closeIdleConnections, streamChat, type StreamChatOptions } from "./stream_client.ts";
export { checkHealth, type HealthCheck } from "./health.ts";
export { type BudgetSetting, buildChatBody, type ChatBody } from "./request_body.ts";
export { SseParser, type SseParserOptions } from "./sse.ts";
export type { ClientOffsets, StreamEnd, StreamOutcome, ToolCallRecord } from "../contract/mod.ts";
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
export { classifyServerUrl, isLoopbackHost, type LoopbackVerdict } from "./_loopback.ts";
