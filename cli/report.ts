/** `report` command: re-validate a saved result folder strictly and print its summary again. */
import { join } from "node:path";
import { FolderFileError, openSafeFolder, type SafeFolder, writeStderr, writeStdout } from "../runtime/mod.ts";
import { FixtureBundleError, loadBundle, type LoadedBundle } from "../fixtures/mod.ts";
import type { Result } from "../contract/mod.ts";
import {
  artifactReaderOf,
  capOf,
  interruptedEvidence,
  parseResultText,
  type Problem,
  renderConsoleSummary,
  validateResultCounted,
} from "../report/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";

/** Problems printed; the rest are counted. */
const PRINTED_PROBLEMS = 200;

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
  ${EXIT.resultNotOk}  the result is invalid, or valid but partial or nonconforming; or the folder is an interrupted run
     (no results.json, only the evidence of the requests that ended)
  ${EXIT.usage}  usage error (no folder, more than one folder, unknown flag)
  ${EXIT.environment}  the folder or results.json cannot be read (missing, permission), or the fixture bundle cannot be loaded

Only regular files inside DIR are read: a symbolic link anywhere below DIR, a device, FIFO or socket is refused,
not followed; results.json may be at most 16 MiB, outputs.jsonl 256 MiB, every other file 64 MiB. At most
${PRINTED_PROBLEMS} problems are printed, with the count of all of them.
`;

const RESULT_FILE = "results.json";
const OUTPUTS_FILE = "outputs.jsonl";

function usage(message: string): number {
  writeStderr(`Cannot run report: ${message}\nRun "strata-bench report --help" for usage.\n`);
  return EXIT.usage;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The exit code and words for a folder that cannot be opened. */
function folderUnreadable(dir: string, error: unknown): number {
  if (error instanceof FolderFileError && error.code === "permission_denied") {
    writeStderr(
      `Cannot read "${dir}": permission refused. Run through "deno task report DIR" or grant --allow-read.\n`,
    );
  } else if (error instanceof FolderFileError && error.code === "not_folder") {
    writeStderr(
      `Cannot read a result from "${dir}": it is not a folder; pass the result folder that holds ${RESULT_FILE}.\n`,
    );
  } else if (error instanceof FolderFileError && error.code === "not_found") {
    writeStderr(`Cannot read a result from "${dir}": no such folder. Check the path.\n`);
  } else {
    writeStderr(`Cannot read a result from "${dir}": ${describe(error)}\n`);
  }
  return EXIT.environment;
}

/**
 * A folder without results.json: an interrupted run when it holds a run's evidence (exit 1, with how many requests
 * the evidence holds), otherwise not a result folder (exit 3).
 */
async function withoutResults(dir: string, folder: SafeFolder): Promise<number> {
  let bytes: Uint8Array | null = null;
  try {
    bytes = await folder.read(OUTPUTS_FILE, capOf(OUTPUTS_FILE));
  } catch (error) {
    if (!(error instanceof FolderFileError) || error.code !== "not_found") {
      writeStderr(`"${dir}" has no ${RESULT_FILE}, and its ${OUTPUTS_FILE} cannot be read: ${describe(error)}\n`);
      return EXIT.resultNotOk;
    }
  }
  if (bytes === null) {
    writeStderr(
      `Cannot read "${join(dir, RESULT_FILE)}": the folder has no ${RESULT_FILE}; pass the folder a run wrote ` +
        "(bench-results/<UTC-date>-standard-<gpu>-<run-id>).\n",
    );
    return EXIT.environment;
  }
  const held = interruptedEvidence(bytes);
  const cut = held.lastLineCut ? "; its last line is cut off (the process died while writing it)" : "";
  const unreadable = held.unreadableLines > 0 ? `; ${held.unreadableLines} line(s) are not a request's evidence` : "";
  writeStderr(
    `"${dir}" is an interrupted run: it has no ${RESULT_FILE} (the run was stopped before it wrote its result). ` +
      `Its ${OUTPUTS_FILE} holds the evidence of ${held.requests} request(s), ${held.sent} of them sent${unreadable}` +
      `${cut}. It is not a result; run the protocol again for one.\n`,
  );
  return EXIT.resultNotOk;
}

/** The console summary, or null with a note on stderr when the result is too malformed to print. */
function summaryOf(value: unknown): string | null {
  try {
    return renderConsoleSummary(value as Result);
  } catch (error) {
    writeStderr(`Cannot print the summary: the result is too malformed (${describe(error)}).\n`);
    return null;
  }
}

function printProblems(problems: readonly Problem[], total = problems.length): void {
  const shown = problems.slice(0, PRINTED_PROBLEMS);
  const listed = shown.length < total ? `; the first ${shown.length} are listed` : "";
  writeStderr(`${RESULT_FILE} is invalid: ${total} problem(s)${listed}\n`);
  for (const problem of shown) {
    writeStderr(`  ${problem.pointer === "" ? "(root)" : problem.pointer}: ${problem.message}\n`);
  }
  if (shown.length < total) writeStderr(`  ... and ${total - shown.length} more problem(s)\n`);
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

  let folder: SafeFolder;
  try {
    folder = await openSafeFolder(dir);
  } catch (error) {
    return folderUnreadable(dir, error);
  }
  let bytes: Uint8Array;
  try {
    bytes = await folder.read(RESULT_FILE, capOf(RESULT_FILE));
  } catch (error) {
    if (error instanceof FolderFileError && error.code === "not_found") return await withoutResults(dir, folder);
    if (error instanceof FolderFileError && error.code === "permission_denied") {
      writeStderr(`Cannot read "${join(dir, RESULT_FILE)}": permission refused. Grant --allow-read.\n`);
      return EXIT.environment;
    }
    printProblems([{ pointer: "", message: describe(error) }]);
    return EXIT.resultNotOk;
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
  // Parsed once (strictly, with the value cap): the validator, the summary and the status read the same value.
  const parsed = parseResultText(text);
  if (!parsed.ok) {
    printProblems([{ pointer: "", message: `not strict JSON: ${parsed.reason} (at character ${parsed.offset})` }]);
    return EXIT.resultNotOk;
  }
  const { problems, total } = await validateResultCounted(parsed.value, {
    maxSharedPrefixTokens: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens])),
    readArtifact: artifactReaderOf(folder),
    corpusSha256: bundle.corpusSha256,
    fixtures: bundle.fixtures,
  });
  const summary = summaryOf(parsed.value);
  if (summary !== null) writeStdout(summary);
  if (total > 0) {
    printProblems(problems, total);
    return EXIT.resultNotOk;
  }
  const status = (parsed.value as Result).run.status;
  if (status !== "complete") {
    writeStderr(`${RESULT_FILE} is valid, but the run is ${status}; see the Status section above.\n`);
    return EXIT.resultNotOk;
  }
  writeStderr(`${RESULT_FILE} is valid; the run is complete.\n`);
  return EXIT.ok;
}
