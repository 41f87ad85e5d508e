/** JSON Pointer (RFC 6901) helpers for the validator: building child pointers and resolving pointers in a value. */

/** One validation problem: where (a JSON Pointer into the result) and what is wrong. */
export interface Problem {
  pointer: string;
  message: string;
}

/** Where checks put the problems they find (an array, or a ProblemCollector that keeps a bounded number). */
export interface ProblemSink {
  push(problem: Problem): unknown;
}

/**
 * Keeps the first `limit` problems and counts all of them, so a hostile result with millions of faults costs
 * bounded memory and prints a bounded list. While `tracking` is on it also notes, for every problem, the pointers of
 * depth one and two at or above it ("/requests", "/requests/7"), so `clean(pointer)` answers in constant time whether
 * a problem was found at, under or above such a pointer (a part whose parent is absent or of the wrong type is not
 * sound either).
 */
export class ProblemCollector implements ProblemSink {
  readonly kept: Problem[] = [];
  total = 0;
  tracking = false;
  /** Depth-one and depth-two pointers at or above a problem. */
  readonly #dirty = new Set<string>();
  /** Problems found exactly at the root or at depth one (they make every pointer below them unsound). */
  readonly #shallow = new Set<string>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(problem: Problem): void {
    this.total++;
    if (this.kept.length < this.#limit) this.kept.push(problem);
    if (!this.tracking) return;
    const pointer = problem.pointer;
    const second = pointer.indexOf("/", 1);
    if (second === -1) {
      this.#dirty.add(pointer);
      this.#shallow.add(pointer);
      return;
    }
    this.#dirty.add(pointer.slice(0, second));
    const third = pointer.indexOf("/", second + 1);
    this.#dirty.add(third === -1 ? pointer : pointer.slice(0, third));
  }

  /**
   * Whether no tracked problem lies at, under or above `pointer`, a pointer of depth one or two.
   * @throws {RangeError} for a deeper pointer (the collector does not note those).
   */
  clean(pointer: string): boolean {
    const second = pointer.indexOf("/", 1);
    if (second !== -1 && pointer.indexOf("/", second + 1) !== -1) {
      throw new RangeError(`Cannot tell whether ${pointer} is sound: only pointers of depth one or two are noted`);
    }
    if (this.#dirty.has(pointer) || this.#shallow.has("")) return false;
    return second === -1 || !this.#shallow.has(pointer.slice(0, second));
  }
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
