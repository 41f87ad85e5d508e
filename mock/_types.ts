/** Public data shapes of the mock engine: its options, its per-request log, its counters. */
import type { Behaviour, MockScript } from "./_behaviour.ts";
import type { PromptTokenSource } from "./_prompt.ts";
import type { TemplateEndpoints } from "./_template_endpoints.ts";

/** Options of startMockEngine. Every field is optional. */
export interface MockEngineOptions {
  /** Address to bind. Default "127.0.0.1". */
  hostname?: string;
  /** Port to bind; 0 (default) picks a free one. */
  port?: number;
  /** Parallel slots (llama-server -np). Default 4. Requests beyond them wait FIFO (requests_deferred). */
  slots?: number;
  /** Prompt processing speed, tokens per second. Default 1500. */
  promptTps?: number;
  /** Decode speed per slot, tokens per second. Default 50. */
  decodeTps?: number;
  /**
   * Multiplier on the real waiting for prompt processing and decoding: 1 (default) waits as long as the speeds
   * say, 0 is instant (tests). Reported timings always come from promptTps/decodeTps, whatever the scale.
   * Scripted stalls and the loading delay are real milliseconds and are not scaled.
   */
  timeScale?: number;
  /** Milliseconds after start during which the engine reports "Loading model" (503 everywhere). Default 0. */
  loadingMs?: number;
  /** Behaviours by request id, id prefix ("performance-*") or "*". Default: every request behaves "right". */
  script?: MockScript;
  /**
   * Prompt token counts by request id (e.g. each fixture's input_tokens). Requests without an entry count
   * ceil(characters / 4) of a ChatML-style rendering; the log says which source was used.
   */
  tokenCounts?: Readonly<Record<string, number>>;
  /** Context size per slot, tokens (props n_ctx). Default 32768. Longer prompts get a 400. */
  nCtx?: number;
  /** Model alias: the chunks' `model`, /props model_alias, /v1/models id. Default "qwen3-mock". */
  modelAlias?: string;
  /** /props model_path. Default "models/qwen3-mock-Q4_K_M.gguf". */
  modelPath?: string;
  /** /props chat_template. Default: a short ChatML template. */
  chatTemplate?: string;
  /**
   * Announce the scripted engine in /props (default true), so a run against it is labelled simulated. Tests
   * that exercise a conforming run's logic set false to look exactly like llama-server.
   */
  announceScripted?: boolean;
  /** Serve /metrics (llama-server --metrics). Default true; false answers 501. */
  metrics?: boolean;
  /**
   * POST /apply-template and /tokenize: "right" (default) renders and counts as the chat endpoint does, "garbage"
   * answers /tokenize with no token list, "absent" answers both with 404 (a server without them).
   */
  templateEndpoints?: TemplateEndpoints;
  /** Serve /slots. Default true; false answers 501 (llama-server --no-slots). */
  slotsEndpoint?: boolean;
}

/** How a chat request ended (or where it is now). */
export type MockRequestOutcome =
  | "queued"
  | "streaming"
  | "finished"
  | "http_error"
  | "error_event"
  | "cut"
  | "stalled"
  | "client_disconnected"
  | "killed"
  | "closed";

/** What the engine saw and did for one POST /v1/chat/completions. Times are epoch microseconds. */
export interface MockRequestLog {
  /** Arrival order among chat requests, from 0. */
  index: number;
  /** Id from the `[case <id>]` marker, or null. */
  requestId: string | null;
  /** The parsed JSON body (null when it did not parse): assert the settings a client sent. */
  body: unknown;
  behaviour: Behaviour;
  arrivedAtEpochUs: number;
  /** When a slot took it and the response headers went out; null if it never started. */
  startedAtEpochUs: number | null;
  /** Just before the write of the first nonempty reasoning, content or tool-call delta. */
  firstDeltaSentAtEpochUs: number | null;
  /** Just before the write of the last token's event (or first delta when only one). */
  lastDeltaSentAtEpochUs: number | null;
  endedAtEpochUs: number | null;
  /** Time waiting for a slot, milliseconds; null when it never reached the queue. */
  queuedMs: number | null;
  slot: number | null;
  /** HTTP status sent; null when the connection dropped before any. */
  httpStatus: number | null;
  outcome: MockRequestOutcome;
  finishReason: string | null;
  promptTokens: number | null;
  promptTokensSource: PromptTokenSource | null;
  cachedTokens: number | null;
  /** Generated tokens counting EOS, as reported (or as far as it got before a fault). */
  completionTokens: number | null;
  /** Events sent (data lines, keep-alives excluded). */
  events: number;
}

/** Counters of what the engine processed (/metrics). */
export interface MockEngineCounters {
  /** Chat requests that ended (any outcome). */
  requestsEnded: number;
  promptTokensTotal: number;
  promptSecondsTotal: number;
  tokensPredictedTotal: number;
  tokensPredictedSecondsTotal: number;
  nDecodeTotal: number;
}

/** Counters and gauges, the same numbers /metrics prints. */
export interface MockEngineStats extends MockEngineCounters {
  loading: boolean;
  killed: boolean;
  /** Busy slots. */
  processing: number;
  /** Requests waiting for a slot. */
  deferred: number;
  /** Chat requests received (any outcome). */
  requestsReceived: number;
}
