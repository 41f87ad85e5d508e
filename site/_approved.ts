/**
 * `approved verify` and `approved add`: the maintainer's side of bench/approved.json. Verify checks the manifest's
 * shape and every entry against the repository (commit, path, hashes, ids); add appends one entry after review,
 * with the hash of the reviewed results.json and the commit that introduced its folder, and refuses an entry that
 * verify would reject, evidence the site's independent check would not accept, a simulation, and a reproduction
 * of another protocol, model or quantization.
 */
import type { GitRepo } from "./_git.ts";
import {
  EvidenceReader,
  folderOf,
  type KnownProtocol,
  type ReadEntry,
  type ResolvedEntry,
  resolveEntry,
} from "./_entries.ts";
import { crossEntryProblems, linkProblems, type RunIdentity, runIdentity, setupDifferences } from "./_reproductions.ts";
import {
  type CheckOutcome,
  checkResult,
  isHandle,
  isResultsPath,
  isReviewUrl,
  type ManifestEntry,
  manifestText,
  parseStrictJson,
  readManifest,
  reviewProblems,
  sha256Hex,
  type WithdrawnEntry,
} from "./web/mod.js";

/** Reads one file of the frozen bundle whose manifest hashes to `corpus` (site/web/light_evidence.js). */
export type BundleRead = (corpus: string, file: string) => Promise<Uint8Array | null>;

export type { ManifestEntry };

/** The files `approved` reads and writes in the repository's working tree. */
export interface ManifestFiles {
  /** The manifest's text, or null when the file does not exist. */
  readManifest(): Promise<string | null>;
  writeManifest(text: string): Promise<void>;
}

/** One result folder at the commit a review reads, for a `Reviewer`. */
export interface ReviewedFolder {
  /** The folder, repository-relative. */
  folder: string;
  resultsBytes: Uint8Array;
  /** A file of the folder by relative path (null when absent). */
  read(path: string): Promise<Uint8Array | null>;
  /** Every file of the folder, relative (null when unknown). */
  list(): Promise<readonly string[] | null>;
  /** The manifest entry's reviewed hash and ids. */
  expected: { resultsSha256: string; runId: string; protocolId: string };
}

/** A review's verdict: approved only without refusals; `check` is the site's outcome. */
export interface ReviewVerdict {
  approved: boolean;
  /** Each names the judge, the folder or file, and the rule. */
  refusals: string[];
  check: CheckOutcome;
}

/** The review every entry must pass (review/'s conductor; without one, the site's check alone). */
export type Reviewer = (folder: ReviewedFolder) => Promise<ReviewVerdict>;

/** The folder of an entry's results.json at its evidence commit, read from git. */
function gitFolder(repo: GitRepo, entry: ManifestEntry, resultsBytes: Uint8Array): ReviewedFolder {
  const folder = folderOf(entry.results_path);
  return {
    folder,
    resultsBytes,
    read: (path) => repo.readBlob(entry.evidence_commit, `${folder}/${path}`),
    list: async () =>
      [...(await repo.blobIds(entry.evidence_commit, folder)).keys()].map((p) => p.slice(folder.length + 1)),
    expected: { resultsSha256: entry.results_sha256, runId: entry.run_id, protocolId: entry.protocol_id },
  };
}

/**
 * What the review refuses of a resolved entry (each refusal names the judge); nothing for an entry that cannot be
 * read or whose evidence contradicts the manifest (those are reported as they are).
 */
export async function refusalsOf(repo: GitRepo, resolved: ResolvedEntry, review: Reviewer): Promise<string[]> {
  const e = resolved.read.entry;
  if (e === null || resolved.results === null || resolved.problems.length + resolved.contradictions.length > 0) {
    return [];
  }
  return (await review(gitFolder(repo, e, resolved.results.bytes))).refusals;
}

/** The outcome of one entry in `approved verify`. */
export interface EntryReport {
  label: string;
  problems: string[];
}

