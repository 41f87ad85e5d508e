/**
 * The example command lines of a --help text, split as a shell splits them: what the help and docs tests run each
 * example through (the command's own parser, or the docs' commands).
 */

/** The example command lines of a help text (the lines under "Examples:"), without the leading "strata-bench". */
export function helpExamples(help: string): string[][] {
  const at = help.indexOf("\nExamples:\n");
  if (at < 0) return [];
  const out: string[][] = [];
  for (const line of help.slice(at + "\nExamples:\n".length).split("\n")) {
    if (!line.startsWith("  strata-bench ")) break;
    out.push(splitWords(line.slice("  strata-bench ".length)));
  }
  return out;
}

/** Splits a command line into words as a POSIX shell would for these examples: spaces, "double" and 'single' quotes. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const char of line) {
    if (quote !== null) {
      if (char === quote) quote = null;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= "";
    } else if (char === " ") {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? "") + char;
  }
  if (word !== null) words.push(word);
  return words;
}
