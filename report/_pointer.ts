/** JSON Pointer (RFC 6901) helpers for the validator: building child pointers and resolving pointers in a value. */

/** One validation problem: where (a JSON Pointer into the result) and what is wrong. */
export interface Problem {
  pointer: string;
  message: string;
}

/** Pointer of `key` (an object key or array index) below `parent`; "~" and "/" are escaped as "~0" and "~1". */
export function childPointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** Whether `text` is a syntactically valid JSON Pointer ("" or "/..." with only ~0 and ~1 escapes). */
export function isPointer(text: string): boolean {
  return /^(?:\/(?:[^~/]|~[01])*)*$/.test(text);
}

/** Reference tokens of a valid pointer, unescaped ("/a~1b/0" -> ["a/b", "0"]). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** Outcome of resolving a pointer: found with its value, or not found. */
export type Resolved = { found: true; value: unknown } | { found: false };

/**
 * Resolves a valid pointer in a plain JSON value. Own properties only; array indices are decimal without leading
 * zeros ("-" and "01" never resolve).
 */
export function resolvePointer(root: unknown, pointer: string): Resolved {
  let current: unknown = root;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(current)) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(token)) return { found: false };
      const index = Number(token);
      if (index >= current.length) return { found: false };
      current = current[index];
    } else if (current !== null && typeof current === "object") {
      if (!Object.hasOwn(current, token)) return { found: false };
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
