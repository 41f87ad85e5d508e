/**
 * `report DIR --seal`: after a person has read the folder and redacted evidence text by hand, carry the redaction
 * into results.json and re-hash the artifacts, so the hashes are computed after the redaction as the protocol asks.
 *
 * The model a person follows: redact evidence (outputs.jsonl's error texts, skip reasons and reasoning text,
 * engine.log, config.json) and the few results.json texts that are no configuration fact (measured.ts lists them);
 * never the texts results.json derives from the evidence (error messages, verdict and exclusion reasons): the seal
 * writes those from the redacted evidence with the validator's own functions (_derived_texts.ts), and refuses one
 * edited in results.json while the evidence it comes from is as the run wrote it.
 *
 * It refuses, changing nothing, when the folder no longer holds what the run measured: the measured digest
 * (measured.ts) differs, an artifact that is not evidence text changed (the chat template, the pictures), a file is
 * missing, or the sealed result would not validate. Each seal is recorded in `extensions.sealed` with the hashes
 * before and after and the texts it re-derived, so a reviewer sees what changed after the run. README.md is drawn
 * again from the sealed result when it is as the run wrote it (its evidence table shows the new hashes, its
 * failure lines the redacted texts); one a person corrected is left as it is.
 */
import { type ArtifactKind, type Fixture, type Result, sha256Hex } from "../../contract/mod.ts";
import { parseStrictJsonPlain } from "../../score/mod.ts";
import { type DerivedText, derivedTexts } from "../_derived_texts.ts";
import { pointerTokens } from "../_pointer.ts";
import { DIGEST_KEYS, MEASURED_DIGEST_METHOD, measuredChanges, recordedDigest, utf8OrNull } from "../measured.ts";
import { errorMessage } from "../../runtime/mod.ts";

/** Artifact kinds whose bytes are evidence text a person may redact (the others must stay as the run wrote them). */
export const SEALABLE_KINDS: readonly ArtifactKind[] = ["outputs", "engine_log", "config"];

/** The README file of a result folder, whose hash the run records in extensions. */
const README_FILE = "README.md";

/** One re-hashed file. */
export interface Rehashed {
  path: string;
  kind: string;
  sha256_before: string;
  sha256_after: string;
}

/**
 * What happened to README.md: drawn again (`text` to write), left as a person corrected it, absent, or unchanged
 * because nothing was sealed.
 */
export type ReadmeOutcome =
  | { kind: "rendered"; text: string }
  | { kind: "edited" }
  | { kind: "missing" }
  | { kind: "unchanged" };

/** What a seal did or why it refused. */
export type SealOutcome =
  | { ok: true; rehashed: Rehashed[]; rederived: DerivedText[]; text: string | null; readme: ReadmeOutcome }
  | { ok: false; reasons: string[] };

/** The parts a seal needs: the folder's files, the strict validator, the fixtures, the README renderer, a clock. */
export interface SealDeps {
  /** A file of the folder by relative path; null when absent. */
  read(relativePath: string): Promise<Uint8Array | null>;
  /** Every problem of a results.json text in this folder (the validator `report` runs). */
  validate(text: string): Promise<{ pointer: string; message: string }[]>;
  /** The bundle's fixtures: records are rebuilt from their evidence lines with them, as the validator does. */
  fixtures: readonly Fixture[];
  /** README.md of a result, as the run draws it. */
  renderReadme(result: Result): string;
  /** The time the seal record carries. */
  now(): Date;
}

/** Sets the value at an existing pointer of a parsed results.json. */
function setAt(root: Record<string, unknown>, pointer: string, text: string): void {
  const tokens = pointerTokens(pointer);
  const last = tokens.pop();
  let at: unknown = root;
  for (const token of tokens) at = (at as Record<string, unknown>)[token];
  (at as Record<string, unknown>)[last as string] = text;
}

function noDigest(value: Record<string, unknown>): string {
  const raw = (value["extensions"] as Record<string, unknown> | undefined)?.[DIGEST_KEYS.digest];
  const method = (raw as { method?: unknown } | null | undefined)?.method;
  if (typeof method === "string") {
    return `results.json records a measured digest of another method ("${method}"; this strata-bench reads ` +
      `"${MEASURED_DIGEST_METHOD}"), whose projection leaves facts out that a seal must keep, so a redaction cannot be ` +
      "told from a changed measurement; re-run the protocol with this strata-bench";
  }
  return "results.json has no measured digest (extensions.measured_digest): it was written by an older strata-bench " +
    "or the digest was removed, so a redaction cannot be told from a changed measurement; re-run the protocol";
}

/**
 * The derived texts to write from the evidence, or the refusals: a checked text that differs while the evidence it
 * comes from is unchanged was edited in results.json itself.
 */
async function rederive(
  value: Record<string, unknown>,
  artifacts: readonly Record<string, unknown>[],
  deps: SealDeps,
): Promise<{ texts: DerivedText[]; refusals: string[] }> {
  const index = artifacts.findIndex((a) => a["kind"] === "outputs");
  const artifact = artifacts[index];
  if (artifact === undefined || typeof artifact["path"] !== "string") return { texts: [], refusals: [] };
  const bytes = await deps.read(artifact["path"]);
  if (bytes === null) return { texts: [], refusals: [] };
  const evidence = { index, artifact: artifact as unknown as Result["artifacts"][0], bytes };
  const texts = derivedTexts(value, evidence, deps.fixtures);
  if (sha256Hex(bytes) !== artifact["sha256"]) return { texts, refusals: [] };
  const refusals = texts.filter((t) => t.checked).map((t) =>
    `${t.pointer} was edited in results.json, but it is derived from ${t.from}, which is as the run wrote it: ` +
    `redact the text in ${artifact["path"]} instead and seal again (the seal then writes this field from it), or ` +
    "restore the field"
  );
  return { texts: refusals.length > 0 ? [] : texts, refusals };
}

