/**
 * `report`'s use case: read one result folder and validate it strictly. Every file is read through runtime's
 * SafeFolder (each path component checked with lstat, no link followed, regular files only) under
 * result_reader.ts's caps; a folder without results.json is told apart as an interrupted run or no result; a
 * results.json of another format or schema version is refused before the validator reads it as if it were one.
 */
import { join } from "node:path";
import { errorMessage, FolderFileError, openSafeFolder, type SafeFolder } from "../runtime/mod.ts";
import type { LoadedBundle } from "../fixtures/mod.ts";
import { type Fixture, type Result, RESULT_FILES, RESULT_FORMAT, SCHEMA_VERSION } from "../contract/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import type { ArtifactReader } from "./checks/_artifacts.ts";
import type { Problem } from "./_pointer.ts";
import { isJsonObject } from "./_contract_check.ts";
import { artifactReaderOf, capOf, interruptedEvidence } from "./result_reader.ts";
import { parseResultText, type ValidateOptions, validateResultCounted } from "./validate.ts";
import { type ReadmeState, readmeState } from "./submission.ts";

const { results: RESULTS, outputs: OUTPUTS } = RESULT_FILES;

/** One folder, read and validated. */
export type ReadResult =
  | { kind: "unreadable"; dir: string; message: string }
  | { kind: "interrupted"; dir: string; message: string }
  | {
    kind: "checked";
    dir: string;
    text: string;
    /** The first problems (a bounded number) and the count of all of them. */
    problems: Problem[];
    total: number;
    result: Result | null;
  };

/** Why a folder or its results.json cannot be read (permission, no such folder), with a hint a person can act on. */
export function unreadableMessage(dir: string, error: unknown): string {
  const file = join(dir, RESULTS);
  if (!(error instanceof FolderFileError)) return `Cannot read "${file}": ${errorMessage(error)}`;
  if (error.code === "permission_denied") {
    return `Cannot read "${error.path === "." ? dir : file}": permission refused. Run "strata-bench report DIR" ` +
      "as a user who may read it.";
  }
  if (error.path === "." && error.code === "not_folder") {
    return `Cannot read a result from "${dir}": it is not a folder; pass the result folder that holds ${RESULTS}.`;
  }
  if (error.path === "." && error.code === "not_found") {
    return `Cannot read a result from "${dir}": no such folder. Check the path.`;
  }
  return `Cannot read "${file}": ${error.message}`;
}

/** The folder's files through runtime's SafeFolder and report/'s size caps, opened on first use; null for an absent file. */
export function folderArtifactReader(dir: string): ArtifactReader {
  let folder: Promise<SafeFolder> | null = null;
  return async (relativePath) => {
    folder ??= openSafeFolder(dir);
    return await artifactReaderOf(await folder)(relativePath);
  };
}

/** What the validator is given for a folder: the bundle's facts and the folder's files. */
export function validationOptions(
  bundle: { fixtures: readonly Fixture[]; corpusSha256: string },
  readArtifact: ArtifactReader,
  folderFiles?: readonly string[],
): ValidateOptions {
  return {
    ...(folderFiles === undefined ? {} : { folderFiles }),
    maxSharedPrefixTokens: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens])),
    readArtifact,
    corpusSha256: bundle.corpusSha256,
    fixtures: bundle.fixtures,
  };
}

/** A folder without results.json: an interrupted run when it holds a run's evidence, else not a result folder. */
async function withoutResults(dir: string, folder: SafeFolder): Promise<ReadResult> {
  let bytes: Uint8Array | null = null;
  try {
    bytes = await folder.read(OUTPUTS, capOf(OUTPUTS));
  } catch (error) {
    if (!(error instanceof FolderFileError) || error.code !== "not_found") {
      return {
        kind: "interrupted",
        dir,
        message: `"${dir}" has no ${RESULTS}, and its ${OUTPUTS} cannot be read: ${errorMessage(error)}`,
      };
    }
  }
  if (bytes === null) {
    return {
      kind: "unreadable",
      dir,
      message: `Cannot read "${join(dir, RESULTS)}": the folder has no ${RESULTS}; pass the folder a run ` +
        "wrote (bench-results/<UTC-date>-standard-<gpu>-<run-id>).",
    };
  }
  const held = interruptedEvidence(bytes);
  const cut = held.lastLineCut ? "; its last line is cut off (the process died while writing it)" : "";
  const unreadable = held.unreadableLines > 0 ? `; ${held.unreadableLines} line(s) are not a request's evidence` : "";
  return {
    kind: "interrupted",
    dir,
    message: `"${dir}" is an interrupted run: it has no ${RESULTS} (the run was stopped before it wrote its ` +
      `result). Its ${OUTPUTS} holds the evidence of ${held.requests} request(s), ${held.sent} of them ` +
      `sent${unreadable}${cut}. It is not a result; run the protocol again for one.`,
  };
}

