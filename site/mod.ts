/**
 * The approved-results website and its manifest: `site build` (a static site from bench/approved.json on the
 * default branch, evidence read from git at each entry's evidence_commit), `site serve` (loopback static server),
 * `site verify` (the independent check on one folder), and `approved verify` / `add` / `withdraw` (the manifest).
 *
 * The browser code lives in web/ as plain JavaScript modules; it shares no code with the runner, the scorer or the
 * result contract, because it is the check that they are right.
 */
export {
  buildSite,
  type BuildSiteOptions,
  type BuildSiteReport,
  type BuiltEntry,
  ManifestMissingError,
  type SiteWriter,
} from "./_build.ts";
export {
  addApproved,
  type AddApprovedOptions,
  type AddApprovedResult,
  ApprovedAddError,
  type EntryReport,
  type ManifestFiles,
  type ReviewedFolder,
  type Reviewer,
  type ReviewVerdict,
  verifyApproved,
  type VerifyApprovedReport,
} from "./_approved.ts";
export { buildDemoSite } from "./_demo_site.ts";
export { withdrawApproved } from "./_withdraw.ts";
export { GitError, GitRepo, type GitRunner } from "./_git.ts";
export { BUILD_MARKER, openSiteOutput, type OutputFiles, type SiteOutput, SiteOutputError } from "./_output.ts";
export { type SiteFileReader, sitePathOf, siteRequestHandler } from "./_serve.ts";
export { verifyFolder } from "./_verify_folder.ts";
export { knownProtocols, ProtocolsFileError } from "./_protocols.ts";
export { folderReader, gitRunner, outputFiles, readWebFile } from "./_deps.ts";
export { slugFor, WEB_FILES } from "./_pages.ts";
export {
  type CheckOutcome,
  checkResult,
  KNOWN_PROTOCOLS,
  type KnownProtocol,
  MANIFEST_PATH,
  type ManifestEntry,
  readManifest,
  type ResultFacts,
  STATUS_RULES_WORDS,
} from "./web/mod.js";
