/** The published load line schema, and a line's errors against its format's definition by an independent evaluator. */
import assert from "node:assert/strict";
import schema from "../../../contract/load-lines.schema.json" with { type: "json" };
import { schemaErrors, type SchemaNode } from "../report/_schema_check.ts";

export const root = schema as unknown as SchemaNode;

/** A line's errors against the published schema's definition of its format (tests/unit/report/_schema_check.ts). */
export function lineErrors(line: Record<string, unknown>): string[] {
  const defs = root["$defs"] as Record<string, SchemaNode>;
  const name = String(line.format);
  assert.ok(defs[name] !== undefined, `no definition for ${name}`);
  return schemaErrors(root, defs[name]!, line);
}