/** The outcome of `approved verify`. */
export type VerifyApprovedReport =
  | { ok: false; manifestProblem: string }
  | { ok: true; branch: { name: string; commit: string }; entries: EntryReport[] };

/** Checks the manifest text and every entry against the repository. */
export async function verifyApproved(
  repo: GitRepo,
  manifest: string,
  options: {
    branch?: string;
    protocols: readonly KnownProtocol[];
    onProgress?(done: number, total: number): void;
    /** Runs every judge on each entry that resolves (review/'s conductor). */
    review?: Reviewer;
  },
): Promise<VerifyApprovedReport> {
  const read = readManifest(manifest);
  if (!read.ok) return { ok: false, manifestProblem: read.problem };
  const branch = await repo.defaultBranch(options.branch);
  const entries: { read: ReadEntry; report: EntryReport }[] = [];
  const identities = new Map<string, RunIdentity>();
  const reader = new EvidenceReader(repo);
  for (const entry of read.entries) {
    const resolved = await resolveEntry(repo, entry, branch, options.protocols, reader);
    const problems = [...resolved.problems, ...resolved.contradictions];
    // A review before its run or in the future, refused as `approved add` and the browser do (a hand-edited manifest).
    if (entry.entry !== null && resolved.results !== null) {
      problems.push(...reviewProblems(entry.entry.reviewed_at, runStartedAt(resolved.results.bytes), Date.now()));
    }
    if (options.review !== undefined) problems.push(...await refusalsOf(repo, resolved, options.review));
    options.onProgress?.(entries.length + 1, read.entries.length);
    entries.push({ read: entry, report: { label: entry.label, problems } });
    const identity = resolved.results === null ? null : runIdentity(resolved.results.bytes);
    if (entry.entry !== null && identity !== null) identities.set(entry.entry.run_id, identity);
  }
  const problems = crossEntryProblems(entries.map((e) => e.read.entry), identities);
  entries.forEach((e, i) => e.report.problems.push(...problems[i]!));
  return { ok: true, branch, entries: entries.map((e) => e.report) };
}

/** The run's started_at in a results.json (unknown when it cannot be read; reviewProblems then checks the future). */
function runStartedAt(bytes: Uint8Array): unknown {
  const parsed = parseStrictJson(new TextDecoder().decode(bytes));
  return parsed.ok ? (parsed.value as { run?: { started_at?: unknown } }).run?.started_at : undefined;
}

/** Why `approved add` refused. */
export class ApprovedAddError extends Error {
  override readonly name = "ApprovedAddError";
}

/** What `approved add` needs. */
export interface AddApprovedOptions {
  /** The report folder, relative to the repository root, "/"-separated. */
  folder: string;
  reviewPr: string;
  reviewedBy: string;
  /** The GitHub handle of the run's submitter (the pull request's author); a reproduction needs it on both sides. */
  submittedBy?: string;
  /** UTC time of the approval. */
  now: Date;
  branch?: string;
  /** Use this commit instead of the one that added the folder's results.json. */
  evidenceCommit?: string;
  /** Run ids of approved entries this result independently reproduces (another person's run of the protocol). */
  reproduces: readonly string[];
  /** Replace an entry with the same run id (the report changed and was reviewed again). */
  replace: boolean;
  protocols: readonly KnownProtocol[];
  /** Reads the frozen bundle, for the site's check of requests sent by reference. */
  readBundle: BundleRead;
  /** Runs every judge on the folder (review/'s conductor); without it, the site's independent check alone. */
  review?: Reviewer;
}

/** One reproduction the entry links, with what differs between the two setups. */
export interface LinkedReproduction {
  runId: string;
  differences: string[];
}

/** The entry written and the site's check of it. */
export interface AddApprovedResult {
  entry: ManifestEntry;
  check: CheckOutcome;
  manifest: string;
  reproductions: LinkedReproduction[];
}

