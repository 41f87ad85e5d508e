/** The runner: one streamed chat completion at a time (client, SSE, request bodies, health). */
export { closeIdleConnections, streamChat, type StreamChatOptions } from "./stream_client.ts";
export { checkHealth, type HealthCheck } from "./health.ts";
export {
  type BudgetSetting,
  buildChatBody,
  type ChatBody,
  type Dialect,
  PROFILE_CHAT_TEMPLATE_KWARGS,
  PROFILE_REASONING_EFFORT,
  PROFILE_SAMPLING,
} from "./request_body.ts";
export { SseParser, type SseParserOptions } from "./sse.ts";
export type { ClientOffsets, StreamEnd, StreamOutcome, ToolCallRecord } from "./types.ts";
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
export {
  CLIENTS_PER_ROUND,
  type PlannedBatch,
  planRun,
  REPETITIONS,
  type RunPlan,
  scheduledRequestIds,
} from "./plan.ts";
export { classifyServerUrl, isLoopbackHost, type LoopbackVerdict } from "./_loopback.ts";
