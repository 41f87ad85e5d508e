/**
 * client/: one streamed chat completion over HTTP/1.1 and SSE, stamped on the monotonic clock, with the facts the
 * server sent kept raw (the contract's StreamOutcome); the /health question; the base-URL parse and the loopback
 * rule. It computes no statistic and never throws for a failed request.
 */
export { closeIdleConnections, streamChat, type StreamChatOptions } from "./stream_client.ts";
export { checkHealth, type HealthCheck } from "./health.ts";
export { SseParser, type SseParserOptions } from "./sse.ts";
export { classifyServerUrl, isLoopbackHost, type LoopbackVerdict, parseBaseUrl } from "./base_url.ts";
export { chatOnce, type ChatOnceOptions } from "./chat_once.ts";
