/**
 * HTTP/1.1 response decoding for one exchange: status line and headers, then a body framed by chunked transfer
 * coding, Content-Length, or the connection's close. Body bytes of one network read are handed over together
 * (chunk framing removed), so the consumer sees one call per read however many HTTP chunks it held.
 */
import { roomFor } from "./sse.ts";

/** Status and headers of a response. Header names are lower case; repeated headers are joined with ", ". */
export interface ResponseHead {
  status: number;
  version: string;
  headers: Map<string, string>;
}

/** What the decoder reports to its owner. */
export interface ResponseSink {
  head(head: ResponseHead): void;
  /** Body bytes; valid only during the call (the buffer is reused). */
  body(bytes: Uint8Array): void;
}

const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_SIZE = 2 ** 40;

const S_HEAD = 0;
const S_SIZE = 1;
const S_EXT = 2;
const S_DATA = 3;
const S_DATA_END = 4;
const S_TRAILER = 5;
const S_LENGTH = 6;
const S_CLOSE = 7;
const S_DONE = 8;

/** Raised for bytes that are not an HTTP/1.x response. */
export class HttpFramingError extends Error {
  override name = "HttpFramingError";
}

const latin1 = new TextDecoder("latin1");

function hexValue(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  if (byte >= 97 && byte <= 102) return byte - 87;
  if (byte >= 65 && byte <= 70) return byte - 55;
  return -1;
}

/** Parses the bytes of a head block (without the final blank line). */
function parseHead(text: string): ResponseHead {
  const lines = text.split(/\r?\n/);
  const statusLine = lines[0] ?? "";
  const match = /^HTTP\/(1\.[01]) (\d{3})(?: .*)?$/.exec(statusLine);
  if (!match) {
    throw new HttpFramingError(`Cannot read the response: "${statusLine.slice(0, 80)}" is not an HTTP/1.x status line`);
  }
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new HttpFramingError(`Cannot read the response: bad header line "${line.slice(0, 80)}"`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const before = headers.get(name);
    headers.set(name, before === undefined ? value : `${before}, ${value}`);
  }
  return { status: Number(match[2]), version: match[1]!, headers };
}

/** Incremental decoder of one response. */
export class ResponseDecoder {
  #sink: ResponseSink;
  #state = S_HEAD;
  #head = new Uint8Array(0);
  #headLength = 0;
  #remaining = 0;
  #sizeDigits = 0;
  #trailerLineBytes = 0;
  #scratch = new Uint8Array(0);
  #scratchLength = 0;
  #single: Uint8Array | null = null;
  /** The parsed head, once it arrived. */
  head: ResponseHead | null = null;
  /** Whether the connection may carry another request after this response. */
  reusable = false;
  /** Bytes that arrived after the end of the body (the connection is then not reusable). */
  extraBytes = 0;

  constructor(sink: ResponseSink) {
    this.#sink = sink;
  }

  /** Whether the body's framing is complete. */
  get done(): boolean {
    return this.#state === S_DONE;
  }

  /** Bytes of a status line and headers received but not yet complete (0 once the head is parsed). */
  get pendingHeadBytes(): number {
    return this.#state === S_HEAD ? this.#headLength : 0;
  }

  /** Whether the body ends with the connection (no length, not chunked). */
  get closeDelimited(): boolean {
    return this.#state === S_CLOSE;
  }

