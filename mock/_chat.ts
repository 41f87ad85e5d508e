/**
 * POST /v1/chat/completions of the scripted engine: the request is logged, parsed and checked like llama-server
 * checks it (scripted faults, the context limit), queued for a slot (FIFO, with prompt-cache reuse), and answered
 * by the script, streamed or whole. The counters /metrics prints are updated as the answer ends.
 */
import type { HttpServerRequest, HttpServerResponse } from "../runtime/mod.ts";
import { type Behaviour, behaviourFor } from "./_behaviour.ts";
import { type Envelope, errorBody, timingsOf, usageOf } from "./_chunks.ts";
import { resolvedParams } from "./_endpoints.ts";
import { planTokens } from "./_plan.ts";
import { promptTokensOf, renderPrompt, requestIdOf } from "./_prompt.ts";
import { reuseOf, type Slot } from "./_slots.ts";
import type { EngineState } from "./_state.ts";
import { completeAnswer, streamAnswer } from "./_stream.ts";
import type { MockRequestLog } from "./_types.ts";
import { type ChatRequest, readChatRequest } from "./_validate.ts";

/** Epoch microseconds, sub-millisecond resolution. */
export function nowUs(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Random alphanumeric string (ids of completions and tool calls). */
function randomId(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join("");
}

/** Writes a JSON answer. */
export function sendJson(response: HttpServerResponse, status: number, body: string): Promise<void> {
  response.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
  return response.end(body);
}

function newLog(index: number): MockRequestLog {
  return {
    index,
    requestId: null,
    body: null,
    behaviour: {},
    arrivedAtEpochUs: nowUs(),
    startedAtEpochUs: null,
    firstDeltaSentAtEpochUs: null,
    lastDeltaSentAtEpochUs: null,
    endedAtEpochUs: null,
    queuedMs: null,
    slot: null,
    httpStatus: null,
    outcome: "queued",
    finishReason: null,
    promptTokens: null,
    promptTokensSource: null,
    cachedTokens: null,
    completionTokens: null,
    events: 0,
  };
}

/** A request that passed the checks made before it waits for a slot. */
interface Admitted {
  chat: ChatRequest;
  behaviour: Behaviour;
  prompt: string;
  promptTokens: number;
}

/**
 * Parses the request and answers it at once where llama-server would (invalid body, a scripted HTTP error or
 * death, a prompt over the context); resolves with the admitted request, or null when it was answered.
 */
async function admit(
  state: EngineState,
  request: HttpServerRequest,
  response: HttpServerResponse,
  log: MockRequestLog,
  end: (outcome: MockRequestLog["outcome"]) => void,
): Promise<Admitted | null> {
  const parsed = readChatRequest(request.bodyText);
  log.body = parsed.body;
  if (!parsed.ok) {
    log.httpStatus = parsed.status;
    await sendJson(response, parsed.status, errorBody(parsed.status, parsed.message));
    end("http_error");
    return null;
  }
  const chat = parsed.value;
  log.requestId = requestIdOf(chat.body);
  const behaviour = behaviourFor(state.script, log.requestId);
  log.behaviour = behaviour;
  const fault = behaviour.fault;
  if (fault?.kind === "die" && fault.afterTokens === undefined) {
    response.destroy();
    end("killed");
    await state.stop("killed");
    return null;
  }
  if (fault?.kind === "http_error") {
    log.httpStatus = fault.status;
    const message = fault.message ?? `Scripted HTTP ${fault.status} from the mock engine.`;
    await sendJson(response, fault.status, errorBody(fault.status, message, fault.type));
    end("http_error");
    return null;
  }
  const prompt = renderPrompt(chat.body);
  const counted = promptTokensOf(log.requestId, prompt, state.tokenCounts);
  log.promptTokens = counted.tokens;
  log.promptTokensSource = counted.source;
  if (counted.tokens >= state.nCtx) {
    log.httpStatus = 400;
    const message = `the request (${counted.tokens} tokens) does not fit the context of ${state.nCtx} tokens`;
    const extra = { n_prompt_tokens: counted.tokens, n_ctx: state.nCtx };
    await sendJson(response, 400, errorBody(400, message, "exceed_context_size_error", extra));
    end("http_error");
    return null;
  }
  return { chat, behaviour, prompt, promptTokens: counted.tokens };
}

/** Answers one chat request; resolves when its answer (or refusal) has ended. */
export async function handleChat(
  state: EngineState,
  request: HttpServerRequest,
  response: HttpServerResponse,
): Promise<void> {
  const log = newLog(state.requests.length);
  state.requests.push(log);
  const end = (outcome: MockRequestLog["outcome"]) => {
    log.outcome = outcome;
    log.endedAtEpochUs = nowUs();
    state.counters.requestsEnded++;
    state.notify();
  };
  state.notify();
  const admitted = await admit(state, request, response, log, end);
  if (admitted === null) return;
  const { chat, behaviour, prompt, promptTokens } = admitted;
  const signal = AbortSignal.any([response.disconnected, state.shutdown.signal]);
  const queuedSince = performance.now();
  let slot: Slot;
  try {
    slot = await state.pool.acquire(prompt, chat.idSlot, signal);
  } catch {
    if (!response.closed) response.destroy();
    return end(state.shutdownKind ?? "client_disconnected");
  }
  log.queuedMs = performance.now() - queuedSince;
  log.slot = slot.id;
  log.startedAtEpochUs = nowUs();
  log.outcome = "streaming";
  slot.taskIndex = log.index;
  slot.params = resolvedParams(chat.body, behaviour.resolvedParams);
  const cachedTokens = reuseOf(slot, prompt, promptTokens, chat.cachePrompt);
  slot.cache = { prompt, tokens: promptTokens };
  log.cachedTokens = cachedTokens;
  const { plan, promptN, timings, timingsAt, envelope } = answerPlan(state, admitted, log, cachedTokens);
  state.notify();
  const context = {
    response,
    log,
    behaviour,
    plan,
    envelope,
    includeUsage: chat.includeUsage,
    usage: usageOf(promptTokens, cachedTokens, plan.completionTokens),
    timings,
    timingsAt: chat.timingsPerToken && behaviour.omitTimings !== true ? timingsAt : null,
    timeScale: state.timeScale,
    slot,
    signal,
    kill: () => void state.stop("killed"),
    nowUs,
    notify: state.notify,
  };
  let outcome: MockRequestLog["outcome"] | "aborted";
  try {
    outcome = chat.stream ? await streamAnswer(context) : await completeAnswer(context);
  } finally {
    countDecoded(state, log.completionTokens ?? 0, promptN, timings.prompt_ms);
    state.pool.release(slot);
  }
  if (outcome === "aborted") outcome = state.shutdownKind ?? "client_disconnected";
  if (!response.closed && outcome !== "finished") response.destroy();
  end(outcome);
}

/** What the answer will be: its tokens (planned from the behaviour), its timings, the completion's envelope. */
function answerPlan(
  state: EngineState,
  { chat, behaviour, promptTokens }: NonNullable<Awaited<ReturnType<typeof admit>>>,
  log: MockRequestLog,
  cachedTokens: number,
) {
  const plan = planTokens({
    requestId: log.requestId,
    behaviour,
    limitTokens: chat.maxTokens ?? state.nCtx - promptTokens,
    newToolCallId: () => randomId(32),
    reasoningBudget: chat.reasoningBudget,
  });
  const promptN = promptTokens - cachedTokens;
  const timingsAt = (completionTokens: number) =>
    timingsOf({
      cacheN: cachedTokens,
      promptN,
      completionTokens,
      promptTps: state.promptTps,
      decodeTps: state.decodeTps,
      predictedNOffset: behaviour.predictedNOffset ?? 0,
    });
  const timings = timingsAt(plan.completionTokens);
  const envelope: Envelope = {
    id: `chatcmpl-${randomId(32)}`,
    created: Math.floor(Date.now() / 1000),
    model: state.identity.modelAlias,
    system_fingerprint: state.identity.buildInfo,
  };
  return { plan, promptN, timings, timingsAt, envelope };
}

/** Adds one answer to the /metrics counters, as llama-server counts it. */
function countDecoded(state: EngineState, decoded: number, promptN: number, promptMs: number): void {
  const counters = state.counters;
  if (decoded > 0) {
    counters.promptTokensTotal += promptN;
    counters.promptSecondsTotal += promptMs / 1000;
    counters.nDecodeTotal += Math.ceil(promptN / 2048);
  }
  counters.tokensPredictedTotal += decoded;
  counters.tokensPredictedSecondsTotal += decoded > 1 ? ((decoded - 1) / state.decodeTps) : 0;
  counters.nDecodeTotal += decoded;
}
