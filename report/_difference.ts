/** Differences between two plain JSON values, as JSON Pointers plus both values (for "rebuild and compare"). */
import { childPointer } from "./_pointer.ts";
import { isJsonObject } from "./_contract_check.ts";

/** Where two values first differ, and what each side holds there (undefined: absent on that side). */
export interface Difference {
  pointer: string;
  expected: unknown;
  actual: unknown;
}

/**
 * Every place where `actual` differs from `expected`, depth first in the expected value's key order (object key
 * order is irrelevant; own members only, a key whose value is undefined counts as absent). `asWritten` compares
 * as the JSON text that would be written: leaves by their JSON text, arrays of unequal length as a whole;
 * otherwise leaves compare with `===` and such arrays item by item, then at the first index one of them lacks.
 */
export function* differences(
  expected: unknown,
  actual: unknown,
  pointer = "",
  asWritten = false,
): Generator<Difference, void, undefined> {
  if (isJsonObject(expected) && isJsonObject(actual)) {
    const own = (value: Record<string, unknown>, key: string) => Object.hasOwn(value, key) ? value[key] : undefined;
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      yield* differences(own(expected, key), own(actual, key), childPointer(pointer, key), asWritten);
    }
  } else if (Array.isArray(expected) && Array.isArray(actual) && (!asWritten || expected.length === actual.length)) {
    const shared = Math.min(expected.length, actual.length);
    for (let i = 0; i < shared; i++) yield* differences(expected[i], actual[i], childPointer(pointer, i), asWritten);
    if (expected.length !== actual.length) {
      yield { pointer: childPointer(pointer, shared), expected: expected[shared], actual: actual[shared] };
    }
  } else if (asWritten ? JSON.stringify(expected) !== JSON.stringify(actual) : expected !== actual) {
    yield { pointer, expected, actual };
  }
}

/** The first difference (see `differences`), or null when the two values are equal. */
export function firstDifference(expected: unknown, actual: unknown, pointer = ""): Difference | null {
  return differences(expected, actual, pointer).next().value ?? null;
}

/** The pointer of every leaf where `actual` differs from `expected` as written (a whole subtree where kinds differ). */
export function leafDifferences(expected: unknown, actual: unknown): string[] {
  return [...differences(expected, actual, "", true)].map((difference) => difference.pointer);
}

/** Short JSON rendering of a value for messages ("absent" for undefined). */
export function brief(value: unknown, maxChars = 80): string {
  if (value === undefined) return "absent";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
