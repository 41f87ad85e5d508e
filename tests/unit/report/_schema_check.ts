/**
 * A tiny JSON Schema (draft 2020-12) evaluator for exactly the keywords result.schema.json uses, and a converter
 * from that schema to the validator's shape language. Any other keyword throws, so the schema cannot quietly
 * grow past what these tests understand.
 */
import { FORMAT_PATTERNS, type Shape, type StringFormat } from "../../../report/_shape.ts";

export type SchemaNode = Record<string, unknown>;

const ANNOTATIONS = new Set(["$schema", "$id", "title", "description", "$defs"]);
const KEYWORDS = new Set([
  "$ref",
  "type",
  "const",
  "enum",
  "pattern",
  "minimum",
  "required",
  "properties",
  "additionalProperties",
  "items",
  "anyOf",
]);

function assertKnownKeywords(node: SchemaNode): void {
  for (const key of Object.keys(node)) {
    if (!ANNOTATIONS.has(key) && !KEYWORDS.has(key)) throw new Error(`schema keyword "${key}" is not supported here`);
  }
}

function resolveRef(root: SchemaNode, ref: string): SchemaNode {
  const match = /^#\/\$defs\/([a-z_0-9]+)$/.exec(ref);
  const defs = root["$defs"] as Record<string, SchemaNode>;
  const target = match ? defs[match[1] as string] : undefined;
  if (!target) throw new Error(`cannot resolve $ref ${ref}`);
  return target;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      throw new Error(`type "${type}" is not supported here`);
  }
}

/** Every error (instance pointer + keyword) of `value` against `node`, like a JSON Schema validator's output. */
export function schemaErrors(root: SchemaNode, node: SchemaNode, value: unknown, pointer = ""): string[] {
  assertKnownKeywords(node);
  const errors: string[] = [];
  if (typeof node["$ref"] === "string") {
    errors.push(...schemaErrors(root, resolveRef(root, node["$ref"]), value, pointer));
  }
  if (node["type"] !== undefined) {
    const types = Array.isArray(node["type"]) ? node["type"] as string[] : [node["type"] as string];
    if (!types.some((t) => typeMatches(t, value))) return [...errors, `${pointer}: type`];
  }
  if ("const" in node && value !== node["const"]) errors.push(`${pointer}: const`);
  if (Array.isArray(node["enum"]) && !node["enum"].includes(value)) errors.push(`${pointer}: enum`);
  if (typeof node["pattern"] === "string" && typeof value === "string" && !new RegExp(node["pattern"]).test(value)) {
    errors.push(`${pointer}: pattern`);
  }
  if (typeof node["minimum"] === "number" && typeof value === "number" && value < node["minimum"]) {
    errors.push(`${pointer}: minimum`);
  }
  if (Array.isArray(node["anyOf"])) {
    const options = node["anyOf"] as SchemaNode[];
    if (!options.some((option) => schemaErrors(root, option, value, pointer).length === 0)) {
      errors.push(`${pointer}: anyOf`);
    }
  }
  if (Array.isArray(value) && node["items"] !== undefined) {
    value.forEach((item, i) =>
      errors.push(...schemaErrors(root, node["items"] as SchemaNode, item, `${pointer}/${i}`))
    );
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const key of (node["required"] as string[] | undefined) ?? []) {
      if (!Object.hasOwn(object, key)) errors.push(`${pointer}/${key}: required`);
    }
    const properties = (node["properties"] as Record<string, SchemaNode> | undefined) ?? {};
    for (const key of Object.keys(object)) {
      const at = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (Object.hasOwn(properties, key)) {
        errors.push(...schemaErrors(root, properties[key] as SchemaNode, object[key], at));
      } else if (node["additionalProperties"] === false) errors.push(`${at}: additionalProperties`);
      else if (typeof node["additionalProperties"] === "object") {
        errors.push(...schemaErrors(root, node["additionalProperties"] as SchemaNode, object[key], at));
      }
    }
  }
  return errors;
}

function formatOf(pattern: string): StringFormat {
  const entry = Object.entries(FORMAT_PATTERNS).find(([, p]) => p === pattern);
  if (!entry) throw new Error(`pattern ${pattern} matches no format of the validator`);
  return entry[0] as StringFormat;
}

/** Reads the schema back into the validator's shape language, so the two can be compared as data. */
export function shapeOfSchema(root: SchemaNode, node: SchemaNode): Shape {
  assertKnownKeywords(node);
  if (typeof node["$ref"] === "string") return shapeOfSchema(root, resolveRef(root, node["$ref"]));
  if (Array.isArray(node["anyOf"])) {
    const [first, second, ...rest] = node["anyOf"] as SchemaNode[];
    if (!first || second?.["type"] !== "null" || rest.length > 0) throw new Error("anyOf is used only for nullable");
    return { kind: "nullable", inner: shapeOfSchema(root, first) };
  }
  if (Array.isArray(node["type"])) {
    const [type, nullType, ...rest] = node["type"] as string[];
    if (nullType !== "null" || rest.length > 0) throw new Error("type arrays are used only for nullable");
    return { kind: "nullable", inner: shapeOfSchema(root, { ...node, type }) };
  }
  if ("const" in node) return { kind: "const", value: node["const"] as string | number };
  if (Array.isArray(node["enum"])) {
    const values = node["enum"] as (string | null)[];
    const strings = values.filter((v): v is string => v !== null);
    const shape: Shape = { kind: "enum", values: strings };
    return values.includes(null) ? { kind: "nullable", inner: shape } : shape;
  }
  switch (node["type"]) {
    case "string": {
      const pattern = node["pattern"] as string | undefined;
      if (pattern === undefined) return { kind: "string" };
      if (pattern === "\\S") return { kind: "string", nonEmpty: true };
      return { kind: "string", format: formatOf(pattern) };
    }
    case "integer":
      return { kind: "integer", minimum: node["minimum"] as number };
    case "number":
      return node["minimum"] === undefined
        ? { kind: "number" }
        : { kind: "number", minimum: node["minimum"] as number };
    case "boolean":
      return { kind: "boolean" };
    case "array":
      return { kind: "array", items: shapeOfSchema(root, node["items"] as SchemaNode) };
    case "object": {
      const properties = node["properties"] as Record<string, SchemaNode> | undefined;
      if (properties) {
        if (node["additionalProperties"] !== false) throw new Error("a typed object must forbid extra properties");
        const required = node["required"] as string[];
        return {
          kind: "object",
          properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, shapeOfSchema(root, v)])),
          optional: Object.keys(properties).filter((key) => !required.includes(key)),
        };
      }
      if (typeof node["additionalProperties"] === "object") {
        return { kind: "record", values: shapeOfSchema(root, node["additionalProperties"] as SchemaNode) };
      }
      return { kind: "open-object" };
    }
    default:
      throw new Error(`cannot read schema node ${JSON.stringify(node).slice(0, 80)}`);
  }
}
