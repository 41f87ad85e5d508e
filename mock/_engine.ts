/**
 * The scripted llama.cpp-compatible engine: an HTTP server on loopback whose answers follow a script, with
 * llama-server's routes, chunk shapes, slots, FIFO queue, prompt cache, loading state and metrics.
 */
import { type HttpServerRequest, type HttpServerResponse, serveHttp } from "../runtime/mod.ts";
import { behaviourFor } from "./_behaviour.ts";
import { type Envelope, errorBody, timingsOf, usageOf } from "./_chunks.ts";
import { type EngineIdentity, metricsText, modelsJson, propsJson, slotsJson } from "./_endpoints.ts";
import { planTokens } from "./_plan.ts";
import { promptTokensOf, renderPrompt, requestIdOf } from "./_prompt.ts";
import { createSlotPool, reuseOf, type Slot } from "./_slots.ts";
import { completeAnswer, streamAnswer } from "./_stream.ts";
import type { MockEngineOptions, MockEngineStats, MockRequestLog } from "./_types.ts";
import { readChatRequest } from "./_validate.ts";

/** A running mock engine. */
export interface MockEngine {
  /** Base URL, e.g. "http://127.0.0.1:41234". */
  url: string;
  port: number;
  /** One entry per chat request, in arrival order, updated live. */
  requests: MockRequestLog[];
  /** Stops the server and drops every connection (a normal shutdown); idempotent. */
  close(): Promise<void>;
  /** Dies like a killed process: stops answering and drops open and queued connections; idempotent. */
  kill(): Promise<void>;
  /** Turns the "Loading model" state (503 on every route) on or off. */
  setLoading(loading: boolean): void;
  /** Current counters and gauges (what /metrics prints). */
  stats(): MockEngineStats;
  /**
   * Resolves once `condition` holds, re-checked on every state change (arrival, queueing, start, token, end).
   * @throws {Error} when it still does not hold after `timeoutMs` (default 10000).
   */
  waitFor(condition: (engine: MockEngine) => boolean, timeoutMs?: number): Promise<void>;
}

const DEFAULT_TEMPLATE =
  "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + " +
  "'<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n' }}{%- endif %}";

/** Epoch microseconds, sub-millisecond resolution. */
function nowUs(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Random alphanumeric string (ids of completions and tool calls). */
function randomId(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join("");
}

function positive(name: string, value: number | undefined, fallback: number, integer: boolean): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new RangeError(`Cannot start mock engine: ${name} must be a positive ${integer ? "integer" : "number"}`);
  }
  return v;
}

/**
 * Starts the mock engine and resolves once it listens.
 * @throws {RangeError} on a non-positive slots/speed/nCtx or negative timeScale/loadingMs.
 * @throws {Error} when the address cannot be bound.
 */
