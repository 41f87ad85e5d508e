/**
 * The strict result validator: takes a results.json (text or parsed value) and returns every problem at once, each
 * with a JSON Pointer. It checks the contract's JSON Schema (contract/result.ts, published as `result.schema.json`), every null
 * explained in `missing`, the request schedule, status consistency, count identities, the derived parts rebuilt
 * from the request records with score/'s functions, the run status, the artifacts' bytes, and the outputs evidence
 * (every request record rebuilt from its outputs.jsonl line, stage durations and round wall times from the lines'
 * dispatch stamps and end offsets).
 *
 * Decisions where the contract leaves room:
 * - `missing`: every null outside /missing and /extensions (engine option objects included) needs an entry, and
 *   every entry must resolve to a null; an entry that points at a value or at nothing is stale and a problem.
 * - Git commits are 40 or 64 lowercase hex characters; artifact and model file paths are relative, without a
 *   leading / or ~, drive letter, backslash, control character or `..` segment.
 * - An "outputs" artifact is required; the configuration template must be attached as an artifact.
 * - A run that is not "nonconforming" must use the profile's sampling values, must have no performance request
 *   with unexpected cache reuse and no listed extensions.nonconforming_reasons, and must have the status its
 *   records give (partial when required work was skipped).
 * - Derived parts are rebuilt only from structurally valid records; the first differing pointer is reported.
 * - Pictures: drawn again from results.json and compared byte for byte under the renderer the run recorded.
 * - Evidence: the first "outputs" artifact is the evidence; every field of a record that differs from the record
 *   rebuilt from its line is reported (not only the first). Without `fixtures` the records are not rebuilt, but
 *   the lines, their order and the durations still are checked.
 */
import { type Artifact, type Fixture, type Result, RESULT_SCHEMA, scheduleIds } from "../contract/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import {
  type ArtifactReader,
  checkArtifactBytes,
  checkArtifactList,
  checkFolderFiles,
  checkSeals,
} from "./checks/_artifacts.ts";
import {
  checkCountIdentities,
  checkCountsMatchRecords,
  checkQuality,
  checkRounds,
  checkRunStatus,
  checkSummaries,
} from "./checks/_derived.ts";
import { checkConfigAgrees } from "./checks/_config.ts";
import { checkPlausibleResult } from "./checks/_plausible.ts";
import { checkMissing } from "./checks/_missing.ts";
import { checkEvidence } from "./checks/_evidence.ts";
import { checkPictures } from "./checks/_pictures.ts";
import {
  type CheckedRecord,
  checkEvaluations,
  checkRequestIds,
  checkScheduledFacts,
  checkStatuses,
} from "./checks/_requests.ts";
import { childPointer, type Problem, ProblemCollector, type ProblemSink } from "./_pointer.ts";
import { checkSchema, isJsonObject, type SchemaNode } from "./_contract_check.ts";
import { DIGEST_KEYS, measuredChanges, recordedDigest, utf8OrNull } from "./measured.ts";
import { errorMessage } from "../runtime/mod.ts";

export type { Problem } from "./_pointer.ts";

/** The contract's schema as plain JSON, the way result.schema.json publishes it. */
const CONTRACT_SCHEMA: SchemaNode = JSON.parse(JSON.stringify(RESULT_SCHEMA));

/** Facts the validator needs besides the result. */
export interface ValidateOptions {
  /** max_shared_prefix_tokens of every request ID of the fixture bundle (unexpected-reuse rule). */
  maxSharedPrefixTokens: Readonly<Record<string, number>>;
  /**
   * Reads a file of the result folder by relative path (null when absent); without it artifact bytes are not checked.
   * With it the pictures are drawn again from results.json and their bytes compared (under the renderer the run
   * recorded; see checks/_pictures.ts).
   */
  readArtifact?: ArtifactReader;
  /** corpus_sha256 of the fixture bundle the facts came from; when given, protocol.corpus_sha256 must equal it. */
  corpusSha256?: string;
  /**
   * Fixtures of the bundle; with `readArtifact`, every request record is rebuilt from its outputs.jsonl line and
   * compared field by field. Without them only the evidence's lines, order and durations are checked.
   */
  fixtures?: readonly Fixture[];
  /**
   * With `readArtifact`, the names of the files in the result folder (a subfolder as "name/"): any file that is not
   * a listed artifact, results.json or README.md is a problem, a model weight file (by name or bytes) above all.
   */
  folderFiles?: readonly string[];
}

