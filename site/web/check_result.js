// @ts-check
/**
 * The site's independent check of one result: the bytes of results.json against the reviewed hash, every
 * artifact's bytes against its hash, and a recomputation of every derived number from the evidence. It runs in
 * the reader's browser before anything is shown, and as `site verify DIR` for maintainers.
 *
 * Outcome states: "verified" (every check passed: the numbers may be shown), "failed" (the evidence contradicts
 * results.json or its reviewed hash: no number may be shown), "unverifiable" (the result cannot be read as a
 * standard result this site knows: legacy or unknown format, unknown schema version or protocol id).
 */
import { checkRecords, evidenceLines, jsonLines } from "./check_records.js";
import { readLightLines } from "./light_evidence.js";
import { checkStatedListed } from "./stated.js";
import { checkCounts, checkQuality, checkRounds, checkSummaries, unexpectedReuse } from "./check_derived.js";
import { checkStatus, simulationMarked } from "./check_status.js";
import { activePicture, folderProblems, weightReason } from "./check_folder.js";
import { configProblems } from "./check_config.js";
import { plausibilityProblems, reviewProblems } from "./check_plausible.js";
import { changedAfterRun, measuredProblems } from "./check_measured.js";
import { decodeUtf8, isObject } from "./evidence.js";
import { isSha256Hex, sha256Hex } from "./sha256.js";
import { parseStrictJson } from "./strict_json.js";
import { resultFacts } from "./facts.js";

/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */
/** @typedef {import("./facts.js").ResultFacts} ResultFacts */

export const RESULT_FORMAT = "strata-standard-benchmark";
export const RESULT_SCHEMA_VERSION = 1;
const ARTIFACT_KINDS = /** @type {readonly string[]} */ (["config", "engine_log", "outputs", "provenance"]);
/** The top-level sections of a result (spec, "Result file"); any other key is not a result's. */
const RESULT_SECTIONS = /** @type {readonly string[]} */ ([
  "format",
  "schema_version",
  "protocol",
  "run",
  "hardware",
  "software",
  "model",
  "configuration",
  "request_counts",
  "requests",
  "summaries",
  "concurrency_rounds",
  "quality",
  "artifacts",
  "missing",
  "extensions",
]);
/** The most bytes of results.json read: a run writes well under 1 MiB (records, reasons, engine options). */
const MAX_RESULTS_BYTES = 16 * 1024 * 1024;
/** Reasons listed at most; a longer list ends with a count. */
const MAX_REASONS = 40;

/**
 * @typedef {{
 *   resultsBytes: Uint8Array | null,
 *   missingReason?: string,
 *   expected?: { resultsSha256: string, runId: string, protocolId: string, reviewedAt?: string } | null,
 *   readArtifact: (path: string) => Promise<Uint8Array | null>,
 *   listFolder?: () => Promise<readonly string[] | null>,
 *   protocols: readonly KnownProtocol[],
 *   readBundle: import("./light_evidence.js").BundleRead,
 * }} CheckInput
 */

/**
 * @typedef {{
 *   state: "verified" | "failed" | "unverifiable",
 *   reasons: string[],
 *   checks: string[],
 *   resultsSha256: string | null,
 *   protocol: { id: string, stage: string } | null,
 *   facts: ResultFacts | null,
 *   simulated?: boolean,
 * }} CheckOutcome
 */

/**
 * A path inside the report folder: relative, "/"-separated, no "." or ".." segment, no backslash or control text.
 * @param {unknown} path @returns {path is string}
 */
