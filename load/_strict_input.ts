/**
 * How load and compare parse what a person hands them (prompt files, ShareGPT files, shard JSONL, compare specs,
 * noise-floor files): strict JSON, or JSONC for specs (score's JSONC reader at this bound), where a repeated key is refused (never last-wins) and nesting
 * is bounded (an error, never a stack overflow). The files themselves are read by runtime's regular-file reader.
 */
import type { TSchema } from "typebox";
import { Settings } from "typebox/system";
import { Value } from "typebox/value";
import { parseStrictJsonPlain } from "../score/mod.ts";

/** Deepest nesting of arrays and objects an input may have (a prompt row or a spec needs far less). */
export const MAX_INPUT_DEPTH = 64;

/**
 * One strict JSON value (score's parser: RFC 8259, duplicate keys and nesting past MAX_INPUT_DEPTH refused).
 * @throws SyntaxError "Cannot read <what>: <part> is not JSON (<reason> at offset N)".
 */
export function parseStrictInput(text: string, what: string, part = "it"): unknown {
  const parsed = parseStrictJsonPlain(text, { maxDepth: MAX_INPUT_DEPTH });
  if (!parsed.ok) {
    throw new SyntaxError(`Cannot read ${what}: ${part} is not JSON (${parsed.reason} at offset ${parsed.offset})`);
  }
  return parsed.value;
}

/**
 * Every way `value` misses a TypeBox schema, by JSON Pointer ("/a/b: must be >= 1"), all at once: a key the schema
 * does not name is an "unknown key", an absent required one "required"; `words` says a keyword's failure in the
 * caller's terms (e.g. uniqueItems: "a point repeats").
 */
export function schemaProblems(
  schema: TSchema,
  value: unknown,
  words: Readonly<Record<string, string>> = {},
): string[] {
  // TypeBox stops at 8 errors by default; a person's file has all its problems said at once.
  const limit = Settings.Get().maxErrors;
  Settings.Set({ maxErrors: Number.MAX_SAFE_INTEGER });
  let errors;
  try {
    errors = Value.Errors(schema, value);
  } finally {
    Settings.Set({ maxErrors: limit });
  }
  const problems: string[] = [];
  for (const error of errors) {
    // An unknown key fails its own `false` schema (said below); the parent's summary of it, and the branches of a
    // nullable, say nothing more.
    if (error.keyword === "additionalProperties" || error.keyword === "anyOf") continue;
    if (error.keyword === "type" && (error.params as { type: string }).type === "null") continue;
    if (error.keyword === "required") {
      for (const key of (error.params as { requiredProperties: string[] }).requiredProperties) {
        problems.push(`${error.instancePath}/${key}: required`);
      }
      continue;
    }
    const message = error.keyword === "boolean" ? "unknown key" : words[error.keyword] ?? error.message;
    problems.push(`${error.instancePath || "/"}: ${message}`);
  }
  return problems;
}
