/**
 * A small declarative description of JSON shapes, and a checker that walks a value against one and collects every
 * problem with its JSON Pointer. The result contract is written in it once (`_result_shape.ts`); the published JSON
 * Schema (`result.schema.json`) is hand-written to say the same, and a test walks both side by side.
 */
import { childPointer, type Problem } from "./_pointer.ts";

/** Named string formats; each maps to one `pattern` in the JSON Schema plus, for some, a check regexes cannot do. */
export type StringFormat = "sha256" | "commit" | "utc-time" | "relative-path";

export type Shape =
  | { readonly kind: "string"; readonly format?: StringFormat; readonly nonEmpty?: boolean }
  | { readonly kind: "const"; readonly value: string | number }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "integer"; readonly minimum: number }
  | { readonly kind: "number"; readonly minimum?: number }
  | { readonly kind: "boolean" }
  | { readonly kind: "nullable"; readonly inner: Shape }
  | { readonly kind: "array"; readonly items: Shape }
  | ObjectShape
  | { readonly kind: "record"; readonly values: Shape }
  | { readonly kind: "open-object" };

export interface ObjectShape {
  readonly kind: "object";
  readonly properties: Readonly<Record<string, Shape>>;
  readonly optional: readonly string[];
}

/** Regular expression of each format, exactly as written in the JSON Schema's `pattern`. */
export const FORMAT_PATTERNS: Readonly<Record<StringFormat, string>> = {
  sha256: "^[0-9a-f]{64}$",
  commit: "^(?:[0-9a-f]{40}|[0-9a-f]{64})$",
  "utc-time": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,9})?Z$",
  "relative-path": "^(?![A-Za-z]:)(?![/~])(?!.*\\\\)(?!(?:.*/)?\\.\\.(?:/|$))[^\\u0000-\\u001f]+$",
};

const FORMAT_WORDS: Readonly<Record<StringFormat, string>> = {
  sha256: "a lowercase 64-character hex SHA-256",
  commit: "a full lowercase hex Git commit (40 or 64 characters)",
  "utc-time": "a UTC ISO 8601 time ending in Z, e.g. 2026-11-29T14:03:07.123Z",
  "relative-path":
    "a path relative to the result folder (no leading / or ~, no drive letter, no backslash, no .. segment)",
};

const COMPILED: Readonly<Record<StringFormat, RegExp>> = {
  sha256: new RegExp(FORMAT_PATTERNS.sha256),
  commit: new RegExp(FORMAT_PATTERNS.commit),
  "utc-time": new RegExp(FORMAT_PATTERNS["utc-time"]),
  "relative-path": new RegExp(FORMAT_PATTERNS["relative-path"]),
};

/** Whether a string that matches the utc-time pattern names a real calendar time (no 2026-02-30, no 25:00). */
function isRealUtcTime(text: string): boolean {
  const [date = "", time = ""] = text.split("T");
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const [hour, minute, second] = time.slice(0, 8).split(":").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day &&
    probe.getUTCHours() === hour && probe.getUTCMinutes() === minute && probe.getUTCSeconds() === second;
}

/** Whether `text` satisfies a string format. */
export function matchesFormat(text: string, format: StringFormat): boolean {
  if (!COMPILED[format].test(text)) return false;
  return format !== "utc-time" || isRealUtcTime(text);
}

/** Builds an object shape; `P` lists every key of the contract type so a forgotten or extra key fails to compile. */
export function objectShape<T>(
  properties: { readonly [K in keyof T]-?: Shape },
  optional: readonly (keyof T & string)[] = [],
): ObjectShape {
  return { kind: "object", properties: properties as Record<string, Shape>, optional };
}

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  }
  if (typeof value === "number") return `the number ${value}`;
  return `a ${typeof value}`;
}

function expected(shape: Shape): string {
  switch (shape.kind) {
    case "string":
      return shape.format ? FORMAT_WORDS[shape.format] : shape.nonEmpty ? "a nonempty string" : "a string";
    case "const":
      return JSON.stringify(shape.value);
    case "enum":
      return `one of ${shape.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "integer":
      return `an integer >= ${shape.minimum}`;
    case "number":
      return shape.minimum === undefined ? "a finite number" : `a finite number >= ${shape.minimum}`;
    case "boolean":
      return "true or false";
    case "nullable":
      return `${expected(shape.inner)}, or null`;
    case "array":
      return "an array";
    case "object":
    case "record":
    case "open-object":
      return "an object";
  }
}

/**
 * Walks `value` against `shape` and appends one problem per mismatch. Keeps going below a valid container so that
 * every problem is reported; does not descend into a value of the wrong type.
 */
export function checkShape(value: unknown, shape: Shape, pointer: string, problems: Problem[]): void {
  const fail = () => problems.push({ pointer, message: `expected ${expected(shape)}, got ${describe(value)}` });
  switch (shape.kind) {
    case "string":
      if (typeof value !== "string") return void fail();
      if (shape.nonEmpty && value.trim() === "") return void fail();
      if (shape.format && !matchesFormat(value, shape.format)) return void fail();
      return;
    case "const":
      if (value !== shape.value) fail();
      return;
    case "enum":
      if (typeof value !== "string" || !shape.values.includes(value)) fail();
      return;
    case "integer":
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < shape.minimum) fail();
      return;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return void fail();
      if (shape.minimum !== undefined && value < shape.minimum) fail();
      return;
    case "boolean":
      if (typeof value !== "boolean") fail();
      return;
    case "nullable":
      if (value !== null) checkShape(value, shape.inner, pointer, problems);
      return;
    case "array":
      if (!Array.isArray(value)) return void fail();
      value.forEach((item, index) => checkShape(item, shape.items, childPointer(pointer, index), problems));
      return;
    case "record":
      if (!isJsonObject(value)) return void fail();
      for (const key of Object.keys(value)) checkShape(value[key], shape.values, childPointer(pointer, key), problems);
      return;
    case "open-object":
      if (!isJsonObject(value)) fail();
      return;
    case "object":
      if (!isJsonObject(value)) return void fail();
      for (const [key, inner] of Object.entries(shape.properties)) {
        const at = childPointer(pointer, key);
        if (Object.hasOwn(value, key)) checkShape(value[key], inner, at, problems);
        else if (!shape.optional.includes(key)) problems.push({ pointer: at, message: "required field is absent" });
      }
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(shape.properties, key)) {
          problems.push({
            pointer: childPointer(pointer, key),
            message: "unknown field; data beyond the contract belongs under /extensions",
          });
        }
      }
      return;
  }
}
