/**
 * Resolves the entries of an approved manifest in a results repository: each entry's results.json and the
 * artifacts it lists, read from the git object store at its evidence_commit, with every reason an entry cannot be
 * shown (`problems`: the entry is unverifiable) kept apart from evidence that contradicts the review
 * (`contradictions`: the browser will find these again and show "verification failed").
 */
import type { GitRepo } from "./_git.ts";
import {
  isSafeRelativePath,
  isSha256Hex,
  type KnownProtocol,
  parseStrictJson,
  type ReadEntry,
  RESULT_FORMAT,
  RESULT_SCHEMA_VERSION,
  sha256Hex,
} from "./web/mod.js";

export type { KnownProtocol, ReadEntry };

/** A file of the evidence: its bytes and SHA-256, or null when the commit lacks it. */
export interface EvidenceFile {
  bytes: Uint8Array;
  sha256: string;
}

/** One entry with everything read for it at its evidence commit. */
export interface ResolvedEntry {
  read: ReadEntry;
  /** Why the entry cannot be verified (malformed entry, missing commit or path, unknown format or protocol). */
  problems: string[];
  /** Where the evidence disagrees with the review (hashes, ids); the entry stays listed as failed. */
  contradictions: string[];
  results: EvidenceFile | null;
  /** Each artifact path results.json lists (relative to its folder), null when missing at the commit. */
  artifacts: Map<string, EvidenceFile | null>;
}

/** The folder part of a results path ("bench/results/x/results.json" -> "bench/results/x"). */
export function folderOf(resultsPath: string): string {
  return resultsPath.slice(0, resultsPath.lastIndexOf("/"));
}

async function evidenceFile(bytes: Uint8Array | null): Promise<EvidenceFile | null> {
  return bytes === null ? null : { bytes, sha256: await sha256Hex(bytes) };
}

/**
 * Reads one entry's evidence. `branchCommit` is the default branch's commit: an evidence commit must be in its
 * history, and must itself add or change the report folder (it is the commit that introduced the report).
 */
export async function resolveEntry(
  repo: GitRepo,
  read: ReadEntry,
  branch: { name: string; commit: string },
  protocols: readonly KnownProtocol[],
): Promise<ResolvedEntry> {
  const resolved: ResolvedEntry = {
    read,
    problems: [...read.problems],
    contradictions: [],
    results: null,
    artifacts: new Map(),
  };
  const entry = read.entry;
  if (entry === null) return resolved;
  const commit = await repo.resolveCommit(entry.evidence_commit);
  if (commit !== entry.evidence_commit) {
    resolved.problems.push(`evidence_commit ${entry.evidence_commit} is not a commit of this repository`);
    return resolved;
  }
  if (!await repo.isAncestor(commit, branch.commit)) {
    resolved.problems.push(`evidence_commit ${commit} is not in the history of ${branch.name}`);
  }
  const folder = folderOf(entry.results_path);
  if (!await repo.touches(commit, folder)) {
    resolved.problems.push(
      `evidence_commit ${commit} does not add or change ${folder}: it must be the commit that introduced the reviewed report`,
    );
  }
  resolved.results = await evidenceFile(await repo.readBlob(commit, entry.results_path));
  if (resolved.results === null) {
    resolved.problems.push(`${entry.results_path} does not exist at evidence_commit ${commit}`);
    return resolved;
  }
  if (resolved.results.sha256 !== entry.results_sha256) {
    resolved.contradictions.push(
      `results.json at evidence_commit has SHA-256 ${resolved.results.sha256}, the manifest says ${entry.results_sha256}`,
    );
  }
  const text = new TextDecoder().decode(resolved.results.bytes);
  const parsed = parseStrictJson(text);
  const result = parsed.ok && isObject(parsed.value) ? parsed.value : null;
  if (result === null) {
    resolved.problems.push(`${entry.results_path} is not a strict JSON object`);
    return resolved;
  }
  if (result.format !== RESULT_FORMAT || result.schema_version !== RESULT_SCHEMA_VERSION) {
    resolved.problems.push(
      `${entry.results_path} has format ${JSON.stringify(result.format ?? null)} schema_version ${
        JSON.stringify(result.schema_version ?? null)
      }; this site reads ${RESULT_FORMAT} ${RESULT_SCHEMA_VERSION} (legacy and other reports are not standard)`,
    );
    return resolved;
  }
  const protocol = isObject(result.protocol) ? result.protocol : {};
  const run = isObject(result.run) ? result.run : {};
  if (!protocols.some((p) => p.id === protocol.id)) {
    resolved.problems.push(
      `${entry.results_path} has protocol id ${JSON.stringify(protocol.id ?? null)}, unknown to this site`,
    );
  }
  if (protocol.id !== entry.protocol_id) {
    resolved.contradictions.push(
      `protocol.id ${JSON.stringify(protocol.id)} differs from the entry's ${entry.protocol_id}`,
    );
  }
  if (run.id !== entry.run_id) {
    resolved.contradictions.push(`run.id ${JSON.stringify(run.id)} differs from the entry's ${entry.run_id}`);
  }
  for (const artifact of Array.isArray(result.artifacts) ? result.artifacts : []) {
    if (!isObject(artifact) || !isSafeRelativePath(artifact.path) || resolved.artifacts.has(artifact.path)) continue;
    const file = await evidenceFile(await repo.readBlob(commit, `${folder}/${artifact.path}`));
    resolved.artifacts.set(artifact.path, file);
    if (file === null) resolved.contradictions.push(`artifact ${artifact.path} is missing at evidence_commit`);
    else if (isSha256Hex(artifact.sha256) && file.sha256 !== artifact.sha256) {
      resolved.contradictions.push(
        `artifact ${artifact.path} has SHA-256 ${file.sha256}, results.json records ${artifact.sha256}`,
      );
    }
  }
  return resolved;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
