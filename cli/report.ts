/**
 * `report`: re-validate saved result folders strictly and print them again: one folder's summary, the comparison
 * of several, the suggested pull request (--pr), or the seal after a hand redaction (--seal). The reading,
 * comparing, sealing and rendering live in report/; this file parses, wires and prints.
 */
import { basename } from "node:path";
import { errorMessage, stdoutIsTerminal, writeStderr, writeStdout, writeTextOutcome } from "../runtime/mod.ts";
import { FixtureBundleError, loadBundle, type LoadedBundle } from "../fixtures/mod.ts";
import { EVIDENCE_VERSION, type Result, RESULT_FILES } from "../contract/mod.ts";
import {
  type ComparedInput,
  compareResults,
  comparisonSpec,
  describeRederived,
  DIGEST_KEYS,
  folderReadme,
  picturesNote,
  prBody,
  type Problem,
  prTitle,
  type ReadResult,
  readResultFolder,
  renderChartSvg,
  renderComparisonCsv,
  renderComparisonJson,
  renderComparisonMarkdown,
  renderConsoleSummary,
  resentRequests,
  resultGlance,
  sealFolder,
} from "../report/mod.ts";
import { outFolderFlag, parseFlags, refuseInert, UsageError } from "./_args.ts";
import { helpFooter } from "./_help.ts";
import { outputStem } from "./_out_files.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { printEnding } from "./_ending.ts";
import { comparisonEnding } from "./_report_compare.ts";
import { conformingFixes } from "../runner/mod.ts";
import { namesSavedResults, reportSaved } from "./_saved_results.ts";

/** Problems printed per folder; the rest are counted. */
const PRINTED_PROBLEMS = 200;

export const HELP = `Usage: strata-bench report DIR [DIR ...] [--format md|csv|json] [--svg [--out DIR]]
       strata-bench report DIR --pr
       strata-bench report DIR --seal
       strata-bench report FILE.jsonl [--out DIR]   (a saved load or compare result)

Reads DIR/results.json, validates it strictly against the result contract (every field and type, every null
explained in "missing", the request schedule and counts, summaries, rounds and the sanity score rebuilt from the
request records, the run status, the SHA-256 of every artifact file in DIR, the evidence: every request record
rebuilt from its line in outputs.jsonl, the stage durations and round wall times exactly from the lines' dispatch
offsets and end offsets on the run's monotonic clock, the resolved-configuration checks and the round queueing,
and the measured digest the run recorded), and prints the summary on stdout and every problem, with its JSON
Pointer, on stderr. It also says when README.md was edited after the run (information, not an error: the operator
may correct it). It reads evidence version ${EVIDENCE_VERSION} (a frozen request by reference, checked against the bundle); a
folder written by an older strata-bench (another evidence_version, or none) is refused with that reason: check it
with the strata-bench that wrote it.

Several folders: each is validated; invalid ones (or folders of another format or schema version, or no result
at all) are refused by name with their problems, and the valid ones are compared: one row per (configuration,
case) with actual prompt, cached and generated tokens, runs, prompt and decode tok/s median [min-max], TTFT and
first-answer medians, capped count, sanity x/12 and status. Different protocols or models are separate groups
(never side by side); different configurations, engines, tracks or concurrency levels are separate rows;
complete, partial and nonconforming results are separate sections.

FILE.jsonl (what load or compare wrote to --out): every line is checked (strict JSON, a known format and
version, summaries and rows of the right shape; a regular file of at most 1 GiB), the summaries or the gate verdict
are printed, and <name>-report.csv (one line per run and endpoint), <name>-report.html (the page, opening with what
was run) and <name>-report-curve.svg (throughput against TTFT and TPOT percentiles, across load levels) are written
into --out as new files: a name taken (the page load --html wrote is <name>.html) moves to -report-2, -report-3, ...

Options:
  --format md|csv|json  the comparison's format (default md; with one folder it prints its one-folder table)
  --svg                 also draw the comparison as an SVG picture, into a new file of the --out folder:
                        <UTC-date>-comparison-<run-id>.svg (its name is printed)
  --out DIR             the folder for --svg (default bench-results)
  --pr                  print the suggested pull request title and body for DIR
  --seal                after you read and redacted DIR by hand: re-hash its artifacts into results.json,
                        refusing (and changing nothing) when an edit changed anything measured

${
  helpFooter([
    "strata-bench report bench-results/2026-01-31-standard-rtx-3060-20260131T120000Z-k3x9q2",
    "strata-bench report bench-results/run-a bench-results/run-b --format csv",
    "strata-bench report bench-results/run-a bench-results/run-b --svg --out bench-results",
  ])
}
Exit codes:
  ${EXIT.ok}  every result is valid and its run is complete (--seal: sealed, or nothing to seal)
  ${EXIT.resultNotOk}  a result is invalid or refused, or valid but partial or nonconforming (--seal: refused)
  ${EXIT.usage}  usage error (no folder, unknown flag, --pr/--seal with several folders)
  ${EXIT.environment}  a folder or results.json cannot be read, the fixture bundle cannot be loaded, or a file
     cannot be written (strata-bench report may write into bench-results and bench/results with --seal, --svg
     and FILE.jsonl, and into --out); the reason is on stderr
  A folder a killed run left without results.json is named an interrupted run, with how many requests its
  evidence (outputs.jsonl) holds, and exits ${EXIT.resultNotOk}.

Only regular files inside DIR are read: a symbolic link anywhere below DIR, a device, FIFO or socket is refused,
not followed; results.json may be at most 16 MiB, outputs.jsonl 256 MiB, every other file 64 MiB. At most
${PRINTED_PROBLEMS} problems of a folder are printed, with the count of all of them.
`;

