/**
 * Checks a value against the contract's JSON Schema (contract/result.ts) and collects every problem with its JSON
 * Pointer and words a person can act on. It understands exactly the keywords that schema uses (type, const, enum,
 * a nullable anyOf, an anyOf of objects told apart by a `kind` constant, the empty schema, pattern and format, minimum, properties with required and additionalProperties, a string-keyed
 * record as patternProperties, items); a schema node with anything else is a defect and throws.
 */
import { FORMAT_PATTERNS, NONEMPTY_PATTERN, type StringFormat } from "../contract/mod.ts";
import { childPointer, type ProblemSink } from "./_pointer.ts";

/** A node of the contract's schema, as plain JSON. */
export type SchemaNode = Readonly<Record<string, unknown>>;

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

const NONEMPTY = new RegExp(NONEMPTY_PATTERN);

/** Whether a string that matches the utc-time pattern names a real calendar time (no 2026-02-30, no 25:00). */
function isRealUtcTime(text: string): boolean {
  const [date = "", time = ""] = text.split("T");
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const [hour, minute, second] = time.slice(0, 8).split(":").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day &&
    probe.getUTCHours() === hour && probe.getUTCMinutes() === minute && probe.getUTCSeconds() === second;
}

/** Whether `text` satisfies a string format: its pattern, and for utc-time a real calendar time. */
export function matchesFormat(text: string, format: StringFormat): boolean {
  if (!COMPILED[format].test(text)) return false;
  return format !== "utc-time" || isRealUtcTime(text);
}

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const KEYWORDS = new Set([
  "type",
  "const",
  "enum",
  "anyOf",
  "pattern",
  "format",
  "minimum",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "items",
]);

function formatOf(node: SchemaNode): StringFormat | null {
  const format = node["format"];
  return typeof format === "string" && format in COMPILED ? format as StringFormat : null;
}

/** The inner schema of a nullable node (anyOf [X, {type: null}]), or null when the node is not one. */
function nullableInner(node: SchemaNode): SchemaNode | null {
  const anyOf = node["anyOf"];
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return null;
  const [inner, nullNode] = anyOf as SchemaNode[];
  return nullNode?.["type"] === "null" && inner !== undefined ? inner : null;
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

/**
 * The branches of a union of objects told apart by a `kind` constant (anyOf [{kind: "a", ...}, {kind: "b", ...}]),
 * as kind -> branch; null when the node is not one.
 */
function kindBranches(node: SchemaNode): Map<unknown, SchemaNode> | null {
  const anyOf = node["anyOf"];
  if (!Array.isArray(anyOf) || nullableInner(node) !== null) return null;
  const branches = new Map<unknown, SchemaNode>();
  for (const branch of anyOf as SchemaNode[]) {
    const kind = (branch["properties"] as Record<string, SchemaNode> | undefined)?.["kind"];
    if (kind === undefined || !("const" in kind)) return null;
    branches.set(kind["const"], branch);
  }
  return branches;
}

/** What a node accepts, in words. */
function expected(node: SchemaNode): string {
  const inner = nullableInner(node);
  if (inner !== null) return `${expected(inner)}, or null`;
  const kinds = kindBranches(node);
  if (kinds !== null) return `an object whose kind is ${[...kinds.keys()].map((k) => JSON.stringify(k)).join(" or ")}`;
  if ("const" in node) return JSON.stringify(node["const"]);
  if (Array.isArray(node["enum"])) return `one of ${node["enum"].map((v) => JSON.stringify(v)).join(", ")}`;
  const minimum = typeof node["minimum"] === "number" ? node["minimum"] : undefined;
  switch (node["type"]) {
    case "string": {
      const format = formatOf(node);
      if (format !== null) return FORMAT_WORDS[format];
      return node["pattern"] === NONEMPTY_PATTERN ? "a nonempty string" : "a string";
    }
    case "integer":
      return minimum === undefined ? "an integer" : `an integer >= ${minimum}`;
    case "number":
      return minimum === undefined ? "a finite number" : `a finite number >= ${minimum}`;
    case "boolean":
      return "true or false";
    case "array":
      return "an array";
    default:
      return "an object";
  }
}

function assertKnown(node: SchemaNode): void {
  for (const key of Object.keys(node)) {
    if (!KEYWORDS.has(key)) throw new Error(`Cannot check against the contract: schema keyword "${key}" is unknown`);
  }
}

/** Whether a scalar node accepts `value` (nullable and container nodes are walked by checkSchema). */
function scalarAccepts(node: SchemaNode, value: unknown): boolean {
  if ("const" in node) return value === node["const"];
  if (Array.isArray(node["enum"])) return typeof value === "string" && node["enum"].includes(value);
  const minimum = typeof node["minimum"] === "number" ? node["minimum"] : undefined;
  switch (node["type"]) {
    case "string": {
      if (typeof value !== "string") return false;
      const format = formatOf(node);
      if (format !== null) return matchesFormat(value, format);
      return node["pattern"] === NONEMPTY_PATTERN ? NONEMPTY.test(value) : true;
    }
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value) && (minimum === undefined || value >= minimum);
    case "number":
      return typeof value === "number" && Number.isFinite(value) && (minimum === undefined || value >= minimum);
    case "boolean":
      return typeof value === "boolean";
    default:
      throw new Error(`Cannot check against the contract: schema type "${String(node["type"])}" is unknown`);
  }
}

