/** First difference between two plain JSON values, as a JSON Pointer plus both values (for "rebuild and compare"). */
import { childPointer } from "./_pointer.ts";
import { isJsonObject } from "./_contract_check.ts";

/** Where two values first differ, and what each side holds there (undefined: absent on that side). */
export interface Difference {
  pointer: string;
  expected: unknown;
  actual: unknown;
}

/**
 * Depth-first, in the expected value's order: the first pointer where `actual` differs from `expected`, or null
 * when they are equal. Numbers compare with `===`; object key order is irrelevant.
 */
export function firstDifference(expected: unknown, actual: unknown, pointer = ""): Difference | null {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const shared = Math.min(expected.length, actual.length);
    for (let i = 0; i < shared; i++) {
      const inner = firstDifference(expected[i], actual[i], childPointer(pointer, i));
      if (inner) return inner;
    }
    if (expected.length !== actual.length) {
      return { pointer: childPointer(pointer, shared), expected: expected[shared], actual: actual[shared] };
    }
    return null;
  }
  if (isJsonObject(expected) && isJsonObject(actual)) {
    for (const key of Object.keys(expected)) {
      if (expected[key] === undefined) continue;
      const at = childPointer(pointer, key);
      if (!Object.hasOwn(actual, key)) return { pointer: at, expected: expected[key], actual: undefined };
      const inner = firstDifference(expected[key], actual[key], at);
      if (inner) return inner;
    }
    for (const key of Object.keys(actual)) {
      if (!Object.hasOwn(expected, key) || expected[key] === undefined) {
        return { pointer: childPointer(pointer, key), expected: undefined, actual: actual[key] };
      }
    }
    return null;
  }
  return expected === actual ? null : { pointer, expected, actual };
}

/** Short JSON rendering of a value for messages ("absent" for undefined). */
export function brief(value: unknown, maxChars = 80): string {
  if (value === undefined) return "absent";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
