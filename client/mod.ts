/**
 * client/: one streamed chat completion over HTTP/1.1 and SSE, stamped on the monotonic clock, with the facts the
 * server sent kept raw (the contract's StreamOutcome); the /health question; the base-URL parse and the loopback
 * rule. It computes no statistic and never throws for a failed request.
 */
export { closeIdleConnections, streamChat } from "./stream_client.ts";
export { checkHealth } from "./health.ts";
export { SseParser } from "./sse.ts";
export { classifyServerUrl, isLoopbackHost, type LoopbackVerdict } from "./base_url.ts";
export { chatOnce } from "./chat_once.ts";
