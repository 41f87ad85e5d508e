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