  /**
   * Feeds one network read.
   * @throws {HttpFramingError} on bytes that are not a valid response.
   */
  feed(buf: Uint8Array): void {
    let pos = 0;
    const end = buf.length;
    while (this.#state === S_HEAD) {
      pos = this.#feedHead(buf, pos);
      if (pos < 0) return;
    }
    if (pos < end) {
      switch (this.#state) {
        case S_LENGTH: {
          const take = Math.min(this.#remaining, end - pos);
          this.#collect(buf, pos, pos + take);
          this.#remaining -= take;
          pos += take;
          if (this.#remaining === 0) this.#state = S_DONE;
          break;
        }
        case S_CLOSE:
          this.#collect(buf, pos, end);
          pos = end;
          break;
        case S_DONE:
          break;
        default:
          pos = this.#feedChunked(buf, pos, end);
      }
    }
    if (this.#state === S_DONE && pos < end) {
      this.extraBytes += end - pos;
      this.reusable = false;
    }
    this.#flush();
  }

  /** Reads head bytes from `pos`; returns where the body starts, or -1 when the head is still incomplete. */
  #feedHead(buf: Uint8Array, pos: number): number {
    const end = buf.length;
    // The blank line may straddle reads: search the carried tail too.
    const from = Math.max(0, this.#headLength - 3);
    const need = this.#headLength + (end - pos);
    // A head that starts in this read is searched where it lies; only one straddling reads is gathered.
    let all = buf.subarray(pos, end);
    if (this.#headLength > 0) {
      this.#head = roomFor(this.#head, this.#headLength, need);
      this.#head.set(all, this.#headLength);
      all = this.#head.subarray(0, need);
    }
    let stop = -1;
    for (let i = all.indexOf(10, from); i !== -1; i = all.indexOf(10, i + 1)) {
      if (all[i + 1] === 10) {
        stop = i + 2;
        break;
      }
      if (all[i + 1] === 13 && all[i + 2] === 10) {
        stop = i + 3;
        break;
      }
    }
    if (stop === -1) {
      if (need > MAX_HEAD_BYTES) {
        throw new HttpFramingError(`Cannot read the response: headers longer than ${MAX_HEAD_BYTES} bytes`);
      }
      if (this.#headLength === 0) {
        this.#head = roomFor(this.#head, 0, need);
        this.#head.set(all, 0);
      }
      this.#headLength = need;
      return -1;
    }
    // The same limit whether the blank line came in this read or a later one.
    if (stop > MAX_HEAD_BYTES) {
      throw new HttpFramingError(`Cannot read the response: headers longer than ${MAX_HEAD_BYTES} bytes`);
    }
    const head = parseHead(latin1.decode(all.subarray(0, stop)).replace(/\r?\n\r?\n$/, ""));
    const bodyStart = pos + (stop - this.#headLength);
    this.#headLength = 0;
    if (head.status >= 100 && head.status < 200 && head.status !== 101) return bodyStart; // interim answer
    this.head = head;
    this.#chooseFraming(head);
    this.#sink.head(head);
    return bodyStart;
  }

  #chooseFraming(head: ResponseHead): void {
    const connection = (head.headers.get("connection") ?? "").toLowerCase();
    const keepAlive = head.version === "1.1" ? !connection.includes("close") : connection.includes("keep-alive");
    const te = (head.headers.get("transfer-encoding") ?? "").toLowerCase();
    const cl = head.headers.get("content-length");
    if (head.status === 204 || head.status === 304) {
      this.#state = S_DONE;
      this.reusable = keepAlive;
    } else if (te.includes("chunked")) {
      this.#state = S_SIZE;
      this.#remaining = 0;
      this.#sizeDigits = 0;
      this.reusable = keepAlive;
    } else if (cl !== undefined) {
      const length = Number(cl.split(",")[0]);
      if (!Number.isSafeInteger(length) || length < 0) {
        throw new HttpFramingError(`Cannot read the response: bad Content-Length "${cl}"`);
      }
      this.#remaining = length;
      this.#state = length === 0 ? S_DONE : S_LENGTH;
      this.reusable = keepAlive;
    } else {
      this.#state = S_CLOSE;
      this.reusable = false;
    }
  }

  #feedChunked(buf: Uint8Array, start: number, end: number): number {
    let pos = start;
    while (pos < end) {
      switch (this.#state) {
        case S_SIZE: {
          const byte = buf[pos++]!;
          const digit = hexValue(byte);
          if (digit >= 0) {
            this.#remaining = this.#remaining * 16 + digit;
            this.#sizeDigits++;
            if (this.#remaining > MAX_CHUNK_SIZE) {
              throw new HttpFramingError("Cannot read the response: chunk too large");
            }
          } else if (byte === 10) {
            this.#endSizeLine();
          } else if (byte === 59 || byte === 32 || byte === 9) {
            this.#state = S_EXT;
          } else if (byte !== 13) {
            throw new HttpFramingError(`Cannot read the response: bad chunk size byte 0x${byte.toString(16)}`);
          }
          break;
        }
        case S_EXT: {
          const lf = buf.indexOf(10, pos);
          if (lf === -1) return end;
          pos = lf + 1;
          this.#endSizeLine();
          break;
        }
        case S_DATA: {
          const take = Math.min(this.#remaining, end - pos);
          this.#collect(buf, pos, pos + take);
          pos += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = S_DATA_END;
          break;
        }
        case S_DATA_END: {
          const byte = buf[pos++]!;
          if (byte === 10) {
            this.#state = S_SIZE;
            this.#remaining = 0;
            this.#sizeDigits = 0;
          } else if (byte !== 13) {
            throw new HttpFramingError("Cannot read the response: chunk data is not followed by CRLF");
          }
          break;
        }
        case S_TRAILER: {
          const byte = buf[pos++]!;
          if (byte === 10) {
            if (this.#trailerLineBytes === 0) {
              this.#state = S_DONE;
              return pos;
            }
            this.#trailerLineBytes = 0;
          } else if (byte !== 13) {
            this.#trailerLineBytes++;
          }
          break;
        }
        default:
          return pos;
      }
    }
    return pos;
  }

  #endSizeLine(): void {
    if (this.#sizeDigits === 0) throw new HttpFramingError("Cannot read the response: empty chunk size line");
    if (this.#remaining === 0) {
      this.#state = S_TRAILER;
      this.#trailerLineBytes = 0;
    } else {
      this.#state = S_DATA;
    }
  }

  /** Gathers body bytes of this read; one slice passes through uncopied. */
  #collect(buf: Uint8Array, s: number, e: number): void {
    if (s === e) return;
    if (this.#single === null && this.#scratchLength === 0) {
      this.#single = buf.subarray(s, e);
      return;
    }
    if (this.#single !== null) {
      const first = this.#single;
      this.#single = null;
      this.#append(first, 0, first.length);
    }
    this.#append(buf, s, e);
  }

  #append(buf: Uint8Array, s: number, e: number): void {
    const need = this.#scratchLength + (e - s);
    this.#scratch = roomFor(this.#scratch, this.#scratchLength, need);
    this.#scratch.set(buf.subarray(s, e), this.#scratchLength);
    this.#scratchLength = need;
  }

  #flush(): void {
    if (this.#single !== null) {
      const bytes = this.#single;
      this.#single = null;
      this.#sink.body(bytes);
    } else if (this.#scratchLength > 0) {
      const length = this.#scratchLength;
      this.#scratchLength = 0;
      this.#sink.body(this.#scratch.subarray(0, length));
    }
  }
}