const RESULT_FILE = RESULT_FILES.results;
const FORMATS = ["md", "csv", "json"] as const;
type Format = typeof FORMATS[number];

/** The console summary, or null with a note on stderr when the result is too malformed to print. */
function summaryOf(result: Result | null): string | null {
  if (result === null) return null;
  try {
    return renderConsoleSummary(result);
  } catch (error) {
    writeStderr(`Cannot print the summary: the result is too malformed (${errorMessage(error)}).\n`);
    return null;
  }
}

function printProblems(dir: string | null, problems: readonly Problem[], total = problems.length): void {
  const shown = problems.slice(0, PRINTED_PROBLEMS);
  const listed = shown.length < total ? `; the first ${shown.length} are listed` : "";
  writeStderr(`${dir === null ? "" : `${dir}: `}${RESULT_FILE} is invalid: ${total} problem(s)${listed}\n`);
  for (const problem of shown) {
    writeStderr(`  ${problem.pointer === "" ? "(root)" : problem.pointer}: ${problem.message}\n`);
  }
  if (shown.length < total) writeStderr(`  ... and ${total - shown.length} more problem(s)\n`);
}

/** Notes beside the summary; the resends are read from the evidence of a valid result only (a checked, capped file). */
async function printInformation(dir: string, result: Result, valid: boolean): Promise<void> {
  const readme = await folderReadme(dir, result);
  if (readme === "edited") {
    writeStderr(
      "README.md was edited after the run (its SHA-256 differs from the one results.json recorded); results.json " +
        "and the evidence are what count, and reviewers read the README knowing it was changed.\n",
    );
  } else if (readme === "missing") {
    writeStderr(
      "README.md is missing from the folder: a reader has no report to open; restore it from your copy of the run " +
        "(results.json and the evidence are still what count).\n",
    );
  }
  const resent = valid ? await resentRequests(dir, result) : [];
  if (resent.length > 0) {
    writeStderr(
      `${resent.length} request(s) were sent once more on a fresh connection (the pooled connection closed before ` +
        `any byte of the answer; the client's only resend): ${resent.join(", ")}\n`,
    );
  }
  const pictures = await picturesNote(result).catch(() => null);
  if (pictures !== null) writeStderr(`${pictures}\n`);
  const seals = result.extensions?.[DIGEST_KEYS.seal];
  if (Array.isArray(seals)) {
    for (const seal of seals as { sealed_at?: unknown; rehashed?: { path?: unknown }[] }[]) {
      const files = (seal.rehashed ?? []).map((r) => String(r.path)).join(", ");
      writeStderr(`sealed at ${String(seal.sealed_at)}: re-hashed by a person, nothing measured changed: ${files}\n`);
    }
  }
}

