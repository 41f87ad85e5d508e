/**
 * Plain data the streaming client produces for one chat completion. The runner records facts only: raw fields
 * from the server, and client monotonic-clock offsets in seconds from dispatch (dispatch is offset 0).
 * score/ turns this into the contract's request record.
 */
import type { DeltaKind } from "./result.ts";

/**
 * How a stream ended, each kind with the words a failed request's error gives for it. Only "finished" can become
 * completed or truncated.
 */
export const STREAM_ENDS = {
  /** A finish_reason arrived and the stream ended normally ([DONE], or a clean close after the last chunk). */
  finished: "the stream finished",
  /** A non-2xx status before the stream. */
  http_error: "the server answered with an HTTP error before streaming",
  /** An `error` object arrived as an SSE event. */
  error_event: "the server sent an error event during the stream",
  /** A chunk that is not valid JSON or not chunk-shaped. */
  malformed: "the server sent a chunk that is not a valid chat-completion chunk",
  /** The connection closed before a finish reason and a normal end. */
  cut: "the connection closed before a finish reason and a normal end",
  /** The stream ended ([DONE]) without any finish_reason. */
  no_finish: "the stream ended without any finish_reason",
  /** The per-request deadline closed the connection. */
  timeout: "the 1,800-second request timeout closed the connection",
  /** The caller aborted (SIGINT/SIGTERM). */
  cancelled: "the run was cancelled while the request was in flight",
  /** The request could not be connected or sent. */
  connect_error: "the request could not be sent to the server",
} as const;
export type StreamEnd = keyof typeof STREAM_ENDS;
/** Every stream end kind, in the order above. */
export const STREAM_END_KINDS = Object.keys(STREAM_ENDS) as readonly StreamEnd[];

export interface ToolCallRecord {
  index: number;
  id: string | null;
  type: string | null;
  name: string;
  /** Concatenated argument fragments, unparsed. */
  arguments: string;
}

/** One SSE event whose data bytes were not valid UTF-8: its text holds U+FFFD where the server sent no such thing. */
export interface InvalidUtf8Record {
  /** 1-based number of the data event in the stream (as `events` counts them). */
  event: number;
  /** Byte offsets, from the start of the event's data, where an invalid sequence begins (one U+FFFD each). */
  byte_offsets: number[];
  /** Delta kinds the event carried ([] when it carried none: the bad bytes sat elsewhere in the chunk). */
  delta_kinds: DeltaKind[];
}

/** Client event offsets, seconds from dispatch on the monotonic clock. Null when the event never happened. */
interface ClientOffsets {
  headers_s: number | null;
  first_byte_s: number | null;
  /** First nonempty reasoning, answer or tool-call delta. */
  first_delta_s: number | null;
  /** First nonempty answer text or tool-call delta. */
  first_answer_s: number | null;
  /** Stream completion, error, or cancellation. */
  end_s: number;
}