function checkOptions(options: AddApprovedOptions): string {
  const resultsPath = `${options.folder}/results.json`;
  if (!isResultsPath(resultsPath)) {
    throw new ApprovedAddError(`Cannot add "${options.folder}": give the report folder inside the repository`);
  }
  if (!isReviewUrl(options.reviewPr)) {
    throw new ApprovedAddError(`Cannot add: --review-pr "${options.reviewPr}" is not an https URL of the review`);
  }
  if (!isHandle(options.reviewedBy)) {
    throw new ApprovedAddError(`Cannot add: --reviewed-by "${options.reviewedBy}" is not a GitHub handle`);
  }
  if (options.submittedBy !== undefined && !isHandle(options.submittedBy)) {
    throw new ApprovedAddError(`Cannot add: --submitted-by "${options.submittedBy}" is not a GitHub handle`);
  }
  return resultsPath;
}

/** The entries of the manifest as it is; refuses one with malformed entries. */
async function existingEntries(
  files: ManifestFiles,
): Promise<{ entries: ManifestEntry[]; withdrawn: WithdrawnEntry[] }> {
  const text = await files.readManifest();
  if (text === null) return { entries: [], withdrawn: [] };
  const existing = readManifest(text);
  if (!existing.ok) throw new ApprovedAddError(`Cannot add to bench/approved.json: ${existing.problem}`);
  const bad = existing.entries.filter((e) => e.entry === null);
  if (bad.length > 0) {
    throw new ApprovedAddError(
      `Cannot add to bench/approved.json: fix its malformed entries first (${
        bad.map((e) => `${e.label}: ${e.problems.join("; ")}`).join(" | ")
      })`,
    );
  }
  return { entries: existing.entries.map((e) => e.entry as ManifestEntry), withdrawn: existing.withdrawn };
}

/** The evidence commit: the one given, or the one that added results.json, unchanged since. */
async function evidenceCommitOf(
  repo: GitRepo,
  branch: { name: string; commit: string },
  options: AddApprovedOptions,
  resultsPath: string,
): Promise<string> {
  const evidence = options.evidenceCommit === undefined
    ? await repo.commitAdding(branch.name, resultsPath)
    : await repo.resolveCommit(options.evidenceCommit);
  if (evidence === null) {
    throw new ApprovedAddError(
      options.evidenceCommit === undefined
        ? `Cannot add "${options.folder}": ${resultsPath} is not committed on ${branch.name}; merge the reviewed report first`
        : `Cannot add "${options.folder}": ${options.evidenceCommit} is not a commit of this repository`,
    );
  }
  if (options.evidenceCommit === undefined) {
    const touching = await repo.commitsTouching(branch.name, options.folder);
    const later = touching.slice(0, touching.indexOf(evidence));
    if (later.length > 0) {
      throw new ApprovedAddError(
        `Cannot add "${options.folder}": it changed after ${evidence} (in ${later.join(", ")}); ` +
          "review the version you approve and pass --evidence-commit with the commit that introduced it",
      );
    }
  }
  return evidence;
}

/**
 * The draft entry, checked as `approved verify` checks every entry (resolveEntry: the commit in the default
 * branch's history, introducing the folder, the hashes, the ids) and by the site's independent check, which must
 * verify it; a simulated result is never approved.
 */
