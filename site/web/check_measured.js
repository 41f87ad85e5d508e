// @ts-check
/**
 * The measured digest, recomputed in the browser: a run records in `extensions.measured_digest` SHA-256
 * fingerprints of everything it measured or identified (method "strata-bench measured projection 2": per top-level
 * section of results.json, and per line of its outputs evidence), with the text a person may redact blanked out.
 * Written from the method's definition in the result's documentation, not from the runner's code:
 *
 * - a value is projected with its object keys sorted and every redactable string replaced by "<text>", then
 *   written as compact JSON and hashed;
 * - redactable in results.json: run.command, hardware.background_workloads[*], configuration.track_notes, every
 *   missing[*] reason, requests[*].error.message, requests[*].evaluation.reason, summaries[*].excluded[*].reason,
 *   and the explanations and quotes of extensions (the keys below); extensions leaves out the digest itself, the
 *   README hash and the seal; each artifact's sha256 reads "<hash>";
 * - redactable in an evidence line: reasoning_text, error.message, skip_reason; a line that is not JSON is hashed
 *   as written.
 *
 * An edit after the run that changed a measured value shows here even when every file hash was updated with it.
 */
import { decodeUtf8, isObject } from "./evidence.js";
import { sha256Hex } from "./sha256.js";
import { parseStrictJson } from "./strict_json.js";

const METHOD = "strata-bench measured projection 2";
const TEXT = "<text>";
const HASH = "<hash>";
const UNRECORDED = ["measured_digest", "readme_sha256", "sealed"];

const RESULT_TEXT = [
  "run.command",
  "hardware.background_workloads.*",
  "configuration.track_notes",
  "missing.*",
  "requests.*.error.message",
  "requests.*.evaluation.reason",
  "summaries.*.excluded.*.reason",
  ...[
    "dialect_evidence",
    "reasoning_budget_why",
    "server_endpoint_problems.*",
    "server_prior_requests.evidence.*",
    "server_prior_requests.reason",
    "model_hashing.cache_problem",
    "engine_load.reason",
    "nonconforming_reasons.*",
    "status_reasons.*",
    "stop_reason",
    "health_checks.*.message",
    "pictures_problem",
  ].map((p) => `extensions.${p}`),
].map((p) => p.split("."));
const LINE_TEXT = ["reasoning_text", "error.message", "skip_reason"].map((p) => p.split("."));

/** @param {readonly string[]} path @param {readonly string[][]} patterns */
function redactable(path, patterns) {
  return patterns.some((p) => p.length === path.length && p.every((s, i) => s === "*" || s === path[i]));
}

/** @param {unknown} value @param {string[]} path @param {readonly string[][]} patterns @returns {unknown} */
function project(value, path, patterns) {
  if (typeof value === "string") return redactable(path, patterns) ? TEXT : value;
  if (Array.isArray(value)) return value.map((item, i) => project(item, [...path, String(i)], patterns));
  if (!isObject(value)) return value;
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const key of Object.keys(value).sort()) out[key] = project(value[key], [...path, key], patterns);
  return out;
}

/** @param {unknown} value */
const digestOf = (value) => sha256Hex(new TextEncoder().encode(JSON.stringify(value)));

/** @param {string} key @param {unknown} value */
function section(key, value) {
  if (key === "extensions" && isObject(value)) {
    value = Object.fromEntries(Object.entries(value).filter(([k]) => !UNRECORDED.includes(k)));
  }
  if (key === "artifacts" && Array.isArray(value)) value = value.map((a) => (isObject(a) ? { ...a, sha256: HASH } : a));
  return digestOf(project(value, [key], RESULT_TEXT));
}

/**
 * One evidence line's digest. The check reads every line as strict JSON and fails the result on one that is not, so
 * the platform's JSON parser gives the same value here for every line that matters, faster.
 * @param {string} line
 */
function lineDigest(line) {
  try {
    return digestOf(project(JSON.parse(line), [], LINE_TEXT));
  } catch {
    return sha256Hex(new TextEncoder().encode(line));
  }
}

/**
 * Every measured section or evidence line that differs from the digest the run recorded; empty when the result
 * records none (or one of another method) or only redactable text changed.
 * @param {Record<string, unknown>} result @param {(path: string) => Promise<Uint8Array | null>} read
 * @returns {Promise<string[]>}
 */
export async function measuredProblems(result, read) {
  const recorded = isObject(result.extensions) ? result.extensions.measured_digest : null;
  if (!isObject(recorded) || recorded.method !== METHOD) return [];
  const sections = isObject(recorded.results) ? recorded.results : {};
  const outputs = isObject(recorded.outputs) ? recorded.outputs : {};
  const lines = Array.isArray(outputs.lines) ? outputs.lines : [];
  const changed = (/** @type {string} */ what) => `changed after the run (the measured digest): ${what}`;
  /** @type {string[]} */
  const problems = [];
  const keys = [...new Set([...Object.keys(sections), ...Object.keys(result)])];
  const now = await Promise.all(keys.map((key) => Object.hasOwn(result, key) ? section(key, result[key]) : null));
  keys.forEach((key, i) => {
    if (now[i] === null) problems.push(changed(`results.json lost the section "${key}"`));
    else if (sections[key] !== now[i]) problems.push(changed(`results.json "${key}" differs in a measured value`));
  });
  const path = typeof outputs.path === "string" ? outputs.path : "";
  const bytes = await read(path);
  const text = bytes === null ? null : decodeUtf8(bytes);
  if (text === null) return [...problems, changed(`${JSON.stringify(path)} is not in the evidence`)];
  const texts = text.split("\n");
  if (texts.at(-1) === "") texts.pop();
  if (texts.length !== lines.length) {
    problems.push(changed(`${path} has ${texts.length} lines; the run wrote ${lines.length}`));
  }
  const digests = await Promise.all(texts.map(lineDigest));
  digests.forEach((digest, i) => {
    if (i < lines.length && lines[i] !== digest) {
      problems.push(changed(`${path} line ${i + 1} differs in a measured value`));
    }
  });
  return problems;
}

/**
 * The measured digest's problems of a results.json text that the check reads no further (a schema or protocol this
 * site does not know): a result that changed after the run fails, whatever else it is.
 * @param {Uint8Array} bytes @param {(path: string) => Promise<Uint8Array | null>} read
 * @returns {Promise<string[]>}
 */
export async function changedAfterRun(bytes, read) {
  const text = decodeUtf8(bytes);
  if (text === null) return [];
  const parsed = parseStrictJson(text, { integersAsWritten: true });
  return parsed.ok && isObject(parsed.value) ? await measuredProblems(parsed.value, read) : [];
}