export async function startMockEngine(options: MockEngineOptions = {}): Promise<MockEngine> {
  const slotCount = positive("slots", options.slots, 4, true);
  const promptTps = positive("promptTps", options.promptTps, 1500, false);
  const decodeTps = positive("decodeTps", options.decodeTps, 50, false);
  const nCtx = positive("nCtx", options.nCtx, 32768, true);
  const timeScale = options.timeScale ?? 1;
  const loadingMs = options.loadingMs ?? 0;
  if (!(timeScale >= 0) || !(loadingMs >= 0)) {
    throw new RangeError("Cannot start mock engine: timeScale and loadingMs must be >= 0");
  }
  const script = options.script ?? {};
  const tokenCounts = options.tokenCounts ?? {};
  const identity: EngineIdentity = {
    modelAlias: options.modelAlias ?? "qwen3-mock",
    modelPath: options.modelPath ?? "models/qwen3-mock-Q4_K_M.gguf",
    buildInfo: options.buildInfo ?? "b7000-80fb11a",
    chatTemplate: options.chatTemplate ?? DEFAULT_TEMPLATE,
    nCtx,
    createdUnix: Math.floor(Date.now() / 1000),
    announceScripted: options.announceScripted ?? true,
  };
  const requests: MockRequestLog[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const pool = createSlotPool(slotCount, notify);
  const shutdown = new AbortController();
  let shutdownKind: "killed" | "closed" | null = null;
  let loading = loadingMs > 0;
  const loadingTimer = loadingMs > 0
    ? setTimeout(() => {
      loading = false;
      notify();
    }, loadingMs)
    : undefined;
  const counters = {
    requestsEnded: 0,
    promptTokensTotal: 0,
    promptSecondsTotal: 0,
    tokensPredictedTotal: 0,
    tokensPredictedSecondsTotal: 0,
    nDecodeTotal: 0,
  };

  const stats = (): MockEngineStats => ({
    loading,
    killed: shutdownKind === "killed",
    processing: pool.processing(),
    deferred: pool.deferred(),
    requestsReceived: requests.length,
    ...counters,
  });

  const sendJson = (response: HttpServerResponse, status: number, body: string) => {
    response.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
    return response.end(body);
  };

  async function stop(kind: "killed" | "closed"): Promise<void> {
    if (shutdownKind === null) shutdownKind = kind;
    clearTimeout(loadingTimer);
    shutdown.abort();
    pool.shutdown(new Error(`Cannot wait for a slot: the engine was ${kind}`));
    await server.close();
    notify();
  }

  async function handleChat(request: HttpServerRequest, response: HttpServerResponse): Promise<void> {
    const log: MockRequestLog = {
      index: requests.length,
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
    requests.push(log);
    const end = (outcome: MockRequestLog["outcome"]) => {
      log.outcome = outcome;
      log.endedAtEpochUs = nowUs();
      counters.requestsEnded++;
      notify();
    };
    notify();
    const parsed = readChatRequest(request.bodyText);
    log.body = parsed.body;
    if (!parsed.ok) {
      log.httpStatus = parsed.status;
      await sendJson(response, parsed.status, errorBody(parsed.status, parsed.message));
      return end("http_error");
    }
    const chat = parsed.value;
    log.requestId = requestIdOf(chat.body);
    const behaviour = behaviourFor(script, log.requestId);
    log.behaviour = behaviour;
    const fault = behaviour.fault;
    if (fault?.kind === "die" && fault.afterTokens === undefined) {
      response.destroy();
      end("killed");
      return await stop("killed");
    }
    if (fault?.kind === "http_error") {
      log.httpStatus = fault.status;
      const message = fault.message ?? `Scripted HTTP ${fault.status} from the mock engine.`;
      await sendJson(response, fault.status, errorBody(fault.status, message, fault.type));
      return end("http_error");
    }
    const prompt = renderPrompt(chat.body);
    const counted = promptTokensOf(log.requestId, prompt, tokenCounts);
    log.promptTokens = counted.tokens;
    log.promptTokensSource = counted.source;
    if (counted.tokens >= nCtx) {
      log.httpStatus = 400;
      const message = `the request (${counted.tokens} tokens) does not fit the context of ${nCtx} tokens`;
      const extra = { n_prompt_tokens: counted.tokens, n_ctx: nCtx };
      await sendJson(response, 400, errorBody(400, message, "exceed_context_size_error", extra));
      return end("http_error");
    }
    const signal = AbortSignal.any([response.disconnected, shutdown.signal]);
    const queuedSince = performance.now();
    let slot: Slot;
    try {
      slot = await pool.acquire(prompt, chat.idSlot, signal);
    } catch {
      if (!response.closed) response.destroy();
      return end(shutdownKind ?? "client_disconnected");
    }
    log.queuedMs = performance.now() - queuedSince;
    log.slot = slot.id;
    log.startedAtEpochUs = nowUs();
    log.outcome = "streaming";
    slot.taskIndex = log.index;
    const cachedTokens = reuseOf(slot, prompt, counted.tokens, chat.cachePrompt);
    slot.cache = { prompt, tokens: counted.tokens };
    log.cachedTokens = cachedTokens;
    const limit = chat.maxTokens ?? nCtx - counted.tokens;
    const plan = planTokens({
      requestId: log.requestId,
      behaviour,
      limitTokens: limit,
      newToolCallId: () => randomId(32),
      reasoningBudget: chat.reasoningBudget,
    });
    const promptN = counted.tokens - cachedTokens;
    const timings = timingsOf({
      cacheN: cachedTokens,
      promptN,
      completionTokens: plan.completionTokens,
      promptTps,
      decodeTps,
      predictedNOffset: behaviour.predictedNOffset ?? 0,
    });
    const envelope: Envelope = {
      id: `chatcmpl-${randomId(32)}`,
      created: Math.floor(Date.now() / 1000),
      model: identity.modelAlias,
      system_fingerprint: identity.buildInfo,
    };
    notify();
    const context = {
      response,
      log,
      behaviour,
      plan,
      envelope,
      includeUsage: chat.includeUsage,
      usage: usageOf(counted.tokens, cachedTokens, plan.completionTokens),
      timings,
      timeScale,
      slot,
      signal,
      kill: () => void stop("killed"),
      nowUs,
      notify,
    };
    let outcome: MockRequestLog["outcome"] | "aborted";
    try {
      outcome = chat.stream ? await streamAnswer(context) : await completeAnswer(context);
    } finally {
      const decoded = log.completionTokens ?? 0;
      if (decoded > 0) {
        counters.promptTokensTotal += promptN;
        counters.promptSecondsTotal += timings.prompt_ms / 1000;
        counters.nDecodeTotal += Math.ceil(promptN / 2048);
      }
      counters.tokensPredictedTotal += decoded;
      counters.tokensPredictedSecondsTotal += decoded > 1 ? ((decoded - 1) / decodeTps) : 0;
      counters.nDecodeTotal += decoded;
      pool.release(slot);
    }
    if (outcome === "aborted") outcome = shutdownKind ?? "client_disconnected";
    if (!response.closed && outcome !== "finished") response.destroy();
    end(outcome);
  }

  async function onRequest(request: HttpServerRequest, response: HttpServerResponse): Promise<void> {
    if (shutdownKind !== null) return response.destroy();
    const path = request.url.split("?")[0] ?? "/";
    if (loading) return await sendJson(response, 503, errorBody(503, "Loading model"));
    const isGet = request.method === "GET";
    if (request.method === "POST" && (path === "/v1/chat/completions" || path === "/chat/completions")) {
      return await handleChat(request, response);
    }
    if (isGet && (path === "/health" || path === "/v1/health")) return await sendJson(response, 200, '{"status":"ok"}');
    if (isGet && path === "/props") {
      return await sendJson(response, 200, JSON.stringify(propsJson(identity, pool.slots)));
    }
    if (isGet && (path === "/v1/models" || path === "/models")) {
      return await sendJson(response, 200, JSON.stringify(modelsJson(identity)));
    }
    if (isGet && path === "/slots") {
      if (options.slotsEndpoint === false) {
        return await sendJson(response, 501, errorBody(501, "This server does not support slots endpoint."));
      }
      return await sendJson(response, 200, JSON.stringify(slotsJson(identity, pool.slots)));
    }
    if (isGet && path === "/metrics") {
      if (options.metrics === false) {
        return await sendJson(response, 501, errorBody(501, "This server does not support metrics endpoint."));
      }
      response.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" });
      return await response.end(metricsText(stats()));
    }
    await sendJson(response, 404, errorBody(404, "File Not Found"));
  }

  const server = await serveHttp({ hostname: options.hostname ?? "127.0.0.1", port: options.port ?? 0, onRequest });
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  const engine: MockEngine = {
    url: `http://${host}:${server.port}`,
    port: server.port,
    requests,
    close: () => stop("closed"),
    kill: () => stop("killed"),
    setLoading(value) {
      loading = value;
      clearTimeout(loadingTimer);
      notify();
    },
    stats,
    waitFor(condition, timeoutMs = 10_000) {
      if (condition(engine)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!condition(engine)) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`Cannot wait for the mock engine: the condition still fails after ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
      });
    },
  };
  return engine;
}
