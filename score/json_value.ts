/**
 * Working with strict JSON values: plain conversion both ways, equality with lexical number types, and the first
 * difference between two values as a sentence (for sanity verdicts).
 */
import {
  DEFAULT_MAX_DEPTH,
  type JsonNumber,
  type JsonObject,
  type JsonValue,
  parseStrictJson,
  type StrictJsonOptions,
  type StrictJsonResult,
} from "./strict_json.ts";

function isJsonNumber(value: JsonValue): value is JsonNumber {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.kind === "number";
}

function isJsonObject(value: JsonValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.kind === "object";
}

/**
 * Parses strictly (see `parseStrictJson`) and returns a plain JS value: objects carry only own properties (a
 * "__proto__" key becomes an own property, never a prototype), numbers are JS numbers.
 */
export function parseStrictJsonPlain(text: string, options?: StrictJsonOptions): StrictJsonResult<unknown> {
  const parsed = parseStrictJson(text, options);
  if (!parsed.ok) return parsed;
  return { ok: true, value: toPlain(parsed.value) };
}

function shallowPlain(value: JsonValue): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return [];
  if (isJsonNumber(value)) return value.value;
  return {};
}

/** Converts a strict JSON value to a plain JS value (iterative: any depth). */
export function toPlain(root: JsonValue): unknown {
  const out = shallowPlain(root);
  const work: Array<[JsonValue, unknown]> = [[root, out]];
  for (let task = work.pop(); task !== undefined; task = work.pop()) {
    const [source, target] = task;
    if (Array.isArray(source)) {
      const items = target as unknown[];
      for (const item of source) {
        const child = shallowPlain(item);
        items.push(child);
        if (typeof child === "object" && child !== null) work.push([item, child]);
      }
    } else if (isJsonObject(source)) {
      for (const [key, item] of source.entries) {
        const child = shallowPlain(item);
        // defineProperty makes "__proto__" an ordinary own property instead of a prototype change.
        Object.defineProperty(target, key, { value: child, enumerable: true, writable: true, configurable: true });
        if (typeof child === "object" && child !== null) work.push([item, child]);
      }
    }
  }
  return out;
}

/**
 * Converts a plain JS value (for example a fixture's expected value) to a strict JSON value. Integral JS numbers
 * become integers (a plain value cannot say "3.0").
 * @throws {TypeError} when the value is not representable as JSON (undefined, function, non-finite number, cycle).
 */
export function toJsonValue(plain: unknown, depth = 0): JsonValue {
  if (depth > DEFAULT_MAX_DEPTH) throw new TypeError(`Cannot convert to JSON: nested deeper than ${DEFAULT_MAX_DEPTH}`);
  if (plain === null || typeof plain === "boolean" || typeof plain === "string") return plain;
  if (typeof plain === "number") {
    if (!Number.isFinite(plain)) throw new TypeError(`Cannot convert to JSON: number ${plain} is not finite`);
    const lexeme = JSON.stringify(plain);
    return { kind: "number", lexeme, isInteger: Number.isInteger(plain), value: plain };
  }
  if (Array.isArray(plain)) return plain.map((item) => toJsonValue(item, depth + 1));
  if (typeof plain === "object") {
    const entries = new Map<string, JsonValue>();
    for (const key of Object.keys(plain)) {
      entries.set(key, toJsonValue((plain as Record<string, unknown>)[key], depth + 1));
    }
    return { kind: "object", entries };
  }
  throw new TypeError(`Cannot convert to JSON: a ${typeof plain} is not a JSON value`);
}

function numbersEqual(a: JsonNumber, b: JsonNumber): boolean {
  if (a.isInteger !== b.isInteger) return false;
  // Integers compare exactly (beyond 2^53 too); other numbers by value (1.0 equals 1.00 and 10e-1).
  if (a.isInteger) return BigInt(a.lexeme) === BigInt(b.lexeme);
  return a.value === b.value;
}

/** Value equality with lexical types: 3 != 3.0, true != 1, key order irrelevant (iterative: any depth). */
export function jsonEquals(a: JsonValue, b: JsonValue): boolean {
  const work: Array<[JsonValue, JsonValue]> = [[a, b]];
  for (let pair = work.pop(); pair !== undefined; pair = work.pop()) {
    const [x, y] = pair;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") {
      if (x !== y) return false;
    } else if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) work.push([x[i] as JsonValue, y[i] as JsonValue]);
    } else if (isJsonNumber(x) || isJsonNumber(y)) {
      if (!isJsonNumber(x) || !isJsonNumber(y) || !numbersEqual(x, y)) return false;
    } else {
      if (x.entries.size !== y.entries.size) return false;
      for (const [key, value] of x.entries) {
        const other = y.entries.get(key);
        if (other === undefined) return false;
        work.push([value, other]);
      }
    }
  }
  return true;
}

