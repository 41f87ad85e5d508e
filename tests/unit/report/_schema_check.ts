/**
 * A tiny JSON Schema (draft 2020-12) evaluator for exactly the keywords result.schema.json uses, written apart from
 * the validator's own checker so that the two can be held against each other. Any other keyword throws, so the
 * schema cannot quietly grow past what these tests understand.
 */

export type SchemaNode = Record<string, unknown>;

const ANNOTATIONS = new Set(["$schema", "$id", "title", "description", "$defs", "format"]);
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
  "patternProperties",
]);

function assertKnownKeywords(node: SchemaNode): void {
  for (const key of Object.keys(node)) {
    if (!ANNOTATIONS.has(key) && !KEYWORDS.has(key)) throw new Error(`schema keyword "${key}" is not supported here`);
  }
}

function resolveRef(root: SchemaNode, ref: string): SchemaNode {
  const match = /^#\/\$defs\/([a-z_0-9-]+)$/.exec(ref);
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
    const failures = options.map((option) => schemaErrors(root, option, value, pointer));
    if (!failures.some((f) => f.length === 0)) {
      // Like a validator's detailed output: a non-null value of a nullable [X, null] reports X's own errors.
      const nullable = options.length === 2 && options[1]?.["type"] === "null";
      errors.push(...(nullable && value !== null ? failures[0] as string[] : [`${pointer}: anyOf`]));
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
      const patterns = (node["patternProperties"] as Record<string, SchemaNode> | undefined) ?? {};
      const matching = Object.entries(patterns).filter(([pattern]) => new RegExp(pattern).test(key));
      for (const [, inner] of matching) errors.push(...schemaErrors(root, inner, object[key], at));
      if (Object.hasOwn(properties, key)) {
        errors.push(...schemaErrors(root, properties[key] as SchemaNode, object[key], at));
      } else if (matching.length > 0) continue;
      else if (node["additionalProperties"] === false) errors.push(`${at}: additionalProperties`);
      else if (typeof node["additionalProperties"] === "object") {
        errors.push(...schemaErrors(root, node["additionalProperties"] as SchemaNode, object[key], at));
      }
    }
  }
  return errors;
}
