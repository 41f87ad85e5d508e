/**
 * `report DIR --seal`: after a person has read the folder and redacted evidence text by hand, re-hash the artifacts
 * into results.json, so the hashes are computed after the redaction as the protocol asks. It refuses, changing
 * nothing, when the folder no longer holds what the run measured: the measured digest (measured.ts) differs, an
 * artifact that is not evidence text changed (the chat template, the pictures), a file is missing, or the sealed
 * result would not validate. Each seal is recorded in `extensions.sealed` with the hashes before and after, so a
 * reviewer sees which files changed after the run.
 */
import { type ArtifactKind, sha256Hex } from "../contract/mod.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";
import { DIGEST_KEYS, measuredChanges, recordedDigest } from "./measured.ts";

/** Artifact kinds whose bytes are evidence text a person may redact (the others must stay as the run wrote them). */
export const SEALABLE_KINDS: readonly ArtifactKind[] = ["outputs", "engine_log", "config"];

/** One re-hashed file. */
export interface Rehashed {
  path: string;
  kind: string;
  sha256_before: string;
  sha256_after: string;
}

/** What a seal did or why it refused. */
export type SealOutcome =
  | { ok: true; rehashed: Rehashed[]; text: string | null }
  | { ok: false; reasons: string[] };

/** The parts a seal needs: the folder's files, the strict validator, and the clock of the seal record. */
export interface SealDeps {
  /** A file of the folder by relative path; null when absent. */
  read(relativePath: string): Promise<Uint8Array | null>;
  /** Every problem of a results.json text in this folder (the validator `report` runs). */
  validate(text: string): Promise<{ pointer: string; message: string }[]>;
  now(): Date;
}

function decode(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Checks a redacted folder and returns the sealed results.json text (null when every hash already matched), or
 * every reason it refuses. Nothing is written here; the caller writes `text`.
 */
export async function sealResult(resultsText: string, deps: SealDeps): Promise<SealOutcome> {
  const parsed = parseStrictJsonPlain(resultsText);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    return { ok: false, reasons: ["results.json is not one strict JSON object; restore it from your copy of the run"] };
  }
  const value = parsed.value as Record<string, unknown>;
  const recorded = recordedDigest(value);
  if (recorded === null) {
    return {
      ok: false,
      reasons: [
        "results.json has no measured digest (extensions.measured_digest): it was written by an older strata-bench " +
        "or the digest was removed, so a redaction cannot be told from a changed measurement; re-run the protocol",
      ],
    };
  }
  const reasons = measuredChanges(recorded, value, decode(await deps.read(recorded.outputs.path)));
  const artifacts = Array.isArray(value["artifacts"]) ? value["artifacts"] as Record<string, unknown>[] : [];
  const rehashed: Rehashed[] = [];
  for (const artifact of artifacts) {
    const path = String(artifact["path"]);
    const kind = String(artifact["kind"]);
    const bytes = await deps.read(path);
    if (bytes === null) {
      reasons.push(`${path} is not in the folder: a redaction replaces text, it does not remove evidence`);
      continue;
    }
    const after = sha256Hex(bytes);
    if (after === artifact["sha256"]) continue;
    if (!(SEALABLE_KINDS as readonly string[]).includes(kind)) {
      reasons.push(
        `${path} (${kind}) changed after the run: only evidence text (${SEALABLE_KINDS.join(", ")}) may be ` +
          "redacted; restore this file as the run wrote it",
      );
      continue;
    }
    rehashed.push({ path, kind, sha256_before: String(artifact["sha256"]), sha256_after: after });
  }
  if (reasons.length > 0) return { ok: false, reasons };
  if (rehashed.length === 0) {
    const problems = await deps.validate(resultsText);
    return problems.length === 0
      ? { ok: true, rehashed, text: null }
      : { ok: false, reasons: problems.map((p) => `${p.pointer || "(root)"}: ${p.message}`) };
  }
  for (const artifact of artifacts) {
    const entry = rehashed.find((r) => r.path === String(artifact["path"]));
    if (entry) artifact["sha256"] = entry.sha256_after;
  }
  const extensions = (value["extensions"] ?? {}) as Record<string, unknown>;
  const history = Array.isArray(extensions[DIGEST_KEYS.seal]) ? extensions[DIGEST_KEYS.seal] as unknown[] : [];
  extensions[DIGEST_KEYS.seal] = [...history, { sealed_at: deps.now().toISOString(), rehashed }];
  value["extensions"] = extensions;
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const problems = await deps.validate(text);
  if (problems.length > 0) {
    return { ok: false, reasons: problems.map((p) => `${p.pointer || "(root)"}: ${p.message}`) };
  }
  return { ok: true, rehashed, text };
}
