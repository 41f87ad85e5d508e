/**
 * The measured digest: SHA-256 fingerprints, taken when the run writes its folder, of everything a result measured
 * or identified, with the free text a person may redact blanked out. `report` recomputes them to tell a pure
 * redaction (evidence text replaced by hand before publishing) from an edit that changed a count, a timing, a
 * status, an identity, a configuration fact or an answer a verdict reads; `report --seal` re-hashes the artifacts
 * only when they agree.
 *
 * It is a checksum a result writes about itself: it catches accidental edits and an edit that forgot it, not a
 * forger, who can compute it again. Maintainer review and the website's recomputation are the checks of that.
 *
 * What may change (replaced by a placeholder before hashing), and nothing else:
 * - results.json, text a person may redact directly, none of it a fact that groups, labels or configures a result:
 *   the command line, background workloads, the track notes (the person's own words) and every reason in `missing`;
 *   in `extensions` only explanations and evidence quotes (DERIVED_EXTENSION_TEXT), never the dialect, the engine
 *   options, the kernel or any other fact (a key not listed is a fact).
 * - results.json, text derived from redactable evidence, which `--seal` writes from it: request error messages,
 *   verdict reasons and exclusion reasons.
 * - outputs.jsonl lines: reasoning text (optional evidence; no verdict reads it), error messages and skip reasons.
 *   Final answers and tool calls are measured: the sanity verdicts read them.
 * - engine.log and config.json are evidence text as a whole; the chat template and the pictures are not text to
 *   redact (see `SEALABLE_KINDS`).
 * Artifact hashes are left out (they change with any redaction); their kinds and paths are kept.
 */
import { sha256Hex } from "../contract/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";

/** Name and version of the projection below; a result with another method is not compared. */
export const MEASURED_DIGEST_METHOD = "strata-bench measured projection 2" as const;

/** Extensions keys that hold the digest, the README hash and the seal record (never part of the projection). */
export const DIGEST_KEYS = {
  digest: "measured_digest",
  readme: "readme_sha256",
  seal: "sealed",
} as const;

/** What `extensions.measured_digest` holds. */
export interface MeasuredDigest {
  method: typeof MEASURED_DIGEST_METHOD;
  /** Per top-level key of results.json (extensions included, without the digest, README hash and seal). */
  results: Record<string, string>;
  /** The outputs artifact's path and one digest per line, in file order. */
  outputs: { path: string; lines: string[] };
}

const TEXT = "<text>";
const HASH = "<hash>";

/** Pointer patterns (segments; "*" is any key or index) of redactable strings in results.json. */
const REDACTABLE_RESULT_TEXT: readonly string[][] = [
  ["run", "command"],
  ["hardware", "background_workloads", "*"],
  ["configuration", "track_notes"],
  ["missing", "*"],
  // Derived from evidence text a person may redact; --seal writes them from the redacted evidence.
  ["requests", "*", "error", "message"],
  ["requests", "*", "evaluation", "reason"],
  ["summaries", "*", "excluded", "*", "reason"],
];

/**
 * The strings of `extensions` that explain or quote (a reason, an evidence line, a message); every other value
 * there is a fact of the result and is measured.
 */
const DERIVED_EXTENSION_TEXT: readonly string[][] = [
  ["extensions", "dialect_evidence"],
  ["extensions", "reasoning_budget_why"],
  ["extensions", "server_endpoint_problems", "*"],
  ["extensions", "server_prior_requests", "evidence", "*"],
  ["extensions", "server_prior_requests", "reason"],
  ["extensions", "model_hashing", "cache_problem"],
  ["extensions", "engine_load", "reason"],
  ["extensions", "nonconforming_reasons", "*"],
  ["extensions", "status_reasons", "*"],
  ["extensions", "stop_reason"],
  ["extensions", "health_checks", "*", "message"],
  ["extensions", "pictures_problem"],
];

/** Redactable strings of an outputs.jsonl line. */
const REDACTABLE_LINE_TEXT: readonly string[][] = [["reasoning_text"], ["error", "message"], ["skip_reason"]];

function matches(path: readonly string[], patterns: readonly string[][]): boolean {
  return patterns.some((p) =>
    p.length === path.length && p.every((segment, i) => segment === "*" || segment === path[i])
  );
}

/** The value with redactable strings replaced, keys sorted (canonical JSON when stringified). */
function project(value: unknown, path: string[], redactable: (path: readonly string[]) => boolean): unknown {
  if (typeof value === "string") return redactable(path) ? TEXT : value;
  if (Array.isArray(value)) return value.map((item, i) => project(item, [...path, String(i)], redactable));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = project((value as Record<string, unknown>)[key], [...path, key], redactable);
    }
    return out;
  }
  return value;
}

