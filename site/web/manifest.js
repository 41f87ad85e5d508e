// @ts-check
/**
 * The approved manifest, bench/approved.json: format "strata-approved-benchmarks", schema_version 1, and an
 * entries array, one entry per maintainer-reviewed result (spec, "Future approved manifest"). This module checks
 * the file's shape and each entry's fields; whether the files at evidence_commit match is checked by whoever can
 * read the repository (`approved verify`, `site build`) and, for the bytes, by the browser.
 *
 * A malformed entry does not spoil the others: each entry gets its own list of problems.
 */
import { isObject } from "./evidence.js";
import { parseStrictJson } from "./strict_json.js";
import { isSha256Hex } from "./sha256.js";

const MANIFEST_FORMAT = "strata-approved-benchmarks";
const MANIFEST_SCHEMA_VERSION = 1;
export const MANIFEST_PATH = "bench/approved.json";
const VERIFICATION_LEVELS = /** @type {readonly string[]} */ (["evidence-reviewed", "independently-reproduced"]);
const ENTRY_FIELDS = /** @type {const} */ ([
  "run_id",
  "protocol_id",
  "results_path",
  "results_sha256",
  "evidence_commit",
  "review_pr",
  "reviewed_by",
  "reviewed_at",
  "verification",
  "reproduction_run_ids",
]);

/**
 * An entry replaced after a new review (`approved add --replace`) stays, marked with the entry that superseded it:
 * the same run id, the new results' hash and its review ("preserve old records or mark their replacement").
 * @typedef {{ results_sha256: string, review_pr: string, reviewed_at: string }} Supersession
 */

/**
 * @typedef {{ run_id: string, protocol_id: string, results_path: string, results_sha256: string,
 *   evidence_commit: string, review_pr: string, reviewed_by: string, reviewed_at: string,
 *   verification: string, reproduction_run_ids: string[], superseded_by?: Supersession,
 *   submitted_by?: string }} ManifestEntry
 */

/**
 * A result withdrawn from the list: it leaves `entries`, and the top-level `withdrawn` array keeps its run id, the
 * hash that was approved, the reason and the review that withdrew it (git history keeps the entry itself).
 * @typedef {{ run_id: string, results_sha256: string, reason: string, review_pr: string, withdrawn_at: string }}
 *   WithdrawnEntry
 */
const WITHDRAWN_FIELDS = /** @type {const} */ (["run_id", "results_sha256", "reason", "review_pr", "withdrawn_at"]);

/**
 * One entry as read: its fields when well-formed (`entry`), else null; `problems` names what is wrong.
 * `label` names the entry in messages (its run_id when it has one, else its position).
 * @typedef {{ index: number, label: string, entry: ManifestEntry | null, raw: unknown, problems: string[] }}
 *   ReadEntry
 */

/**
 * @typedef {{ ok: true, entries: ReadEntry[], withdrawn: WithdrawnEntry[] } | { ok: false, problem: string }}
 *   ReadManifest
 */

/** A full Git object id: 40 hex digits (SHA-1) or 64 (SHA-256 repositories), lowercase. @param {unknown} value */
export function isFullCommit(value) {
  return typeof value === "string" && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}

/** UTC ISO 8601 with seconds and a Z: 2026-05-01T12:00:00Z or with milliseconds. @param {unknown} value */
export function isUtcTimestamp(value) {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/.test(value)) return false;
  const time = Date.parse(value);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 19) === value.slice(0, 19);
}

/** A GitHub handle: 1-39 letters, digits or single inner hyphens. @param {unknown} value */
export function isHandle(value) {
  return typeof value === "string" && /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(value);
}

