// @ts-check
/**
 * The protocol's status rules, read from the spec text ("Status", "How the runner reads the protocol", "Model
 * files", "Remote servers"), against the site's own rebuilt records and the folder's verified files:
 *
 * - nonconforming takes precedence for changed profile settings (sent or configured), a setting the server refused
 *   (HTTP 400/422), a resolved configuration (the engine's /slots reading) other than what was sent, a prompt length
 *   outside 2% of its target, unexpected user-payload cache reuse on a performance request, missing required
 *   identity (the engine and runner commits, every model file's SHA-256, the chat template, the corpus), a server
 *   that is not on loopback, and a simulated engine, as any file of the folder says it;
 * - partial: required work (warm-up, performance, sanity) was skipped or interrupted;
 * - complete: every required request was attempted and recorded, failures included.
 *
 * A stated status better than the one these rules give fails the check.
 */
import { isObject, show } from "./evidence.js";
import { isFullCommit } from "./manifest.js";
import { isSha256Hex } from "./sha256.js";

/** @typedef {import("./check_records.js").CheckedRequest} CheckedRequest */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */

/** Request body field -> the /slots params field that reports what the engine resolved it to. */
const RESOLVED_FIELDS = /** @type {const} */ ([
  ["temperature", "temperature"],
  ["top_p", "top_p"],
  ["top_k", "top_k"],
  ["min_p", "min_p"],
  ["presence_penalty", "presence_penalty"],
  ["repeat_penalty", "repeat_penalty"],
  ["seed", "seed"],
  ["max_tokens", "n_predict"],
]);

/** The words of a nonconformity that says a file of the folder marks the engine simulated. */
export const SIMULATED_WORDS = "says the engine was simulated";
/** The words of the problem a stated status better than the rules' gives (the status rules' own refusal). */
export const STATUS_RULES_WORDS = "the status rules give";

const RANK = /** @type {const} */ ({ complete: 0, partial: 1, nonconforming: 2 });

/**
 * The engine stores sampling values as 32-bit floats (0.95 reads back as 0.949999988...): equal within that.
 * @param {unknown} sent @param {unknown} resolved
 */
function resolvedEqual(sent, resolved) {
  if (typeof sent !== "number" || typeof resolved !== "number") return sent === resolved;
  return Math.abs(sent - resolved) <= 1e-6 * Math.max(1, Math.abs(sent));
}

/**
 * Where a parsed JSON file says its engine was simulated: a key named simulated or simulated_engine set to true,
 * at any depth (bounded). Returns the key path, or null.
 * @param {unknown} value @param {number} depth @returns {string | null}
 */
function simulatedMark(value, depth = 0) {
  if (depth > 8 || typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    // By index, not Object.keys: a result's arrays hold thousands of numbers, and an index is never the key sought.
    for (let i = 0; i < value.length; i++) {
      const deeper = typeof value[i] === "object" ? simulatedMark(value[i], depth + 1) : null;
      if (deeper !== null) return `/${i}${deeper}`;
    }
    return null;
  }
  // The path is written only for the key found: most of a result is walked and found clean.
  for (const key of Object.keys(value)) {
    const inner = /** @type {Record<string, unknown>} */ (value)[key];
    if ((key === "simulated" || key === "simulated_engine") && inner === true) return `/${key}`;
    const deeper = simulatedMark(inner, depth + 1);
    if (deeper !== null) return `/${key}${deeper}`;
  }
  return null;
}

/**
 * Missing required identity: the commits, the model files' hashes, the template, the corpus.
 * @param {Record<string, unknown>} result @param {KnownProtocol} protocol @param {string[]} out
 */
function identityGaps(result, protocol, out) {
  const software = isObject(result.software) ? result.software : {};
  if (!isFullCommit(software.strata_commit)) {
    out.push(`the engine commit (software.strata_commit) is ${show(software.strata_commit)}, not a full commit`);
  }
  if (!isFullCommit(software.runner_commit)) {
    out.push(`the runner commit (software.runner_commit) is ${show(software.runner_commit)}, not a full commit`);
  }
  const model = isObject(result.model) ? result.model : {};
  const files = Array.isArray(model.files) ? model.files : [];
  if (files.length === 0) out.push("model.files names no model file, so nothing identifies the weights");
  for (const file of files) {
    const sha = isObject(file) ? file.sha256 : undefined;
    if (!isSha256Hex(sha)) {
      out.push(`model file ${show(isObject(file) ? file.path : file)} has no SHA-256 (${show(sha)})`);
    }
  }
  const configuration = isObject(result.configuration) ? result.configuration : {};
  if (!isObject(configuration.template)) out.push("configuration.template is missing: the chat template is unknown");
  const protocolField = isObject(result.protocol) ? result.protocol : {};
  if (protocolField.corpus_sha256 !== protocol.corpusSha256) {
    out.push(`protocol.corpus_sha256 ${show(protocolField.corpus_sha256)} is not the protocol's frozen corpus`);
  }
}

/**
 * Requests the engine ran with other settings than they were sent (the line's /slots reading against its body).
 * @param {readonly CheckedRequest[]} checked @param {string[]} out
 */
function resolvedDifferences(checked, out) {
  for (const r of checked) {
    const body = r.rebuilt.body;
    const params = r.rebuilt.slotParams;
    if (body === null || params === null) continue;
    for (const [sent, resolved] of RESOLVED_FIELDS) {
      if (!(sent in body) || !(resolved in params)) continue;
      if (!resolvedEqual(body[sent], params[resolved])) {
        out.push(
          `${r.scheduled.id} was sent ${sent} ${show(body[sent])}, but the engine's /slots reading shows ${resolved} ` +
            `${show(params[resolved])}`,
        );
      }
    }
  }
}

