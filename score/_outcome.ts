/** How one stream outcome maps to a request status and error (the spec's "Request records" rules). */
import { type RequestError, type RequestStatus, STREAM_ENDS, type StreamOutcome } from "../contract/mod.ts";

/** Finish reasons that end a request normally. "length" (the cap) is truncated; any other one is a failure. */
const COMPLETED_FINISH_REASONS: ReadonlySet<string> = new Set(["stop", "tool_calls"]);

/** Status and error of a request whose stream ended as `outcome` describes. */
export function classifyOutcome(outcome: StreamOutcome): { status: RequestStatus; error: RequestError | null } {
  const finish = outcome.finish_reason;
  if (outcome.end === "finished" && typeof finish === "string") {
    if (COMPLETED_FINISH_REASONS.has(finish)) return { status: "completed", error: null };
    if (finish === "length") return { status: "truncated", error: null };
    const cut = outcome.finish_reason_cut_chars ?? 0;
    const kept = cut > 0 ? ` (its first ${finish.length} characters; ${cut} more were not kept)` : "";
    return {
      status: "failed",
      error: {
        kind: "finish_reason",
        message: `the server ended with finish_reason ${JSON.stringify(finish)}${kept}; only stop, tool_calls and ` +
          "length are normal endings",
      },
    };
  }
  if (outcome.end === "finished") {
    return { status: "failed", error: { kind: "no_finish", message: STREAM_ENDS.no_finish } };
  }
  const kind = typeof outcome.end === "string" && outcome.end in STREAM_ENDS ? outcome.end : "unknown";
  const base = kind === "unknown" ? `unknown stream end ${JSON.stringify(outcome.end)}` : STREAM_ENDS[kind];
  const http = outcome.end === "http_error" && outcome.http_status !== null ? ` (HTTP ${outcome.http_status})` : "";
  const detail = typeof outcome.error_message === "string" && outcome.error_message !== ""
    ? `: ${outcome.error_message}`
    : "";
  return { status: "failed", error: { kind, message: `${base}${http}${detail}` } };
}
