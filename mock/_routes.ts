/**
 * Every route of the scripted engine, as llama-server answers them: 503 "Loading model" while loading, the chat
 * completions endpoint, /health, /props, /v1/models, /slots (501 when disabled), /metrics (501 when disabled),
 * POST /apply-template and /tokenize, and 404 for anything else. A stopped engine drops the connection.
 */
import type { HttpServerRequest, HttpServerResponse } from "../runtime/mod.ts";
import { handleChat, sendJson } from "./_chat.ts";
import { errorBody } from "./_chunks.ts";
import { metricsText, modelsJson, propsJson, slotsJson } from "./_endpoints.ts";
import type { EngineState } from "./_state.ts";
import { templateEndpointAnswer } from "./_template_endpoints.ts";

/** Answers one HTTP request. */
export async function route(
  state: EngineState,
  request: HttpServerRequest,
  response: HttpServerResponse,
): Promise<void> {
  if (state.shutdownKind !== null) return response.destroy();
  const path = request.url.split("?")[0] ?? "/";
  if (state.loading) return await sendJson(response, 503, errorBody(503, "Loading model"));
  const isGet = request.method === "GET";
  if (request.method === "POST" && (path === "/v1/chat/completions" || path === "/chat/completions")) {
    return await handleChat(state, request, response);
  }
  if (request.method === "POST") {
    const mode = state.options.templateEndpoints ?? "right";
    const answer = templateEndpointAnswer(path, request.bodyText, state.tokenCounts, mode);
    if (answer !== null) return await sendJson(response, answer.status, answer.body);
  }
  if (isGet && (path === "/health" || path === "/v1/health")) return await sendJson(response, 200, '{"status":"ok"}');
  if (isGet && path === "/props") {
    return await sendJson(response, 200, JSON.stringify(propsJson(state.identity, state.pool.slots)));
  }
  if (isGet && (path === "/v1/models" || path === "/models")) {
    return await sendJson(response, 200, JSON.stringify(modelsJson(state.identity)));
  }
  if (isGet && path === "/slots") {
    if (state.options.slotsEndpoint === false) {
      return await sendJson(response, 501, errorBody(501, "This server does not support slots endpoint."));
    }
    return await sendJson(response, 200, JSON.stringify(slotsJson(state.identity, state.pool.slots)));
  }
  if (isGet && path === "/metrics") {
    if (state.options.metrics === false) {
      return await sendJson(response, 501, errorBody(501, "This server does not support metrics endpoint."));
    }
    response.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" });
    return await response.end(metricsText(state.stats()));
  }
  await sendJson(response, 404, errorBody(404, "File Not Found"));
}