/** A folder with no result to read: its message, and the exit code (an interrupted run is a result that is not ok). */
function noResult(loaded: ReadResult & { kind: "unreadable" | "interrupted" }): number {
  writeStderr(`${loaded.message}\n`);
  return loaded.kind === "interrupted" ? EXIT.resultNotOk : EXIT.environment;
}

async function singleFolder(loaded: ReadResult): Promise<number> {
  if (loaded.kind !== "checked") return noResult(loaded);
  const summary = summaryOf(loaded.result);
  if (summary !== null && loaded.total > 0) {
    writeStdout(
      `INVALID: ${RESULT_FILE} has ${loaded.total} problem(s) (listed on stderr); the summary below is what it ` +
        "claims, not checked numbers.\n",
    );
  }
  if (summary !== null) writeStdout(summary);
  if (loaded.result !== null) await printInformation(loaded.dir, loaded.result, loaded.total === 0).catch(() => {});
  if (loaded.total > 0) {
    printProblems(null, loaded.problems, loaded.total);
    printEnding({
      status: `report: INVALID (exit ${EXIT.resultNotOk}); ${loaded.total} problem(s) in ${RESULT_FILE}, on stderr`,
      numbers: [],
      problems: [],
      missing: { notGiven: [], notMeasurable: [], failed: [] },
      next: ["fix or re-run: an edited or damaged folder is not a result"],
      folder: loaded.dir,
    });
    return EXIT.resultNotOk;
  }
  const result = loaded.result as Result;
  const code = result.run.status === "complete" ? EXIT.ok : EXIT.resultNotOk;
  writeStderr(
    code === EXIT.ok
      ? `${RESULT_FILE} is valid; the run is complete.\n`
      : `${RESULT_FILE} is valid, but the run is ${result.run.status}; see the Status section above.\n`,
  );
  // It ends as run does: the verdict, the headline, what kept it from conforming, the next command, the folder.
  const glance = resultGlance(result);
  // The same fixes run's own ending gave (docs/hints.md): what would make the next run conforming.
  const fixes = conformingFixes(result);
  printEnding({
    ...glance,
    problems: fixes.length > 0 ? fixes : glance.problems,
    status: `report: valid; ${glance.status}`,
    next: ["strata-bench report FOLDER --pr (the pull request text; --seal after redacting by hand)"],
    folder: loaded.dir,
  });
  return code;
}

/** Display names: each folder's own name, or the path as given where two names are alike. */
function displayNames(dirs: readonly string[]): string[] {
  const names = dirs.map((d) => basename(d.replace(/[\\/]+$/, "")) || d);
  return names.map((name, i) => (names.indexOf(name) !== names.lastIndexOf(name) ? dirs[i]! : name));
}