async function checkDraft(
  repo: GitRepo,
  draft: ManifestEntry,
  branch: { name: string; commit: string },
  options: AddApprovedOptions,
): Promise<CheckOutcome> {
  // Its own fields only: the reproductions it links are checked against the whole manifest.
  const read = readManifest(manifestText([{ ...draft, verification: "evidence-reviewed", reproduction_run_ids: [] }]));
  const entry = read.ok ? read.entries[0] : undefined;
  if (entry === undefined || entry.entry === null) {
    throw new ApprovedAddError(`Cannot add "${options.folder}": ${entry?.problems.join("; ") ?? "a malformed entry"}`);
  }
  const resolved = await resolveEntry(repo, entry, branch, options.protocols);
  const problems = [...resolved.problems, ...resolved.contradictions];
  if (problems.length > 0) {
    throw new ApprovedAddError(
      `Cannot add "${options.folder}": approved verify would reject the entry:\n  ${problems.join("\n  ")}`,
    );
  }
  if (options.review !== undefined && resolved.results !== null) {
    const verdict = await options.review(gitFolder(repo, draft, resolved.results.bytes));
    if (!verdict.approved) {
      throw new ApprovedAddError(
        `Cannot add "${options.folder}": the review refuses it:\n  ${verdict.refusals.join("\n  ")}`,
      );
    }
    return policyChecked(verdict.check, options.folder);
  }
  const check = await checkResult({
    resultsBytes: resolved.results?.bytes ?? null,
    expected: { resultsSha256: draft.results_sha256, runId: draft.run_id, protocolId: draft.protocol_id },
    readArtifact: (path) => repo.readBlob(draft.evidence_commit, `${options.folder}/${path}`),
    protocols: options.protocols,
    readBundle: options.readBundle,
  });
  if (check.state !== "verified") {
    throw new ApprovedAddError(
      `Cannot add "${options.folder}": the site's independent check says ${check.state}:\n  ${
        check.reasons.join("\n  ")
      }`,
    );
  }
  return policyChecked(check, options.folder);
}

/**
 * What the protocol keeps out of the manifest whatever the judges say: a simulation, and a nonconforming run
 * ("Nonconforming and draft runs stay outside the activated standard manifest, with their reports still
 * accessible"). Partial conforming runs and quality failures may be listed; the site labels them and never ranks them.
 */
function policyChecked(check: CheckOutcome, folder: string): CheckOutcome {
  if (check.facts?.simulated) {
    throw new ApprovedAddError(
      `Cannot add "${folder}": it is a simulation (the scripted engine, extensions.simulated_engine): it ` +
        "measures no hardware and is never approved",
    );
  }
  if (check.facts?.status === "nonconforming") {
    const why = check.facts.statusReasons.slice(0, 3).join("; ") || "results.json gives no reason";
    throw new ApprovedAddError(
      `Cannot add "${folder}": policy: its run is nonconforming (${why}); the protocol keeps nonconforming runs ` +
        "out of the approved list (their folders stay in the repository, readable): fix the causes and submit a " +
        "new run",
    );
  }
  return check;
}

/** Links the draft to the entries it reproduces, both marked independently reproduced, after the rule's checks. */
async function linkReproductions(
  repo: GitRepo,
  entries: ManifestEntry[],
  draft: ManifestEntry,
  draftIdentity: RunIdentity,
  reproduces: readonly string[],
): Promise<LinkedReproduction[]> {
  const linked: LinkedReproduction[] = [];
  for (const original of reproduces) {
    if (original === draft.run_id) throw new ApprovedAddError("Cannot mark a run as its own reproduction");
    const target = entries.find((e) => e.run_id === original && e.superseded_by === undefined);
    if (target === undefined) {
      throw new ApprovedAddError(`Cannot mark ${original} reproduced: it is not an approved entry`);
    }
    const bytes = await repo.readBlob(target.evidence_commit, target.results_path);
    const identity = bytes === null ? null : runIdentity(bytes);
    if (identity === null) {
      throw new ApprovedAddError(`Cannot mark ${original} reproduced: its results.json cannot be read at its commit`);
    }
    const problems = linkProblems(
      { identity, submittedBy: target.submitted_by },
      { identity: draftIdentity, submittedBy: draft.submitted_by },
    );
    if (problems.length > 0) throw new ApprovedAddError(`Cannot add the reproduction: ${problems.join("; ")}`);
    target.verification = "independently-reproduced";
    if (!target.reproduction_run_ids.includes(draft.run_id)) target.reproduction_run_ids.push(draft.run_id);
    draft.verification = "independently-reproduced";
    draft.reproduction_run_ids.push(original);
    linked.push({ runId: original, differences: setupDifferences(identity, draftIdentity) });
  }
  return linked;
}

/**
 * Appends the entry for one reviewed report and writes the manifest.
 * @throws {ApprovedAddError} when the report is not committed, changed after its commit, would not pass
 *   `approved verify` or the site's check, is a simulation, links a run it does not reproduce, or the manifest
 *   cannot take the entry.
 */
