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
import { jsonLines } from "./check_records.js";
import { decodeUtf8, isObject } from "./evidence.js";
import { sha256HexOfText } from "./sha256.js";
import { parseStrictJson } from "./strict_json.js";

const METHOD = "strata-bench measured projection 2";
const TEXT = "<text>";
const HASH = "<hash>";
const UNRECORDED = ["measured_digest", "readme_sha256", "sealed"];

/** @typedef {import("./check_records.js").EvidenceLine} EvidenceLine */

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

/**
 * The patterns as a tree of path segments ("*" matches any key or index); `end` marks a redactable path.
 * @typedef {{ next: Map<string, PathTree>, end: boolean }} PathTree
 */

/** @param {readonly string[][]} patterns @returns {PathTree[]} */
function treeOf(patterns) {
  /** @type {PathTree} */
  const root = { next: new Map(), end: false };
  for (const pattern of patterns) {
    let node = root;
    for (const segment of pattern) {
      let child = node.next.get(segment);
      if (child === undefined) node.next.set(segment, child = { next: new Map(), end: false });
      node = child;
    }
    node.end = true;
  }
  return [root];
}

/** @type {PathTree[]} */
const NOWHERE = [];
const RESULT_TREE = treeOf(RESULT_TEXT);
const LINE_TREE = treeOf(LINE_TEXT);

/** The tree nodes a path reaches one key further. @param {PathTree[]} nodes @param {string} key */
function below(nodes, key) {
  if (nodes.length === 0) return NOWHERE;
  /** @type {PathTree[]} */
  const out = [];
  for (const node of nodes) {
    const named = node.next.get(key);
    if (named !== undefined) out.push(named);
    const any = key === "*" ? undefined : node.next.get("*");
    if (any !== undefined) out.push(any);
  }
  return out;
}

/**
 * The projected value written as compact JSON: object keys sorted, every string at a redactable path replaced by
 * "<text>". Written directly, with no projected copy (the same text as stringifying one, own keys only: a
 * "__proto__" key is a key like any other, as in the runner's Deno).
 * @param {unknown} value @param {PathTree[]} nodes @returns {string}
 */
function projected(value, nodes) {
  if (typeof value === "string") return nodes.some((n) => n.end) ? TEXT_JSON : JSON.stringify(value);
  if (Array.isArray(value)) {
    // Nothing redactable below and no object inside (the stamps' arrays of numbers): the platform writes it.
    if (nodes.length === 0 && value.every((item) => item === null || typeof item !== "object")) {
      return JSON.stringify(value);
    }
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + projected(value[i], below(nodes, String(i)));
    return `${out}]`;
  }
  if (!isObject(value)) return JSON.stringify(value);
  let out = "{";
  let first = true;
  for (const key of Object.keys(value).sort()) {
    out += `${first ? "" : ","}${JSON.stringify(key)}:${projected(value[key], below(nodes, key))}`;
    first = false;
  }
  return `${out}}`;
}

const TEXT_JSON = JSON.stringify(TEXT);

const digestOf = sha256HexOfText;

/** @param {string} key @param {unknown} value */
function section(key, value) {
  if (key === "extensions" && isObject(value)) {
    value = Object.fromEntries(Object.entries(value).filter(([k]) => !UNRECORDED.includes(k)));
  }
  if (key === "artifacts" && Array.isArray(value)) value = value.map((a) => (isObject(a) ? { ...a, sha256: HASH } : a));
  return digestOf(projected(value, below(RESULT_TREE, key)));
}

/**
 * One evidence line's digest, from the value the check already read as strict JSON; a line that is not strict JSON
 * is read by the platform's parser, and hashed as written when that fails too.
 * @param {EvidenceLine} line
 */
function lineDigest(line) {
  if (line.parsed !== null && line.parsed.ok) return digestOf(projected(line.parsed.value, LINE_TREE));
  try {
    return digestOf(projected(JSON.parse(line.text), LINE_TREE));
  } catch {
    return digestOf(line.text);
  }
}

/**
 * Every measured section or evidence line that differs from the digest the run recorded; empty when the result
 * records none (or one of another method) or only redactable text changed.
 * `known`: the evidence lines the check already read, and their path (read again only for another path).
 * @param {Record<string, unknown>} result @param {(path: string) => Promise<Uint8Array | null>} read
 * @param {{ path: string, lines: EvidenceLine[] } | null} [known]
 * @returns {Promise<string[]>}
 */
export async function measuredProblems(result, read, known = null) {
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
  let texts = known !== null && known.path === path ? known.lines : null;
  if (texts === null) {
    const bytes = await read(path);
    const text = bytes === null ? null : decodeUtf8(bytes);
    if (text === null) return [...problems, changed(`${JSON.stringify(path)} is not in the evidence`)];
    texts = jsonLines(text);
  }
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