async function comparison(
  loaded: ReadResult[],
  format: Format,
  svg: string | null,
): Promise<number> {
  const names = displayNames(loaded.map((l) => l.dir));
  const refused: string[] = [];
  const inputs: ComparedInput[] = [];
  const runs = new Map<string, { name: string; text: string }>();
  let environment = false;
  loaded.forEach((l, i) => {
    const name = names[i]!;
    if (l.kind !== "checked") {
      if (l.kind === "unreadable") environment = true;
      refused.push(`${name}: ${l.message}`);
      writeStderr(`${l.message}\n`);
    } else if (l.total > 0 || l.result === null) {
      const first = l.problems[0];
      refused.push(
        `${name}: invalid (${l.total} problem(s); first: ${first?.pointer || "(root)"}: ${first?.message})`,
      );
      printProblems(name, l.problems, l.total);
    } else if (runs.get(l.result.run.id)?.text === l.text) {
      refused.push(
        `${name}: the same run as ${runs.get(l.result.run.id)?.name} (run id ${l.result.run.id}); counted once`,
      );
    } else if (runs.has(l.result.run.id)) {
      refused.push(
        `${name}: has the run id ${l.result.run.id} of ${runs.get(l.result.run.id)?.name}, but its results.json ` +
          "differs: two different results cannot share one run id (one was edited, or copied and changed); left out",
      );
    } else {
      runs.set(l.result.run.id, { name, text: l.text });
      inputs.push({ folder: name, result: l.result });
    }
  });
  const compared = compareResults(inputs);
  // On a terminal the B-against-A tables come first and the wide tables wait for a file (the ending says so).
  const screen = format === "md" && stdoutIsTerminal();
  const out = format === "csv"
    ? renderComparisonCsv(compared)
    : format === "json"
    ? renderComparisonJson(compared, refused)
    : renderComparisonMarkdown(compared, refused, !screen);
  writeStdout(out);
  if (format === "csv") { for (const line of refused) writeStderr(`refused: ${line}\n`); }
  if (svg !== null) {
    const written = await writeTextOutcome(svg, await renderChartSvg(comparisonSpec(compared)));
    if (!written.ok) {
      writeStderr(
        `Cannot write "${svg}": ${written.reason}. Run "strata-bench report A B --svg", which may write into ` +
          "bench-results and --out DIR.\n",
      );
      return EXIT.environment;
    }
    writeStderr(`comparison picture written to ${svg}\n`);
  }
  const allComplete = inputs.every((i) => i.result.run.status === "complete");
  const code = environment ? EXIT.environment : refused.length === 0 && allComplete ? EXIT.ok : EXIT.resultNotOk;
  if (screen) printEnding(comparisonEnding(compared, refused.length, loaded.map((l) => l.dir), code));
  return code;
}

async function pullRequest(loaded: ReadResult): Promise<number> {
  if (loaded.kind !== "checked") return noResult(loaded);
  if (loaded.total > 0 || loaded.result === null) {
    printProblems(null, loaded.problems, loaded.total);
    writeStderr("Cannot suggest a pull request for an invalid result: fix the folder (or run again) first.\n");
    return EXIT.resultNotOk;
  }
  const result = loaded.result;
  const folderName = basename(loaded.dir.replace(/[\\/]+$/, ""));
  const readme = await folderReadme(loaded.dir, result);
  const body = prBody(result, { folderName, readme });
  writeStdout(`Title: ${prTitle(result)}\n\n${body}`);
  if (result.extensions?.["simulated_engine"] === true) {
    writeStderr("This result is a simulation: do not submit it.\n");
    return EXIT.resultNotOk;
  }
  if (readme === "missing") writeStderr("README.md is missing from the folder: restore it before you submit.\n");
  return result.run.status === "complete" ? EXIT.ok : EXIT.resultNotOk;
}

async function seal(dir: string, bundle: LoadedBundle): Promise<number> {
  const sealed = await sealFolder(dir, bundle);
  if (sealed.kind === "unreadable") {
    writeStderr(`${sealed.message}\n`);
    return EXIT.environment;
  }
  if (sealed.kind === "refused") {
    writeStderr(`Cannot seal "${dir}": nothing was changed, because:\n`);
    for (const reason of sealed.reasons) writeStderr(`  ${reason}\n`);
    writeStderr(
      "A seal accepts redactions of evidence text only; restore what was changed (from your copy of the run) and " +
        "seal again.\n",
    );
    return EXIT.resultNotOk;
  }
  if (sealed.kind === "nothing") {
    writeStdout("nothing to seal: every artifact still matches its SHA-256, and the result validates\n");
    return EXIT.ok;
  }
  if (sealed.kind === "unwritable") {
    writeStderr(
      `Cannot write "${sealed.file}": ${sealed.reason}. Run "strata-bench report ${dir} --seal", which may write ` +
        "into bench-results and bench/results.\n",
    );
    return EXIT.environment;
  }
  const { outcome } = sealed;
  const rederived = describeRederived(outcome.rederived);
  if (rederived.length > 0) writeStdout("re-derived from the redacted evidence:\n");
  for (const line of rederived) writeStdout(`  ${line}\n`);
  for (const r of outcome.rehashed) {
    writeStdout(`re-hashed ${r.path} (${r.kind}): ${r.sha256_before} -> ${r.sha256_after}\n`);
  }
  const readme = {
    rendered: "README.md drawn again from the sealed result",
    edited: "README.md left as you corrected it: check that it holds none of the text you redacted elsewhere " +
      "(its evidence table still shows the hashes from before)",
    missing: "README.md is missing: restore it, or the folder has no report a reader can open",
    unchanged: "README.md unchanged",
  }[outcome.readme.kind];
  writeStdout(
    `sealed: results.json re-validated with ${outcome.rehashed.length} re-hashed artifact(s) and ` +
      `${outcome.rederived.length} re-derived text(s); ${readme}\n`,
  );
  return EXIT.ok;
}

