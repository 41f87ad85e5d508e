/** One question to the server's /health endpoint, as the run asks after a failed request. */
import { startExchange } from "./_http_client.ts";
import { parseBaseUrl } from "./base_url.ts";

/** The answer of /health: ok only for HTTP 200. */
export interface HealthCheck {
  ok: boolean;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** "ok", the server's error message, or why no answer came. */
  message: string;
}

const MAX_BODY_BYTES = 16 * 1024;

function messageOf(status: number, text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown }; status?: unknown };
    if (typeof parsed.error?.message === "string") return parsed.error.message;
    if (typeof parsed.status === "string") return parsed.status;
  } catch {
    // not JSON
  }
  const trimmed = text.trim().slice(0, 500);
  return trimmed === "" ? `HTTP ${status}` : trimmed;
}

/** Asks GET /health once; never rejects (a refused connection or a timeout is an answer with ok false). */
export function checkHealth(baseUrl: string, timeoutMs = 5000): Promise<HealthCheck> {
  return new Promise((resolve) => {
    let target;
    try {
      target = parseBaseUrl(baseUrl);
    } catch (error) {
      return resolve({ ok: false, status: null, message: (error as Error).message });
    }
    let status: number | null = null;
    const parts: Uint8Array[] = [];
    let size = 0;
    let done = false;
    const finish = (answer: HealthCheck) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const exchange = startExchange({
      target,
      method: "GET",
      path: "/health",
      headers: { Accept: "application/json" },
      now: () => performance.now(),
    }, {
      dispatch: () => {},
      firstByte: () => {},
      head: (head) => status = head.status,
      body: (bytes) => {
        if (size >= MAX_BODY_BYTES) return;
        const take = bytes.slice(0, MAX_BODY_BYTES - size);
        parts.push(take);
        size += take.length;
      },
      end: (end) => {
        if (status === null) {
          return finish({ ok: false, status: null, message: "message" in end ? end.message : "no answer" });
        }
        const all = new Uint8Array(size);
        let at = 0;
        for (const part of parts) {
          all.set(part, at);
          at += part.length;
        }
        finish({ ok: status === 200, status, message: messageOf(status, new TextDecoder().decode(all)) });
      },
    });
    const timer = setTimeout(() => {
      exchange.cancel();
      finish({ ok: false, status, message: `no answer from /health within ${timeoutMs} ms` });
    }, timeoutMs);
  });
}