/** The JSON type of a value in words, numbers by lexical type: "integer", "number with a fraction", ... */
export function jsonKind(value: JsonValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  if (Array.isArray(value)) return "array";
  if (isJsonNumber(value)) {
    if (value.isInteger) return "integer";
    return /[eE]/.test(value.lexeme) ? "number with an exponent" : "number with a fraction";
  }
  return "object";
}

/** Compact JSON text of a value with number lexemes kept, cut to about `maxChars` characters. */
export function renderJson(value: JsonValue, maxChars = 80): string {
  const parts: string[] = [];
  let length = 0;
  const work: Array<JsonValue | { raw: string }> = [value];
  while (work.length > 0 && length <= maxChars) {
    const item = work.pop() as JsonValue | { raw: string };
    let text: string;
    if (item === null || typeof item !== "object") text = JSON.stringify(item);
    else if (Array.isArray(item)) {
      text = "[";
      work.push({ raw: "]" });
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i] as JsonValue);
        if (i > 0) work.push({ raw: "," });
      }
    } else if ("raw" in item) text = item.raw;
    else if (isJsonNumber(item)) text = item.lexeme;
    else {
      text = "{";
      work.push({ raw: "}" });
      const entries = [...item.entries].reverse();
      entries.forEach(([key, child], i) => {
        work.push(child);
        work.push({ raw: `${JSON.stringify(key)}:` });
        if (i < entries.length - 1) work.push({ raw: "," });
      });
    }
    parts.push(text);
    length += text.length;
  }
  const joined = parts.join("");
  return joined.length > maxChars || work.length > 0 ? `${joined.slice(0, maxChars - 3)}...` : joined;
}

function describeActual(value: JsonValue): string {
  const kind = jsonKind(value);
  if (kind === "null" || kind === "boolean" || kind === "array" || kind === "object") {
    return kind === "array" ? `${renderJson(value)} (array of ${(value as JsonValue[]).length})` : renderJson(value);
  }
  return `${renderJson(value)} (${kind})`;
}

function describeExpected(value: JsonValue): string {
  const kind = jsonKind(value);
  return kind === "null" || kind === "boolean" ? renderJson(value) : `${kind} ${renderJson(value)}`;
}

function joinPath(path: string, segment: string | number): string {
  if (typeof segment === "number") return `${path}[${segment}]`;
  const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? segment : JSON.stringify(segment);
  return path === "" ? name : `${path}.${name}`;
}

/**
 * The first difference between `actual` and `expected` as a sentence ("count is 3.0 (number with a fraction),
 * expected integer 3"), or null when they are equal under `jsonEquals`. `where` names the root ("the answer").
 */
export function describeJsonDifference(actual: JsonValue, expected: JsonValue, where = "the value"): string | null {
  return differenceAt(actual, expected, "", where);
}

function differenceAt(actual: JsonValue, expected: JsonValue, path: string, root: string): string | null {
  const here = path === "" ? root : path;
  if (isJsonObject(expected)) {
    if (!isJsonObject(actual)) return `${here} is ${describeActual(actual)}, expected an object`;
    for (const key of expected.entries.keys()) {
      if (!actual.entries.has(key)) return `${path === "" ? "" : `${path}: `}missing key ${JSON.stringify(key)}`;
    }
    for (const key of actual.entries.keys()) {
      if (!expected.entries.has(key)) return `${path === "" ? "" : `${path}: `}extra key ${JSON.stringify(key)}`;
    }
    for (const [key, value] of expected.entries) {
      const found = differenceAt(actual.entries.get(key) as JsonValue, value, joinPath(path, key), root);
      if (found !== null) return found;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${here} is ${describeActual(actual)}, expected an array`;
    if (actual.length !== expected.length) {
      return `${here} is ${describeActual(actual)}, expected ${renderJson(expected)} (array of ${expected.length})`;
    }
    const scalarsOnly = expected.every((item) => item === null || typeof item !== "object" || isJsonNumber(item));
    if (scalarsOnly && !jsonEquals(actual, expected)) {
      return `${here} is ${renderJson(actual)}, expected ${renderJson(expected)}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const found = differenceAt(actual[i] as JsonValue, expected[i] as JsonValue, joinPath(path, i), root);
      if (found !== null) return found;
    }
    return null;
  }
  if (jsonEquals(actual, expected)) return null;
  return `${here} is ${describeActual(actual)}, expected ${describeExpected(expected)}`;
}