const encoder = new TextEncoder();
const digestOf = (value: unknown): string => sha256Hex(encoder.encode(JSON.stringify(value)));

function resultRedactable(path: readonly string[]): boolean {
  return matches(path, REDACTABLE_RESULT_TEXT) || matches(path, DERIVED_EXTENSION_TEXT);
}

/** Digests of results.json's measured content, per top-level key. */
export function resultSectionDigests(result: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(result).sort()) {
    let value = result[key];
    if (key === "extensions" && value !== null && typeof value === "object") {
      const { [DIGEST_KEYS.digest]: _d, [DIGEST_KEYS.readme]: _r, [DIGEST_KEYS.seal]: _s, ...rest } = value as Record<
        string,
        unknown
      >;
      value = rest;
    }
    if (key === "artifacts" && Array.isArray(value)) {
      value = value.map((a) => (a !== null && typeof a === "object" ? { ...a, sha256: HASH } : a));
    }
    out[key] = digestOf(project(value, [key], resultRedactable));
  }
  return out;
}

/** Digest of each line of an outputs.jsonl text; a line that is not strict JSON is hashed as it is. */
export function outputLineDigests(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => {
    const parsed = parseStrictJsonPlain(line);
    if (!parsed.ok) return sha256Hex(encoder.encode(line));
    return digestOf(project(parsed.value, [], (path) => matches(path, REDACTABLE_LINE_TEXT)));
  });
}

/** The digest of a result and its outputs text, as the run records it. */
export function measuredDigest(
  result: Record<string, unknown>,
  outputsPath: string,
  outputsText: string,
): MeasuredDigest {
  return {
    method: MEASURED_DIGEST_METHOD,
    results: resultSectionDigests(result),
    outputs: { path: outputsPath, lines: outputLineDigests(outputsText) },
  };
}

/** The recorded digest of a parsed results.json, or null when it has none (or one of another method). */
export function recordedDigest(result: unknown): MeasuredDigest | null {
  const ext = (result as { extensions?: Record<string, unknown> } | null)?.extensions;
  const raw = ext?.[DIGEST_KEYS.digest] as Partial<MeasuredDigest> | undefined;
  if (raw === undefined || raw === null || typeof raw !== "object" || raw.method !== MEASURED_DIGEST_METHOD) {
    return null;
  }
  const results = raw.results;
  const outputs = raw.outputs;
  if (results === null || typeof results !== "object" || outputs === null || typeof outputs !== "object") return null;
  if (typeof outputs.path !== "string" || !Array.isArray(outputs.lines)) return null;
  return raw as MeasuredDigest;
}

/** Bytes as strict UTF-8 text (a BOM kept), or null for no bytes or bytes that are not UTF-8: no outputs text. */
export function utf8OrNull(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * What differs between a recorded digest and the folder's present content: one sentence per section of
 * results.json or line of outputs.jsonl whose measured content changed. Empty when only redactable text changed.
 */
export function measuredChanges(
  recorded: MeasuredDigest,
  result: Record<string, unknown>,
  outputsText: string | null,
): string[] {
  const changes: string[] = [];
  const now = resultSectionDigests(result);
  for (const key of new Set([...Object.keys(recorded.results), ...Object.keys(now)])) {
    if (recorded.results[key] === undefined) changes.push(`results.json gained the section "${key}"`);
    else if (now[key] === undefined) changes.push(`results.json lost the section "${key}"`);
    else if (recorded.results[key] !== now[key]) {
      changes.push(`results.json "${key}" differs in a measured value (a count, timing, status, identity or verdict)`);
    }
  }
  const name = recorded.outputs.path;
  if (outputsText === null) {
    changes.push(`${name} is not in the folder`);
    return changes;
  }
  const lines = outputLineDigests(outputsText);
  if (lines.length !== recorded.outputs.lines.length) {
    changes.push(`${name} has ${lines.length} lines; the run wrote ${recorded.outputs.lines.length}`);
  }
  const texts = outputsText.split("\n");
  lines.forEach((digest, i) => {
    const wrote = recorded.outputs.lines[i];
    if (wrote !== undefined && wrote !== digest) {
      const id = /"request_id":\s*"([A-Za-z0-9._-]{1,80})"/.exec(texts[i] ?? "")?.[1];
      changes.push(
        `${name} line ${i + 1}${id === undefined ? "" : ` (${id})`} differs in a measured value ` +
          "(usage, timings, offsets, finish reason, final answer or tool calls)",
      );
    }
  });
  return changes;
}