export interface StreamOutcome {
  /** Epoch milliseconds at dispatch (wall clock; metadata for a reader, never used in a duration). */
  dispatched_at_epoch_ms: number;
  /**
   * The reading of the caller's monotonic clock (`now`, milliseconds) that every offset counts from: the dispatch
   * (just before the request bytes were written), or the streamChat call itself when the request never got that
   * far (a refused connection, a cancelled or invalid request). A caller that passes its own clock can place this
   * request on that clock exactly: its end is this reading plus `offsets.end_s`.
   */
  dispatch_clock_ms: number;
  end: StreamEnd;
  http_status: number | null;
  /** Server's original finish_reason, if one arrived (its first MAX_FINISH_REASON_CHARS characters). */
  finish_reason: string | null;
  /**
   * Characters of the server's finish_reason past MAX_FINISH_REASON_CHARS: counted, not kept. Absent when the
   * whole finish_reason was kept (every conforming engine).
   */
  finish_reason_cut_chars?: number;
  /** Human-readable error text when end is not "finished" (HTTP body, error event message, parse error). */
  error_message: string | null;
  first_delta_kind: DeltaKind | null;
  reasoning_text: string;
  answer_text: string;
  tool_calls: ToolCallRecord[];
  /** Raw `usage` object of the final chunk, untouched; null when none arrived. */
  usage: unknown;
  /** Raw `timings` object (llama.cpp names), untouched; null when none arrived. */
  timings: unknown;
  /**
   * The exact data text of the last event that carried a non-null `usage` (null when none did): the numbers as the
   * server wrote them, before JSON.parse turned 12.0 into 12 or 1e400 into Infinity, with repeated keys intact.
   * Counts are read from this text. Absent when the client that produced the outcome does not keep it. Its first
   * MAX_USAGE_CHUNK_CHARS characters.
   */
  usage_chunk?: string | null;
  /** The same for the last event that carried a non-null `timings`. */
  timings_chunk?: string | null;
  /**
   * Characters of the usage chunk (and of the timings chunk) past MAX_USAGE_CHUNK_CHARS: counted, not kept. Absent
   * when the whole chunk was kept (every conforming engine).
   */
  usage_chunk_cut_chars?: number;
  timings_chunk_cut_chars?: number;
  /** Events whose bytes were not valid UTF-8; absent or empty when every byte was. */
  invalid_utf8?: InvalidUtf8Record[];
  offsets: ClientOffsets;
  /** Number of SSE data events and of keep-alive comments seen (diagnostics). */
  events: number;
  keepalives: number;
  /**
   * Optional (load tests: ITL): offset of every SSE event that carried nonempty visible output (answer text or a
   * tool-call delta), seconds from dispatch, in arrival order. Absent when the client does not record it.
   */
  chunk_offsets_s?: number[];
  /**
   * Optional (load tests: reasoning cadence): offset of every SSE event that carried nonempty reasoning text,
   * seconds from dispatch, in arrival order. Absent when the client does not record it.
   */
  reasoning_chunk_offsets_s?: number[];
  /**
   * Optional (load tests: TPOT from the engine's counts): the engine's running `timings.predicted_n` carried by each
   * stamped chunk, parallel to `chunk_offsets_s` / `reasoning_chunk_offsets_s` (null for a chunk that carried none,
   * or one not written as an exact safe integer). Absent unless the caller asked for them and a stamped chunk
   * carried one (llama.cpp's `timings_per_token`).
   */
  chunk_predicted_n?: (number | null)[];
  reasoning_chunk_predicted_n?: (number | null)[];
  /**
   * Chunks that carried answer or reasoning text after the client's stamp bound was reached (`maxChunkOffsets`):
   * counted, not stamped. Absent when every such chunk was stamped or none was recorded.
   */
  unstamped_chunks?: number;
  /**
   * First nonempty reasoning delta, seconds from dispatch, whether or not it was the first delta; null when no
   * reasoning arrived. Absent when the client does not record it.
   */
  first_reasoning_s?: number | null;
  /**
   * Optional (load tests: connect): seconds from the streamChat call to dispatch, i.e. connection setup; 0 when a
   * pooled connection was reused. Absent when the client does not record it.
   */
  connect_s?: number;
  /**
   * The pooled connection closed before any byte of the answer, and the request was sent once more on a fresh
   * connection (the client's only resend). Absent when the client does not record it.
   */
  resent_on_fresh_connection?: boolean;
}

/**
 * Live counters of one stream, updated by the stream client while it reads (for a person's progress line only;
 * no result is computed from them). The client only assigns and increments here, so watching costs nothing on the
 * read path; whoever shows them reads them on its own timer.
 */
export interface StreamProgress {
  /**
   * SSE events of choice 0 that carried nonempty reasoning, answer or tool-call text. These are stream deltas, not
   * tokens: an engine may put several tokens in one delta, and the counts the result uses come from the server.
   */
  deltas: number;
  /** The first counted delta's offset from dispatch, seconds (the stream's TTFT), once it arrived. */
  firstDeltaS: number | null;
  /**
   * The latest `timings` object a chunk carried, untouched (llama.cpp sends its own token counts there, on the
   * last chunk or, with timings_per_token, on every chunk); null until one arrived.
   */
  timings: unknown;
}

/** Fresh counters for one stream. */
export function newStreamProgress(): StreamProgress {
  return { deltas: 0, firstDeltaS: null, timings: null };
}
