import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { concatBytes } from "./_files.ts";

/** One incoming HTTP request, body already read. */
export interface HttpServerRequest {
  method: string;
  /** Path with query string, as sent ("/v1/chat/completions"). */
  url: string;
  headers: Record<string, string>;
  /** Body bytes decoded as UTF-8 (invalid bytes replaced). */
  bodyText: string;
}

/** Low-level control over one response: lazy headers, awaited writes, and an abrupt drop. */
export interface HttpServerResponse {
  /** Sends the status line and headers now (nothing goes out before this or the first write). */
  writeHead(status: number, headers: Record<string, string>): void;
  /** Writes text or bytes; resolves once handed to the socket (or the connection closed), so writes never pile up. */
  write(text: string | Uint8Array): Promise<void>;
  /** Ends the response normally (chunked terminator), optionally with last text or bytes. */
  end(text?: string | Uint8Array): Promise<void>;
  /** Closes the connection at once, wherever the response is: the client sees a cut stream. */
  destroy(): void;
  /** True once the connection is gone (client disconnect, destroy, or a normal end). */
  readonly closed: boolean;
  /** Aborted when the connection closes before `end` completed (client disconnect or destroy). */
  readonly disconnected: AbortSignal;
}

/** Options of serveHttp. */
export interface ServeHttpOptions {
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  /** Called once per request after its body arrived; its errors destroy that connection. */
  onRequest(request: HttpServerRequest, response: HttpServerResponse): void | Promise<void>;
}

/** A listening server. */
export interface HttpServerHandle {
  hostname: string;
  port: number;
  /** Stops accepting connections and destroys every open one (idle keep-alive sockets included). */
  close(): Promise<void>;
}

/**
 * Starts an HTTP/1.1 server on node:http (works under Deno and Bun) with per-response control that a scripted
 * server needs: headers only when asked, writes that respect backpressure, and cutting a connection mid-stream.
 * @throws {Error} when the address cannot be bound (the runtime's error, e.g. EADDRINUSE).
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpServerHandle> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void handle(req, res, options.onRequest);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  let closing: Promise<void> | null = null;
  return {
    hostname: options.hostname,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closing;
    },
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  onRequest: ServeHttpOptions["onRequest"],
): Promise<void> {
  const controller = new AbortController();
  let closed = false;
  res.on("close", () => {
    closed = true;
    if (!res.writableFinished) controller.abort();
  });
  const chunks: Uint8Array[] = [];
  try {
    for await (const chunk of req) chunks.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
  } catch {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const request: HttpServerRequest = {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers,
    bodyText: new TextDecoder().decode(concatBytes(chunks)),
  };
  const response: HttpServerResponse = {
    writeHead(status, head) {
      if (!closed && !res.headersSent) {
        res.writeHead(status, head);
        res.flushHeaders();
      }
    },
    write(text) {
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          res.off("close", done);
          resolve();
        };
        res.on("close", done);
        res.write(text, done);
      });
    },
    end(text) {
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        res.on("close", () => resolve());
        res.end(text ?? "", () => resolve());
      });
    },
    destroy() {
      closed = true;
      controller.abort();
      res.socket?.destroy();
      res.destroy();
    },
    get closed() {
      return closed;
    },
    disconnected: controller.signal,
  };
  try {
    await onRequest(request, response);
  } catch {
    response.destroy();
  }
}
