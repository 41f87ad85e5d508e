/**
 * Sends one chat completion on a slot: paced token events, scripted noise and faults, the finish and usage
 * chunks, [DONE]. Streaming (SSE) and non-streaming (one JSON body) answers share the plan and the timings.
 */
import { setImmediate } from "node:timers";
import type { HttpServerResponse } from "../runtime/mod.ts";
import type { Behaviour, Fault } from "./_behaviour.ts";
import {
  deltaEvent,
  type Envelope,
  errorBody,
  errorEvent,
  finishEvent,
  roleEvent,
  type Timings,
  tokenEvent,
  type Usage,
  usageEvent,
} from "./_chunks.ts";
import { eventTokens, type TokenPlan } from "./_plan.ts";
import type { Slot } from "./_slots.ts";
import type { MockRequestLog, MockRequestOutcome } from "./_types.ts";

/** Everything one answer needs. */
export interface AnswerContext {
  response: HttpServerResponse;
  log: MockRequestLog;
  behaviour: Behaviour;
  plan: TokenPlan;
  envelope: Envelope;
  includeUsage: boolean;
  usage: Usage;
  timings: Timings;
  /** The running timings after n generated tokens, for every token's chunk (timings_per_token); null: not asked. */
  timingsAt: ((generated: number) => Timings) | null;
  /** Real milliseconds per reported millisecond (0 = instant). */
  timeScale: number;
  slot: Slot;
  /** Aborts on client disconnect or engine shutdown. */
  signal: AbortSignal;
  /** Kills the whole engine (the "die" fault). */
  kill(): void;
  nowUs(): number;
  /** Called after every generated token (waitFor re-checks). */
  notify(): void;
}

const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" };

/** Streams the answer as SSE. Returns how it ended ("aborted" when the signal fired: the engine names the cause). */
export async function streamAnswer(ctx: AnswerContext): Promise<MockRequestOutcome | "aborted"> {
  const { response, log, behaviour, plan, envelope } = ctx;
  response.writeHead(200, SSE_HEADERS);
  log.httpStatus = 200;
  const fault = behaviour.fault ?? null;
  const faultAt = faultPosition(fault, plan.completionTokens);
  let originMs = performance.now() + ctx.timings.prompt_ms * ctx.timeScale;
  const gapMs = plan.completionTokens > 1
    ? (ctx.timings.predicted_ms / (plan.completionTokens - 1)) * ctx.timeScale
    : 0;
  let roleSent = behaviour.omitRoleChunk === true;
  let emptyDeltas = 0;
  let garble = behaviour.invalidUtf8InAnswer === true;
  const events = eventTokens(plan.tokens, behaviour.tokensPerEvent ?? [1], faultAt);
  for (let i = 0; i <= plan.completionTokens; i++) {
    if (i === faultAt && fault !== null) {
      const result = await applyFault(ctx, fault, i);
      if (result === "continue") {
        originMs = performance.now() - i * gapMs;
      } else return result;
    }
    if (i === plan.completionTokens) break;
    await waitUntil(originMs + i * gapMs, ctx.signal);
    if (ctx.signal.aborted) return "aborted";
    const token = events[i];
    let text = token == null ? null : tokenEvent(envelope, token, ctx.timingsAt?.(i + 1));
    if (text !== null) {
      if (!roleSent) {
        text = roleEvent(envelope) + text;
        roleSent = true;
        log.events++;
      }
      const stamp = ctx.nowUs();
      log.firstDeltaSentAtEpochUs ??= stamp;
      log.lastDeltaSentAtEpochUs = stamp;
      log.events++;
    }
    if (behaviour.emptyDeltaEvery !== undefined && (i + 1) % behaviour.emptyDeltaEvery === 0) {
      text = (text ?? "") + deltaEvent(envelope, emptyDeltas++ % 2 === 0 ? {} : { content: "" });
      log.events++;
    }
    if (behaviour.keepAliveEvery !== undefined && (i + 1) % behaviour.keepAliveEvery === 0) {
      text = (text ?? "") + ":\n\n";
    }
    if (text !== null) {
      if (garble && token?.kind === "content") {
        garble = false;
        await response.write(withInvalidByte(text));
      } else await response.write(text);
    }
    ctx.slot.decoded = i + 1;
    log.completionTokens = i + 1;
    ctx.notify();
  }
  const withUsage = ctx.includeUsage && behaviour.omitUsage !== true;
  const timings = behaviour.omitTimings === true ? null : ctx.timings;
  const raw = {
    ...(behaviour.usageJson === undefined ? {} : { usage: behaviour.usageJson }),
    ...(behaviour.timingsJson === undefined ? {} : { timings: behaviour.timingsJson }),
  };
  let tail = roleSent ? "" : roleEvent(envelope);
  tail += finishEvent(envelope, plan.finishReason, withUsage ? null : timings, raw);
  if (withUsage) tail += usageEvent(envelope, ctx.usage, timings, raw);
  log.events += withUsage ? 2 : 1;
  await response.write(tail);
  await response.end("data: [DONE]\n\n");
  log.finishReason = plan.finishReason;
  return ctx.signal.aborted ? "aborted" : "finished";
}

