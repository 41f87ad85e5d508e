/**
 * How load and compare parse what a person hands them (prompt files, ShareGPT files, shard JSONL, compare specs,
 * noise-floor files): strict JSON, or JSONC for specs (score's JSONC reader at this bound), where a repeated key is refused (never last-wins) and nesting
 * is bounded (an error, never a stack overflow). The files themselves are read by runtime's regular-file reader.
 */
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