/** "another format": a results.json whose format or schema_version is not the one this tool reads, said first. */
function formatProblem(value: unknown): Problem | null {
  if (!isJsonObject(value)) return { pointer: "", message: "not a result: results.json must be one JSON object" };
  const { format, schema_version: version } = value;
  if (format === RESULT_FORMAT && version === SCHEMA_VERSION) return null;
  const shown = (name: string, v: unknown) => (v === undefined ? `no ${name}` : `${name} ${JSON.stringify(v)}`);
  const what = format === undefined && version === undefined
    ? "results.json has no format and no schema_version (a legacy community report, or no result)"
    : `${shown("format", format)} ${shown("schema_version", version)}`;
  return {
    pointer: format === RESULT_FORMAT ? "/schema_version" : "/format",
    message: `${what}: not a result this strata-bench reads (${RESULT_FORMAT} schema version ${SCHEMA_VERSION}); ` +
      "results of other formats or versions are never read as if they were",
  };
}

/**
 * The text of results.json read safely (UTF-8, under its cap), or why it cannot be read: `absent` when the folder
 * has none, `unreadable` when the folder or the file cannot be opened, `invalid` for content that is the problem.
 */
export async function readResultsText(dir: string): Promise<
  | { kind: "text"; text: string; folder: SafeFolder }
  | { kind: "absent"; folder: SafeFolder; message: string }
  | { kind: "unreadable"; message: string }
  | { kind: "invalid"; message: string }
> {
  let folder: SafeFolder;
  try {
    folder = await openSafeFolder(dir);
  } catch (error) {
    return { kind: "unreadable", message: unreadableMessage(dir, error) };
  }
  let bytes: Uint8Array;
  try {
    bytes = await folder.read(RESULTS, capOf(RESULTS));
  } catch (error) {
    if (error instanceof FolderFileError && error.code === "not_found") {
      return { kind: "absent", folder, message: unreadableMessage(dir, error) };
    }
    // Refused permission, or a FIFO, device, socket or folder where the file should be: results.json cannot be read.
    if (error instanceof FolderFileError && ["permission_denied", "not_regular", "other"].includes(error.code)) {
      return { kind: "unreadable", message: unreadableMessage(dir, error) };
    }
    // A link (refused, never followed) or a file over its cap: the folder's content is the problem.
    return { kind: "invalid", message: errorMessage(error) };
  }
  try {
    return { kind: "text", text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), folder };
  } catch {
    return { kind: "invalid", message: "not UTF-8 text: results.json must be UTF-8 JSON" };
  }
}

/** Reads `dir` and validates its results.json strictly against the contract, the bundle and the folder's files. */
export async function readResultFolder(
  dir: string,
  bundle: Pick<LoadedBundle, "fixtures" | "corpusSha256">,
): Promise<ReadResult> {
  const checked = (problem: Problem, text = ""): ReadResult => ({
    kind: "checked",
    dir,
    text,
    problems: [problem],
    total: 1,
    result: null,
  });
  const read = await readResultsText(dir);
  if (read.kind === "unreadable") return { kind: "unreadable", dir, message: read.message };
  if (read.kind === "absent") return await withoutResults(dir, read.folder);
  if (read.kind === "invalid") return checked({ pointer: "", message: read.message });
  const { text } = read;
  // Parsed once (strictly, with the value cap): the format check, the validator and the summary read one value.
  const parsed = parseResultText(text);
  if (!parsed.ok) {
    return checked({ pointer: "", message: `not strict JSON: ${parsed.reason} (at character ${parsed.offset})` });
  }
  const wrongFormat = formatProblem(parsed.value);
  if (wrongFormat !== null) return checked(wrongFormat, text);
  const reader: ArtifactReader = (path) => artifactReaderOf(read.folder)(path);
  const names = await read.folder.list().then((entries) =>
    entries.map((e) => (e.kind === "folder" ? `${e.name}/` : e.name))
  );
  const { problems, total } = await validateResultCounted(parsed.value, validationOptions(bundle, reader, names));
  return { kind: "checked", dir, text, problems, total, result: parsed.value as Result };
}

/** README.md of the folder against the hash the run recorded (submission.ts's readmeState). */
export async function folderReadme(dir: string, result: Result): Promise<ReadmeState> {
  return readmeState(result, await folderArtifactReader(dir)(RESULT_FILES.readme).catch(() => null));
}

/**
 * The ids of the requests the client sent once more on a fresh connection (its pooled connection closed before
 * any byte of the answer), from a valid result's outputs.jsonl; [] when the evidence cannot be read.
 */
export async function resentRequests(dir: string, result: Result): Promise<string[]> {
  const path = result.artifacts.find((a) => a.kind === "outputs")?.path;
  const bytes = path === undefined ? null : await folderArtifactReader(dir)(path).catch(() => null);
  if (bytes === null) return [];
  const ids: string[] = [];
  for (const piece of new TextDecoder().decode(bytes).split("\n")) {
    const parsed = piece === "" ? null : parseStrictJsonPlain(piece);
    if (parsed?.ok && isJsonObject(parsed.value) && parsed.value["resent_on_fresh_connection"] === true) {
      ids.push(String(parsed.value["request_id"]));
    }
  }
  return ids;
}
