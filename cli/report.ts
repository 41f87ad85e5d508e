/** `report` command: re-validate a saved result folder strictly and print its summary again. */
import { join } from "node:path";
import { FileReadError, readFile, writeStderr, writeStdout } from "../runtime/mod.ts";
import { FixtureBundleError, loadBundle, type LoadedBundle } from "../fixtures/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import type { Result } from "../contract/mod.ts";
import { type Problem, renderConsoleSummary, validateResultText } from "../report/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";

export const HELP = `Usage: strata-bench report DIR

Reads DIR/results.json, validates it strictly against the result contract (every field and type, every null
explained in "missing", the request schedule and counts, summaries, rounds and the sanity score rebuilt from the
request records, the run status, the SHA-256 of every artifact file in DIR, and the evidence: every request
record rebuilt from its line in outputs.jsonl, the stage durations and round wall times from the lines' dispatch
stamps and end offsets), prints the summary on stdout and every problem, with its JSON Pointer, on stderr.

Options:
  -h, --help  print this help

Exit codes:
  ${EXIT.ok}  the result is valid and its run is complete
  ${EXIT.resultNotOk}  the result is invalid, or valid but partial or nonconforming
  ${EXIT.usage}  usage error (no folder, more than one folder, unknown flag)
  ${EXIT.environment}  the folder or results.json cannot be read, or the fixture bundle cannot be loaded
`;

const RESULT_FILE = "results.json";

function usage(message: string): number {
  writeStderr(`Cannot run report: ${message}\nRun "strata-bench report --help" for usage.\n`);
  return EXIT.usage;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why `dir`/results.json could not be read, with a hint a person can act on. */
async function explainUnreadable(dir: string, error: unknown): Promise<string> {
  const file = join(dir, RESULT_FILE);
  if (!(error instanceof FileReadError)) return `Cannot read "${file}": ${describe(error)}`;
  if (error.code === "permission_denied") {
    return `Cannot read "${file}": permission refused. Run through "deno task report DIR" or grant --allow-read.`;
  }
  if (error.code === "is_directory") return `Cannot read "${file}": it is a folder, not a file.`;
  if (error.code !== "not_found") return error.message;
  try {
    await readFile(dir);
    return `Cannot read a result from "${dir}": it is a file; pass the result folder that holds ${RESULT_FILE}.`;
  } catch (inner) {
    if (inner instanceof FileReadError && inner.code === "is_directory") {
      return `Cannot read "${file}": the folder has no ${RESULT_FILE}; pass the folder a run wrote ` +
        "(bench-results/<UTC-date>-standard-<gpu>-<run-id>).";
    }
    return `Cannot read a result from "${dir}": no such folder. Check the path.`;
  }
}

/** Reads a file of the result folder by relative path; null when it does not exist. */
function artifactReader(dir: string): (relativePath: string) => Promise<Uint8Array | null> {
  return async (relativePath) => {
    try {
      return await readFile(join(dir, relativePath));
    } catch (error) {
      if (error instanceof FileReadError && error.code === "not_found") return null;
      throw error;
    }
  };
}

/** The console summary, or null with a note on stderr when the result is too malformed to print. */
function summaryOf(text: string): string | null {
  const parsed = parseStrictJsonPlain(text);
  if (!parsed.ok) return null;
  try {
    return renderConsoleSummary(parsed.value as Result);
  } catch (error) {
    writeStderr(`Cannot print the summary: the result is too malformed (${describe(error)}).\n`);
    return null;
  }
}

function printProblems(problems: readonly Problem[]): void {
  writeStderr(`${RESULT_FILE} is invalid: ${problems.length} problem(s)\n`);
  for (const problem of problems) {
    writeStderr(`  ${problem.pointer === "" ? "(root)" : problem.pointer}: ${problem.message}\n`);
  }
}

/** Entry point of `report`. */
export async function main(argv: string[]): Promise<number> {
  let positionals: string[];
  try {
    ({ positionals } = parseFlags("run report", argv, {}, { positionals: true }));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeStderr(`${error.message}\nRun "strata-bench report --help" for usage.\n`);
    return EXIT.usage;
  }
  if (positionals.length !== 1) return usage(`expected one result folder, got ${positionals.length}`);
  const dir = positionals[0] as string;

  let bytes: Uint8Array;
  try {
    bytes = await readFile(join(dir, RESULT_FILE));
  } catch (error) {
    writeStderr(`${await explainUnreadable(dir, error)}\n`);
    return EXIT.environment;
  }
  let bundle: LoadedBundle;
  try {
    bundle = await loadBundle();
  } catch (error) {
    const hint = error instanceof FixtureBundleError ? "" : " Restore fixtures/standard-v1 (git checkout) first.";
    writeStderr(`Cannot validate without the fixture bundle: ${describe(error)}${hint}\n`);
    return EXIT.environment;
  }

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    printProblems([{ pointer: "", message: "not UTF-8 text: results.json must be UTF-8 JSON" }]);
    return EXIT.resultNotOk;
  }
  const problems = await validateResultText(text, {
    maxSharedPrefixTokens: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens])),
    readArtifact: artifactReader(dir),
    corpusSha256: bundle.corpusSha256,
    fixtures: bundle.fixtures,
  });
  const summary = summaryOf(text);
  if (summary !== null) writeStdout(summary);
  if (problems.length > 0) {
    printProblems(problems);
    return EXIT.resultNotOk;
  }
  const status = (JSON.parse(text) as Result).run.status;
  if (status !== "complete") {
    writeStderr(`${RESULT_FILE} is valid, but the run is ${status}; see the Status section above.\n`);
    return EXIT.resultNotOk;
  }
  writeStderr(`${RESULT_FILE} is valid; the run is complete.\n`);
  return EXIT.ok;
}