/**
 * Walks `value` against `node` and appends one problem per mismatch. Keeps going below a valid container so that
 * every problem is reported; does not descend into a value of the wrong type.
 * @throws {Error} on a schema keyword or type this checker does not know (a defect of the contract, not the value).
 */
export function checkSchema(value: unknown, node: SchemaNode, pointer: string, problems: ProblemSink): void {
  assertKnown(node);
  // An empty node ({}: any JSON value) accepts everything.
  if (Object.keys(node).length === 0) return;
  const fail = () => problems.push({ pointer, message: `expected ${expected(node)}, got ${describe(value)}` });
  const inner = nullableInner(node);
  if (inner !== null) {
    if (value !== null) checkSchema(value, inner, pointer, problems);
    return;
  }
  const kinds = kindBranches(node);
  if (kinds !== null) {
    const branch = isJsonObject(value) ? kinds.get(value["kind"]) : undefined;
    if (branch === undefined) return void fail();
    return checkSchema(value, branch, pointer, problems);
  }
  if (node["type"] === "array") {
    if (!Array.isArray(value)) return void fail();
    const items = node["items"] as SchemaNode;
    value.forEach((item, index) => checkSchema(item, items, childPointer(pointer, index), problems));
    return;
  }
  if (node["type"] === "object") return checkObject(value, node, pointer, problems, fail);
  if (!scalarAccepts(node, value)) fail();
}

function checkObject(
  value: unknown,
  node: SchemaNode,
  pointer: string,
  problems: ProblemSink,
  fail: () => void,
): void {
  if (!isJsonObject(value)) return void fail();
  const patterns = node["patternProperties"] as Readonly<Record<string, SchemaNode>> | undefined;
  if (patterns !== undefined) {
    // A string-keyed record ("^.*$"): every value against the one schema; {} accepts anything.
    const values = Object.values(patterns)[0] ?? {};
    if (Object.keys(values).length === 0) return;
    for (const key of Object.keys(value)) checkSchema(value[key], values, childPointer(pointer, key), problems);
    return;
  }
  const properties = (node["properties"] ?? {}) as Readonly<Record<string, SchemaNode>>;
  const required = (node["required"] ?? []) as readonly string[];
  for (const [key, child] of Object.entries(properties)) {
    const at = childPointer(pointer, key);
    if (Object.hasOwn(value, key)) checkSchema(value[key], child, at, problems);
    else if (required.includes(key)) problems.push({ pointer: at, message: "required field is absent" });
  }
  if (node["additionalProperties"] !== false) return;
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(properties, key)) {
      problems.push({
        pointer: childPointer(pointer, key),
        message: "unknown field; data beyond the contract belongs under /extensions",
      });
    }
  }
}
