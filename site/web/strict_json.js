// @ts-check
/**
 * Strict JSON (RFC 8259) for the site's independent check, written for the site and sharing nothing with the
 * runner's parser. It accepts exactly one JSON value surrounded by JSON whitespace and rejects everything else:
 * duplicate object keys, trailing commas, comments, leading zeros, a byte-order mark, control characters inside
 * strings, numbers that do not fit a double, and nesting deeper than MAX_DEPTH.
 *
 * Objects come back with a null prototype, so a key such as "__proto__" is an ordinary key. With
 * `{ lexemes: true }` every number is a JsonNumber that keeps its source text: the sanity checks compare types,
 * and `3` and `3.0` are different answers. With `{ lexemes: true, asSent: true }` (an engine's chunk, read to be
 * judged field by field) a repeated key is a Repeated holding every value sent, and a number beyond a double
 * (1e400) is a JsonNumber whose value is infinite: the caller judges each field, instead of losing the whole text.
 */

/** Deepest nesting accepted; deeper input is refused instead of exhausting the stack. */
const MAX_DEPTH = 256;

/** A number as written in the source, for comparisons that must tell `3` from `3.0` or `3e0`. */
export class JsonNumber {
  /** @param {string} lexeme */
  constructor(lexeme) {
    /** The exact source text of the number. */
    this.lexeme = lexeme;
    /** True when written without fraction or exponent (the JSON form of an integer). */
    this.isInteger = /^-?(?:0|[1-9][0-9]*)$/.test(lexeme);
    /** The number as a double. */
    this.value = Number(lexeme);
  }
}

/** Every value of a key an object carried more than once (asSent mode): which one was meant is unknown. */
export class Repeated {
  /** @param {unknown[]} values */
  constructor(values) {
    /** The values in the order sent. */
    this.values = values;
  }
}

/**
 * @typedef {{ ok: true, value: unknown } | { ok: false, message: string, offset: number }} JsonParse
 */

// deno-lint-ignore no-control-regex -- control characters end a string scan: JSON forbids them raw
const STRING_STOP = /["\\\u0000-\u001f]/g;
const ESCAPES = /** @type {Record<string, string>} */ ({
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
});

/** The index after the run of ASCII digits that starts at `at`. @param {string} text @param {number} at */
function digitsEnd(text, at) {
  let c = text.charCodeAt(at);
  while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++at);
  return at;
}

class Failure extends Error {
  /** @param {string} message @param {number} offset */
  constructor(message, offset) {
    super(message);
    this.offset = offset;
  }
}

/** Half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Parses `text` as exactly one strict JSON value; never throws.
 * @param {string} text
 * `integersAsWritten` (without lexemes): an integer value written with a fraction or an exponent (1e0, 1.0) is
 * refused, for the texts whose counts are judged by their value alone (results.json, the evidence lines).
 * @param {{ lexemes?: boolean, asSent?: boolean, integersAsWritten?: boolean }} [options]
 * @returns {JsonParse}
 */
export function parseStrictJson(text, options = {}) {
  const lexemes = options.lexemes === true;
  const parser = new Parser(text, lexemes, lexemes && options.asSent === true);
  parser.integersAsWritten = !lexemes && options.integersAsWritten === true;
  try {
    parser.skipSpace();
    const value = parser.value(0);
    parser.skipSpace();
    if (parser.at < text.length) throw new Failure("unexpected text after the JSON value", parser.at);
    return { ok: true, value };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, message: error.message, offset: error.offset };
    throw error;
  }
}

class Parser {
  /** @param {string} text @param {boolean} lexemes @param {boolean} asSent */
  constructor(text, lexemes, asSent) {
    this.text = text;
    this.lexemes = lexemes;
    this.asSent = asSent;
    /** Refuse an integer written with a fraction or an exponent (see parseStrictJson). */
    this.integersAsWritten = false;
    this.at = 0;
  }

