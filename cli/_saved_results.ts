/**
 * Saved load and compare results after the fact: `report FILE.jsonl` (validate, print, write CSV, HTML and the
 * curve) and `compare --from` (the gate again, offline). Reading and checking are load/'s (saved/saved_results.ts);
 * this file parses, wires and prints.
 */
import { basename, join } from "node:path";
import { FolderFileError, lstatOutcome, writeNewTextOutcome, writeStderr, writeStdout } from "../runtime/mod.ts";
import { latencyCurveSpec, renderChartSvg } from "../report/mod.ts";
import {
  curvePoints,
  gateSaved,
  type PageContext,
  parseSavedResults,
  readSavedResults,
  recordedNoiseFloor,
  renderAggregate,
  renderCompare,
  renderCompareHtml,
  renderLoadHtml,
  renderLoadSummary,
  savedCsv,
  type SavedResults,
  SavedResultsRefusal,
} from "../load/mod.ts";
import { numberFlag, outFolderFlag, parseFlags, UsageError } from "./_args.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { versionText } from "./_version.ts";
import { printEnding } from "./_ending.ts";
import { compareEnding, savedEnding } from "./_load_ending.ts";

/**
 * The opening of a page written right after its run: the config line and summaries of the JSONL just written
 * (`text`, or the file at `path` read without its rows), the toolkit and today's date; undefined when the JSONL
 * cannot be read back (the page then opens without it).
 */
export async function livePageContext(source: { path: string } | { text: string }): Promise<PageContext | undefined> {
  try {
    const saved = "path" in source
      ? await readSavedResults(source.path, { rows: false })
      : parseSavedResults("the comparison's JSONL", new TextEncoder().encode(source.text));
    const toolkit = (await versionText()).trim();
    return { config: saved.config, summaries: saved.summaries, toolkit, date: new Date().toISOString() };
  } catch {
    return undefined;
  }
}

/** Whether `report`'s arguments name saved JSONL files rather than result folders. */
export function namesSavedResults(argv: readonly string[]): boolean {
  return argv.some((a) => !a.startsWith("-") && /\.jsonl$/i.test(a));
}

/** Reads a saved file, printing why it cannot be used; null then, with the exit code. */
async function readOrSay(path: string): Promise<SavedResults | number> {
  try {
    return await readSavedResults(path);
  } catch (error) {
    return endWith(error, (message) => {
      if (error instanceof SavedResultsRefusal) return [message, ...error.problems.map((p) => `  ${p}`)].join("\n");
      if (!(error instanceof FolderFileError)) return message;
      const why = error.code === "not_found" || error.code === "not_folder"
        ? "no such file; check the path"
        : error.code === "permission_denied"
        ? 'permission refused; run "strata-bench report FILE"'
        : message;
      return `Cannot read "${path}": ${why}`;
    });
  }
}

/** The date in a saved file's name ("2026-01-31-load-..."), which the command wrote. */
function dateOf(path: string): string | undefined {
  return /^(\d{4}-\d{2}-\d{2})-(?:load|compare)-/.exec(basename(path))?.[1];
}

async function write(path: string, text: string): Promise<boolean> {
  const written = await writeNewTextOutcome(path, text);
  if (!written.ok) {
    // A refused permission is the read-only task's (`deno task report`); any other refusal (a link) says itself.
    const why = written.kind === "permission"
      ? 'this command may only read; "strata-bench report FILE.jsonl" may write into bench-results and --out'
      : written.reason;
    writeStderr(`Cannot write "${path}": ${why}.\n`);
    return false;
  }
  writeStderr(`wrote ${path}\n`);
  return true;
}

const REPORT_FILES = [".csv", ".html", "-curve.svg"] as const;

/**
 * Where report writes: `<name>-report`, else `-report-2`, `-report-3`, ... the first whose files are all new, so
 * that it never replaces the page `load --html` wrote (`<name>.html`) nor an earlier report's files. Each file is
 * then created exclusively, so a name taken meanwhile is refused, not replaced.
 */
async function newStem(folder: string, name: string): Promise<string> {
  let stem = join(folder, `${name}-report`);
  for (let k = 2; k <= 100; k++) {
    const taken = await Promise.all(REPORT_FILES.map(async (end) => (await lstatOutcome(stem + end)).ok));
    if (!taken.includes(true)) break;
    stem = join(folder, `${name}-report-${k}`);
  }
  return stem;
}

