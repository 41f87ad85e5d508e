/**
 * A raw TCP server on 127.0.0.1 port 0 whose script writes exact response bytes, so tests control framing and
 * timing byte for byte. Each accepted request is handed to the script once its head and body are in.
 */
import { Buffer } from "node:buffer";
import net from "node:net";

/** One received request and the socket to answer on. */
export interface RawExchange {
  head: string;
  body: string;
  socket: net.Socket;
  /** Resolves when the client closes or resets the connection. */
  closed: Promise<void>;
}

export interface RawServer {
  port: number;
  baseUrl: string;
  /** Requests received so far. */
  requests: RawExchange[];
  close(): Promise<void>;
}

/** Starts a server; `script` answers each request (it may keep the socket open). */
export async function startRawServer(script: (exchange: RawExchange) => void | Promise<void>): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  const requests: RawExchange[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let closedResolve: () => void;
    const closed = new Promise<void>((resolve) => closedResolve = resolve);
    socket.on("close", () => {
      sockets.delete(socket);
      closedResolve();
    });
    socket.on("error", () => {});
    let buffered = Buffer.alloc(0);
    socket.on("data", (bytes: Buffer) => {
      buffered = Buffer.concat([buffered, bytes]);
      for (;;) {
        const headEnd = buffered.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        const head = buffered.subarray(0, headEnd).toString("latin1");
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        const body = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8");
        buffered = buffered.subarray(headEnd + 4 + length);
        const exchange = { head, body, socket, closed };
        requests.push(exchange);
        void script(exchange);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes pieces one after another, each in its own write. */
export async function writePieces(socket: net.Socket, pieces: (string | Uint8Array)[]): Promise<void> {
  for (const piece of pieces) {
    await new Promise<void>((resolve, reject) => socket.write(piece, (error) => error ? reject(error) : resolve()));
  }
}

/** Resolves with the promise's value, or rejects when it takes longer than `ms` (a test deadline, not a sleep). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export const SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
