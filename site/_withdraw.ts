/**
 * `approved withdraw`: a result leaves the list with its reason (the protocol: a withdrawn entry leaves the manifest
 * with its reason). Every entry of the run id (the current one and those it superseded) moves out of `entries`; the
 * top-level `withdrawn` list keeps the run id, the hash that was approved, the reason and the withdrawing review. An
 * entry that named the run as its reproduction no longer does. A refusal writes nothing.
 */
import { ApprovedAddError, type ManifestFiles } from "./_approved.ts";
import { isReviewUrl, manifestText, readManifest, type WithdrawnEntry } from "./web/mod.js";

/** What `approved withdraw` needs. */
export interface WithdrawOptions {
  runId: string;
  reason: string;
  reviewPr: string;
  /** UTC time of the withdrawal. */
  now: Date;
}

/**
 * Moves the run's entries into `withdrawn` and writes the manifest; returns the withdrawn record.
 * @throws {ApprovedAddError} for an unknown or already withdrawn run id, a blank reason, a review that is not an
 *   https URL, or a manifest that is missing or malformed.
 */
export async function withdrawApproved(files: ManifestFiles, options: WithdrawOptions): Promise<WithdrawnEntry> {
  const refuse = (why: string) => new ApprovedAddError(`Cannot withdraw ${options.runId}: ${why}`);
  if (options.reason.trim() === "" || options.reason.length > 2000) {
    throw refuse("--reason needs the reason in words (at most 2000 characters)");
  }
  if (!isReviewUrl(options.reviewPr)) throw refuse(`--review-pr "${options.reviewPr}" is not an https URL`);
  const text = await files.readManifest();
  if (text === null) throw refuse("there is no bench/approved.json");
  const read = readManifest(text);
  if (!read.ok) throw refuse(`bench/approved.json is malformed: ${read.problem}`);
  const bad = read.entries.filter((e) => e.entry === null);
  if (bad.length > 0) {
    throw refuse(`fix the manifest's malformed entries first (${bad.map((e) => e.label).join(", ")})`);
  }
  if (read.withdrawn.some((w) => w.run_id === options.runId)) throw refuse("it was withdrawn already");
  const entries = read.entries.map((e) => e.entry!);
  const current = entries.find((e) => e.run_id === options.runId && e.superseded_by === undefined);
  if (current === undefined) throw refuse("no entry of the manifest has that run id");
  const kept = entries.filter((e) => e.run_id !== options.runId);
  for (const entry of kept) {
    entry.reproduction_run_ids = entry.reproduction_run_ids.filter((id) => id !== options.runId);
    if (entry.reproduction_run_ids.length === 0) entry.verification = "evidence-reviewed";
  }
  const withdrawn: WithdrawnEntry = {
    run_id: options.runId,
    results_sha256: current.results_sha256,
    reason: options.reason,
    review_pr: options.reviewPr,
    withdrawn_at: new Date(Math.floor(options.now.getTime() / 1000) * 1000).toISOString().replace(".000Z", "Z"),
  };
  const manifest = manifestText(kept, [...read.withdrawn, withdrawn]);
  const reread = readManifest(manifest);
  const problems = reread.ok ? reread.entries.flatMap((e) => e.problems) : [reread.problem];
  if (problems.length > 0) throw refuse(`the manifest would not read: ${problems.join("; ")}`);
  await files.writeManifest(manifest);
  return withdrawn;
}
