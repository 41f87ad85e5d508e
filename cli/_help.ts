/**
 * The parts every --help ends with: the flags every command has, and examples that work as written (a test parses
 * each example line with the command's own parser).
 */

/** "Common:" (-h, --help and --version) and "Examples:" with each example line. */
export function helpFooter(examples: readonly string[], quiet = false): string {
  return `Common:
  -h, --help                this text
  --version                 the toolkit's version and commit${
    quiet ? "\n  --quiet                   no progress on stderr (warnings and errors still)" : ""
  }

Examples:
${examples.map((e) => `  ${e}`).join("\n")}
`;
}

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