export async function addApproved(
  repo: GitRepo,
  files: ManifestFiles,
  options: AddApprovedOptions,
): Promise<AddApprovedResult> {
  const resultsPath = checkOptions(options);
  const { entries, withdrawn } = await existingEntries(files);
  const branch = await repo.defaultBranch(options.branch);
  const evidence = await evidenceCommitOf(repo, branch, options, resultsPath);
  if (await repo.isDirty(options.folder)) {
    throw new ApprovedAddError(
      `Cannot add "${options.folder}": it has uncommitted changes; the entry names committed bytes`,
    );
  }
  const resultsBytes = await repo.readBlob(evidence, resultsPath);
  if (resultsBytes === null) {
    throw new ApprovedAddError(`Cannot add "${options.folder}": ${resultsPath} is missing at ${evidence}`);
  }
  const draft = await draftEntry(resultsBytes, resultsPath, evidence, options);
  const clash = entries.findIndex((e) => e.run_id === draft.run_id && e.superseded_by === undefined);
  if (clash >= 0 && !options.replace) {
    throw new ApprovedAddError(
      `Cannot add "${options.folder}": run ${draft.run_id} is already approved; pass --replace after a new review`,
    );
  }
  if (withdrawn.some((w) => w.run_id === draft.run_id)) {
    throw new ApprovedAddError(`Cannot add "${options.folder}": run ${draft.run_id} was withdrawn from the list`);
  }
  // The old record stays, marked with the review that superseded it.
  const old = entries[clash];
  if (old !== undefined) {
    old.superseded_by = {
      results_sha256: draft.results_sha256,
      review_pr: draft.review_pr,
      reviewed_at: draft.reviewed_at,
    };
  }
  const identity = runIdentity(resultsBytes) as RunIdentity;
  const reproductions = await linkReproductions(repo, entries, draft, identity, options.reproduces);
  const check = await checkDraft(repo, draft, branch, options);
  // After the review (its reasons come first): a review clock before the run began, or in the future, is wrong.
  const late = reviewProblems(draft.reviewed_at, runStartedAt(resultsBytes), options.now.getTime());
  if (late.length > 0) throw new ApprovedAddError(`Cannot add "${options.folder}": ${late[0]}; check this clock`);
  entries.push(draft);
  const manifest = manifestText(entries, withdrawn);
  const reread = readManifest(manifest);
  const problems = reread.ok
    ? reread.entries.flatMap((e) => e.problems.map((p) => `${e.label}: ${p}`))
    : [reread.problem];
  if (problems.length > 0) throw new ApprovedAddError(`Cannot write the manifest: ${problems.join("; ")}`);
  await files.writeManifest(manifest);
  return { entry: draft, check, manifest, reproductions };
}

async function draftEntry(
  resultsBytes: Uint8Array,
  resultsPath: string,
  evidence: string,
  options: AddApprovedOptions,
): Promise<ManifestEntry> {
  const parsed = parseStrictJson(new TextDecoder().decode(resultsBytes));
  const result = parsed.ok ? parsed.value as { run?: { id?: unknown }; protocol?: { id?: unknown } } : {};
  const runId = result.run?.id;
  const protocolId = result.protocol?.id;
  if (typeof runId !== "string" || typeof protocolId !== "string") {
    throw new ApprovedAddError(`Cannot add "${options.folder}": results.json has no run id or protocol id`);
  }
  const reviewedAt = new Date(Math.floor(options.now.getTime() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  return {
    run_id: runId,
    protocol_id: protocolId,
    results_path: resultsPath,
    results_sha256: await sha256Hex(resultsBytes),
    evidence_commit: evidence,
    review_pr: options.reviewPr,
    reviewed_by: options.reviewedBy,
    reviewed_at: reviewedAt,
    verification: "evidence-reviewed",
    reproduction_run_ids: [],
    ...(options.submittedBy === undefined ? {} : { submitted_by: options.submittedBy }),
  };
}
