/**
 * The client designs that lost, kept runnable for comparison: the same SSE parser and chunk reader as the real
 * client, fed by Deno/Bun `fetch` (getReader) or by `node:http`. Each stamps the read that carried the first delta.
 */
import http from "node:http";
import { SseParser } from "../client/mod.ts";
import { ChunkReader } from "../client/_chunk_reader.ts";

/** What one benchmark request reports. */
export interface BenchRequestResult {
  ok: boolean;
  events: number;
  /** performance.now() of the read that carried the first counted delta. */
  firstDeltaAtMs: number | null;
}

/** A reader of one streamed request. */
export type BenchClient = (url: string, body: string, requestId: string) => Promise<BenchRequestResult>;

function consumer() {
  const reader = new ChunkReader();
  let readAtMs = 0;
  let firstDeltaAtMs: number | null = null;
  let done = false;
  const parser = new SseParser({
    onEvent: (data) => {
      const verdict = reader.read(data);
      if (reader.sawFirstDelta && firstDeltaAtMs === null) firstDeltaAtMs = readAtMs;
      if (verdict === "done") done = true;
    },
  });
  return {
    push(bytes: Uint8Array) {
      readAtMs = performance.now();
      parser.push(bytes);
    },
    result(): BenchRequestResult {
      return { ok: done && reader.finishReason !== null, events: reader.events, firstDeltaAtMs };
    },
  };
}

/** fetch with a body reader: one read per HTTP chunk in Deno. */
export const fetchClient: BenchClient = async (url, body, requestId) => {
  const c = consumer();
  const response = await fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-request-id": requestId },
  });
  const reader = response.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    c.push(value);
  }
  return c.result();
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 4096 });

/** node:http with a keep-alive agent: one `data` event per HTTP chunk. */
export const nodeHttpClient: BenchClient = (url, body, requestId) => {
  const c = consumer();
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        "content-length": new TextEncoder().encode(body).length,
        "x-request-id": requestId,
      },
    }, (response) => {
      response.on("data", (bytes: Uint8Array) => c.push(bytes));
      response.on("end", () => resolve(c.result()));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
};

/** Closes the node:http agent's idle sockets. */
export function closeAltClients(): void {
  agent.destroy();
}