/** Every artifact whose bytes changed, re-hashed, or the reasons a changed one may not change. */
async function rehash(artifacts: readonly Record<string, unknown>[], deps: SealDeps, reasons: string[]) {
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
  return rehashed;
}

/** README.md drawn again from the sealed result when it is as the run (or the last seal) wrote it. */
async function redrawReadme(value: Record<string, unknown>, deps: SealDeps): Promise<ReadmeOutcome> {
  const extensions = value["extensions"] as Record<string, unknown>;
  const bytes = await deps.read(README_FILE);
  if (bytes === null) return { kind: "missing" };
  if (sha256Hex(bytes) !== extensions[DIGEST_KEYS.readme]) return { kind: "edited" };
  const text = deps.renderReadme(value as unknown as Result);
  extensions[DIGEST_KEYS.readme] = sha256Hex(new TextEncoder().encode(text));
  return { kind: "rendered", text };
}

/**
 * One line per record (its derived texts and missing reasons, and the line they come from), one for the summaries'
 * exclusion reasons, one per run-level text: what a seal re-derived, for the person who ran it.
 */
export function describeRederived(texts: readonly DerivedText[]): string[] {
  const records = new Map<string, { from: string; fields: string[]; missing: number }>();
  const rest: string[] = [];
  let exclusions = 0;
  for (const t of texts) {
    const tokens = pointerTokens(t.pointer);
    const recordPointer = tokens[0] === "requests"
      ? `/requests/${tokens[1]}`
      : tokens[0] === "missing" && tokens[1]?.startsWith("/requests/")
      ? tokens[1].split("/").slice(0, 3).join("/")
      : null;
    if (recordPointer !== null) {
      const entry = records.get(recordPointer) ?? { from: "", fields: [], missing: 0 };
      if (tokens[0] === "requests") {
        entry.from = t.from;
        entry.fields.push(tokens.slice(2).join("."));
      } else entry.missing++;
      records.set(recordPointer, entry);
    } else if (tokens[0] === "summaries") exclusions++;
    else rest.push(`${t.pointer} (it quotes ${t.from})`);
  }
  const lines = [...records].map(([pointer, r]) => {
    const missing = r.missing === 0 ? "" : `${r.fields.length > 0 ? " and " : ""}${r.missing} missing reason(s)`;
    return `${pointer}: ${r.fields.join(", ")}${missing}${r.from === "" ? "" : ` from ${r.from}`}`;
  });
  if (exclusions > 0) lines.push(`${exclusions} exclusion reason(s) of the summaries, from the records above`);
  return [...lines, ...rest];
}

/**
 * Checks a redacted folder and returns the sealed results.json text (null when every hash already matched and no
 * derived text changed) and README.md to write, or every reason it refuses. Nothing is written here.
 */
export async function sealResult(resultsText: string, deps: SealDeps): Promise<SealOutcome> {
  const parsed = parseStrictJsonPlain(resultsText);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    return { ok: false, reasons: ["results.json is not one strict JSON object; restore it from your copy of the run"] };
  }
  const value = parsed.value as Record<string, unknown>;
  const recorded = recordedDigest(value);
  if (recorded === null) return { ok: false, reasons: [noDigest(value)] };
  const artifacts = Array.isArray(value["artifacts"]) ? value["artifacts"] as Record<string, unknown>[] : [];
  const derived = await rederive(value, artifacts, deps);
  if (derived.refusals.length > 0) return { ok: false, reasons: derived.refusals };
  for (const text of derived.texts) setAt(value, text.pointer, text.after);
  const reasons = measuredChanges(recorded, value, utf8OrNull(await deps.read(recorded.outputs.path)));
  const rehashed = await rehash(artifacts, deps, reasons);
  if (reasons.length > 0) return { ok: false, reasons };
  const refused = (problems: { pointer: string; message: string }[]): SealOutcome => ({
    ok: false,
    reasons: problems.map((p) => `${p.pointer || "(root)"}: ${p.message}`),
  });
  if (rehashed.length === 0 && derived.texts.length === 0) {
    const problems = await deps.validate(resultsText);
    return problems.length === 0
      ? { ok: true, rehashed, rederived: [], text: null, readme: { kind: "unchanged" } }
      : refused(problems);
  }
  for (const artifact of artifacts) {
    const entry = rehashed.find((r) => r.path === String(artifact["path"]));
    if (entry) artifact["sha256"] = entry.sha256_after;
  }
  const extensions = (value["extensions"] ?? {}) as Record<string, unknown>;
  value["extensions"] = extensions;
  const history = Array.isArray(extensions[DIGEST_KEYS.seal]) ? extensions[DIGEST_KEYS.seal] as unknown[] : [];
  extensions[DIGEST_KEYS.seal] = [...history, {
    sealed_at: deps.now().toISOString(),
    rehashed,
    rederived: derived.texts.map((t) => t.pointer),
  }];
  let readme: ReadmeOutcome;
  try {
    readme = await redrawReadme(value, deps);
  } catch (error) {
    const why = errorMessage(error);
    return {
      ok: false,
      reasons: [`README.md cannot be read (${why}); it must be a regular file: restore the one the run wrote`],
    };
  }
  const text = `${JSON.stringify(value)}\n`;
  const problems = await deps.validate(text);
  if (problems.length > 0) return refused(problems);
  return { ok: true, rehashed, rederived: derived.texts, text, readme };
}
