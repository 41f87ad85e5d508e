/**
 * One non-streaming chat completion (`stream: false`): the whole JSON body is read, then choice 0's message,
 * finish_reason, usage and timings are taken from it. The outcome has the same shape as a streamed one, so a load
 * test records both alike, but it carries no delta stamps: first_delta_s and first_answer_s are null (TTFT is absent
 * for non-streaming requests; a caller may approximate it by the HTTP first byte only when asked to, and says so).
 */
import { isObject, type Json } from "./_chunk_reader.ts";
import { errorBodyMessage } from "./_error_body.ts";
import { type Exchange, type ExchangeEnd, type ExchangeHandlers, startExchange } from "./_http_client.ts";
import { parseBaseUrl } from "./base_url.ts";
import type { StreamChatOptions } from "./stream_client.ts";
import type { StreamEnd, StreamOutcome, ToolCallRecord } from "../contract/mod.ts";
import { concatBytes } from "../runtime/mod.ts";

/** Options of one non-streaming request: a streamed one's, its deadline counted from the call. */
export type ChatOnceOptions = Pick<StreamChatOptions, "baseUrl" | "body" | "deadlineS" | "signal" | "now">;

/** A response body larger than this is not read further (the request fails as malformed). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const encoder = new TextEncoder();

/** What a completed body says: the fields of choice 0, or why it cannot be read. */
function readCompletion(text: string): {
  /** How the body ends the request: finished, no finish_reason, an error object, or unreadable. */
  end: "finished" | "no_finish" | "error_event" | "malformed";
  message: string | null;
  finish: string | null;
  answer: string;
  reasoning: string;
  tools: ToolCallRecord[];
  usage: unknown;
  timings: unknown;
} {
  const empty = { finish: null, answer: "", reasoning: "", tools: [], usage: null, timings: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { end: "malformed", message: `Cannot parse the completion as JSON: ${text.slice(0, 160)}`, ...empty };
  }
  if (!isObject(value)) return { end: "malformed", message: "Cannot read the completion: not a JSON object", ...empty };
  if (value.error !== undefined && value.error !== null) {
    const e = value.error;
    const message = isObject(e) && typeof e.message === "string" ? e.message : JSON.stringify(e);
    return { end: "error_event", message, ...empty };
  }
  const choices = Array.isArray(value.choices) ? value.choices : [];
  const choice = choices.find((c) => isObject(c) && (c.index === undefined || c.index === 0)) as Json | undefined;
  if (choice === undefined) return { end: "malformed", message: "Cannot read the completion: no choice 0", ...empty };
  const message = isObject(choice.message) ? choice.message : {};
  const reasoning = typeof message.reasoning_content === "string"
    ? message.reasoning_content
    : typeof message.reasoning === "string"
    ? message.reasoning
    : "";
  const tools: ToolCallRecord[] = [];
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, i) => {
      if (!isObject(call)) return;
      const fn = isObject(call.function) ? call.function : {};
      tools.push({
        index: typeof call.index === "number" ? call.index : i,
        id: typeof call.id === "string" ? call.id : null,
        type: typeof call.type === "string" ? call.type : null,
        name: typeof fn.name === "string" ? fn.name : "",
        arguments: typeof fn.arguments === "string" ? fn.arguments : "",
      });
    });
  }
  const finish = typeof choice.finish_reason === "string" && choice.finish_reason !== "" ? choice.finish_reason : null;
  return {
    end: finish === null ? "no_finish" : "finished",
    message: finish === null ? "the completion has no finish_reason" : null,
    finish,
    answer: typeof message.content === "string" ? message.content : "",
    reasoning,
    tools,
    usage: value.usage ?? null,
    timings: value.timings ?? null,
  };
}

/**
 * Sends one non-streaming chat completion and resolves with its facts in the streamed outcome's shape. Never
 * rejects for a failed request.
 */
