/**
 * The function-length rule's reader: where each function of a product file starts and ends, measured the way a
 * reader sees it (from the line that declares it to the closing brace at the same indentation), on the code with
 * comments and string contents blanked out.
 */
import { codeOnly, isProduct, type SourceFile, type Violation } from "./_house.ts";

/** One function of a file: its name, the line that declares it and its length in lines (both ends counted). */
export interface FunctionSpan {
  name: string;
  line: number;
  lines: number;
}

/** Words that open a block but declare no method (`if (x) {` looks like a method named `if`). */
const NOT_METHODS = new Set(["if", "for", "while", "switch", "catch", "with", "return", "function", "else", "do"]);

const FUNCTION = /^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s*([\w$]*)/;
const ARROW = /^(\s*)(?:export\s+)?(?:const|let)\s+([\w$]+)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:\(|[\w$]+\s*=>)/;
const METHOD = /^(\s+)(?:(?:public|private|protected|static|async|get|set|override)\s+)*\*?(#?[\w$]+)\s*(?:<[^>]*>)?\(/;

/**
 * Every function, arrow assigned to a name, and method in `text` whose body opens with a brace at the end of a line:
 * a declaration at indentation I (its line ending in `{`, or in `(` before parameters on lines of their own) ends
 * at the next line at indentation I or less, which must be its closing brace; a line at I that closes the
 * parameters and opens the body (`): Type {`) carries it on.
 */
export function functionSpans(text: string): FunctionSpan[] {
  const lines = codeOnly(text).split("\n");
  const indentOf = (line: string) => line.length - line.trimStart().length;
  const out: FunctionSpan[] = [];
  lines.forEach((line, at) => {
    const match = FUNCTION.exec(line) ?? ARROW.exec(line) ?? METHOD.exec(line);
    if (match === null || NOT_METHODS.has(match[2] as string)) return;
    const indent = indentOf(line);
    let n = at;
    while (n < lines.length) {
      const current = lines[n] as string;
      if (n > at && /^\}[,;]?\s*$/.test(current.trim())) break;
      const opens = n === at ? /[{(]\s*$/.test(current) : /^\s*[)}].*\{\s*$/.test(current);
      if (!opens || indentOf(current) !== indent) return;
      n++;
      while (n < lines.length && ((lines[n] as string).trim() === "" || indentOf(lines[n] as string) > indent)) n++;
    }
    const head = lines.slice(at, n).join("\n");
    if (n >= lines.length || (ARROW.test(line) && !FUNCTION.test(line) && !head.includes("=>"))) return;
    out.push({ name: match[2] || "(anonymous)", line: at + 1, lines: n - at + 1 });
  });
  return out;
}

/**
 * Rule: no product function is longer than `maxLines` lines (cut it into named stages; a table may stay whole on
 * the allow-list). `allowed` names today's known offenders, "path name" -> the lines it had: they may not grow, and
 * an entry whose function is now within the limit (or gone) is reported too, so the list only shrinks.
 */
export function functionLengthViolations(
  files: readonly SourceFile[],
  maxLines: number,
  allowed: Readonly<Record<string, number>> = {},
): Violation[] {
  const out: Violation[] = [];
  const longest = new Map<string, number>();
  for (const file of files.filter((f) => isProduct(f.path))) {
    for (const span of functionSpans(file.text)) {
      const key = `${file.path} ${span.name}`;
      longest.set(key, Math.max(longest.get(key) ?? 0, span.lines));
      const cap = allowed[key] ?? maxLines;
      if (span.lines > cap) {
        out.push({
          at: `${file.path}:${span.line}`,
          problem: `${span.name} is ${span.lines} lines, over ${maxLines}` +
            `${cap === maxLines ? "" : ` (and over the ${cap} it had)`}: cut it into named stages`,
        });
      }
    }
  }
  for (const key of Object.keys(allowed)) {
    if ((longest.get(key) ?? 0) <= maxLines) {
      out.push({ at: key, problem: `within ${maxLines} lines now (or gone): remove it from the function allow-list` });
    }
  }
  return out;
}