export function isSafeRelativePath(path) {
  if (typeof path !== "string" || path === "" || path.length > 512) return false;
  // deno-lint-ignore no-control-regex -- a path with control characters is refused
  if (path.startsWith("/") || path.includes("\\") || /[\u0000-\u001f\u007f]/.test(path) || /^[A-Za-z]:/.test(path)) {
    return false;
  }
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/**
 * @param {CheckOutcome["state"]} state @param {string[]} reasons @param {string[]} checks
 * @param {string | null} sha @param {CheckOutcome["protocol"]} protocol
 * @returns {CheckOutcome}
 */
function outcome(state, reasons, checks, sha, protocol) {
  const listed = reasons.length > MAX_REASONS
    ? [...reasons.slice(0, MAX_REASONS), `and ${reasons.length - MAX_REASONS} more differences`]
    : reasons;
  return { state, reasons: listed, checks, resultsSha256: sha, protocol, facts: null };
}

/**
 * What the evidence alone gives, before it is held against a manifest entry: the same for every entry that points
 * at the same files, so a page checks such files once. `ids` are results.json's own run and protocol ids, read once
 * the protocol is known (null before).
 * @typedef {{
 *   state: CheckOutcome["state"], problems: string[], checks: string[], resultsSha256: string | null,
 *   protocol: CheckOutcome["protocol"], facts: ResultFacts | null, ids: { runId: unknown, protocolId: unknown, startedAt?: unknown } | null,
 *   simulated?: boolean,
 * }} EvidenceOutcome
 */

/**
 * @param {EvidenceOutcome["state"]} state @param {string[]} problems @param {string[]} checks
 * @param {string | null} sha @param {EvidenceOutcome["protocol"]} protocol
 * @param {EvidenceOutcome["ids"]} [ids]
 * @returns {EvidenceOutcome}
 */
function evidence(state, problems, checks, sha, protocol, ids = null) {
  return { state, problems, checks, resultsSha256: sha, protocol, facts: null, ids };
}

/**
 * The format, schema version and protocol of a results.json text, or the unverifiable outcome that stops there.
 * @param {Uint8Array} bytes @param {string} sha @param {readonly KnownProtocol[]} protocols
 * @returns {{ result: Record<string, unknown>, protocol: KnownProtocol } | EvidenceOutcome}
 */
function readResult(bytes, sha, protocols) {
  const stop = (/** @type {string} */ reason) => evidence("unverifiable", [reason], [], sha, null);
  if (bytes.length > MAX_RESULTS_BYTES) {
    return evidence(
      "failed",
      [
        `results.json is ${bytes.length} bytes, more than the ${MAX_RESULTS_BYTES} a run writes (it holds records, ` +
        "never streamed text)",
      ],
      [],
      sha,
      null,
    );
  }
  const text = decodeUtf8(bytes);
  if (text === null) return stop("results.json is not UTF-8 text");
  const parsed = parseStrictJson(text, { integersAsWritten: true });
  if (!parsed.ok) return stop(`results.json is not strict JSON (${parsed.message} at ${parsed.offset})`);
  const result = parsed.value;
  if (!isObject(result)) return stop("results.json is not a JSON object");
  if (result.format !== RESULT_FORMAT) {
    return stop(
      `results.json has format ${
        JSON.stringify(result.format ?? null)
      }, not "${RESULT_FORMAT}": a legacy or other report is not a standard result`,
    );
  }
  if (result.schema_version !== RESULT_SCHEMA_VERSION) {
    return stop(
      `results.json has schema_version ${
        JSON.stringify(result.schema_version ?? null)
      }; this site reads only ${RESULT_SCHEMA_VERSION}`,
    );
  }
  const unknown = Object.keys(result).filter((key) => !RESULT_SECTIONS.includes(key));
  if (unknown.length > 0) {
    return evidence(
      "failed",
      [
        `results.json has top-level field(s) ${unknown.map((k) => JSON.stringify(k)).join(", ")} that no result has`,
      ],
      [],
      sha,
      null,
    );
  }
  const protocolField = isObject(result.protocol) ? result.protocol : {};
  const protocol = protocols.find((p) => p.id === protocolField.id);
  if (protocol === undefined) {
    return stop(
      `results.json has protocol id ${JSON.stringify(protocolField.id ?? null)}, which this site does not know`,
    );
  }
  return { result, protocol };
}

/**
 * Checks one result's evidence end to end, without a manifest entry (see `judgeAgainstEntry`). Never throws for
 * bad input; the outcome names every problem found.
 * @param {Omit<CheckInput, "expected">} input
 * @returns {Promise<EvidenceOutcome>}
 */
export async function checkEvidence(input) {
  if (input.resultsBytes === null) {
    return evidence("failed", [input.missingReason ?? "results.json is missing"], [], null, null);
  }
  const sha = await sha256Hex(input.resultsBytes);
  const read = readResult(input.resultsBytes, sha, input.protocols);
  if (!("result" in read)) {
    const changed = read.state === "unverifiable" ? await changedAfterRun(input.resultsBytes, input.readArtifact) : [];
    return changed.length === 0 ? read : evidence("failed", [...changed, ...read.problems], [], sha, null);
  }
  const { result, protocol } = read;
  const protocolField = isObject(result.protocol) ? result.protocol : {};
  const protocolLabel = { id: protocol.id, stage: protocol.stage };
  const run = isObject(result.run) ? result.run : {};
  const ids = { runId: run.id, protocolId: protocolField.id, startedAt: run.started_at };
  /** @type {string[]} */
  const checks = [
    `format ${RESULT_FORMAT} schema ${RESULT_SCHEMA_VERSION}, protocol ${protocol.id} (${protocol.stage})`,
  ];
  /** @type {string[]} */
  const problems = [];
  const corpus = JSON.stringify(protocolField.corpus_sha256);
  if (corpus !== JSON.stringify(protocol.corpusSha256)) {
    problems.push(`protocol.corpus_sha256 ${corpus} is not the frozen bundle of ${protocol.id}`);
  }
  if (protocolField.profile !== protocol.workload.profile) {
    problems.push(`protocol.profile ${JSON.stringify(protocolField.profile)} is not ${protocol.workload.profile}`);
  }
  const artifacts = await checkArtifacts(result, input.readArtifact, problems, checks);
  const files = input.listFolder === undefined ? null : await input.listFolder();
  if (files !== null) {
    const listed = Array.isArray(result.artifacts)
      ? result.artifacts.map((a) => (isObject(a) ? String(a.path) : ""))
      : [];
    const extra = await folderProblems(files, listed, input.readArtifact);
    problems.push(...extra);
    if (extra.length === 0) checks.push(`the folder holds only its listed files (${files.length})`);
  }
  const config = configProblems(result, artifacts.list, artifacts.json);
  problems.push(...config.problems);
  if (config.checked > 0 && config.problems.length === 0) {
    checks.push(`config.json agrees with results.json (${config.checked} facts: command, model, settings sent)`);
  }
  const outputsText = artifacts.outputs === null ? null : decodeUtf8(artifacts.outputs.bytes);
  // Read once: the measured digest and the recomputation share the lines.
  const outputLines = outputsText === null ? null : jsonLines(outputsText);
  const known = artifacts.outputs !== null && outputLines !== null
    ? { path: artifacts.outputs.path, lines: outputLines }
    : null;
  problems.push(...await measuredProblems(result, input.readArtifact, known));
  if (artifacts.outputs !== null && outputsText === null) problems.push("outputs.jsonl is not UTF-8 text");
  // Known even when the check fails: the review never approves a simulation, whatever else it finds.
  const simulated = simulationMarked(result, artifacts.json);
  if (outputLines === null) return { ...evidence("failed", problems, checks, sha, protocolLabel, ids), simulated };
  const lines = await readLightLines(outputLines, input.readBundle, protocol.corpusSha256, problems, checks);
  const facts = recompute(result, protocol, lines, artifacts, problems, checks);
  if (problems.length > 0) return { ...evidence("failed", problems, checks, sha, protocolLabel, ids), simulated };
  return { ...evidence("verified", [], checks, sha, protocolLabel, ids), facts, simulated };
}

/**
 * Every number rebuilt from the evidence lines and compared with results.json (records, counts, quality,
 * summaries, rounds, status); the facts a page shows, or null when a problem was found.
 * @param {Record<string, unknown>} result @param {KnownProtocol} protocol
 * @param {import("./check_records.js").EvidenceLine[]} outputLines
 * @param {{ list: ResultFacts["artifacts"], json: { path: string, json: unknown }[] }} artifacts
 * @param {string[]} problems @param {string[]} checks
 * @returns {ResultFacts | null}
 */
function recompute(result, protocol, outputLines, artifacts, problems, checks) {
  const list = artifacts.list;
  const run = isObject(result.run) ? result.run : {};
  const optional = run.optional_concurrency === true;
  if (typeof run.optional_concurrency !== "boolean") problems.push("run.optional_concurrency is not a boolean");
  const schedule = protocol.workload.schedule(optional);
  const lines = evidenceLines(outputLines, problems);
  problems.push(...plausibilityProblems(result, lines, Date.now()));
  const checked = checkRecords(result.requests, result.extensions, schedule, lines, problems);
  const stated = checked.filter((c) => c.stated.length > 0).map((c) => ({ id: c.scheduled.id, pointers: c.stated }));
  checkStatedListed(result.extensions, stated, problems);
  const counts = checkCounts(result.request_counts, checked, problems);
  const quality = checkQuality(result.quality, checked, problems);
  const reused = unexpectedReuse(checked, protocol);
  const summaries = checkSummaries(result.summaries, checked, optional, reused, problems);
  const rounds = checkRounds(result.concurrency_rounds, checked, optional, problems);
  const nonconformities = checkStatus(result, checked, protocol, reused, artifacts.json, problems);
  if (problems.length > 0) return null;
  checks.push(
    `${checked.length} of ${schedule.length} request records equal their evidence lines (status, counts, timings, rates, reasoning cadence, each case's pooled ITL), all plausible`,
  );
  checks.push(
    `request counts per phase equal the records (${counts.performance?.attempted ?? 0} performance attempted)`,
  );
  if (stated.length > 0) {
    checks.push(
      `${stated.reduce((n, s) => n + s.pointers.length, 0)} record values of ${stated.length} requests stated by ` +
        "the runner, not recomputed (redaction changed the text they were computed from; results.json lists " +
        `each): ${stated.map((s) => `${s.id} ${s.pointers.join(", ")}`).join("; ")}`,
    );
  }
  const statedVerdicts =
    checked.filter((c) => c.stated.some((p) => p === "" || p === "/evaluation" || p.startsWith("/evaluation/"))).length;
  checks.push(
    statedVerdicts === 0
      ? `sanity ${quality.passed}/12 recomputed from the saved outputs equals quality`
      : `sanity ${quality.passed}/12 equals quality: ${12 - statedVerdicts} verdicts recomputed from the saved ` +
        `outputs, ${statedVerdicts} stated by the runner`,
  );
  checks.push(`${summaries.length} summaries recomputed (median, min, max, n, included and excluded ids)`);
  if (optional) checks.push(`${rounds.length} concurrency rounds recomputed`);
  checks.push(`run.status ${String(run.status)} is consistent with the evidence`);
  return resultFacts({
    result,
    protocol,
    checked,
    counts,
    quality,
    summaries,
    rounds,
    nonconformities,
    artifacts: list,
  });
}

/**
 * The evidence's outcome held against the manifest entry that reviewed it: results.json's SHA-256 must be the
 * reviewed hash, and its run and protocol ids the entry's. Without an entry (`site verify DIR`) it says so.
 * @param {EvidenceOutcome} found @param {CheckInput["expected"]} expected
 * @returns {CheckOutcome}
 */
export function judgeAgainstEntry(found, expected) {
  const sha = found.resultsSha256;
  if (sha === null) return outcome(found.state, found.problems, found.checks, null, found.protocol);
  if (expected === null || expected === undefined) {
    const checks = [`results.json SHA-256 ${sha} (no manifest entry to compare with)`, ...found.checks];
    if (found.state !== "verified") return outcome(found.state, found.problems, checks, sha, found.protocol);
    return { state: "verified", reasons: [], checks, resultsSha256: sha, protocol: found.protocol, facts: found.facts };
  }
  if (sha !== expected.resultsSha256) {
    const reason =
      `results.json has SHA-256 ${sha}, but the reviewed hash in the manifest is ${expected.resultsSha256}`;
    return outcome("failed", [reason], [], sha, null);
  }
  const checks = [`results.json SHA-256 ${sha} equals the manifest's reviewed hash`, ...found.checks];
  /** @type {string[]} */
  const idProblems = [];
  if (found.ids !== null) {
    if (found.ids.runId !== expected.runId) {
      idProblems.push(
        `run.id is ${JSON.stringify(found.ids.runId)}, the manifest entry says ${JSON.stringify(expected.runId)}`,
      );
    }
    idProblems.push(...reviewProblems(expected.reviewedAt, found.ids.startedAt, Date.now()));
    if (found.ids.protocolId !== expected.protocolId) {
      idProblems.push(
        `protocol.id is ${JSON.stringify(found.ids.protocolId)}, the manifest entry says ${
          JSON.stringify(expected.protocolId)
        }`,
      );
    }
  }
  if (found.state === "verified" && idProblems.length === 0) {
    return { state: "verified", reasons: [], checks, resultsSha256: sha, protocol: found.protocol, facts: found.facts };
  }
  const state = idProblems.length > 0 ? "failed" : found.state;
  return outcome(state, [...idProblems, ...found.problems], checks, sha, found.protocol);
}

/**
 * Checks one result end to end, against its manifest entry when `expected` is given. Never throws for bad input;
 * the outcome names every reason found.
 * @param {CheckInput} input
 * @returns {Promise<CheckOutcome>}
 */
export async function checkResult(input) {
  const found = await checkEvidence(input);
  return { ...judgeAgainstEntry(found, input.expected ?? null), simulated: found.simulated === true };
}

/**
 * Every artifact: a known kind, a safe path, a lowercase hash, and bytes with that hash. The template named by
 * the configuration must be one of them. Returns the bytes of the single outputs artifact (null when unusable).
 * @param {Record<string, unknown>} result
 * @param {CheckInput["readArtifact"]} read
 * @param {string[]} problems @param {string[]} checks
 */
async function checkArtifacts(result, read, problems, checks) {
  /** @type {{ kind: string, path: string, sha256: string, size: number }[]} */
  const list = [];
  /** @type {{ path: string, json: unknown }[]} */
  const json = [];
  /** @type {{ path: string, bytes: Uint8Array } | null} */
  let outputs = null;
  if (!Array.isArray(result.artifacts)) {
    problems.push("results.json /artifacts is not an array");
    return { outputs, list, json };
  }
  const seen = new Set();
  let outputsCount = 0;
  for (const [index, artifact] of result.artifacts.entries()) {
    if (!isObject(artifact)) {
      problems.push(`/artifacts/${index} is not an object`);
      continue;
    }
    const { kind, path, sha256 } = artifact;
    if (typeof kind !== "string" || !ARTIFACT_KINDS.includes(kind)) {
      problems.push(`/artifacts/${index}: unknown kind ${JSON.stringify(kind)}`);
    }
    if (!isSafeRelativePath(path)) {
      problems.push(
        `/artifacts/${index}: path ${JSON.stringify(path)} is not a relative path inside the report folder`,
      );
      continue;
    }
    if (!isSha256Hex(sha256)) {
      problems.push(`artifact ${path}: sha256 is not a lowercase SHA-256`);
      continue;
    }
    if (seen.has(path)) problems.push(`artifact ${path} is listed twice`);
    seen.add(path);
    const bytes = await read(path);
    if (bytes === null) {
      problems.push(`artifact ${path} is missing from the evidence`);
      continue;
    }
    const actual = await sha256Hex(bytes);
    if (actual !== sha256) {
      problems.push(`artifact ${path} has SHA-256 ${actual}, but results.json records ${sha256}: its bytes changed`);
      continue;
    }
    const weight = weightReason(path, bytes);
    if (weight !== null) problems.push(`artifact ${weight}`);
    const active = activePicture(path, bytes);
    if (active !== null) problems.push(active);
    list.push({ kind: String(kind), path, sha256, size: bytes.length });
    const text = path.endsWith(".json") ? decodeUtf8(bytes) : null;
    const parsed = text === null ? null : parseStrictJson(text);
    if (parsed !== null && parsed.ok) json.push({ path, json: parsed.value });
    if (kind === "outputs") {
      outputsCount++;
      outputs = { path, bytes };
    }
  }
  if (outputsCount !== 1) {
    problems.push(`results.json lists ${outputsCount} verified outputs artifacts; the recomputation needs exactly one`);
    outputs = null;
  }
  const configuration = isObject(result.configuration) ? result.configuration : {};
  const template = configuration.template;
  if (isObject(template) && !list.some((a) => a.path === template.path && a.sha256 === template.sha256)) {
    problems.push(`configuration.template ${JSON.stringify(template.path)} is not one of the verified artifacts`);
  }
  if (problems.length === 0) {
    checks.push(`${list.length} artifacts match their SHA-256 (${list.map((a) => a.path).join(", ")})`);
  }
  return { outputs, list, json };
}
