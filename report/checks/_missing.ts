/**
 * The `missing` map: every null in the result (outside /extensions) has an entry whose pointer names it, and every
 * entry points at a null. An entry that points at nothing or at a value is stale evidence and is reported too, so
 * the map always says exactly what was not measured.
 */
import { childPointer, isPointer, type ProblemSink, resolvePointer } from "../_pointer.ts";
import { isJsonObject } from "../_contract_check.ts";

function collectNulls(value: unknown, pointer: string, out: string[]): void {
  if (value === null) {
    out.push(pointer);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => collectNulls(item, childPointer(pointer, index), out));
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      if (pointer === "" && (key === "missing" || key === "extensions")) continue;
      collectNulls(value[key], childPointer(pointer, key), out);
    }
  }
}

/** Pointers of every null in `result`, in document order, leaving out /missing and /extensions. */
export function nullPointers(result: unknown): string[] {
  const out: string[] = [];
  collectNulls(result, "", out);
  return out;
}

/** Every null explained; every explanation points at a null. `missing` must already be an object. */
export function checkMissing(result: Record<string, unknown>, missing: Record<string, unknown>, problems: ProblemSink) {
  for (const pointer of nullPointers(result)) {
    if (!Object.hasOwn(missing, pointer)) {
      problems.push({ pointer, message: `null without a reason: add "${pointer}" to /missing saying why` });
    }
  }
  for (const key of Object.keys(missing)) {
    const at = childPointer("/missing", key);
    if (!isPointer(key)) {
      problems.push({ pointer: at, message: "key is not a JSON Pointer (RFC 6901), e.g. /hardware/cpu" });
      continue;
    }
    const resolved = resolvePointer(result, key);
    if (!resolved.found) {
      problems.push({ pointer: at, message: "points at nothing in the result; remove it or fix the pointer" });
    } else if (resolved.value !== null) {
      problems.push({ pointer: at, message: "points at a value that is not null; reasons are only for nulls" });
    }
  }
}
