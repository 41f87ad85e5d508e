/**
 * A throwaway site of the demo's result, for a newcomer without a GPU (`demo --site DIR`): the demo's result
 * folder, committed into a new git repository of its own with a one-entry manifest written here (no review, no
 * `approved add`: a simulation is never approvable), built as a site whose every page says SIMULATED. The
 * repository is a scratch folder, not a results repository: nothing in it is offered for approval.
 */
import { buildSite, type BuildSiteReport, type SiteWriter } from "./_build.ts";
import { GitError, GitRepo, type GitRunner } from "./_git.ts";
import type { KnownProtocol } from "./_entries.ts";
import { MANIFEST_PATH, manifestText, sha256Hex } from "./web/mod.js";

/** What the demo site needs. */
export interface DemoSiteOptions {
  /** git in the scratch repository's folder. */
  git: GitRunner;
  /** The result folder's path inside the repository ("bench/results/<name>"). */
  resultFolder: string;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
  out: SiteWriter;
  protocols: readonly KnownProtocol[];
  readWebFile(name: string): Promise<Uint8Array>;
  readBundleFile(name: string): Promise<Uint8Array | null>;
}

/** Commits with a fixed identity, so no git configuration of the person is needed. */
const IDENTITY = [
  "-c",
  "user.name=strata-bench demo",
  "-c",
  "user.email=demo@example.invalid",
  "-c",
  "commit.gpgsign=false",
];

async function git(run: GitRunner, ...args: string[]): Promise<string> {
  const out = await run(args);
  if ("error" in out) throw new GitError(`Cannot run git: ${out.error}`);
  if (out.code !== 0) {
    throw new GitError(`git ${args[0]} failed in the demo site's scratch repository: ${out.stderr.trim()}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * Commits the demo's result and a manifest listing it into a new repository, and builds the simulated site.
 * `options.readFile`/`writeFile` take paths relative to the repository.
 * @throws {GitError} when git cannot make the scratch repository.
 */
export async function buildDemoSite(options: DemoSiteOptions): Promise<BuildSiteReport> {
  const run = options.git;
  await git(run, "init", "-q", "-b", "main");
  await git(run, "add", "-A");
  await git(run, ...IDENTITY, "commit", "-q", "-m", "the demo's simulated result");
  const commit = await git(run, "rev-parse", "HEAD");
  const resultsPath = `${options.resultFolder}/results.json`;
  const bytes = await options.readFile(resultsPath);
  const result = JSON.parse(new TextDecoder().decode(bytes));
  const entry = {
    run_id: String(result.run?.id),
    protocol_id: String(result.protocol?.id),
    results_path: resultsPath,
    results_sha256: await sha256Hex(bytes),
    evidence_commit: commit,
    review_pr: "https://example.invalid/simulated-demo-never-reviewed",
    reviewed_by: "nobody-simulated-demo",
    reviewed_at: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    verification: "evidence-reviewed",
    reproduction_run_ids: [],
  };
  await options.writeFile(MANIFEST_PATH, new TextEncoder().encode(manifestText([entry])));
  await git(run, "add", "-A");
  await git(run, ...IDENTITY, "commit", "-q", "-m", "a manifest for the throwaway demo site (never reviewed)");
  return await buildSite(new GitRepo(run), options.out, {
    branch: "main",
    protocols: options.protocols,
    protocolDeclarations: null,
    readWebFile: options.readWebFile,
    readBundleFile: options.readBundleFile,
    simulated: true,
  });
}
