/**
 * JSONC as people write profiles and specs: comments and trailing commas allowed, and otherwise as strict as the
 * toolkit's JSON: a key repeated in one object is a problem (never last-wins) and nesting is bounded (counted by
 * the scanner, never recursed).
 */
import { createScanner, parse, type ParseError, printParseErrorCode, visit } from "jsonc-parser";

/** jsonc-parser's SyntaxKind values (a const enum, which isolated modules cannot read). */
const TOKEN = { openBrace: 1, closeBrace: 2, openBracket: 3, closeBracket: 4, eof: 17 } as const;

/** The deepest nesting of a JSONC text, found by its scanner (iterative: any depth is counted, none recursed). */
function jsoncDepth(text: string): number {
  const scanner = createScanner(text, true);
  let depth = 0;
  let deepest = 0;
  for (let token: number = scanner.scan(); token !== TOKEN.eof; token = scanner.scan()) {
    if (token === TOKEN.openBrace || token === TOKEN.openBracket) deepest = Math.max(deepest, ++depth);
    else if (token === TOKEN.closeBrace || token === TOKEN.closeBracket) depth--;
  }
  return deepest;
}

/**
 * A JSONC value (comments and trailing commas allowed) with every problem found: syntax errors, a key repeated in
 * one object (by JSON Pointer; never read last-wins), nesting past `maxDepth` (then nothing is parsed).
 */
export function parseStrictJsonc(text: string, maxDepth: number): { value: unknown; problems: string[] } {
  const depth = jsoncDepth(text);
  if (depth > maxDepth) {
    return { value: undefined, problems: [`nesting ${depth} deep, more than the ${maxDepth} allowed`] };
  }
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  const problems = errors.map((e) => `offset ${e.offset}: ${printParseErrorCode(e.error)}`);
  const keys: Set<string>[] = [];
  visit(text, {
    onObjectBegin: () => void keys.push(new Set()),
    onObjectEnd: () => void keys.pop(),
    onObjectProperty: (name, offset, _length, _line, _column, pathSupplier) => {
      const seen = keys[keys.length - 1];
      if (seen === undefined) return;
      if (seen.has(name)) {
        const pointer = [...pathSupplier().map(String), name].map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1"));
        problems.push(`/${pointer.join("/")}: key "${name}" repeated at offset ${offset} (each key once)`);
      }
      seen.add(name);
    },
  }, { allowTrailingComma: true, disallowComments: false });
  return { value, problems };
}
