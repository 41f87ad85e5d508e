/**
 * Plain data the streaming client produces for one chat completion. The runner records facts only: raw fields
 * from the server, and client monotonic-clock offsets in seconds from dispatch (dispatch is offset 0).
 * score/ turns this into the contract's request record.
 */
import type { DeltaKind } from "./result.ts";

/** How a stream ended. Only "finished" can become completed/truncated. */
export type StreamEnd =
  | "finished" // a finish_reason arrived and the stream ended normally ([DONE] or clean close after the usage chunk)
  | "http_error" // non-2xx status before the stream
  | "error_event" // an `error` object arrived as an SSE event
  | "malformed" // a chunk that is not valid JSON or not chunk-shaped
  | "cut" // the connection closed before a finish reason / normal end
  | "no_finish" // the stream ended ([DONE]) without any finish_reason
  | "timeout" // the per-request deadline closed the connection
  | "cancelled" // the caller aborted (SIGINT/SIGTERM)
  | "connect_error"; // could not connect / send

export interface ToolCallRecord {
  index: number;
  id: string | null;
  type: string | null;
  name: string;
  /** Concatenated argument fragments, unparsed. */
  arguments: string;
}

/** Client event offsets, seconds from dispatch on the monotonic clock. Null when the event never happened. */
export interface ClientOffsets {
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
  /** Epoch milliseconds at dispatch (wall clock; for evidence only, never used in durations). */
  dispatched_at_epoch_ms: number;
  end: StreamEnd;
  http_status: number | null;
  /** Server's original finish_reason, if one arrived. */
  finish_reason: string | null;
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
   * Optional (load tests: connect): seconds from the streamChat call to dispatch, i.e. connection setup; 0 when a
   * pooled connection was reused. Absent when the client does not record it.
   */
  connect_s?: number;
}