/** Parses report's command line; `svgPath` is the new picture file --svg writes. @throws {UsageError}. */
export function parseCommandLine(argv: readonly string[], now = new Date()) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("--svg=") || (arg === "--svg" && /\.svg$/i.test(argv[i + 1] ?? ""))) {
      throw new UsageError(
        `Cannot run report: --svg takes no file now (got "${
          arg.startsWith("--svg=") ? arg.slice(6) : argv[i + 1]
        }"): ` +
          "the picture is written into a new file of the --out folder, whose name is printed (--svg --out DIR)",
      );
    }
  }
  const { positionals, values } = parseFlags("run report", argv, {
    format: { type: "string" },
    svg: { type: "boolean" },
    out: { type: "string" },
    pr: { type: "boolean" },
    seal: { type: "boolean" },
  }, { positionals: true });
  if (positionals.length === 0) throw new UsageError("Cannot run report: expected a result folder, got none");
  const format = values.format;
  if (format !== undefined && !(FORMATS as readonly unknown[]).includes(format)) {
    throw new UsageError(`Cannot use --format "${String(format)}": choose md, csv or json`);
  }
  const modes = [values.pr === true, values.seal === true, format !== undefined || values.svg === true];
  if (modes.filter(Boolean).length > 1) {
    throw new UsageError("Cannot run report: --pr, --seal and --format/--svg are separate uses; pass one of them");
  }
  if ((values.pr || values.seal) && positionals.length !== 1) {
    throw new UsageError(`Cannot run report --${values.pr ? "pr" : "seal"}: it takes one result folder`);
  }
  refuseInert("run report", [["--out", values.out !== undefined, values.svg !== true ? "without --svg" : null]]);
  const svgPath = values.svg === true
    ? `${outputStem(outFolderFlag("run report", values, "bench-results"), "comparison", now)}.svg`
    : null;
  return { positionals, values, svgPath };
}

/** Entry point of `report`. */
export async function main(argv: string[]): Promise<number> {
  if (namesSavedResults(argv)) return await reportSaved(argv);
  let positionals: string[];
  let values: Record<string, unknown>;
  let svgPath: string | null;
  try {
    ({ positionals, values, svgPath } = parseCommandLine(argv));
  } catch (error) {
    return endWith(error, (message) => `${message}\nRun "strata-bench report --help" for usage.`);
  }
  let bundle: LoadedBundle;
  try {
    bundle = await loadBundle();
  } catch (error) {
    const hint = error instanceof FixtureBundleError ? "" : " Restore fixtures/standard-v1 (git checkout) first.";
    return endWith(error, (message) => `Cannot validate without the fixture bundle: ${message}${hint}`, {
      otherwise: EXIT.environment,
    });
  }
  const dirs = positionals;
  if (values.seal === true) return await seal(dirs[0]!, bundle);
  const loaded: ReadResult[] = [];
  for (const dir of dirs) loaded.push(await readResultFolder(dir, bundle));
  if (values.pr === true) return await pullRequest(loaded[0]!);
  if (dirs.length === 1 && values.format === undefined && svgPath === null) {
    return await singleFolder(loaded[0]!);
  }
  return await comparison(loaded, (values.format as Format | undefined) ?? "md", svgPath);
}