function checkOptions(options: ValidateOptions): void {
  for (const id of scheduleIds(true)) {
    const value = options.maxSharedPrefixTokens[id];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw new TypeError(
        `Cannot validate a result: maxSharedPrefixTokens has no token count for "${id}"; ` +
          "pass the max_shared_prefix_tokens of every fixture in the bundle",
      );
    }
    if (options.fixtures && !options.fixtures.some((fixture) => fixture.id === id)) {
      throw new TypeError(
        `Cannot validate a result: fixtures has no fixture "${id}"; pass every fixture of the bundle`,
      );
    }
  }
}

/** `read` that reads each path once (the artifact hash and the evidence check share the bytes). */
function readOnce(read: ArtifactReader): ArtifactReader {
  const cache = new Map<string, Promise<Uint8Array | null>>();
  return (relativePath) => {
    let bytes = cache.get(relativePath);
    if (bytes === undefined) {
      bytes = read(relativePath);
      cache.set(relativePath, bytes);
    }
    return bytes;
  };
}

/** Runs one rebuild-and-compare check; a score function that throws on odd input becomes a problem, not a crash. */
function guarded(pointer: string, problems: ProblemSink, check: () => void): void {
  try {
    check();
  } catch (error) {
    const detail = errorMessage(error);
    problems.push({ pointer, message: `cannot be rebuilt from the request records: ${detail}` });
  }
}

/**
 * Most JSON values a results.json may hold. A real result holds a few thousand (34 records, 20 summaries, the
 * missing map, engine options; a model split into 9,999 shards adds 30,000); past this the text is not parsed,
 * so a hostile file cannot make the parse allocate more than a bounded amount.
 */
export const MAX_RESULT_VALUES = 200_000;

/** Problems a validation keeps (and `report` prints); the rest are counted. */
export const MAX_KEPT_PROBLEMS = 500;

/**
 * The most records of each top-level array that are checked one by one. The protocol fixes how many a result
 * has (22 or 34 requests, 20 summaries, 3 rounds); a longer array is one problem, and only its first items are
 * checked, so a hostile file of a million records is rejected in time and memory proportional to the contract.
 */
const ARRAY_LIMITS: Readonly<Record<string, number>> = {
  requests: 34,
  summaries: 20,
  concurrency_rounds: 3,
  artifacts: 1000,
};

/** Every problem found (at most MAX_KEPT_PROBLEMS of them) and how many there were in all. */
export interface ValidationReport {
  problems: Problem[];
  total: number;
}

/**
 * Parses results.json text strictly (duplicate keys, depth, lexical numbers; see score/'s strict JSON) and
 * validates it. A text that is not strict JSON gives one problem at the root pointer "".
 * @throws {TypeError} when `options.maxSharedPrefixTokens` lacks a scheduled request ID.
 */
export async function validateResultText(text: string, options: ValidateOptions): Promise<Problem[]> {
  return withTrailer(await validateResultTextCounted(text, options));
}

/** results.json text parsed strictly, with the value cap (MAX_RESULT_VALUES). */
export function parseResultText(text: string): ReturnType<typeof parseStrictJsonPlain> {
  return parseStrictJsonPlain(text, { maxValues: MAX_RESULT_VALUES, integersAsWritten: true });
}

/** validateResultText with the count of every problem; the list holds at most MAX_KEPT_PROBLEMS. */
export async function validateResultTextCounted(text: string, options: ValidateOptions): Promise<ValidationReport> {
  checkOptions(options);
  const parsed = parseResultText(text);
  if (!parsed.ok) {
    const problem = { pointer: "", message: `not strict JSON: ${parsed.reason} (at character ${parsed.offset})` };
    return { problems: [problem], total: 1 };
  }
  return await validateResultCounted(parsed.value, options);
}

/**
 * Validates a parsed results.json and returns every problem found (empty when valid), in discovery order; past
 * MAX_KEPT_PROBLEMS the last entry says how many more there were.
 * @throws {TypeError} when `options.maxSharedPrefixTokens` lacks a scheduled request ID.
 */
export async function validateResult(value: unknown, options: ValidateOptions): Promise<Problem[]> {
  return withTrailer(await validateResultCounted(value, options));
}

function withTrailer(report: ValidationReport): Problem[] {
  const more = report.total - report.problems.length;
  if (more <= 0) return report.problems;
  return [...report.problems, { pointer: "", message: `... and ${more} more problem(s) not listed` }];
}

