/**
 * The scripted llama.cpp-compatible engine: an HTTP server on loopback whose answers follow a script, with
 * llama-server's routes, chunk shapes, slots, FIFO queue, prompt cache, loading state and metrics.
 */
import { serveHttp } from "../runtime/mod.ts";
import { route } from "./_routes.ts";
import { createEngineState, type ShutdownKind } from "./_state.ts";
import type { MockEngineOptions, MockEngineStats, MockRequestLog } from "./_types.ts";

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

/**
 * Starts the mock engine and resolves once it listens.
 * @throws {RangeError} on a non-positive slots/speed/nCtx or negative timeScale/loadingMs.
 * @throws {Error} when the address cannot be bound.
 */
export async function startMockEngine(options: MockEngineOptions = {}): Promise<MockEngine> {
  const state = createEngineState(options);
  const loadingMs = options.loadingMs ?? 0;
  const loadingTimer = loadingMs > 0
    ? setTimeout(() => {
      state.loading = false;
      state.notify();
    }, loadingMs)
    : undefined;
  const server = await serveHttp({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    onRequest: (request, response) => route(state, request, response),
  });
  state.stop = async (kind: ShutdownKind) => {
    if (state.shutdownKind === null) state.shutdownKind = kind;
    clearTimeout(loadingTimer);
    state.shutdown.abort();
    state.pool.shutdown(new Error(`Cannot wait for a slot: the engine was ${kind}`));
    await server.close();
    state.notify();
  };
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  const engine: MockEngine = {
    url: `http://${host}:${server.port}`,
    port: server.port,
    requests: state.requests,
    close: () => state.stop("closed"),
    kill: () => state.stop("killed"),
    setLoading(value) {
      state.loading = value;
      clearTimeout(loadingTimer);
      state.notify();
    },
    stats: state.stats,
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
          state.listeners.delete(check);
        };
        state.listeners.add(check);
      });
    },
  };
  return engine;
}