/** Answers with one chat.completion JSON body after the whole generation time. */
export async function completeAnswer(ctx: AnswerContext): Promise<MockRequestOutcome | "aborted"> {
  const { response, log, behaviour, plan, envelope } = ctx;
  const fault = behaviour.fault ?? null;
  if (fault?.kind === "stall") {
    if (fault.ms === undefined) return await untilAborted(ctx.signal);
    await waitUntil(performance.now() + fault.ms, ctx.signal);
  }
  await waitUntil(performance.now() + (ctx.timings.prompt_ms + ctx.timings.predicted_ms) * ctx.timeScale, ctx.signal);
  if (ctx.signal.aborted) return "aborted";
  if (fault?.kind === "die") {
    ctx.kill();
    return "killed";
  }
  if (fault?.kind === "cut") {
    response.destroy();
    return "cut";
  }
  if (fault?.kind === "error_event") {
    const message = fault.message ?? "Scripted failure during generation.";
    response.writeHead(500, { "Content-Type": "application/json" });
    log.httpStatus = 500;
    await response.end(errorBody(500, message, "server_error"));
    return "error_event";
  }
  const message: Record<string, unknown> = { role: "assistant", content: "" };
  const reasoning: string[] = [];
  const content: string[] = [];
  const calls: Array<{ type: string; function: { name: string; arguments: string }; id: string }> = [];
  for (const token of plan.tokens) {
    if (token.kind === "reasoning") reasoning.push(token.text);
    if (token.kind === "content") content.push(token.text);
    if (token.kind === "tool") {
      if (token.id !== null) {
        calls[token.index] = { type: "function", function: { name: token.name ?? "", arguments: "" }, id: token.id };
      }
      const call = calls[token.index];
      if (call) call.function.arguments += token.arguments;
    }
  }
  message.content = content.length > 0 || calls.length === 0 ? content.join("") : null;
  if (reasoning.length > 0) message.reasoning_content = reasoning.join("");
  if (calls.length > 0) message.tool_calls = calls;
  const body: Record<string, unknown> = {
    choices: [{ finish_reason: plan.finishReason, index: 0, message }],
    created: envelope.created,
    model: envelope.model,
    system_fingerprint: envelope.system_fingerprint,
    object: "chat.completion",
  };
  if (behaviour.omitUsage !== true) body.usage = ctx.usage;
  body.id = envelope.id;
  if (behaviour.omitTimings !== true) body.timings = ctx.timings;
  response.writeHead(200, { "Content-Type": "application/json" });
  log.httpStatus = 200;
  const stamp = ctx.nowUs();
  log.firstDeltaSentAtEpochUs = stamp;
  log.lastDeltaSentAtEpochUs = stamp;
  log.completionTokens = plan.completionTokens;
  log.finishReason = plan.finishReason;
  await response.end(JSON.stringify(body));
  return "finished";
}

const encoder = new TextEncoder();

/** The event's bytes with 0xFF (never valid UTF-8) put where its content text starts. */
function withInvalidByte(event: string): Uint8Array {
  const marker = '"content":"';
  const at = event.indexOf(marker) + marker.length;
  const head = encoder.encode(event.slice(0, at));
  const tail = encoder.encode(event.slice(at));
  const bytes = new Uint8Array(head.length + 1 + tail.length);
  bytes.set(head);
  bytes[head.length] = 0xff;
  bytes.set(tail, head.length + 1);
  return bytes;
}

/**
 * Real milliseconds between the last bytes and a scripted connection drop. Some clients (Bun's fetch) discard
 * bytes that arrive in the same read as the reset; a process that dies a moment after writing looks like this.
 */
const DROP_DELAY_MS = 25;

/** Token position where a mid-stream fault fires (clamped to the end), or -1. */
function faultPosition(fault: Fault | null, completionTokens: number): number {
  if (fault === null) return -1;
  switch (fault.kind) {
    case "http_error":
      return -1;
    case "die":
      return fault.afterTokens === undefined ? -1 : Math.min(fault.afterTokens, completionTokens);
    case "stall":
      return Math.min(fault.afterTokens ?? 0, completionTokens);
    case "cut":
    case "error_event":
      return Math.min(fault.afterTokens ?? 1, completionTokens);
  }
}

async function applyFault(
  ctx: AnswerContext,
  fault: Fault,
  position: number,
): Promise<MockRequestOutcome | "aborted" | "continue"> {
  switch (fault.kind) {
    case "http_error":
      return "continue";
    case "die":
      await waitUntil(performance.now() + DROP_DELAY_MS, ctx.signal);
      ctx.kill();
      return "killed";
    case "stall":
      if (fault.ms === undefined) return await untilAborted(ctx.signal);
      await waitUntil(performance.now() + fault.ms, ctx.signal);
      return ctx.signal.aborted ? "aborted" : "continue";
    case "cut": {
      const token = ctx.plan.tokens[position];
      const next = (token && tokenEvent(ctx.envelope, token)) ?? finishEvent(ctx.envelope, ctx.plan.finishReason, null);
      await ctx.response.write(next.slice(0, Math.ceil(next.length / 2)));
      await waitUntil(performance.now() + DROP_DELAY_MS, ctx.signal);
      ctx.response.destroy();
      return "cut";
    }
    case "error_event": {
      const message = fault.message ?? "Scripted failure during generation.";
      ctx.log.events++;
      await ctx.response.write(errorEvent(500, message, "server_error"));
      await ctx.response.end();
      return "error_event";
    }
  }
}

function untilAborted(signal: AbortSignal): Promise<"aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve("aborted"), { once: true }));
}

/**
 * Waits until performance.now() reaches `targetMs` or the signal aborts. A target already past (instant mode,
 * or catching up) still yields one macrotask so that concurrent streams and socket I/O interleave.
 */
function waitUntil(targetMs: number, signal: AbortSignal): Promise<void> {
  const delayMs = targetMs - performance.now();
  if (signal.aborted) return Promise.resolve();
  if (delayMs < 1) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, delayMs);
    signal.addEventListener("abort", done, { once: true });
  });
}
