/**
 * Strict JSON (RFC 8259 grammar, nothing more) for the whole toolkit: sanity answers, tool-call arguments and
 * results.json itself.
 *
 * - Exactly one complete value; only JSON whitespace (space, tab, LF, CR) may surround it. Prose, Markdown
 *   fences, a byte order mark, comments, trailing commas, NaN/Infinity, leading zeros and trailing text fail.
 * - Duplicate object keys fail at any depth (compared after escapes are decoded, so "a" and "\u0061" collide),
 *   unless the caller asks to have them recorded (`duplicateKeys: "record"`, for engine fields that must be
 *   reported as sent).
 * - Numbers keep their lexeme: `3` is an integer, `3.0` and `3e0` are not. A number whose value is not finite
 *   (1e400) is an error result, never Infinity (unless `nonFiniteNumbers: "keep"`: then the lexeme tells).
 * - Strings reject raw control characters (U+0000..U+001F) and unpaired surrogates (escaped or raw), because such
 *   text cannot be written back as UTF-8.
 * - "__proto__" is an ordinary key.
 * - The parser is iterative: nesting is limited by `maxDepth` (default 512), never by the call stack, so hostile
 *   input gives an error result instead of a crash.
 *
 * Offsets in error results are UTF-16 code unit indices into the text.
 */

/** A JSON number with its lexical form: `isInteger` is true only for a lexeme without fraction or exponent. */
export interface JsonNumber {
  readonly kind: "number";
  readonly lexeme: string;
  readonly isInteger: boolean;
  readonly value: number;
}

/** A JSON object; entries keep the document's key order. */
export interface JsonObject {
  readonly kind: "object";
  readonly entries: ReadonlyMap<string, JsonValue>;
  /**
   * Only with `duplicateKeys: "record"`: every key that occurs more than once, with all its values in document
   * order (`entries` then holds the last one, as JSON.parse would). Absent when no key repeats.
   */
  readonly duplicates?: ReadonlyMap<string, readonly JsonValue[]>;
}

/** A parsed JSON value that keeps lexical number types. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

/** Outcome of a strict parse: the value, or why and where the text is not strict JSON. */
export type StrictJsonResult<T> = { ok: true; value: T } | { ok: false; reason: string; offset: number };

/** Options of the strict parsers. */
export interface StrictJsonOptions {
  /** Deepest allowed nesting of arrays and objects (default 512; the top-level container is depth 1). */
  maxDepth?: number;
  /**
   * "fail" (default): a repeated key is an error. "record": the text is read, and each object lists its repeated
   * keys in `duplicates`, so a caller can say what was sent instead of silently taking one value.
   */
  duplicateKeys?: "fail" | "record";
  /**
   * "fail" (default): a number beyond the double range (1e400) is an error. "keep": it is read with its lexeme and
   * the value Infinity (or -Infinity), for a caller that judges the lexeme itself.
   */
  nonFiniteNumbers?: "fail" | "keep";
  /**
   * Most values (scalars, arrays and objects, each counted once) the text may hold; more is an error result.
   * Bounds the memory a hostile text can make the parse allocate (default: no limit).
   */
  maxValues?: number;
  /**
   * true: an integer value must be written as an integer (1, never 1e0 or 1.0), for a text a plain parse reads, where
   * the lexeme is lost and a count is judged by its value alone. Default false.
   */
  integersAsWritten?: boolean;
}

/** Default nesting limit of the strict parsers. */
export const DEFAULT_MAX_DEPTH = 512;

const NUMBER_PATTERN = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class StrictJsonError {
  constructor(readonly reason: string, readonly offset: number) {}
}

type Frame =
  | { kind: "array"; items: JsonValue[] }
  | { kind: "object"; entries: Map<string, JsonValue>; key: string; duplicates: Map<string, JsonValue[]> | null };

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function describeChar(text: string, offset: number): string {
  const code = text.charCodeAt(offset);
  if (code < 0x20 || code === 0x7f) return `control character U+${hex4(code)}`;
  return `character ${JSON.stringify(String.fromCodePoint(text.codePointAt(offset) ?? code))}`;
}