export function chatOnce(options: ChatOnceOptions): Promise<StreamOutcome> {
  const now = options.now ?? (() => performance.now());
  return new Promise((resolve) => {
    const startMs = now();
    const at: Stamps = {
      startMs,
      exchangeStartMs: startMs,
      dispatchMs: null,
      reused: false,
      dispatchedAtEpochMs: Date.now(),
      headersMs: null,
      firstByteMs: null,
      status: null,
    };
    let exchange: Exchange | null = null;
    let ended = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const onAbort = () => finish("cancelled", now(), "cancelled by the caller", true);

    function finish(end: StreamEnd, tMs: number, message: string | null, cancel = false, text = ""): void {
      if (ended) return;
      ended = true;
      if (cancel) exchange?.cancel();
      if (timer !== null) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(outcomeOf(at, end, tMs, message, text));
    }

    if (options.signal?.aborted) return finish("cancelled", startMs, "cancelled before dispatch");
    let target, body: Uint8Array;
    try {
      target = parseBaseUrl(options.baseUrl);
      body = encoder.encode(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
    } catch (error) {
      return finish("connect_error", startMs, (error as Error).message);
    }
    const deadlineS = options.deadlineS ?? 1800;
    timer = setTimeout(
      () => finish("timeout", now(), `no complete response within the ${deadlineS} s deadline`, true),
      deadlineS * 1000,
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    at.exchangeStartMs = now();
    try {
      exchange = startExchange({
        target,
        method: "POST",
        path: "/v1/chat/completions",
        headers: { Accept: "application/json" },
        body,
        now,
      }, exchangeHandlers(at, finish));
    } catch (error) {
      finish("connect_error", now(), (error as Error).message);
    }
  });
}

/** One exchange's stamps on the caller's clock (and the wall clock at dispatch), filled in as it goes. */
interface Stamps {
  startMs: number;
  exchangeStartMs: number;
  dispatchMs: number | null;
  reused: boolean;
  dispatchedAtEpochMs: number;
  headersMs: number | null;
  firstByteMs: number | null;
  status: number | null;
}

/** The exchange's hooks: each stamp as it comes, the body gathered (capped), its end handed to `finish`. */
function exchangeHandlers(
  at: Stamps,
  finish: (end: StreamEnd, tMs: number, message: string | null, cancel?: boolean, text?: string) => void,
): ExchangeHandlers {
  let contentType: string | undefined;
  const parts: Uint8Array[] = [];
  let bytes = 0;
  return {
    dispatch: (tMs, wasReused) => {
      at.dispatchMs = tMs;
      at.reused = wasReused;
      at.dispatchedAtEpochMs = Date.now();
    },
    firstByte: (tMs) => at.firstByteMs = tMs,
    head: (head, tMs) => {
      at.headersMs = tMs;
      at.status = head.status;
      contentType = head.headers.get("content-type");
    },
    body: (chunk, tMs) => {
      bytes += chunk.length;
      if (bytes > MAX_BODY_BYTES) {
        return finish("malformed", tMs, `the response body exceeds ${MAX_BODY_BYTES} bytes`, true);
      }
      parts.push(chunk.slice());
    },
    end: (end: ExchangeEnd, tMs) => {
      const text = new TextDecoder().decode(concatBytes(parts));
      if (end.kind === "complete") {
        if (at.status !== null && (at.status < 200 || at.status > 299)) {
          return finish("http_error", tMs, errorBodyMessage(at.status, contentType, concatBytes(parts)));
        }
        return finish("finished", tMs, null, false, text);
      }
      if (end.kind === "connect_error") return finish("connect_error", tMs, end.message);
      if (end.kind === "cut") return finish("cut", tMs, `${end.message} before the response was complete`);
      return finish("malformed", tMs, end.message);
    },
  };
}

/** The outcome in the streamed shape: offsets from dispatch (else the start), the body read when it finished. */
function outcomeOf(at: Stamps, end: StreamEnd, tMs: number, message: string | null, text: string): StreamOutcome {
  const zero = at.dispatchMs ?? at.startMs;
  const offset = (ms: number | null) => (ms === null ? null : (ms - zero) / 1000);
  const read = end === "finished" ? readCompletion(text) : null;
  const finished = read?.end === "finished";
  const outcome: StreamOutcome = {
    dispatched_at_epoch_ms: at.dispatchedAtEpochMs,
    dispatch_clock_ms: zero,
    end: read === null ? end : read.end,
    http_status: at.status,
    finish_reason: read?.finish ?? null,
    error_message: finished ? null : read?.message ?? message,
    first_delta_kind: null,
    reasoning_text: read?.reasoning ?? "",
    answer_text: read?.answer ?? "",
    tool_calls: read?.tools ?? [],
    usage: read?.usage ?? null,
    timings: read?.timings ?? null,
    offsets: {
      headers_s: offset(at.headersMs),
      first_byte_s: offset(at.firstByteMs),
      first_delta_s: null,
      first_answer_s: null,
      end_s: Math.max(0, (tMs - zero) / 1000),
    },
    events: 0,
    keepalives: 0,
    first_reasoning_s: null,
  };
  if (at.dispatchMs !== null) {
    outcome.connect_s = at.reused ? 0 : Math.max(0, (at.dispatchMs - at.exchangeStartMs) / 1000);
  }
  return outcome;
}
