// @ts-check
/**
 * The words the page script (app.js) and the pages (page_index.js, page_result.js) share: a verified entry and
 * the site's state. Both sides import these types from here, so neither imports the other.
 */

/** @typedef {import("./check_result.js").CheckOutcome} CheckOutcome */
/** @typedef {import("./manifest.js").ReadEntry} ReadEntry */
/** @typedef {import("./verify_entry.js").SiteEntry} SiteEntry */

/** @typedef {"complete" | "partial" | "nonconforming" | "draft" | "failed" | "unverifiable"} EntryKind */

/**
 * An entry with its verification. `checkedAt`: when this browser checked it, when the verdict is one it
 * remembered from an earlier visit (the page says so); null when it was checked now.
 * @typedef {{ site: SiteEntry, read: ReadEntry | null, outcome: CheckOutcome, kind: EntryKind,
 *   checkedAt: string | null }} VerifiedEntry
 */

/**
 * What the pages draw: the build's data, the entries verified so far, how far the verification is, and the results
 * the manifest withdrew.
 * @typedef {{ branch: string, commit: string, manifestProblem: string | null, entries: VerifiedEntry[],
 *   root: string, seconds: number, total: number, simulated: boolean,
 *   withdrawn: import("./manifest.js").WithdrawnEntry[] }} SiteState
 */

/** @param {CheckOutcome} outcome @returns {EntryKind} */
export function kindOf(outcome) {
  if (outcome.state !== "verified" || outcome.facts === null) {
    return outcome.state === "failed" ? "failed" : "unverifiable";
  }
  if (outcome.facts.stage !== "activated") return "draft";
  if (outcome.facts.status === "nonconforming") return "nonconforming";
  return outcome.facts.status === "partial" ? "partial" : "complete";
}
