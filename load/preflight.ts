/**
 * Before any load: does the target answer as an OpenAI-compatible streaming chat server? One small request (a
 * one-token cap, its own prompt so it warms no cache the workload uses) through the same client the load uses; it
 * must end normally. A closed port, a plain web server (an HTML page, a 404), an error status or a body that is no
 * event stream refuses the test with what came back: the status, the content type and the server's own error
 * message, never its body.
 */
import type { LoadDeps, LoadStreamOptions } from "./load_plan_bounds.ts";
import type { StreamOutcome } from "../contract/mod.ts";

/** The prompt of the check; the `[case preflight]` marker lets a scripted engine tell it from the workload. */
export const PREFLIGHT_PROMPT = "[case preflight]\nReply with one word.";

/** What the check found at one URL (stamped into the JSONL config line). */
export interface PreflightResult {
  url: string;
  ok: boolean;
  http_status: number | null;
  end: string;
  /** Seconds from dispatch to the end of the check request. */
  seconds: number;
  /** Why the target is refused, in a person's words; null when it answered. */
  reason: string | null;
}

/** What the check needs: the load's own client. */
export type PreflightDeps = Pick<LoadDeps, "streamChat">;

/** The request body of the check. */
export function preflightBody(options: { stream: boolean; model?: string | undefined }): Record<string, unknown> {
  return {
    messages: [{ role: "user", content: PREFLIGHT_PROMPT }],
    max_tokens: 1,
    temperature: 0,
    stream: options.stream,
    ...(options.stream ? { stream_options: { include_usage: true } } : {}),
    ...(options.model === undefined ? {} : { model: options.model }),
  };
}

/**
 * The verdict and fix of a refused preflight's reason: UNREACHABLE when nothing answered, REFUSED when a server
 * answered but not as a streaming chat server; the fix matches the cause (none where the reason says it).
 */
export function refusalAdvice(
  reason: string,
  flag = "--url",
): { verdict: "UNREACHABLE" | "REFUSED"; fix: string | null } {
  if (reason.startsWith("nothing answered at")) {
    return { verdict: "UNREACHABLE", fix: `start the server, or pass ${flag} with its address` };
  }
  if (/drop \/v1/.test(reason)) return { verdict: "REFUSED", fix: null };
  if (/HTML page/.test(reason)) {
    return { verdict: "REFUSED", fix: "pass the address of an LLM server (llama-server or the like)" };
  }
  return { verdict: "REFUSED", fix: `check ${flag} (the server's root, no path) and the server's log` };
}

/** A person's words for an outcome that is no normal end, with the server's own message cut to one line. */
function whyRefused(url: string, outcome: StreamOutcome, deadlineS: number, flag: string): string {
  const detail = (outcome.error_message ?? "").split(/\r?\n/, 1)[0]!.slice(0, 300);
  const post = `POST ${url}/v1/chat/completions`;
  // A web server's page (client/_error_body.ts says "a markup (HTML) body of N bytes"): said in a person's words.
  const html = /^a markup \(HTML\) body of (\d+) bytes/.exec(detail) ?? /Content-Type "text\/html/i.exec(detail);
  const page = html === null ? null : `${url} is not an OpenAI-compatible server: POST /v1/chat/completions ` +
    `answered HTTP ${outcome.http_status ?? "?"} with an HTML page${
      html[1] === undefined ? "" : ` (${html[1]} bytes)`
    }`;
  switch (outcome.end) {
    case "connect_error":
      return `nothing answered at ${url} (${detail})`;
    case "http_error": {
      // The tool adds /v1/chat/completions itself: a --url ending in /v1 asks for /v1/v1/... .
      const v1 = /\/v1\/?$/.test(url) ? `; drop /v1 from ${flag} (the tool adds /v1/chat/completions)` : "";
      if (page !== null) return `${page}${v1}`;
      return `${post} answered HTTP ${outcome.http_status}${detail === "" ? "" : `: ${detail}`}${v1}`;
    }
    case "malformed":
      if (page !== null) return page;
      if (outcome.http_status === null) return `${post} got no HTTP answer (${detail})`;
      return `${post} answered HTTP ${outcome.http_status}, but not with a chat completion stream (${detail})`;
    case "timeout":
      return `${post} did not finish a one-token answer within ${deadlineS} s`;
    default:
      // A process on the port that took the connection and closed or reset it before any status line.
      if (outcome.http_status === null) {
        return `${post} got no HTTP answer: the connection was accepted, then ended (${outcome.end}${
          detail === "" ? "" : `: ${detail}`
        })`;
      }
      return `${post} answered HTTP ${outcome.http_status}, but its stream did not end normally ` +
        `(${outcome.end}${detail === "" ? "" : `: ${detail}`})`;
  }
}

/** Sends the check to `url`; resolves with what it found (never rejects for a failed request). */
export async function checkStreamingServer(
  url: string,
  deps: PreflightDeps,
  options: { stream: boolean; model?: string | undefined; deadlineS: number; signal?: AbortSignal; flag?: string },
): Promise<PreflightResult> {
  const request: LoadStreamOptions = {
    baseUrl: url,
    body: preflightBody(options),
    deadlineS: options.deadlineS,
  };
  if (options.signal) request.signal = options.signal;
  const outcome = await deps.streamChat(request);
  const ok = outcome.end === "finished";
  return {
    url,
    ok,
    http_status: outcome.http_status,
    end: outcome.end,
    seconds: outcome.offsets.end_s,
    reason: ok ? null : whyRefused(url, outcome, options.deadlineS, options.flag ?? "--url"),
  };
}

/** A target that failed the preflight check: nothing was measured. */
export class TargetRefused extends Error {
  override name = "TargetRefused";
}
