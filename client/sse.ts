/**
 * Server-sent events parsed at the byte level. Bytes may be split anywhere (inside a line, a CRLF pair, a UTF-8
 * sequence or the BOM): a line is decoded only once all of its bytes are in, and line terminators (LF, CR, CRLF)
 * never occur inside a UTF-8 sequence. Only `data` fields matter to chat streams; `event`, `id` and `retry` are
 * read and ignored, comment lines (`:` first) are counted as keep-alives.
 */

/** Callbacks and limits of one parser. */
export interface SseParserOptions {
  /**
   * One complete event's data (its `data` lines joined by "\n"). When the data bytes were not valid UTF-8,
   * `invalidUtf8` lists the byte offsets (from the start of the event's data) where an invalid sequence begins;
   * the text holds U+FFFD there, as a decoder must, and the offsets say that it was not sent as U+FFFD.
   */
  onEvent(data: string, invalidUtf8?: readonly number[]): void;
  /** A comment line (keep-alive). */
  onComment?(): void;
  /**
   * A non-empty line that is no SSE field this parser knows (not data, event, id, retry or a comment): the SSE
   * standard ignores it, a chat stream never sends one, and an HTML or JSON body is made of them.
   */
  onForeignLine?(): void;
  /** Longest line, and largest event, accepted; default 16 MiB. */
  maxLineBytes?: number;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const BOM = [0xef, 0xbb, 0xbf] as const;
const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const KNOWN_FIELDS = ["event", "id", "retry"].map((name) => new TextEncoder().encode(name));

/** Whether the line buf[s..e) is an `event`, `id` or `retry` field (name alone, or name and a colon). */
function isKnownField(buf: Uint8Array, s: number, e: number): boolean {
  return KNOWN_FIELDS.some((name) => {
    if (e - s < name.length || (e - s > name.length && buf[s + name.length] !== COLON)) return false;
    for (let i = 0; i < name.length; i++) if (buf[s + i] !== name[i]) return false;
    return true;
  });
}

/** `buffer`, or a larger copy of its first `length` bytes when `need` bytes do not fit (doubling, at least 1 KiB). */
export function roomFor(buffer: Uint8Array<ArrayBuffer>, length: number, need: number): Uint8Array<ArrayBuffer> {
  if (need <= buffer.length) return buffer;
  const grown = new Uint8Array(Math.max(need, buffer.length * 2, 1024));
  grown.set(buffer.subarray(0, length));
  return grown;
}

/**
 * Fatal: valid UTF-8 (every real server's case) decodes at the same speed, invalid bytes are noticed. Shared by
 * every parser: each call decodes one whole line (no streaming state), and a decoder per request cost an object
 * graph per request.
 */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** Incremental SSE parser: feed it bytes with `push`, in any split. */
export class SseParser {
  #onEvent: (data: string, invalidUtf8?: readonly number[]) => void;
  #onComment: (() => void) | undefined;
  #onForeignLine: (() => void) | undefined;
  #maxLineBytes: number;
  /** Invalid-sequence offsets of the event being read, from the start of its data; null while there are none. */
  #invalid: number[] | null = null;
  /** Bytes of an unfinished line carried to the next push. */
  #carry = new Uint8Array(0);
  #carryLength = 0;
  /** The previous push ended on CR: a leading LF now belongs to that line end. */
  #skipLf = false;
  /** BOM bytes matched so far at the stream start; -1 once the start is past. */
  #bomMatched = 0;
  #data: string | null = null;
  #dataBytes = 0;

  constructor(options: SseParserOptions) {
    this.#onEvent = options.onEvent;
    this.#onComment = options.onComment;
    this.#onForeignLine = options.onForeignLine;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!(this.#maxLineBytes > 0)) {
      throw new RangeError(`Cannot create an SSE parser: maxLineBytes ${this.#maxLineBytes} is not positive`);
    }
  }

  /** Whether bytes of an unfinished line or event are waiting (a stream ending now is cut mid-event). */
  get pending(): boolean {
    return this.#carryLength > 0 || this.#data !== null || (this.#bomMatched > 0 && this.#bomMatched < 3);
  }

  /**
   * Feeds the next bytes. Events complete in them are delivered before this returns.
   * @throws {RangeError} when a line or an event grows past maxLineBytes.
   */
  push(bytes: Uint8Array): void {
    let pos = 0;
    const end = bytes.length;
    if (this.#bomMatched >= 0) {
      const before = this.#bomMatched;
      while (this.#bomMatched < 3 && pos < end && bytes[pos] === BOM[this.#bomMatched]) {
        this.#bomMatched++;
        pos++;
      }
      if (this.#bomMatched === 3) {
        this.#bomMatched = -1;
      } else if (pos === end) {
        return; // still a BOM prefix: wait for more bytes
      } else {
        // Not a BOM after all: the bytes matched so far are ordinary data.
        const matched = this.#bomMatched;
        this.#bomMatched = -1;
        if (before === 0) {
          pos = 0;
        } else {
          const joined = new Uint8Array(matched + (end - pos));
          joined.set(BOM.slice(0, matched));
          joined.set(bytes.subarray(pos), matched);
          this.#scan(joined, 0, joined.length);
          return;
        }
      }
    }
    this.#scan(bytes, pos, end);
  }

