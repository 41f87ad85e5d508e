/**
 * A small HTTP/1.1 client over `node:net` (Deno and Bun both provide it): one request per connection at a time,
 * keep-alive connections pooled per host, large socket reads handed over whole. Deno's fetch delivers one read per
 * HTTP chunk (one per SSE event), which caps a streaming reader near 40-60k events/s; raw socket reads carry many
 * events each. Every read is timestamped once, on arrival, with the caller's monotonic clock.
 */
import net from "node:net";
import tls from "node:tls";
import type { HttpTarget } from "./base_url.ts";
import { enqueueRead, exchangeInFlight } from "./_read_queue.ts";
import { HttpFramingError, ResponseDecoder, type ResponseHead } from "./_http_response.ts";
import { errorMessage } from "../runtime/mod.ts";

export type { ResponseHead } from "./_http_response.ts";

/** How an exchange ended, when it ended on its own (not by cancel or stop). */
export type ExchangeEnd =
  /** The response body's framing completed (or a close-delimited body reached its close). */
  | { kind: "complete" }
  /**
   * The connection closed or failed before the body was complete; `socketError` tells a failure (reset, timeout)
   * from a clean close by the server.
   */
  | { kind: "cut"; message: string; socketError: boolean }
  /** No connection, or the request could not be written. */
  | { kind: "connect_error"; message: string }
  /** The bytes were not an HTTP/1.x response. */
  | { kind: "framing_error"; message: string }
  /** A handler (the caller's code) threw while a read was handled; the connection was closed. */
  | { kind: "handler_error"; message: string };

/** Callbacks of one exchange. `tMs` is the caller's clock at the network read (or event) that caused the call. */
export interface ExchangeHandlers {
  /**
   * Just before the request bytes are written (again after a retry on a fresh connection); `reused` tells whether
   * the connection came from the keep-alive pool.
   */
  dispatch(tMs: number, reused: boolean): void;
  /** First byte of the response. */
  firstByte(tMs: number): void;
  head(head: ResponseHead, tMs: number): void;
  /** Body bytes of one read; valid only during the call. */
  body(bytes: Uint8Array, tMs: number): void;
  /** Called at most once, and never after cancel() or stop(). */
  end(end: ExchangeEnd, tMs: number): void;
}

/** A request in flight. */
export interface Exchange {
  /** Closes the connection now; no further callbacks. */
  cancel(): void;
  /**
   * The caller has what it needs: no further callbacks. The rest of the body is read and dropped so that the
   * connection can be reused; it is closed instead when the rest does not come promptly.
   */
  stop(): void;
}

/** One request to send. */
export interface ExchangeRequest {
  target: HttpTarget;
  method: "GET" | "POST";
  /** Path after the target's base path, starting with "/". */
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  now: () => number;
}

type Socket = net.Socket;

/** A socket and the exchange currently using it. */
class Connection {
  readonly socket: Socket;
  readonly key: string;
  owner: ExchangeImpl | null = null;
  connected = false;
  closed = false;
  /** Requests this connection has carried. */
  uses = 0;