/** A shallow copy of the result with each over-long top-level array cut to its limit (one problem each). */
function bounded(value: Record<string, unknown>, problems: ProblemSink): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const [key, limit] of Object.entries(ARRAY_LIMITS)) {
    const items = value[key];
    if (!Array.isArray(items) || items.length <= limit) continue;
    problems.push({
      pointer: `/${key}`,
      message: `${items.length} items, more than the ${limit} a result can have; only the first ${limit} are checked`,
    });
    copy ??= { ...value };
    copy[key] = items.slice(0, limit);
  }
  return copy ?? value;
}

/** validateResult with the count of every problem. */
export async function validateResultCounted(input: unknown, options: ValidateOptions): Promise<ValidationReport> {
  checkOptions(options);
  const problems = new ProblemCollector(MAX_KEPT_PROBLEMS);
  const report = () => ({ problems: problems.kept, total: problems.total });
  if (!isJsonObject(input)) {
    checkSchema(input, CONTRACT_SCHEMA, "", problems);
    return report();
  }
  const value = bounded(input, problems);
  problems.tracking = true;
  checkSchema(value, CONTRACT_SCHEMA, "", problems);
  problems.tracking = false;
  // A part is sound when the shape check found nothing at or under it.
  const sound = (...pointers: string[]) => pointers.every((pointer) => problems.clean(pointer));
  const result = value as unknown as Result;

  if (isJsonObject(value["missing"])) checkMissing(value, value["missing"], problems);

  const optionalKnown = typeof value["run"] === "object" && sound("/run/optional_concurrency");
  const optional = optionalKnown && result.run.optional_concurrency;
  // Each record's id where it is a string, and the records whose own shape is sound.
  const requests: unknown[] = Array.isArray(value["requests"]) ? value["requests"] : [];
  const ids = requests.map((r) => (isJsonObject(r) && typeof r["id"] === "string" ? r["id"] : null));
  const checked: CheckedRecord[] = [];
  requests.forEach((record, index) => {
    if (sound(childPointer("/requests", index))) checked.push({ index, record: record as Result["requests"][0] });
  });
  if (Array.isArray(value["requests"])) {
    if (optionalKnown) checkRequestIds(ids, optional, problems);
    checkScheduledFacts(checked, problems);
    checkStatuses(checked, problems);
    checkEvaluations(checked, problems);
  }
  if (optionalKnown && sound("/request_counts")) checkCountIdentities(result.request_counts, optional, problems);

  if (sound("/requests", "/run/optional_concurrency")) {
    const facts = options.maxSharedPrefixTokens;
    if (sound("/request_counts")) guarded("/request_counts", problems, () => checkCountsMatchRecords(result, problems));
    if (sound("/summaries")) guarded("/summaries", problems, () => checkSummaries(result, facts, problems));
    if (sound("/concurrency_rounds")) guarded("/concurrency_rounds", problems, () => checkRounds(result, problems));
    if (sound("/quality")) guarded("/quality", problems, () => checkQuality(result, problems));
    if (sound("/configuration", "/extensions", "/run/status", "/run/optional_duration_s")) {
      guarded("/run/status", problems, () => checkRunStatus(result, facts, problems));
    }
  }

  guarded("/requests", problems, () => checkPlausibleResult(value, Date.now(), problems));

  if (options.corpusSha256 !== undefined && sound("/protocol/corpus_sha256")) {
    if (result.protocol.corpus_sha256 !== options.corpusSha256) {
      problems.push({
        pointer: "/protocol/corpus_sha256",
        message: `differs from the fixture bundle this check uses (${options.corpusSha256}): the run sent other ` +
          "fixtures, or this strata-bench is a different version",
      });
    }
  }
  if (sound("/artifacts")) {
    checkArtifactList(result.artifacts, sound("/configuration") ? result.configuration.template : null, problems);
    checkSeals(value, result.artifacts, problems);
  }
  await checkArtifactFiles(value, result, { ids, records: checked }, options, sound, problems);
  return report();
}