  #scan(buf: Uint8Array, start: number, end: number): void {
    let pos = start;
    if (this.#skipLf && pos < end) {
      if (buf[pos] === LF) pos++;
      this.#skipLf = false;
    }
    let nextCr = buf.indexOf(CR, pos);
    while (pos < end) {
      let lineEnd = buf.indexOf(LF, pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = buf.indexOf(CR, pos);
      let isCr = false;
      if (nextCr !== -1 && (lineEnd === -1 || nextCr < lineEnd)) {
        lineEnd = nextCr;
        isCr = true;
      }
      if (lineEnd === -1) {
        this.#keep(buf, pos, end);
        return;
      }
      if (this.#carryLength > 0) {
        this.#keep(buf, pos, lineEnd);
        const carried = this.#carry;
        const length = this.#carryLength;
        this.#carryLength = 0;
        this.#line(carried, 0, length);
      } else {
        this.#line(buf, pos, lineEnd);
      }
      pos = lineEnd + 1;
      if (isCr) {
        if (pos < end) {
          if (buf[pos] === LF) pos++;
        } else {
          this.#skipLf = true;
        }
      }
    }
  }

  /** Appends an unfinished line's bytes to the carry. */
  #keep(buf: Uint8Array, from: number, to: number): void {
    const add = to - from;
    if (add === 0) return;
    const need = this.#carryLength + add;
    if (need > this.#maxLineBytes) {
      this.#carryLength = 0;
      throw new RangeError(
        `Cannot parse the event stream: a line is longer than ${this.#maxLineBytes} bytes; the stream is malformed`,
      );
    }
    this.#carry = roomFor(this.#carry, this.#carryLength, need);
    this.#carry.set(buf.subarray(from, to), this.#carryLength);
    this.#carryLength = need;
  }

  /** One complete line, without its terminator. */
  #line(buf: Uint8Array, s: number, e: number): void {
    // The same limit as for a line carried across pushes, so a split never changes the verdict.
    if (e - s > this.#maxLineBytes) {
      throw new RangeError(
        `Cannot parse the event stream: a line is longer than ${this.#maxLineBytes} bytes; the stream is malformed`,
      );
    }
    if (s === e) {
      const data = this.#data;
      if (data !== null) {
        const invalid = this.#invalid;
        this.#data = null;
        this.#dataBytes = 0;
        this.#invalid = null;
        if (invalid === null) this.#onEvent(data);
        else this.#onEvent(data, invalid);
      }
      return;
    }
    const first = buf[s];
    if (first === COLON) {
      this.#onComment?.();
      return;
    }
    // Field name "data", followed by the end of the line or a colon (and one optional space).
    if (
      first !== 100 || e - s < 4 || buf[s + 1] !== 97 || buf[s + 2] !== 116 || buf[s + 3] !== 97 ||
      (e - s > 4 && buf[s + 4] !== COLON)
    ) {
      // event, id or retry: nothing a chat stream needs; anything else is not SSE at all.
      if (this.#onForeignLine !== undefined && !isKnownField(buf, s, e)) this.#onForeignLine();
      return;
    }
    let v = s + 5;
    if (v < e && buf[v] === SPACE) v++;
    if (v > e) v = e;
    const size = e - v;
    // Where this line's bytes start in the event's data: the earlier lines and one "\n" after each.
    const lineStart = this.#dataBytes;
    this.#dataBytes += size + 1;
    if (this.#dataBytes > this.#maxLineBytes) {
      this.#data = null;
      this.#dataBytes = 0;
      this.#invalid = null;
      throw new RangeError(
        `Cannot parse the event stream: an event is larger than ${this.#maxLineBytes} bytes; the stream is malformed`,
      );
    }
    const value = size === 0 ? "" : this.#decode(buf.subarray(v, e), lineStart);
    this.#data = this.#data === null ? value : this.#data + "\n" + value;
  }

  /** Decodes one data line; invalid UTF-8 is replaced by U+FFFD and its offsets are kept for the event. */
  #decode(bytes: Uint8Array, lineStart: number): string {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      this.#invalid ??= [];
      for (const offset of invalidUtf8Offsets(bytes)) this.#invalid.push(lineStart + offset);
      return lenientUtf8.decode(bytes);
    }
  }
}

/**
 * Offsets of the invalid sequences in `bytes`, each where a decoder writes one U+FFFD (the WHATWG / Unicode
 * "maximal subpart" rule): a byte that cannot start a sequence, or a sequence cut short by a byte that cannot
 * continue it (that byte then starts over), or one cut off by the end.
 */
export function invalidUtf8Offsets(bytes: Uint8Array): number[] {
  const offsets: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) need = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else {
      offsets.push(i);
      i++;
      continue;
    }
    let j = i + 1;
    let ok = true;
    for (let k = 0; k < need; k++, j++) {
      const next = bytes[j];
      const min = k === 0 ? low : 0x80;
      const max = k === 0 ? high : 0xbf;
      if (next === undefined || next < min || next > max) {
        ok = false;
        break;
      }
    }
    if (!ok) offsets.push(i);
    i = j;
  }
  return offsets;
}