  constructor(target: HttpTarget) {
    this.key = target.key;
    this.socket = target.tls
      ? tls.connect({ host: target.host, port: target.port, servername: target.host })
      : net.connect({ host: target.host, port: target.port });
    this.socket.setNoDelay(true);
    this.socket.on(target.tls ? "secureConnect" : "connect", () => {
      this.connected = true;
      this.owner?.onConnect();
    });
    this.socket.on("data", (chunk: Uint8Array) => {
      const owner = this.owner;
      if (owner === null) {
        this.socket.destroy(); // bytes on an idle connection: it cannot be trusted for another request
        return;
      }
      const tMs = owner.stamp();
      // A plain Uint8Array over the runtime's Buffer: a Buffer's slice() is a view, and the handlers copy with slice()
      // what they keep, which must not read the buffer once it was handed back (READ_RELEASE).
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      this.#queuedBytes += bytes.length;
      if (this.#queuedBytes > HIGH_WATER_BYTES && !this.#paused) {
        this.#paused = true;
        this.socket.pause();
      }
      // A large read is decoded in pieces, each its own task, so that one read cannot hold the event loop (and
      // the stamping of other streams' reads) for longer than about one slice; every piece keeps the read's stamp.
      // A read with a buffer of its own is let go of as soon as its last piece is decoded (see READ_RELEASE).
      const release = READ_RELEASE && bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : null;
      for (let at = 0; at < bytes.length; at += READ_PIECE_BYTES) {
        const piece = bytes.length <= READ_PIECE_BYTES ? bytes : bytes.subarray(at, at + READ_PIECE_BYTES);
        const last = at + READ_PIECE_BYTES >= bytes.length ? release : null;
        enqueueRead(() => this.#decodePiece(owner, piece, tMs, last), (error) => owner.fail(error, tMs));
      }
    });
    this.socket.on("error", (error: Error) => {
      this.closed = true;
      const tMs = this.owner?.stamp() ?? 0;
      enqueueRead(() => this.owner?.onClose(error, tMs), (thrown) => this.owner?.fail(thrown, tMs));
    });
    this.socket.on("close", () => {
      this.closed = true;
      dropIdle(this);
      const tMs = this.owner?.stamp() ?? 0;
      enqueueRead(() => this.owner?.onClose(null, tMs), (thrown) => this.owner?.fail(thrown, tMs));
    });
  }

  #queuedBytes = 0;
  #paused = false;

  #decodePiece(owner: ExchangeImpl, piece: Uint8Array, tMs: number, release: Uint8Array | null): void {
    this.#queuedBytes -= piece.length;
    if (this.#paused && this.#queuedBytes < LOW_WATER_BYTES) {
      this.#paused = false;
      this.socket.resume();
    }
    // Bytes for an exchange that already ended: the connection is out of step; close it.
    if (this.owner !== owner) this.socket.destroy();
    else owner.onData(piece, tMs);
    if (release === null) return;
    try {
      (release.buffer as ArrayBuffer).transfer(0);
    } catch {
      // A buffer the runtime will not let go of is left to the collector; the exchange goes on.
    }
  }
}

const idle = new Map<string, Connection[]>();

function takeIdle(key: string): Connection | null {
  const list = idle.get(key);
  while (list && list.length > 0) {
    const conn = list.pop()!;
    if (!conn.closed && !conn.socket.destroyed) {
      conn.socket.ref();
      return conn;
    }
  }
  return null;
}

function putIdle(conn: Connection): void {
  if (conn.closed || conn.socket.destroyed) return;
  conn.owner = null;
  conn.socket.unref();
  let list = idle.get(conn.key);
  if (!list) idle.set(conn.key, list = []);
  list.push(conn);
}

function dropIdle(conn: Connection): void {
  const list = idle.get(conn.key);
  if (!list) return;
  const i = list.indexOf(conn);
  if (i !== -1) list.splice(i, 1);
}

/** Closes every pooled idle connection (tests and shutdown). */
export function closeIdleConnections(): void {
  for (const list of idle.values()) {
    for (const conn of list.splice(0)) conn.socket.destroy();
  }
  idle.clear();
}

function describeSocketError(error: Error | null, target: HttpTarget): string {
  if (error === null) return "the server closed the connection";
  const code = (error as { code?: string }).code;
  const where = `${target.host}:${target.port}`;
  if (code === "ECONNREFUSED") return `Cannot connect to ${where}: connection refused; is the server running?`;
  if (code === "ECONNRESET") return `the server reset the connection (${where})`;
  return `${error.message}${code && !error.message.includes(code) ? ` (${code})` : ""}`;
}

const encoder = new TextEncoder();
/**
 * A connection with this much read but not yet decoded stops reading until it is below the low mark. Measured on
 * Deno 2.9 (bench:client): a 64 KiB mark cut client CPU at 64 saturated streams while the read queue idled on its
 * timer, but once the queue resumed on reads it saved nothing there, and at 16 streams it made first-delta stamps
 * late (p50 1.1-1.6 ms instead of 0.05-0.7 ms: reads of a stream whose bytes were already in the socket were
 * delivered tens of milliseconds late while most connections were paused). Pausing stays the exception.
 */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 1024 * 1024;
