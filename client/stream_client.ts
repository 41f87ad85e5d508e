/**
 * One streamed chat completion: dispatch, read, timestamp, end. The single HTTP client of `run` and `load`.
 *
 * Clock: offsets are milliseconds of the caller's monotonic clock, turned into seconds from dispatch (the moment
 * just before the request bytes are written). Every network read is stamped once on arrival; an event is stamped
 * with the read that completed it.
 *
 * End rules: "finished" needs a finish_reason and a normal end: `data: [DONE]`, or the response ending after the
 * finish (and usage) chunks with no event left half-read: the HTTP body's own end (chunked terminator,
 * Content-Length reached, or the close that ends a body sent with neither). A connection that closes before the
 * body's framing is complete is a normal end only when the close was clean (no reset or other socket error) and
 * the stream's last chunk had already arrived: the usage chunk when the request asked for it
 * (`stream_options.include_usage`), else a chunk at or after the finish that carried usage or timings
 * (llama-server puts timings on its last chunk). A server dying between the finish chunk and the usage chunk is
 * therefore "cut", not a completed request without usage. `[DONE]` without a finish_reason is "no_finish"; an
 * end without a finish_reason, or inside an event, is "cut".
 * An `error` event ends the stream as "error_event" at once, whatever came before it. A caller callback that throws
 * ends only its own request, as "malformed" with the error's message.
 */
import { closeIdleConnections, type Exchange, type ExchangeEnd, startExchange } from "./_http_client.ts";
import { parseBaseUrl } from "./base_url.ts";
import { ChunkReader, keptPrefix } from "./_chunk_reader.ts";
import { ChunkStamps } from "./_chunk_stamps.ts";
import { errorBodyMessage } from "./_error_body.ts";
import { SseParser } from "./sse.ts";
import { type AbortWaiter, joinAbortWaiters, leaveAbortWaiters } from "./_abort_waiters.ts";
import { MAX_FINISH_REASON_CHARS, type StreamEnd, type StreamOutcome, type StreamProgress } from "../contract/mod.ts";

export { closeIdleConnections };

/** Options of one streamed request. */
export interface StreamChatOptions {
  /** Server base URL, e.g. "http://127.0.0.1:8080"; "/v1/chat/completions" is appended. */
  baseUrl: string;
  /** The JSON body, as an object or already serialized. */
  body: Record<string, unknown> | string;
  /** Deadline in seconds from dispatch (default 1800); when it passes the connection is closed: "timeout". */
  deadlineS?: number;
  /** Aborting ends the request as "cancelled" and closes the connection. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Monotonic clock in milliseconds; default performance.now. */
  now?: () => number;
  /**
   * Called once, at the first counted delta, with its offset from dispatch in seconds and the clock reading (ms)
   * of the network read that carried it.
   */
  onFirstDelta?: (offsetS: number, atMs: number) => void;
  /**
   * Most response body bytes read before the stream ends as "malformed" (default 64 MiB; the protocol run passes
   * the contract's MAX_STREAM_BODY_BYTES): a server that never stops sending cannot fill the memory.
   */
  maxBodyBytes?: number;
  /**
   * Record `chunk_offsets_s`: the offset of every event that carried nonempty answer text or tool-call bytes,
   * stamped with the network read that carried it (load tests: ITL), and `reasoning_chunk_offsets_s` likewise for
   * reasoning text (the reasoning cadence). Default false: nothing is recorded.
   */
  recordChunkOffsets?: boolean;
  /**
   * With recordChunkOffsets: record beside each stamp the engine's running `timings.predicted_n` its chunk carried
   * (`chunk_predicted_n`, `reasoning_chunk_predicted_n`; llama.cpp sends it on every chunk when the request asks
   * `timings_per_token`). Default false. The lists appear only once a stamped chunk carried a count.
   */
  recordEngineCounts?: boolean;
  /**
   * Most stamps kept of the two lists together (default: no bound); chunks after it are counted in the outcome's
   * `unstamped_chunks` (the protocol run passes the contract's MAX_CHUNK_STAMPS).
   */
  maxChunkOffsets?: number;
  /**
   * Most byte sequences that are not UTF-8 the stream may carry (default: no bound); the event that passes it is
   * not read and the stream ends as malformed (the protocol run passes the contract's MAX_INVALID_UTF8_SEQUENCES).
   */
  maxInvalidUtf8?: number;
  /**
   * Live counters for a person's progress line: incremented and assigned as events are read, never read here
   * (rendering stays out of the read path).
   */
  progress?: StreamProgress;
}

