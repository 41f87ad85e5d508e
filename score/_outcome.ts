/** How one stream outcome maps to a request status and error (the spec's "Request records" rules). */
import type { RequestError, RequestStatus, StreamEnd, StreamOutcome } from "../contract/mod.ts";

/** Finish reasons that end a request normally. "length" (the cap) is truncated; any other one is a failure. */
const COMPLETED_FINISH_REASONS: ReadonlySet<string> = new Set(["stop", "tool_calls"]);

const END_MESSAGES: Readonly<Record<StreamEnd, string>> = {
  finished: "the stream finished",
  http_error: "the server answered with an HTTP error before streaming",
  error_event: "the server sent an error event during the stream",
  malformed: "the server sent a chunk that is not a valid chat-completion chunk",
  cut: "the connection closed before a finish reason and a normal end",
  no_finish: "the stream ended without any finish_reason",
  timeout: "the 1,800-second request timeout closed the connection",
  cancelled: "the run was cancelled while the request was in flight",
  connect_error: "the request could not be sent to the server",
};

/** Status and error of a request whose stream ended as `outcome` describes. */
export function classifyOutcome(outcome: StreamOutcome): { status: RequestStatus; error: RequestError | null } {
  const finish = outcome.finish_reason;
  if (outcome.end === "finished" && typeof finish === "string") {
    if (COMPLETED_FINISH_REASONS.has(finish)) return { status: "completed", error: null };
    if (finish === "length") return { status: "truncated", error: null };
    return {
      status: "failed",
      error: {
        kind: "finish_reason",
        message: `the server ended with finish_reason ${JSON.stringify(finish)}; only stop, tool_calls and length ` +
          "are normal endings",
      },
    };
  }
  if (outcome.end === "finished") {
    return { status: "failed", error: { kind: "no_finish", message: END_MESSAGES.no_finish } };
  }
  const kind = typeof outcome.end === "string" && outcome.end in END_MESSAGES ? outcome.end : "unknown";
  const base = kind === "unknown" ? `unknown stream end ${JSON.stringify(outcome.end)}` : END_MESSAGES[kind];
  const http = outcome.end === "http_error" && outcome.http_status !== null ? ` (HTTP ${outcome.http_status})` : "";
  const detail = typeof outcome.error_message === "string" && outcome.error_message !== ""
    ? `: ${outcome.error_message}`
    : "";
  return { status: "failed", error: { kind, message: `${base}${http}${detail}` } };
}

/** "failed (timeout)"-style words for reasons elsewhere. */
export function describeFailure(error: RequestError | null): string {
  return error === null ? "failed" : `failed (${error.kind})`;
}
