/**
 * The approved-results website and its manifest: `site build` (a static site from bench/approved.json on the
 * default branch, evidence read from git at each entry's evidence_commit), `site serve` (loopback static server),
 * `site verify` (the independent check on one folder), and `approved verify` / `add` / `withdraw` (the manifest).
 *
 * The browser code lives in web/ as plain JavaScript modules; it shares no code with the runner, the scorer or the
 * result contract, because it is the check that they are right.
 */
export { buildSite, ManifestMissingError } from "./_build.ts";
export {
  addApproved,
  ApprovedAddError,
  type BundleRead,
  type ManifestFiles,
  type ReviewedFolder,
  type Reviewer,
  type ReviewVerdict,
  verifyApproved,
} from "./_approved.ts";
export { buildDemoSite } from "./_demo_site.ts";
export { resultsRepositoryKit } from "./_kit.ts";
export { withdrawApproved } from "./_withdraw.ts";
export { GitError, GitRepo } from "./_git.ts";
export { openSiteOutput, SiteOutputError } from "./_output.ts";
export { siteRequestHandler } from "./_serve.ts";
export { verifyFolder } from "./_verify_folder.ts";
export { knownProtocols, ProtocolsFileError } from "./_protocols.ts";
export { folderReader, gitRunner, outputFiles, readIfPresent, readWebFile } from "./_deps.ts";
export {
  type CheckOutcome,
  checkResult,
  KNOWN_PROTOCOLS,
  type KnownProtocol,
  MANIFEST_PATH,
  STATUS_RULES_WORDS,
} from "./web/mod.js";