/** With a reader, the artifacts' bytes: hashes, the folder's other files, pictures, outputs.jsonl, measured digest. */
async function checkArtifactFiles(
  value: Record<string, unknown>,
  result: Result,
  evidence: Parameters<typeof checkOutputsEvidence>[3],
  options: ValidateOptions,
  sound: (...pointers: string[]) => boolean,
  problems: ProblemCollector,
): Promise<void> {
  if (!options.readArtifact || !Array.isArray(value["artifacts"])) return;
  const read = readOnce(options.readArtifact);
  const readable: { index: number; artifact: Artifact }[] = [];
  (value["artifacts"] as unknown[]).forEach((artifact, index) => {
    if (sound(childPointer("/artifacts", index))) readable.push({ index, artifact: artifact as Artifact });
  });
  await checkArtifactBytes(readable, read, problems);
  if (options.folderFiles !== undefined) {
    await checkFolderFiles(readable.map((r) => r.artifact), options.folderFiles, read, problems);
  }
  const drawnFrom = ["/run", "/protocol", "/configuration", "/summaries", "/concurrency_rounds", "/requests"];
  if (sound(...drawnFrom, "/extensions", "/artifacts")) {
    await checkPictures(result, readable, read, problems);
  }
  for (const { artifact } of readable.filter(({ artifact }) => artifact.kind === "config")) {
    const bytes = await read(artifact.path).catch(() => null);
    if (bytes !== null) checkConfigAgrees(bytes, artifact.path, value, problems);
  }
  const outputs = readable.find(({ artifact }) => artifact.kind === "outputs");
  if (outputs && Array.isArray(value["requests"])) {
    // Unreadable or absent bytes were reported by the hash check.
    const bytes = await read(outputs.artifact.path).catch(() => null);
    if (bytes !== null) {
      checkOutputsEvidence(value, result, { ...outputs, bytes }, evidence, options, sound, problems);
    }
  }
  await checkMeasuredDigest(value, read, problems);
}

/**
 * The measured digest the run recorded (when it recorded one) against the folder as it is now: an edit after the
 * run that changed a measured value is a problem; a redaction of evidence text is not (see measured.ts).
 */
async function checkMeasuredDigest(value: Record<string, unknown>, read: ArtifactReader, problems: ProblemSink) {
  const recorded = recordedDigest(value);
  if (recorded === null) return;
  const text = utf8OrNull(await read(recorded.outputs.path).catch(() => null));
  for (const change of measuredChanges(recorded, value, text)) {
    problems.push({
      pointer: `/extensions/${DIGEST_KEYS.digest}`,
      message: `changed after the run: ${change}`,
    });
  }
}

/** The evidence check on the sound parts of the result. */
function checkOutputsEvidence(
  value: Record<string, unknown>,
  result: Result,
  evidence: { index: number; artifact: Artifact; bytes: Uint8Array },
  { ids, records }: { ids: (string | null)[]; records: CheckedRecord[] },
  options: ValidateOptions,
  sound: (...pointers: string[]) => boolean,
  problems: ProblemSink,
): void {
  const runSound = isJsonObject(value["run"]) &&
    sound("/run/required_duration_s", "/run/optional_duration_s", "/run/optional_concurrency");
  checkEvidence({
    evidence,
    ids,
    records,
    fixtures: options.fixtures ? new Map(options.fixtures.map((fixture) => [fixture.id, fixture])) : null,
    run: runSound
      ? {
        requiredDurationS: result.run.required_duration_s,
        optionalDurationS: result.run.optional_duration_s,
        optionalConcurrency: result.run.optional_concurrency,
      }
      : null,
    rounds: Array.isArray(value["concurrency_rounds"]) && sound("/concurrency_rounds")
      ? result.concurrency_rounds
      : null,
    recordOverrides: isJsonObject(value["extensions"]) ? value["extensions"]["record_overrides"] : undefined,
    resolvedConfiguration: isJsonObject(value["extensions"])
      ? value["extensions"]["resolved_configuration"]
      : undefined,
    status: isJsonObject(value["run"]) && sound("/run/status") ? result.run.status : null,
    roundQueueing: isJsonObject(value["extensions"]) ? value["extensions"]["round_queueing"] : undefined,
    reasoningCadence: isJsonObject(value["extensions"]) ? value["extensions"]["reasoning_cadence"] : undefined,
    reasoningItl: isJsonObject(value["extensions"]) ? value["extensions"]["reasoning_itl"] : undefined,
    serverCapacity: isJsonObject(value["configuration"]) && sound("/configuration/server_capacity")
      ? result.configuration.server_capacity
      : undefined,
    startedAt: isJsonObject(value["run"]) && sound("/run/started_at") ? result.run.started_at : null,
  }, problems);
}
