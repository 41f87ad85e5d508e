/**
 * llama-server-shaped chat.completion.chunk events, error bodies, and the usage/timings numbers.
 * Field order follows what llama-server prints; clients must not depend on it.
 */
import type { PlannedToken } from "./_plan.ts";

/** Fields every chunk of one response repeats. */
export interface Envelope {
  id: string;
  created: number;
  model: string;
  system_fingerprint: string;
}

type Choice = { finish_reason: string | null; index: 0; delta: Record<string, unknown> };

/** One SSE event holding a chat.completion.chunk. */
export function chunkEvent(envelope: Envelope, choices: Choice[], extra?: Record<string, unknown>): string {
  const chunk = {
    choices,
    created: envelope.created,
    id: envelope.id,
    model: envelope.model,
    system_fingerprint: envelope.system_fingerprint,
    object: "chat.completion.chunk",
    ...extra,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The role-only chunk that precedes the first delta. */
export function roleEvent(envelope: Envelope): string {
  return chunkEvent(envelope, [{ finish_reason: null, index: 0, delta: { role: "assistant", content: null } }]);
}

/**
 * The event a generated token produces, or null for a token that shows nothing; `timings` are the running ones a
 * request with timings_per_token gets on every chunk.
 */
export function tokenEvent(envelope: Envelope, token: PlannedToken, timings?: Timings): string | null {
  const extra = timings === undefined ? undefined : { timings };
  switch (token.kind) {
    case "silent":
      return null;
    case "reasoning":
      return deltaEvent(envelope, { reasoning_content: token.text }, extra);
    case "content":
      return deltaEvent(envelope, { content: token.text }, extra);
    case "tool": {
      const call = token.id === null ? { index: token.index, function: { arguments: token.arguments } } : {
        index: token.index,
        id: token.id,
        type: "function",
        function: { name: token.name, arguments: token.arguments },
      };
      return deltaEvent(envelope, { tool_calls: [call] }, extra);
    }
  }
}

/** A chunk with the given delta and no finish reason. */
export function deltaEvent(
  envelope: Envelope,
  delta: Record<string, unknown>,
  extra?: Record<string, unknown>,
): string {
  return chunkEvent(envelope, [{ finish_reason: null, index: 0, delta }], extra);
}

/** Exact JSON texts to send as the `usage` / `timings` members instead of the computed objects. */
export interface RawMembers {
  usage?: string;
  timings?: string;
}

const RAW_MARK = "\u0000raw-member\u0000";

/** Replaces each member marked by RAW_MARK in a serialized event with its raw text. */
function withRaw(event: string, raw: RawMembers): string {
  let out = event;
  for (const name of ["usage", "timings"] as const) {
    const text = raw[name];
    if (text !== undefined) out = out.replace(JSON.stringify(`${RAW_MARK}${name}`), text);
  }
  return out;
}

function members(usage: Usage | null, timings: Timings | null, raw: RawMembers): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (usage !== null) out.usage = raw.usage === undefined ? usage : `${RAW_MARK}usage`;
  if (timings !== null) out.timings = raw.timings === undefined ? timings : `${RAW_MARK}timings`;
  return out;
}

/** The finish chunk (empty delta), optionally carrying the timings when it is the last chunk. */
export function finishEvent(
  envelope: Envelope,
  finishReason: string,
  timings: Timings | null,
  raw: RawMembers = {},
): string {
  const extra = timings === null ? undefined : members(null, timings, raw);
  return withRaw(chunkEvent(envelope, [{ finish_reason: finishReason, index: 0, delta: {} }], extra), raw);
}

/** The usage chunk: no choices, usage, and timings when present. */
export function usageEvent(envelope: Envelope, usage: Usage, timings: Timings | null, raw: RawMembers = {}): string {
  return withRaw(chunkEvent(envelope, [], members(usage, timings, raw)), raw);
}

/** The `error` event llama-server sends when a request fails after streaming started. */
export function errorEvent(code: number, message: string, type: string): string {
  return `data: ${JSON.stringify({ error: { code, message, type } })}\n\n`;
}

/** llama-server's error type for an HTTP status. */
export function errorTypeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 404) return "not_found_error";
  if (status === 501) return "not_supported_error";
  if (status === 503) return "unavailable_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** JSON body of an HTTP error answered before any stream. */
export function errorBody(status: number, message: string, type?: string, extra?: Record<string, unknown>): string {
  return JSON.stringify({ error: { code: status, message, type: type ?? errorTypeOf(status), ...extra } });
}

export interface Usage {
  completion_tokens: number;
  prompt_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export interface Timings {
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  prompt_per_token_ms: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_token_ms: number;
  predicted_per_second: number;
}

/** usage of a finished request; completion_tokens counts every generated token, EOS included. */
export function usageOf(promptTokens: number, cachedTokens: number, completionTokens: number): Usage {
  return {
    completion_tokens: completionTokens,
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  };
}

/** Inputs of timingsOf: counts and the configured engine speeds in tokens per second. */
export interface TimingsInput {
  cacheN: number;
  promptN: number;
  completionTokens: number;
  promptTps: number;
  decodeTps: number;
  /** Added to the reported predicted_n only (a disagreeing engine count). */
  predictedNOffset: number;
}

/**
 * Engine timings computed from the configured speeds. prompt_ms covers the prompt_n processed tokens;
 * predicted_ms runs from the first sampled token to the last, so n tokens span n - 1 intervals and
 * predicted_per_second = (n - 1) / predicted_ms * 1000 equals decodeTps (0 when n <= 1), as this llama.cpp prints.
 */
export function timingsOf(input: TimingsInput): Timings {
  const promptMs = (input.promptN / input.promptTps) * 1000;
  const n = input.completionTokens;
  const predictedMs = n > 1 ? ((n - 1) / input.decodeTps) * 1000 : 0;
  return {
    cache_n: input.cacheN,
    prompt_n: input.promptN,
    prompt_ms: promptMs,
    prompt_per_token_ms: input.promptN > 0 ? promptMs / input.promptN : 0,
    prompt_per_second: promptMs > 0 ? (input.promptN / promptMs) * 1000 : 0,
    predicted_n: Math.max(0, n + input.predictedNOffset),
    predicted_ms: predictedMs,
    predicted_per_token_ms: n > 0 ? predictedMs / n : 0,
    predicted_per_second: predictedMs > 0 ? ((n - 1) / predictedMs) * 1000 : 0,
  };
}
