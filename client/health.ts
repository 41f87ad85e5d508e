/** One question to the server's /health endpoint, as the run asks after a failed request. */
import { concatBytes } from "../runtime/mod.ts";
import { startExchange } from "./_http_client.ts";
import { parseBaseUrl } from "./base_url.ts";
import { errorBodyMessage } from "./_error_body.ts";

/** The answer of /health: ok only for HTTP 200. */
export interface HealthCheck {
  ok: boolean;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** "ok", the server's error message, or why no answer came. */
  message: string;
  /** Whether the request reached a process on the port (connected and written), whatever it answered. */
  connected: boolean;
}

const MAX_BODY_BYTES = 16 * 1024;

/** `{"status": "ok"}`'s status, else the error body as client/_error_body.ts says it (an HTML page is described). */
function messageOf(status: number, contentType: string | undefined, bytes: Uint8Array): string {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { status?: unknown };
    return typeof parsed.status === "string" ? parsed.status : errorBodyMessage(status, contentType, bytes);
  } catch {
    const said = errorBodyMessage(status, contentType, bytes);
    return said.startsWith("HTTP ") ? said : `HTTP ${status}: ${said}`;
  }
}

/** Asks GET /health once; never rejects (a refused connection or a timeout is an answer with ok false). */
export function checkHealth(baseUrl: string, timeoutMs = 5000): Promise<HealthCheck> {
  return new Promise((resolve) => {
    let target;
    try {
      target = parseBaseUrl(baseUrl);
    } catch (error) {
      return resolve({ ok: false, status: null, message: (error as Error).message, connected: false });
    }
    let status: number | null = null;
    let contentType: string | undefined;
    const parts: Uint8Array[] = [];
    let size = 0;
    let done = false;
    let connected = false;
    const finish = (answer: Omit<HealthCheck, "connected">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...answer, connected });
    };
    const exchange = startExchange({
      target,
      method: "GET",
      path: "/health",
      headers: { Accept: "application/json" },
      now: () => performance.now(),
    }, {
      dispatch: () => connected = true,
      firstByte: () => {},
      head: (head) => {
        status = head.status;
        contentType = head.headers.get("content-type");
      },
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
        finish({ ok: status === 200, status, message: messageOf(status, contentType, concatBytes(parts)) });
      },
    });
    const timer = setTimeout(() => {
      exchange.cancel();
      finish({ ok: false, status, message: `no answer from /health within ${timeoutMs} ms` });
    }, timeoutMs);
  });
}
