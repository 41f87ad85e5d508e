/**
 * Resolves the entries of an approved manifest in a results repository: each entry's results.json and the
 * artifacts it lists, read from the git object store at its evidence_commit, with every reason an entry cannot be
 * shown (`problems`: the entry is unverifiable) kept apart from evidence that contradicts the review
 * (`contradictions`: the browser will find these again and show "verification failed").
 */
import type { GitRepo } from "./_git.ts";
import {
  isObject,
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

/** A file of the evidence: its SHA-256 and, where they were needed, its bytes. */
export interface EvidenceFile {
  sha256: string;
  bytes: Uint8Array;
}

/** One entry with everything read for it at its evidence commit. */
export interface ResolvedEntry {
  read: ReadEntry;
  /** Why the entry cannot be verified (malformed entry, missing commit or path, unknown format or protocol). */
  problems: string[];
  /** Where the evidence disagrees with the review (hashes, ids); the entry stays listed as failed. */
  contradictions: string[];
  results: EvidenceFile | null;
  /** The SHA-256 of each artifact path results.json lists (relative to its folder), null when missing at the commit. */
  artifacts: Map<string, string | null>;
}

/** The folder part of a results path ("bench/results/x/results.json" -> "bench/results/x"). */
export function folderOf(resultsPath: string): string {
  return resultsPath.slice(0, resultsPath.lastIndexOf("/"));
}

/** Results files kept in memory for the next entries (a manifest lists one result many times at most). */
const RECENT_RESULTS = 8;

/**
 * Reads evidence files from git by blob id, so that bytes shared by many entries (one result listed again, a
 * template every run shares) are read and hashed once: each distinct blob is handed to `onNew` once, with its
 * SHA-256, and afterwards only its hash is kept (and the bytes of the last few results files), so memory stays
 * bounded by the largest file, not by the manifest.
 */
export class EvidenceReader {
  readonly #repo: GitRepo;
  readonly #onNew: (sha256: string, bytes: Uint8Array) => Promise<void>;
  readonly #hashes = new Map<string, string>();
  readonly #recent = new Map<string, Uint8Array>();

  constructor(repo: GitRepo, onNew: (sha256: string, bytes: Uint8Array) => Promise<void> = async () => {}) {
    this.#repo = repo;
    this.#onNew = onNew;
  }

  /** The blob at `path` of `commit` below `folder`: its id, or null when the commit has no such file. */
  async #oid(commit: string, folder: string, path: string): Promise<string | null> {
    return (await this.#repo.blobIds(commit, folder)).get(path) ?? null;
  }

  async #bytes(oid: string): Promise<Uint8Array | null> {
    const kept = this.#recent.get(oid);
    if (kept !== undefined) return kept;
    const bytes = await this.#repo.readObject(oid);
    if (bytes === null) return null;
    if (!this.#hashes.has(oid)) {
      const sha256 = await sha256Hex(bytes);
      this.#hashes.set(oid, sha256);
      await this.#onNew(sha256, bytes);
    }
    return bytes;
  }

  /** A results file with its bytes (kept for the next few entries). */
  async results(commit: string, folder: string, path: string): Promise<EvidenceFile | null> {
    const oid = await this.#oid(commit, folder, path);
    const bytes = oid === null ? null : await this.#bytes(oid);
    if (oid === null || bytes === null) return null;
    this.#recent.delete(oid);
    this.#recent.set(oid, bytes);
    if (this.#recent.size > RECENT_RESULTS) this.#recent.delete(this.#recent.keys().next().value as string);
    return { sha256: this.#hashes.get(oid) as string, bytes };
  }

  /** The SHA-256 of a file, its bytes read only the first time its blob is met; null when it is absent. */
  async hash(commit: string, folder: string, path: string): Promise<string | null> {
    const oid = await this.#oid(commit, folder, path);
    if (oid === null) return null;
    const known = this.#hashes.get(oid);
    if (known !== undefined) return known;
    return (await this.#bytes(oid)) === null ? null : this.#hashes.get(oid) ?? null;
  }
}

/**
 * Reads one entry's evidence. `branchCommit` is the default branch's commit: an evidence commit must be in its
 * history, and must itself add or change the report folder (it is the commit that introduced the report). Files are
 * read through `reader`, which hashes each distinct blob once (a new one per command, or shared by a whole build).
 */
export async function resolveEntry(
  repo: GitRepo,
  read: ReadEntry,
  branch: { name: string; commit: string },
  protocols: readonly KnownProtocol[],
  reader: EvidenceReader = new EvidenceReader(repo),
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
    resolved.problems.push(
      `evidence_commit ${entry.evidence_commit} is not a commit of this repository${await shallowHint(repo)}`,
    );
    return resolved;
  }
  if (!await repo.isAncestor(commit, branch.commit)) {
    resolved.problems.push(
      `evidence_commit ${commit} is not in the history of ${branch.name}${await shallowHint(repo)}`,
    );
  }
  const folder = folderOf(entry.results_path);
  if (!await repo.touches(commit, folder)) {
    resolved.problems.push(
      `evidence_commit ${commit} does not add or change ${folder}: it must be the commit that introduced the reviewed report`,
    );
  }
  resolved.results = await reader.results(commit, folder, entry.results_path);
  if (resolved.results === null) {
    resolved.problems.push(`${entry.results_path} does not exist at evidence_commit ${commit}`);
    return resolved;
  }
  if (resolved.results.sha256 !== entry.results_sha256) {
    resolved.contradictions.push(
      `results.json at evidence_commit has SHA-256 ${resolved.results.sha256}, the manifest says ${entry.results_sha256}`,
    );
  }
  const result = resultObject(resolved.results.bytes);
  if (result === null) {
    resolved.problems.push(`${entry.results_path} is not a strict JSON object`);
    return resolved;
  }
  // The artifacts are read for a result this site cannot read too: evidence changed after the run fails in the
  // browser whatever its schema or protocol.
  knownResult(result, entry, protocols, resolved);
  for (const artifact of Array.isArray(result.artifacts) ? result.artifacts : []) {
    if (!isObject(artifact) || !isSafeRelativePath(artifact.path) || resolved.artifacts.has(artifact.path)) continue;
    const sha256 = await reader.hash(commit, folder, `${folder}/${artifact.path}`);
    resolved.artifacts.set(artifact.path, sha256);
    if (sha256 === null) resolved.contradictions.push(`artifact ${artifact.path} is missing at evidence_commit`);
    else if (isSha256Hex(artifact.sha256) && sha256 !== artifact.sha256) {
      resolved.contradictions.push(
        `artifact ${artifact.path} has SHA-256 ${sha256}, results.json records ${artifact.sha256}`,
      );
    }
  }
  return resolved;
}

/** What to do when a commit seems absent from a shallow clone, whose history is cut ("" for a full clone). */
async function shallowHint(repo: GitRepo): Promise<string> {
  return await repo.isShallow()
    ? " (this clone is shallow: older commits are not in it; run git fetch --unshallow, then try again)"
    : "";
}

function resultObject(bytes: Uint8Array): Record<string, unknown> | null {
  const parsed = parseStrictJson(new TextDecoder().decode(bytes));
  return parsed.ok && isObject(parsed.value) ? parsed.value : null;
}

/** The format, schema version, protocol and run id checks; the ids only of a result this site reads. */
function knownResult(
  result: Record<string, unknown>,
  entry: NonNullable<ReadEntry["entry"]>,
  protocols: readonly KnownProtocol[],
  resolved: ResolvedEntry,
): void {
  if (result.format !== RESULT_FORMAT || result.schema_version !== RESULT_SCHEMA_VERSION) {
    const field = (name: string, value: unknown) =>
      value === undefined ? `no ${name}` : `${name} ${JSON.stringify(value)}`;
    resolved.problems.push(
      `${entry.results_path} has ${field("format", result.format)} and ${
        field("schema_version", result.schema_version)
      }; ` +
        `this site reads ${RESULT_FORMAT} ${RESULT_SCHEMA_VERSION} (legacy and other reports are not standard)`,
    );
    return;
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
}