const DRAIN_LIMIT_BYTES = 1024 * 1024;
/** Largest part of one read decoded as one queued task (about 50 events, a fraction of a slice). */
const READ_PIECE_BYTES = 8 * 1024;
/**
 * Whether a read's own buffer is handed back (transferred to a length of 0) once its last piece was decoded. A
 * saturated client holds about a second of reads queued (bench:client, 1,024 streams: 30-44 MB); each of them
 * outlived two scavenges, and its memory came back only at the next mark-compact: external memory swung 44 -> 167
 * MB between them and peak RSS was 424-450 MB; handed back, 323-330 MB (two alternated runs each). The decoders
 * copy what they keep, so nothing reads a buffer after its last piece. Only a buffer the read has to itself.
 */
const READ_RELEASE = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";
const DRAIN_TIMEOUT_MS = 2000;
/**
 * A pooled connection that closes with no answer within this long of the request being written is taken as one the
 * server had already closed while it sat idle (its close was in flight when the request went out), and the request
 * is sent once more on a fresh connection. Later, the server may have read the request (an engine dying during a
 * long prefill looks like this): sending it again could run the prompt twice, so that close is a cut. The write
 * callback cannot tell the two apart: measured on Deno 2.9 and Bun 1.4, in the idle-close race it reports success
 * 0.1-0.7 ms before the close arrives.
 */
const STALE_CLOSE_WINDOW_MS = 50;

class ExchangeImpl implements Exchange {
  #request: ExchangeRequest;
  #handlers: ExchangeHandlers;
  #bytes: Uint8Array;
  #conn: Connection | null = null;
  #decoder: ResponseDecoder;
  #gotByte = false;
  #retried = false;
  /** 0 live, 1 stopped (draining), 2 finished. */
  #state = 0;
  #drained = 0;
  #drainTimer: ReturnType<typeof setTimeout> | null = null;
  /** Clock reading of the read being decoded. */
  #readAtMs = 0;
  #reused = false;
  /** Caller's clock when the request bytes were written on the current connection. */
  #writtenAtMs = 0;
  /** The socket refused the request bytes (it was closed already): nothing reached the server. */
  #writeFailed = false;

  constructor(request: ExchangeRequest, handlers: ExchangeHandlers) {
    this.#request = request;
    this.#handlers = handlers;
    this.#bytes = this.#serialize();
    this.#decoder = this.#newDecoder();
  }