  skipSpace() {
    const text = this.text;
    let at = this.at;
    for (;;) {
      const c = text.charCodeAt(at);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) at++;
      else break;
    }
    this.at = at;
  }

  /** @param {number} depth @returns {unknown} */
  value(depth) {
    const c = this.text.charCodeAt(this.at);
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object(depth + 1);
    if (c === 0x5b) return this.array(depth + 1);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.text.startsWith("true", this.at)) return this.word(4, true);
    if (this.text.startsWith("false", this.at)) return this.word(5, false);
    if (this.text.startsWith("null", this.at)) return this.word(4, null);
    if (this.at >= this.text.length) throw new Failure("unexpected end of text", this.at);
    throw new Failure(`unexpected character ${JSON.stringify(this.text[this.at])}`, this.at);
  }

  /** @param {number} length @param {boolean | null} value */
  word(length, value) {
    this.at += length;
    return value;
  }

  /** Scans a number by JSON's grammar (a loop over char codes: numbers fill evidence lines, so no regex here). */
  number() {
    const text = this.text;
    const start = this.at;
    let at = start;
    if (text.charCodeAt(at) === 0x2d) at++;
    const first = text.charCodeAt(at);
    if (first === 0x30) at++;
    else if (first >= 0x31 && first <= 0x39) at = digitsEnd(text, at + 1);
    else throw new Failure("malformed number", start);
    let integer = true;
    if (text.charCodeAt(at) === 0x2e) {
      const end = digitsEnd(text, at + 1);
      if (end === at + 1) throw new Failure("malformed number", start);
      at = end;
      integer = false;
    }
    const e = text.charCodeAt(at);
    if (e === 0x65 || e === 0x45) {
      let digits = at + 1;
      const sign = text.charCodeAt(digits);
      if (sign === 0x2b || sign === 0x2d) digits++;
      const end = digitsEnd(text, digits);
      if (end === digits) throw new Failure("malformed number", start);
      at = end;
      integer = false;
    }
    // "01", "1.", "1e", "-": the grammar stops early; a digit, dot, e or sign right after means malformed.
    const next = text.charCodeAt(at);
    if ((next >= 0x30 && next <= 0x39) || next === 0x2e || next === 0x65 || next === 0x45 || next === 0x2b) {
      throw new Failure("malformed number", start);
    }
    const lexeme = text.slice(start, at);
    const value = Number(lexeme);
    if (!Number.isFinite(value) && !this.asSent) throw new Failure(`number ${lexeme} does not fit a double`, start);
    // 1e-400 is not 0: a nonzero number too small for a double is refused, never read as zero.
    if (value === 0 && /[1-9]/.test(lexeme.split(/[eE]/)[0] ?? "") && !this.asSent) {
      throw new Failure(`number ${lexeme} is too small for a double (it would read as 0)`, start);
    }
    // Where a number is only its value (a count is judged by it), an integer must be written as one: not 1e0 or 1.0.
    if (this.integersAsWritten && !integer && Number.isInteger(value) && Math.abs(value) < 1e21) {
      throw new Failure(`number ${lexeme} is an integer written with a fraction or an exponent`, start);
    }
    this.at = at;
    return this.lexemes ? new JsonNumber(lexeme) : value;
  }

  /** @returns {string} */
  string() {
    const text = this.text;
    const start = this.at + 1;
    let at = start;
    let out = "";
    let escaped = false;
    for (;;) {
      STRING_STOP.lastIndex = at;
      const stop = STRING_STOP.exec(text);
      if (stop === null) throw new Failure("unterminated string", this.at);
      const index = stop.index;
      const c = text.charCodeAt(index);
      if (c === 0x22) {
        if (!escaped) {
          this.at = index + 1;
          return text.slice(start, index);
        }
        const value = out + text.slice(at, index);
        // An escaped half of a surrogate pair names no character; it is refused, as the runner's parser does.
        if (!this.asSent && LONE_SURROGATE.test(value)) {
          throw new Failure("unpaired surrogate escape in a string", this.at);
        }
        this.at = index + 1;
        return value;
      }
      if (c < 0x20) throw new Failure("control character inside a string", index);
      escaped = true;
      out += text.slice(at, index);
      const e = text[index + 1];
      if (e === "u") {
        const hex = text.slice(index + 2, index + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Failure("malformed \\u escape", index);
        out += String.fromCharCode(parseInt(hex, 16));
        at = index + 6;
      } else {
        const decoded = e === undefined ? undefined : ESCAPES[e];
        if (decoded === undefined) throw new Failure("unknown escape in a string", index);
        out += decoded;
        at = index + 2;
      }
    }
  }

  /** @param {number} depth */
  array(depth) {
    if (depth > MAX_DEPTH) throw new Failure(`nesting deeper than ${MAX_DEPTH}`, this.at);
    this.at++;
    /** @type {unknown[]} */
    const items = [];
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x5d) {
      this.at++;
      return items;
    }
    for (;;) {
      this.skipSpace();
      items.push(this.value(depth));
      if (!this.more(0x5d, "] in an array")) return items;
    }
  }

  /**
   * Past the comma or the closing `close` after an item: whether another item follows.
   * @param {number} close @param {string} what
   */
  more(close, what) {
    this.skipSpace();
    const c = this.text.charCodeAt(this.at);
    if (c !== 0x2c && c !== close) throw new Failure(`expected , or ${what}`, this.at);
    this.at++;
    return c === 0x2c;
  }

  /** @param {number} depth */
  object(depth) {
    if (depth > MAX_DEPTH) throw new Failure(`nesting deeper than ${MAX_DEPTH}`, this.at);
    this.at++;
    /** @type {Record<string, unknown>} */
    const object = Object.create(null);
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x7d) {
      this.at++;
      return object;
    }
    for (;;) {
      this.skipSpace();
      if (this.text.charCodeAt(this.at) !== 0x22) throw new Failure("expected a string key", this.at);
      const keyAt = this.at;
      const key = this.string();
      const repeated = Object.hasOwn(object, key);
      if (repeated && !this.asSent) throw new Failure(`duplicate key ${JSON.stringify(key)}`, keyAt);
      this.skipSpace();
      if (this.text.charCodeAt(this.at) !== 0x3a) throw new Failure("expected : after a key", this.at);
      this.at++;
      this.skipSpace();
      const value = this.value(depth);
      if (!repeated) object[key] = value;
      else {
        const earlier = object[key];
        object[key] = earlier instanceof Repeated
          ? new Repeated([...earlier.values, value])
          : new Repeated([earlier, value]);
      }
      if (!this.more(0x7d, "} in an object")) return object;
    }
  }
}