/**
 * Per-request causes: a refused setting, cache reuse, prompt length, and the sent settings.
 * @param {readonly CheckedRequest[]} checked @param {KnownProtocol} protocol @param {Set<string>} reused
 * @param {string[]} out
 */
function requestCauses(checked, protocol, reused, out) {
  const workload = protocol.workload;
  for (const r of checked) {
    const id = r.scheduled.id;
    if (r.rebuilt.httpStatus === 400 || r.rebuilt.httpStatus === 422) {
      out.push(`${id} was refused by the server (HTTP ${r.rebuilt.httpStatus})`);
    }
    if (r.scheduled.phase === "performance" && reused.has(id)) {
      out.push(`${id} read its user payload from the cache (cached_tokens ${r.rebuilt.tokens.cached_tokens})`);
    }
    const target = workload.promptTargets[r.scheduled.case_id];
    const input = r.rebuilt.tokens.input_tokens;
    if (r.scheduled.phase === "performance" && target !== undefined && input !== null) {
      if (Math.abs(input - target) > workload.promptTolerance * target) {
        out.push(`${id} had ${input} input tokens, outside 2% of ${target}`);
      }
    }
    const body = r.rebuilt.body;
    if (body === null) continue;
    for (const [key, value] of Object.entries(workload.sampling)) {
      if (body[key] !== value) out.push(`${id} sent ${key} ${show(body[key])}, the profile requires ${show(value)}`);
    }
    const kwargs = isObject(body.chat_template_kwargs) ? body.chat_template_kwargs : {};
    for (const [key, value] of Object.entries(workload.chatTemplateKwargs)) {
      if (kwargs[key] !== value) out.push(`${id} sent chat_template_kwargs.${key} ${show(kwargs[key])}`);
    }
  }
}

/**
 * Every reason the rules make this run nonconforming.
 * @param {Record<string, unknown>} result @param {readonly CheckedRequest[]} checked @param {KnownProtocol} protocol
 * @param {Set<string>} reused @param {readonly { path: string, json: unknown }[]} files the folder's verified JSON files
 * @returns {string[]}
 */
function nonconformities(result, checked, protocol, reused, files) {
  /** @type {string[]} */
  const out = [];
  requestCauses(checked, protocol, reused, out);
  resolvedDifferences(checked, out);
  const configuration = isObject(result.configuration) ? result.configuration : {};
  const sampling = isObject(configuration.sampling) ? configuration.sampling : {};
  for (const [key, value] of Object.entries(protocol.workload.sampling)) {
    if (sampling[key] !== value) {
      out.push(`configuration.sampling.${key} is ${show(sampling[key])}, the profile requires ${show(value)}`);
    }
  }
  identityGaps(result, protocol, out);
  const extensions = isObject(result.extensions) ? result.extensions : {};
  if (extensions.server_loopback === false) out.push("the server was not on loopback (a remote measurement)");
  for (const file of [{ path: "results.json", json: result }, ...files]) {
    const mark = simulatedMark(file.json);
    if (mark !== null) out.push(`${file.path} ${SIMULATED_WORDS} (${mark} is true)`);
  }
  return out;
}

/**
 * Whether results.json or a JSON file of the folder says the engine was simulated (known even when the check fails).
 * @param {Record<string, unknown>} result @param {readonly { path: string, json: unknown }[]} files
 */
export function simulationMarked(result, files) {
  return [result, ...files.map((f) => f.json)].some((json) => simulatedMark(json) !== null);
}

/**
 * The status the rules give, and a problem when results.json states a better one (or an unknown one).
 * @param {Record<string, unknown>} result @param {readonly CheckedRequest[]} checked @param {KnownProtocol} protocol
 * @param {Set<string>} reused @param {readonly { path: string, json: unknown }[]} files @param {string[]} problems
 * @returns {string[]} the nonconformities the evidence shows
 */
export function checkStatus(result, checked, protocol, reused, files, problems) {
  const run = isObject(result.run) ? result.run : {};
  const status = run.status;
  const required = checked.filter((r) => r.scheduled.phase !== "concurrency");
  const skipped = required.filter((r) => r.rebuilt.status === "skipped").length;
  const cancelled = required.some((r) => r.rebuilt.errorKind === "cancelled");
  const reasons = nonconformities(result, checked, protocol, reused, files);
  const given = reasons.length > 0 ? "nonconforming" : skipped > 0 || cancelled ? "partial" : "complete";
  if (status !== "complete" && status !== "partial" && status !== "nonconforming") {
    problems.push(`run.status is ${show(status)}; expected complete, partial or nonconforming`);
    return reasons;
  }
  if (RANK[status] < RANK[given]) {
    const why = given === "partial"
      ? `${skipped} required request(s) were skipped${cancelled ? " or cancelled" : ""}`
      : `${reasons.slice(0, 3).join("; ")}${reasons.length > 3 ? ` and ${reasons.length - 3} more` : ""}`;
    problems.push(`run.status says ${status}, but ${STATUS_RULES_WORDS} ${given}: ${why}`);
  }
  if (status === "partial" && given === "complete") {
    problems.push(`run.status says partial, but ${STATUS_RULES_WORDS} complete: no required request was skipped`);
  }
  return reasons;
}