const CHAT_PATH = "/v1/chat/completions";
const DEFAULT_DEADLINE_S = 1800;
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Longest error message kept (characters): error text comes from the server and goes into the result. */
const MAX_ERROR_MESSAGE_CHARS = 4096;
const encoder = new TextEncoder();
const defaultNow = () => performance.now();

/** An error message cut to MAX_ERROR_MESSAGE_CHARS, saying so. */
function capped(message: string | null): string | null {
  if (message === null || message.length <= MAX_ERROR_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}... (${
    message.length - MAX_ERROR_MESSAGE_CHARS
  } more characters)`;
}

/** Whether a request body asks for the usage chunk; a string body is looked at, not parsed. */
function usageAsked(body: Record<string, unknown> | string): boolean {
  if (typeof body === "string") return /"include_usage"\s*:\s*true/.test(body);
  const streamOptions = body.stream_options;
  return typeof streamOptions === "object" && streamOptions !== null &&
    (streamOptions as { include_usage?: unknown }).include_usage === true;
}

/** The state of one request while it streams. */
class StreamRequest implements AbortWaiter {
  waitPrev: AbortWaiter | null = null;
  waitNext: AbortWaiter | null = null;
  #options: StreamChatOptions;
  #resolve: (outcome: StreamOutcome) => void;
  #now: () => number;
  #reader = new ChunkReader();
  #parser: SseParser;
  #exchange: Exchange | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #startMs: number;
  /** Clock reading just before the exchange starts (connection taken from the pool or opened). */
  #exchangeStartMs = 0;
  #dispatchMs: number | null = null;
  #reused = false;
  /** A second dispatch: the pooled connection closed before any byte and the request went out on a fresh one. */
  #resent = false;
  /** The chunk stamps; null unless the caller asked for them. */
  #stamps: ChunkStamps | null;
  /** Byte sequences that are not UTF-8 the bound still allows. */
  #invalidLeft: number;
  #dispatchedAtEpochMs = Date.now();
  #readMs = 0;
  #httpStatus: number | null = null;
  #headersMs: number | null = null;
  #firstByteMs: number | null = null;
  #firstDeltaMs: number | null = null;
  #firstAnswerMs: number | null = null;
  #firstReasoningMs: number | null = null;
  #keepalives = 0;
  #bodyBytes = 0;
  /** Non-SSE lines seen before the first event (an HTML or JSON body). */
  #foreignLines = 0;
  #errorBody: Uint8Array[] | null = null;
  #errorContentType: string | undefined = undefined;
  #errorBodyBytes = 0;
  #ended = false;
  /** Whether the request asked for a usage chunk (stream_options.include_usage). */
  #usageAsked = false;
  /** Whether the stream's last chunk (see the end rules) has arrived. */
  #lastChunkSeen = false;
  #verdict: "continue" | "done" | "error_event" | "malformed" = "continue";

  constructor(options: StreamChatOptions, resolve: (outcome: StreamOutcome) => void) {
    this.#options = options;
    this.#resolve = resolve;
    this.#now = options.now ?? defaultNow;
    this.#startMs = this.#now();
    this.#stamps = options.recordChunkOffsets === true
      ? new ChunkStamps(options.maxChunkOffsets ?? Number.POSITIVE_INFINITY, options.recordEngineCounts === true)
      : null;
    this.#invalidLeft = options.maxInvalidUtf8 ?? Number.POSITIVE_INFINITY;
    this.#parser = new SseParser({
      onEvent: (data, invalidUtf8) => this.#onEvent(data, invalidUtf8),
      onComment: () => this.#keepalives++,
      onForeignLine: () => {
        if (this.#reader.events === 0) this.#foreignLines++;
      },
    });
  }

  start(): void {
    const options = this.#options;
    const signal = options.signal;
    if (signal?.aborted) return this.#end("cancelled", this.#startMs, "cancelled before dispatch");
    let target;
    let body: Uint8Array;
    try {
      target = parseBaseUrl(options.baseUrl);
      body = encoder.encode(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
      this.#usageAsked = usageAsked(options.body);
    } catch (error) {
      return this.#end("connect_error", this.#startMs, (error as Error).message);
    }
    const deadlineS = options.deadlineS ?? DEFAULT_DEADLINE_S;
    if (!(deadlineS > 0)) return this.#end("timeout", this.#startMs, `deadline ${deadlineS} s is not positive`);
    if (signal) joinAbortWaiters(signal, this);
    this.#exchangeStartMs = this.#now();
    try {
      this.#exchange = startExchange({
        target,
        method: "POST",
        path: CHAT_PATH,
        headers: { Accept: "text/event-stream", ...options.headers },
        body,
        now: this.#now,
      }, {
        dispatch: (tMs, reused) => {
          if (this.#dispatchMs !== null) this.#resent = true;
          this.#dispatchMs = tMs;
          this.#reused = reused;
          this.#dispatchedAtEpochMs = Date.now();
          this.#armDeadline(deadlineS);
        },
        firstByte: (tMs) => this.#firstByteMs = tMs,
        head: (head, tMs) => {
          this.#headersMs = tMs;
          this.#httpStatus = head.status;
          if (head.status < 200 || head.status > 299) {
            this.#errorBody = [];
            this.#errorContentType = head.headers.get("content-type");
            return;
          }
          const type = head.headers.get("content-type");
          const encoding = head.headers.get("content-encoding");
          if (type !== undefined && !type.toLowerCase().includes("text/event-stream")) {
            this.#abort("malformed", `expected an event stream, got Content-Type "${type}"`, tMs);
          } else if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
            this.#abort(
              "malformed",
              `the stream is encoded (Content-Encoding "${encoding}"), which was not asked for`,
              tMs,
            );
          }
        },
        body: (bytes, tMs) => this.#onBody(bytes, tMs),
        end: (end, tMs) => this.#onExchangeEnd(end, tMs),
      });
    } catch (error) {
      this.#end("connect_error", this.#now(), (error as Error).message);
    }
    // A pooled connection dispatches at once (and armed the deadline from there); a new one is still connecting:
    // the deadline covers that too (re-armed at dispatch, so that it counts from there).
    if (this.#dispatchMs === null && !this.#ended) this.#armDeadline(deadlineS);
  }

  /** The caller's signal fired: the request ends as cancelled. */
  cancelByCaller(): void {
    this.#abort("cancelled", "cancelled by the caller");
  }

  #armDeadline(deadlineS: number): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#abort("timeout", `no normal end within the ${deadlineS} s deadline; the connection was closed`);
    }, deadlineS * 1000);
  }

  #onBody(bytes: Uint8Array, tMs: number): void {
    if (this.#errorBody !== null) {
      if (this.#errorBodyBytes < MAX_ERROR_BODY_BYTES) {
        const take = bytes.subarray(0, MAX_ERROR_BODY_BYTES - this.#errorBodyBytes);
        this.#errorBody.push(take.slice());
        this.#errorBodyBytes += take.length;
      }
      return;
    }
    this.#readMs = tMs;
    this.#bodyBytes += bytes.length;
    const maxBodyBytes = this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (this.#bodyBytes > maxBodyBytes) {
      this.#verdict = "malformed";
      this.#reader.errorMessage = `the response passed ${maxBodyBytes} bytes without a normal end; a chat stream ` +
        "is far smaller (the server ignored max_tokens or floods the connection)";
    } else {
      try {
        this.#parser.push(bytes);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        this.#verdict = "malformed";
        this.#reader.errorMessage = error.message;
      }
      if (this.#verdict === "continue" && this.#foreignLines > 0) {
        // A line that is no SSE field before any event: an HTML page or a JSON document, not an event stream.
        this.#verdict = "malformed";
        this.#reader.errorMessage = "the response body is not an event stream (a line that is no SSE field came " +
          "before any event)";
      }
    }
    switch (this.#verdict) {
      case "continue":
        return;
      case "done":
        this.#exchange?.stop();
        return this.#end(
          this.#reader.finishReason !== null ? "finished" : "no_finish",
          tMs,
          this.#reader.finishReason !== null ? null : "the stream ended ([DONE]) without a finish_reason",
        );
      case "error_event":
        this.#exchange?.stop();
        return this.#end("error_event", tMs, this.#reader.errorMessage);
      case "malformed":
        this.#exchange?.cancel();
        return this.#end("malformed", tMs, this.#reader.errorMessage);
    }
  }

  #onEvent(data: string, invalidUtf8?: readonly number[]): void {
    if (this.#verdict !== "continue") return; // events after the end are not read
    const reader = this.#reader;
    const { usage, timings } = reader;
    this.#invalidLeft -= invalidUtf8?.length ?? 0;
    if (this.#invalidLeft < 0) {
      this.#verdict = "malformed";
      reader.errorMessage = `the stream passed ${this.#options.maxInvalidUtf8} byte sequences that are not UTF-8 ` +
        `(event ${reader.events + 1} was not read); a chat stream is text`;
      return;
    }
    this.#verdict = reader.read(data, invalidUtf8);
    const live = this.#options.progress;
    if (live !== undefined) {
      if (reader.deltaInEvent) live.deltas++;
      if (reader.timings !== timings) live.timings = reader.timings;
    }
    if (reader.finishReason !== null && (reader.usage !== usage || (!this.#usageAsked && reader.timings !== timings))) {
      this.#lastChunkSeen = true;
    }
    if (reader.sawFirstDelta && this.#firstDeltaMs === null) {
      this.#firstDeltaMs = this.#readMs;
      if (live !== undefined) live.firstDeltaS = (this.#readMs - (this.#dispatchMs ?? this.#startMs)) / 1000;
      try {
        this.#options.onFirstDelta?.((this.#readMs - (this.#dispatchMs ?? this.#startMs)) / 1000, this.#readMs);
      } catch (error) {
        // The caller's code failed: this request ends, as malformed (no other end fits), and nothing else does.
        this.#verdict = "malformed";
        reader.errorMessage = `Cannot go on with the stream: onFirstDelta threw: ${(error as Error)?.message ?? error}`;
      }
    }
    if (reader.sawFirstAnswer && this.#firstAnswerMs === null) this.#firstAnswerMs = this.#readMs;
    if (reader.sawFirstReasoning && this.#firstReasoningMs === null) this.#firstReasoningMs = this.#readMs;
    this.#stamps?.add(reader, (this.#readMs - (this.#dispatchMs ?? this.#startMs)) / 1000);
  }

  #onExchangeEnd(end: ExchangeEnd, tMs: number): void {
    if (this.#ended) return;
    if (this.#errorBody !== null) {
      const all = new Uint8Array(this.#errorBodyBytes);
      let at = 0;
      for (const part of this.#errorBody) {
        all.set(part, at);
        at += part.length;
      }
      return this.#end("http_error", tMs, errorBodyMessage(this.#httpStatus ?? 0, this.#errorContentType, all));
    }
    if (this.#foreignLines > 0 && this.#reader.events === 0) {
      return this.#end("malformed", tMs, "the response body is not an event stream");
    }
    switch (end.kind) {
      case "complete":
        if (this.#reader.finishReason !== null && !this.#parser.pending) return this.#end("finished", tMs, null);
        return this.#end(
          "cut",
          tMs,
          this.#parser.pending
            ? "the response ended inside an event"
            : "the response ended without a finish_reason or [DONE]",
        );
      case "cut":
        if (!end.socketError && this.#lastChunkSeen && !this.#parser.pending && this.#httpStatus !== null) {
          // The server closed cleanly right after its last chunk, without [DONE]: a normal end.
          return this.#end("finished", tMs, null);
        }
        return this.#end("cut", tMs, `${end.message} before the stream finished`);
      case "connect_error":
        return this.#end("connect_error", tMs, end.message);
      case "framing_error":
      case "handler_error":
        return this.#end("malformed", tMs, end.message);
    }
  }

  #abort(end: StreamEnd, message: string, tMs?: number): void {
    if (this.#ended) return;
    this.#exchange?.cancel();
    this.#end(end, tMs ?? this.#now(), message);
  }

  #end(end: StreamEnd, tMs: number, message: string | null): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (this.#options.signal) leaveAbortWaiters(this.#options.signal, this);
    const zero = this.#dispatchMs ?? this.#startMs;
    const offset = (ms: number | null) => ms === null ? null : (ms - zero) / 1000;
    const reader = this.#reader;
    const outcome: StreamOutcome = {
      dispatched_at_epoch_ms: this.#dispatchedAtEpochMs,
      dispatch_clock_ms: zero,
      end,
      http_status: this.#httpStatus,
      finish_reason: reader.finishReason === null ? null : keptPrefix(reader.finishReason, MAX_FINISH_REASON_CHARS),
      error_message: end === "finished" ? null : capped(message),
      first_delta_kind: reader.firstDeltaKind,
      reasoning_text: reader.reasoningText,
      answer_text: reader.answerText,
      tool_calls: reader.toolCalls(),
      usage: reader.usage,
      timings: reader.timings,
      usage_chunk: reader.usageChunk,
      timings_chunk: reader.timingsChunk,
      offsets: {
        headers_s: offset(this.#headersMs),
        first_byte_s: offset(this.#firstByteMs),
        first_delta_s: offset(this.#firstDeltaMs),
        first_answer_s: offset(this.#firstAnswerMs),
        end_s: Math.max(0, (tMs - zero) / 1000),
      },
      events: reader.events,
      keepalives: this.#keepalives,
      first_reasoning_s: offset(this.#firstReasoningMs),
      resent_on_fresh_connection: this.#resent,
    };
    if (this.#dispatchMs !== null) {
      // Connection setup before dispatch: 0 on a pooled connection, else from the exchange start to dispatch.
      outcome.connect_s = this.#reused ? 0 : Math.max(0, (this.#dispatchMs - this.#exchangeStartMs) / 1000);
    }
    this.#stamps?.writeTo(outcome);
    const finishCut = (reader.finishReason?.length ?? 0) - (outcome.finish_reason?.length ?? 0);
    if (finishCut > 0) outcome.finish_reason_cut_chars = finishCut;
    if (reader.usageChunkCutChars > 0) outcome.usage_chunk_cut_chars = reader.usageChunkCutChars;
    if (reader.timingsChunkCutChars > 0) outcome.timings_chunk_cut_chars = reader.timingsChunkCutChars;
    if (reader.invalidUtf8 !== null) outcome.invalid_utf8 = reader.invalidUtf8;
    this.#resolve(outcome);
  }
}

/**
 * Sends one streamed chat completion and resolves with its raw facts. Never rejects for a failed request: refused
 * connections, HTTP errors, error events, malformed or cut streams, the deadline and cancellation are outcomes.
 */
export function streamChat(options: StreamChatOptions): Promise<StreamOutcome> {
  return new Promise((resolve) => new StreamRequest(options, resolve).start());
}