/** An https URL of a review (a pull request page). @param {unknown} value */
export function isReviewUrl(value) {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname !== "" && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

/**
 * A results path as the manifest holds it: repository-relative, "/"-separated, no "." or ".." segments, ending
 * in /results.json.
 * @param {unknown} value
 */
export function isResultsPath(value) {
  // deno-lint-ignore no-control-regex -- a path with control characters is refused
  if (typeof value !== "string" || value.startsWith("/") || value.includes("\\") || /[\u0000-\u001f]/.test(value)) {
    return false;
  }
  const segments = value.split("/");
  return segments.length >= 2 && segments.at(-1) === "results.json" &&
    segments.every((s) => s !== "" && s !== "." && s !== "..");
}

/**
 * Checks one entry's own fields (not its references to other entries).
 * @param {unknown} raw @param {number} index @returns {ReadEntry}
 */
function readEntry(raw, index) {
  /** @type {string[]} */
  const problems = [];
  if (!isObject(raw)) return { index, label: `entry ${index}`, entry: null, raw, problems: ["is not a JSON object"] };
  const label = typeof raw.run_id === "string" && raw.run_id !== "" ? raw.run_id : `entry ${index}`;
  for (const key of Object.keys(raw)) {
    const optional = key === "superseded_by" || key === "submitted_by";
    if (!ENTRY_FIELDS.includes(/** @type {typeof ENTRY_FIELDS[number]} */ (key)) && !optional) {
      problems.push(`${key}: unknown field`);
    }
  }
  if (Object.hasOwn(raw, "superseded_by")) {
    const by = raw.superseded_by;
    const fine = isObject(by) && Object.keys(by).length === 3 && isSha256Hex(by.results_sha256) &&
      isReviewUrl(by.review_pr) && isUtcTimestamp(by.reviewed_at);
    if (!fine) problems.push("superseded_by: expected { results_sha256, review_pr, reviewed_at } of the new review");
  }
  // Who submitted the run (the pull request's author): optional, but a reproduction needs it on both entries.
  if (Object.hasOwn(raw, "submitted_by") && !isHandle(raw.submitted_by)) {
    problems.push(`submitted_by: expected a GitHub handle, found ${JSON.stringify(raw.submitted_by)?.slice(0, 80)}`);
  }
  for (const key of ENTRY_FIELDS) if (!Object.hasOwn(raw, key)) problems.push(`${key}: missing`);
  /** @type {[string, (v: unknown) => boolean, string][]} */
  const rules = [
    ["run_id", (v) => typeof v === "string" && v !== "" && v.length <= 200, "a nonempty run id"],
    ["protocol_id", (v) => typeof v === "string" && v !== "", "a protocol id"],
    ["results_path", isResultsPath, "a repository-relative path ending in /results.json"],
    ["results_sha256", isSha256Hex, "a lowercase 64-digit SHA-256"],
    ["evidence_commit", isFullCommit, "a full commit id (40 or 64 lowercase hex digits)"],
    ["review_pr", isReviewUrl, "an https URL of the review pull request"],
    ["reviewed_by", isHandle, "a GitHub handle"],
    ["reviewed_at", isUtcTimestamp, "a UTC ISO 8601 time such as 2026-05-01T12:00:00Z"],
    ["verification", (v) => typeof v === "string" && VERIFICATION_LEVELS.includes(v), VERIFICATION_LEVELS.join(" or ")],
    [
      "reproduction_run_ids",
      (v) => Array.isArray(v) && v.every((id) => typeof id === "string" && id !== "") && new Set(v).size === v.length,
      "an array of distinct run ids",
    ],
  ];
  for (const [key, valid, expected] of rules) {
    if (Object.hasOwn(raw, key) && !valid(raw[key])) {
      problems.push(`${key}: expected ${expected}, found ${JSON.stringify(raw[key])?.slice(0, 80)}`);
    }
  }
  if (problems.length === 0) {
    const entry = /** @type {ManifestEntry} */ (/** @type {unknown} */ (raw));
    if (entry.verification === "evidence-reviewed" && entry.reproduction_run_ids.length > 0) {
      problems.push("reproduction_run_ids: must be empty for evidence-reviewed (use independently-reproduced)");
    }
    if (entry.verification === "independently-reproduced" && entry.reproduction_run_ids.length === 0) {
      problems.push("verification: independently-reproduced needs the reproduction run ids");
    }
    if (entry.reproduction_run_ids.includes(entry.run_id)) {
      problems.push("reproduction_run_ids: an entry cannot reproduce itself");
    }
  }
  return { index, label, entry: problems.length === 0 ? /** @type {ManifestEntry} */ (raw) : null, raw, problems };
}

/**
 * Reads the manifest text: the file's own shape (a problem there fails the whole file), then every entry, then the
 * rules across entries (unique run ids, reproductions that are themselves entries).
 * @param {string} text
 * @returns {ReadManifest}
 */
export function readManifest(text) {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return { ok: false, problem: `not strict JSON (${parsed.message} at offset ${parsed.offset})` };
  const file = parsed.value;
  if (!isObject(file)) return { ok: false, problem: "not a JSON object" };
  if (file.format !== MANIFEST_FORMAT) {
    return { ok: false, problem: `format is ${JSON.stringify(file.format ?? null)}, not "${MANIFEST_FORMAT}"` };
  }
  if (file.schema_version !== MANIFEST_SCHEMA_VERSION) {
    return {
      ok: false,
      problem: `schema_version ${
        JSON.stringify(file.schema_version ?? null)
      } is unknown; this tool reads ${MANIFEST_SCHEMA_VERSION}`,
    };
  }
  const unknown = Object.keys(file).filter((k) => !["format", "schema_version", "entries", "withdrawn"].includes(k));
  if (unknown.length > 0) return { ok: false, problem: `unknown top-level field(s) ${unknown.join(", ")}` };
  if (!Array.isArray(file.entries)) return { ok: false, problem: "entries is not an array" };
  const withdrawn = readWithdrawn(file.withdrawn);
  if (typeof withdrawn === "string") return { ok: false, problem: withdrawn };
  const entries = file.entries.map(readEntry);
  /** @type {Map<string, number>} */
  const runIds = new Map();
  /** @type {Map<string, string>} run id -> the results hash of its current (not superseded) entry */
  const current = new Map();
  for (const read of entries) {
    const raw = isObject(read.raw) ? read.raw : {};
    if (typeof raw.run_id !== "string" || Object.hasOwn(raw, "superseded_by")) continue;
    runIds.set(raw.run_id, (runIds.get(raw.run_id) ?? 0) + 1);
    current.set(raw.run_id, String(raw.results_sha256));
  }
  for (const read of entries) {
    const raw = isObject(read.raw) ? read.raw : {};
    const id = raw.run_id;
    if (typeof id === "string" && (runIds.get(id) ?? 0) > 1) read.problems.push(`run_id: ${id} appears more than once`);
    const by = isObject(raw.superseded_by) ? raw.superseded_by : null;
    if (by !== null && typeof id === "string" && current.get(id) !== by.results_sha256) {
      read.problems.push(`superseded_by: no current entry of ${id} has results_sha256 ${String(by.results_sha256)}`);
    }
    if (typeof id === "string" && by === null && withdrawn.some((w) => w.run_id === id)) {
      read.problems.push(`run_id: ${id} is listed as withdrawn`);
    }
    for (const other of read.entry?.reproduction_run_ids ?? []) {
      if (!runIds.has(other)) read.problems.push(`reproduction_run_ids: ${other} is not an entry of this manifest`);
    }
    if (read.problems.length > 0) read.entry = null;
  }
  return { ok: true, entries, withdrawn };
}

/**
 * The top-level `withdrawn` list (absent: empty), or the problem that fails the file.
 * @param {unknown} raw @returns {WithdrawnEntry[] | string}
 */
function readWithdrawn(raw) {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return "withdrawn is not an array";
  for (const [i, w] of raw.entries()) {
    const fine = isObject(w) && Object.keys(w).length === WITHDRAWN_FIELDS.length &&
      typeof w.run_id === "string" && w.run_id !== "" && isSha256Hex(w.results_sha256) &&
      typeof w.reason === "string" && w.reason.trim() !== "" && w.reason.length <= 2000 && isReviewUrl(w.review_pr) &&
      isUtcTimestamp(w.withdrawn_at);
    if (!fine) return `withdrawn[${i}]: expected { ${WITHDRAWN_FIELDS.join(", ")} } with a reason and an https review`;
  }
  return /** @type {WithdrawnEntry[]} */ (raw);
}

/**
 * Serializes a manifest the way `approved add` writes it: two-space indentation and a final newline.
 * @param {readonly ManifestEntry[]} entries @param {readonly WithdrawnEntry[]} [withdrawn]
 */
export function manifestText(entries, withdrawn = []) {
  const ordered = entries.map((e) => ({
    ...Object.fromEntries(ENTRY_FIELDS.map((key) => [key, e[key]])),
    ...(e.submitted_by === undefined ? {} : { submitted_by: e.submitted_by }),
    ...(e.superseded_by === undefined ? {} : { superseded_by: e.superseded_by }),
  }));
  const file = { format: MANIFEST_FORMAT, schema_version: MANIFEST_SCHEMA_VERSION, entries: ordered };
  return `${JSON.stringify(withdrawn.length === 0 ? file : { ...file, withdrawn }, null, 2)}\n`;
}