/** `report FILE.jsonl [--out DIR]`: validate, print, and write CSV, the HTML page and the curve SVG. */
export async function reportSaved(argv: readonly string[]): Promise<number> {
  let files: string[], folder: string;
  try {
    const { positionals, values } = parseFlags("run report", argv, { out: { type: "string" } }, { positionals: true });
    if (positionals.length !== 1) {
      throw new UsageError("Cannot run report: it reads one saved .jsonl at a time (or result folders)");
    }
    files = positionals;
    folder = outFolderFlag("run report", values, "bench-results");
  } catch (error) {
    return endWith(error, (message) => `${message}\nRun "strata-bench report --help" for usage.`);
  }
  const saved = await readOrSay(files[0]!);
  if (typeof saved === "number") return saved;
  const date = dateOf(saved.path);
  const context = { config: saved.config, summaries: saved.summaries, ...(date !== undefined && { date }) };
  writeStdout(`${saved.kind} result ${saved.path}: valid (${saved.summaries.length} summaries)\n`);
  if (saved.interrupted !== null) {
    writeStdout(`INTERRUPTED by ${String(saved.interrupted.by)}: NOT A COMPLETE RESULT\n`);
  }
  let html: string;
  if (saved.kind === "load") {
    for (const run of saved.runs) writeStdout(renderLoadSummary(run.summary));
    if (saved.aggregate !== null) writeStdout(renderAggregate(saved.aggregate));
    html = await renderLoadHtml(
      saved.runs,
      `Load test of ${String((saved.config.urls as string[]).join(", "))}`,
      context,
    );
  } else {
    if (saved.verdict !== null) writeStdout(renderCompare(saved.verdict));
    else writeStdout("no gate verdict (the comparison was interrupted)\n");
    html = saved.verdict === null
      ? ""
      : await renderCompareHtml(saved.verdict, "Release gate: candidate against baseline", context);
  }
  const stem = await newStem(folder, basename(saved.path).replace(/\.jsonl$/i, ""));
  let ok = await write(`${stem}.csv`, savedCsv(saved.summaries));
  const page = html !== "" && await write(`${stem}.html`, html);
  ok = ok && (html === "" || page);
  const curve = latencyCurveSpec("Throughput against latency", curvePoints(saved.summaries));
  if (curve !== null) ok = await write(`${stem}-curve.svg`, await renderChartSvg(curve)) && ok;
  const complete = saved.interrupted === null && (saved.kind === "load" || saved.verdict?.pass === true);
  const code = !ok ? EXIT.environment : complete ? EXIT.ok : EXIT.resultNotOk;
  printEnding(savedEnding(saved, code, page ? `${stem}.html` : null));
  return code;
}

/**
 * `compare --from BASELINE.jsonl CANDIDATE.jsonl` (two saved load results) or `compare --from COMPARE.jsonl`:
 * the gate over saved results, with --tolerance, --max-error-rate-increase and --noise-floor-from.
 */
export async function compareFrom(argv: readonly string[]): Promise<number> {
  let paths: string[];
  let values: Record<string, unknown>;
  try {
    ({ positionals: paths, values } = parseFlags("compare", argv, {
      from: { type: "boolean" },
      tolerance: { type: "string" },
      "max-error-rate-increase": { type: "string" },
      "noise-floor-from": { type: "string" },
    }, { positionals: true }));
    if (paths.length < 1 || paths.length > 2) {
      throw new UsageError(
        "Cannot compare --from: pass BASELINE.jsonl CANDIDATE.jsonl (two saved load results) or one saved compare result",
      );
    }
  } catch (error) {
    return endWith(error, (message) => `${message}\nRun "strata-bench compare --help" for usage.`);
  }
  const sides: SavedResults[] = [];
  for (const path of paths) {
    const saved = await readOrSay(path);
    if (typeof saved === "number") return saved;
    sides.push(saved);
  }
  try {
    const tolerance = numberFlag("compare", values, "tolerance", { min: 0, max: 1 });
    const errors = numberFlag("compare", values, "max-error-rate-increase", { min: 0, max: 1 });
    const floorFrom = values["noise-floor-from"];
    const result = gateSaved(sides[0]!, sides[1] ?? null, {
      ...(tolerance !== undefined && { toleranceFraction: tolerance }),
      ...(errors !== undefined && { maxErrorRateIncrease: errors }),
      ...(typeof floorFrom === "string" &&
        { recordedNoiseFloor: recordedNoiseFloor(await readSavedResults(floorFrom, { rows: false })) }),
    });
    writeStdout(renderCompare(result));
    const code = result.pass ? EXIT.ok : EXIT.resultNotOk;
    printEnding({ ...compareEnding(result, null, code, null, "saved"), next: [] });
    return code;
  } catch (error) {
    return endWith(error, undefined, { otherwise: EXIT.environment });
  }
}