function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}

/** Parses `text` as exactly one strict JSON value, keeping lexical number types. Never throws on bad input. */
export function parseStrictJson(text: string, options?: StrictJsonOptions): StrictJsonResult<JsonValue> {
  if (typeof text !== "string") return { ok: false, reason: `input is ${typeof text}, not text`, offset: 0 };
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const modes = {
    recordDuplicates: options?.duplicateKeys === "record",
    keepNonFinite: options?.nonFiniteNumbers === "keep",
    integersAsWritten: options?.integersAsWritten === true,
  };
  try {
    return { ok: true, value: new Parser(text, maxDepth, modes, options?.maxValues ?? Infinity).parseDocument() };
  } catch (error) {
    if (error instanceof StrictJsonError) return { ok: false, reason: error.reason, offset: error.offset };
    if (error instanceof RangeError) {
      // A string or array larger than the engine allows: still an answer, never a crash.
      return { ok: false, reason: `input too large to hold in memory (${error.message})`, offset: 0 };
    }
    throw error;
  }
}

class Parser {
  private pos = 0;
  private values = 0;
  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly modes: { recordDuplicates: boolean; keepNonFinite: boolean; integersAsWritten: boolean },
    private readonly maxValues: number,
  ) {}

  private fail(reason: string, offset = this.pos): never {
    throw new StrictJsonError(reason, offset);
  }

  private skipWhitespace(): void {
    const text = this.text;
    while (this.pos < text.length && isWhitespace(text.charCodeAt(this.pos))) this.pos++;
  }

  parseDocument(): JsonValue {
    const text = this.text;
    if (text.charCodeAt(0) === 0xfeff) this.fail("byte order mark (U+FEFF) before the value", 0);
    this.skipWhitespace();
    if (this.pos >= text.length) this.fail(text.length === 0 ? "empty input" : "only whitespace, no value");
    if (text.startsWith("```", this.pos)) this.fail("Markdown code fence instead of a bare JSON value");
    if (
      /^[A-Za-z]/.test(text.charAt(this.pos)) && !/^(true|false|null|NaN|Infinity|undefined)/.test(text.slice(this.pos))
    ) {
      this.fail(`prose instead of a JSON value (${JSON.stringify(abbreviate(text.slice(this.pos)))})`);
    }
    const value = this.parseValueTree();
    this.skipWhitespace();
    if (this.pos < text.length) {
      if (text.startsWith("```", this.pos)) this.fail("Markdown code fence after the JSON value");
      this.fail(`extra text after the JSON value (${describeChar(text, this.pos)})`);
    }
    return value;
  }

  /** Parses one value and everything nested in it, with an explicit stack instead of recursion. */
  private parseValueTree(): JsonValue {
    const stack: Frame[] = [];
    const text = this.text;
    for (;;) {
      // Here a value must start.
      this.skipWhitespace();
      let value: JsonValue;
      if (++this.values > this.maxValues) this.fail(`more than ${this.maxValues} values`);
      const code = text.charCodeAt(this.pos);
      if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
        if (stack.length >= this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth} levels`);
        this.pos++;
        this.skipWhitespace();
        if (code === 0x5b) {
          if (text.charCodeAt(this.pos) === 0x5d /* ] */) {
            this.pos++;
            value = [];
          } else {
            stack.push({ kind: "array", items: [] });
            continue;
          }
        } else if (text.charCodeAt(this.pos) === 0x7d /* } */) {
          this.pos++;
          value = { kind: "object", entries: new Map() };
        } else {
          const entries = new Map<string, JsonValue>();
          stack.push({ kind: "object", entries, key: this.parseKey(entries), duplicates: null });
          continue;
        }
      } else {
        value = this.parseScalar();
      }
      // A value is complete: attach it, then close every container that ends here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) return value;
        if (top.kind === "array") top.items.push(value);
        else {
          const earlier = top.entries.get(top.key);
          if (earlier !== undefined) {
            top.duplicates ??= new Map();
            const values = top.duplicates.get(top.key) ?? [earlier];
            values.push(value);
            top.duplicates.set(top.key, values);
          }
          top.entries.set(top.key, value);
        }
        this.skipWhitespace();
        const next = text.charCodeAt(this.pos);
        if (next === 0x2c /* , */) {
          this.pos++;
          this.skipWhitespace();
          const after = text.charCodeAt(this.pos);
          if (after === 0x5d || after === 0x7d) this.fail("trailing comma before the closing bracket");
          if (top.kind === "object") top.key = this.parseKey(top.entries);
          break;
        }
        const close = top.kind === "array" ? 0x5d : 0x7d;
        if (next === close) {
          this.pos++;
          stack.pop();
          value = top.kind === "array"
            ? top.items
            : top.duplicates === null
            ? { kind: "object", entries: top.entries }
            : { kind: "object", entries: top.entries, duplicates: top.duplicates };
          continue;
        }
        this.failUnexpected(top.kind === "array" ? "',' or ']' in an array" : "',' or '}' in an object");
      }
    }
  }

  /** Parses `"key" :` and checks the key is new in this object. */
  private parseKey(entries: Map<string, JsonValue>): string {
    const start = this.pos;
    if (this.text.charCodeAt(this.pos) !== 0x22) this.failUnexpected("a string key in an object");
    const key = this.parseString();
    if (entries.has(key) && !this.modes.recordDuplicates) this.fail(`duplicate key ${JSON.stringify(key)}`, start);
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) this.failUnexpected("':' after an object key");
    this.pos++;
    return key;
  }

  private failUnexpected(expected: string): never {
    const text = this.text;
    if (this.pos >= text.length) this.fail(`input ended where ${expected} should be`);
    if (text.startsWith("//", this.pos) || text.startsWith("/*", this.pos)) {
      this.fail("comment (JSON has no comments)");
    }
    this.fail(`expected ${expected}, found ${describeChar(text, this.pos)}`);
  }

  private parseScalar(): JsonValue {
    const text = this.text;
    const code = text.charCodeAt(this.pos);
    if (code === 0x22) return this.parseString();
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) return this.parseNumber();
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    for (const word of ["NaN", "Infinity", "undefined"]) {
      if (text.startsWith(word, this.pos)) this.fail(`${word} is not a JSON value`);
    }
    if (code === 0x27 /* ' */) this.fail("single-quoted string (JSON strings use double quotes)");
    if (code === 0x2b /* + */) this.fail("number with a leading '+'");
    if (code === 0x2e /* . */) this.fail("number without a digit before '.'");
    if (code === 0x5d || code === 0x7d) this.fail(`unexpected ${describeChar(text, this.pos)} where a value should be`);
    this.failUnexpected("a value");
  }

  private parseNumber(): JsonNumber {
    const text = this.text;
    const start = this.pos;
    NUMBER_PATTERN.lastIndex = start;
    const match = NUMBER_PATTERN.exec(text);
    if (match === null) this.fail("'-' without digits");
    const lexeme = match[0];
    const end = start + lexeme.length;
    const after = text.charCodeAt(end);
    const intDigitsStart = lexeme.startsWith("-") ? start + 1 : start;
    if (text.charCodeAt(intDigitsStart) === 0x30 && after >= 0x30 && after <= 0x39) {
      this.fail("number with a leading zero", start);
    }
    if (after === 0x2e /* . */) this.fail("number with no digit after '.'", end);
    if (after === 0x65 || after === 0x45) this.fail("number with no digit in its exponent", end);
    const value = Number(lexeme);
    if (!Number.isFinite(value) && !this.modes.keepNonFinite) {
      this.fail(`number ${abbreviate(lexeme)} is too large to represent`, start);
    }
    // 1e-400 is not 0: a nonzero lexeme whose double underflows is refused, never read as zero.
    if (value === 0 && /[1-9]/.test(lexeme.split(/[eE]/)[0] ?? "") && !this.modes.keepNonFinite) {
      this.fail(`number ${abbreviate(lexeme)} is too small to represent (it would read as 0)`, start);
    }
    this.pos = end;
    const isInteger = !lexeme.includes(".") && !lexeme.includes("e") && !lexeme.includes("E");
    if (this.modes.integersAsWritten && !isInteger && Number.isInteger(value) && Math.abs(value) < 1e21) {
      this.fail(`number ${abbreviate(lexeme)} is an integer written with a fraction or an exponent`, start);
    }
    return { kind: "number", lexeme, isInteger, value };
  }

  /** Parses a string starting at the opening quote; returns the decoded text. */
  private parseString(): string {
    const text = this.text;
    const start = this.pos;
    let pos = start + 1;
    let chunkStart = pos;
    const parts: string[] = [];
    for (;;) {
      if (pos >= text.length) this.fail("unterminated string", start);
      const code = text.charCodeAt(pos);
      if (code === 0x22) break;
      if (code < 0x20) this.fail(`raw control character U+${hex4(code)} in a string (must be escaped)`, pos);
      if (code >= 0xd800 && code <= 0xdfff) {
        const low = text.charCodeAt(pos + 1);
        if (code > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) {
          this.fail(`unpaired surrogate U+${hex4(code)} in a string`, pos);
        }
        pos += 2;
        continue;
      }
      if (code !== 0x5c /* \ */) {
        pos++;
        continue;
      }
      parts.push(text.slice(chunkStart, pos));
      const escape = text.charCodeAt(pos + 1);
      const simple = SIMPLE_ESCAPES.get(escape);
      if (simple !== undefined) {
        parts.push(simple);
        pos += 2;
      } else if (escape === 0x75 /* u */) {
        const unit = this.readHex4(pos);
        if (unit >= 0xdc00 && unit <= 0xdfff) this.fail(`unpaired surrogate escape \\u${hex4(unit)}`, pos);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          if (text.charCodeAt(pos + 6) !== 0x5c || text.charCodeAt(pos + 7) !== 0x75) {
            this.fail(`unpaired surrogate escape \\u${hex4(unit)}`, pos);
          }
          const low = this.readHex4(pos + 6);
          if (!(low >= 0xdc00 && low <= 0xdfff)) this.fail(`unpaired surrogate escape \\u${hex4(unit)}`, pos);
          parts.push(String.fromCharCode(unit, low));
          pos += 12;
        } else {
          parts.push(String.fromCharCode(unit));
          pos += 6;
        }
      } else if (pos + 1 >= text.length) {
        this.fail("unterminated string", start);
      } else {
        this.fail(`invalid escape \\${String.fromCodePoint(text.codePointAt(pos + 1) ?? escape)}`, pos);
      }
      chunkStart = pos;
    }
    parts.push(text.slice(chunkStart, pos));
    this.pos = pos + 1;
    return parts.length === 1 ? parts[0] as string : parts.join("");
  }

  /** Reads the four hex digits of a `\uXXXX` escape that starts at `at`. */
  private readHex4(at: number): number {
    const digits = this.text.slice(at + 2, at + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail("\\u escape needs four hex digits", at);
    return Number.parseInt(digits, 16);
  }
}

const SIMPLE_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x22, '"'],
  [0x5c, "\\"],
  [0x2f, "/"],
  [0x62, "\b"],
  [0x66, "\f"],
  [0x6e, "\n"],
  [0x72, "\r"],
  [0x74, "\t"],
]);

function abbreviate(lexeme: string): string {
  return lexeme.length > 40 ? `${lexeme.slice(0, 37)}...` : lexeme;
}