  #newDecoder(): ResponseDecoder {
    return new ResponseDecoder({
      head: (head) => {
        if (this.#state === 0) this.#handlers.head(head, this.#readAtMs);
      },
      body: (bytes) => {
        if (this.#state === 0) this.#handlers.body(bytes, this.#readAtMs);
        else this.#drained += bytes.length;
      },
    });
  }

  #serialize(): Uint8Array {
    const { target, method, path, headers, body } = this.#request;
    let head = `${method} ${target.basePath}${path} HTTP/1.1\r\nHost: ${target.hostHeader}\r\n`;
    const names = new Set<string>();
    for (const [name, value] of Object.entries(headers ?? {})) {
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) {
        throw new TypeError(`Cannot send header "${name}": names and values must not contain line breaks`);
      }
      names.add(name.toLowerCase());
      head += `${name}: ${value}\r\n`;
    }
    if (body !== undefined) {
      if (!names.has("content-type")) head += "Content-Type: application/json\r\n";
      head += `Content-Length: ${body.length}\r\n`;
    }
    head += "\r\n";
    const headBytes = encoder.encode(head);
    if (body === undefined || body.length === 0) return headBytes;
    const all = new Uint8Array(headBytes.length + body.length);
    all.set(headBytes);
    all.set(body, headBytes.length);
    return all;
  }

  start(): void {
    exchangeInFlight(1);
    try {
      const reused = takeIdle(this.#request.target.key);
      this.#attach(reused ?? new Connection(this.#request.target), reused !== null);
    } catch (error) {
      // The caller gets the throw (a dispatch handler's, on a pooled connection); the exchange ends here.
      this.#finish(null, 0, false);
      throw error;
    }
  }

  #attach(conn: Connection, reused: boolean): void {
    this.#conn = conn;
    conn.owner = this;
    this.#reused = reused;
    if (conn.connected) this.onConnect();
  }

  onConnect(): void {
    if (this.#state !== 0) return;
    const conn = this.#conn!;
    conn.uses++;
    this.#writtenAtMs = this.#request.now();
    this.#writeFailed = false;
    this.#handlers.dispatch(this.#writtenAtMs, this.#reused);
    conn.socket.write(this.#bytes, (error?: Error | null) => {
      if (error && this.#conn === conn) this.#writeFailed = true;
    });
  }

  /** The caller's clock now (a read's arrival time). */
  stamp(): number {
    return this.#request.now();
  }

  onData(bytes: Uint8Array, t: number): void {
    this.#readAtMs = t;
    if (!this.#gotByte) {
      this.#gotByte = true;
      if (this.#state === 0) this.#handlers.firstByte(t);
    }
    try {
      this.#decoder.feed(bytes);
    } catch (error) {
      if (error instanceof HttpFramingError) {
        this.#finish({ kind: "framing_error", message: error.message }, t, false);
        return;
      }
      throw error;
    }
    if (this.#state === 2) return;
    if (this.#decoder.done) {
      this.#finish({ kind: "complete" }, t, this.#decoder.reusable);
    } else if (this.#state === 1 && this.#drained > DRAIN_LIMIT_BYTES) {
      this.#finish(null, t, false);
    }
  }

  onClose(error: Error | null, t: number): void {
    if (this.#state === 2) return;
    const conn = this.#conn!;
    if (
      !this.#gotByte && this.#reused && !this.#retried && this.#state === 0 &&
      (this.#writeFailed || t - this.#writtenAtMs <= STALE_CLOSE_WINDOW_MS)
    ) {
      // A pooled connection the server had already closed: send once more on a fresh one.
      this.#retried = true;
      conn.owner = null;
      conn.socket.destroy();
      this.#attach(new Connection(this.#request.target), false);
      return;
    }
    if (this.#decoder.closeDelimited && error === null) {
      this.#finish({ kind: "complete" }, t, false);
      return;
    }
    if (this.#gotByte && this.#decoder.head === null && this.#decoder.pendingHeadBytes > 0) {
      // Bytes came, but never a complete status line and headers: the server does not speak HTTP.
      this.#finish(
        {
          kind: "framing_error",
          message: "Cannot read the response: the server closed the connection " +
            "after an answer that is not HTTP (no complete status line and headers)",
        },
        t,
        false,
      );
      return;
    }
    const message = describeSocketError(error, this.#request.target);
    const end: ExchangeEnd = conn.uses === 0 || (!conn.connected && !this.#gotByte)
      ? { kind: "connect_error", message }
      : { kind: "cut", message, socketError: error !== null };
    this.#finish(end, t, false);
  }

  /** Ends the exchange because a handler threw while a read (or close) of it was handled. */
  fail(error: unknown, t: number): void {
    if (this.#state === 2) return;
    const message = errorMessage(error);
    this.#finish({ kind: "handler_error", message: `Cannot handle the response: ${message}` }, t, false);
  }

  #finish(end: ExchangeEnd | null, t: number, reusable: boolean): void {
    const notify = this.#state === 0;
    if (this.#state !== 2) exchangeInFlight(-1);
    this.#state = 2;
    if (this.#drainTimer !== null) clearTimeout(this.#drainTimer);
    const conn = this.#conn;
    if (conn !== null) {
      conn.owner = null;
      if (reusable) putIdle(conn);
      else conn.socket.destroy();
    }
    if (notify && end !== null) this.#handlers.end(end, t);
  }

  cancel(): void {
    if (this.#state === 2) return;
    this.#finish(null, 0, false);
  }

  stop(): void {
    if (this.#state !== 0) return;
    this.#state = 1;
    if (this.#decoder.done) {
      this.#finish(null, 0, this.#decoder.reusable);
      return;
    }
    this.#drainTimer = setTimeout(() => this.#finish(null, 0, false), DRAIN_TIMEOUT_MS);
    (this.#drainTimer as { unref?: () => void }).unref?.();
  }
}

/**
 * Sends one request on a pooled or new connection; the handlers receive the response as it arrives. Failures
 * (refused connection, reset, bad framing) arrive as `end` calls, never as exceptions.
 * @throws {TypeError} when a header name or value holds a line break.
 */
export function startExchange(request: ExchangeRequest, handlers: ExchangeHandlers): Exchange {
  const exchange = new ExchangeImpl(request, handlers);
  exchange.start();
  return exchange;
}
