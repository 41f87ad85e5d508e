/**
 * The results repository the site tests read: one entry per case the site must show differently, built from the
 * tool's own result folders (see _fixture_repo.ts). `SCENARIOS` says what each entry is and how the site must show
 * it; the browser test and the build tests assert those outcomes.
 */
import { join } from "node:path";
import { addApproved, GitRepo, gitRunner, knownProtocols, MANIFEST_PATH } from "../../site/mod.ts";
import { type ManifestEntry, readManifest } from "../../site/web/manifest.js";
import {
  copyFolder,
  demoFolder,
  DRAFT_ID,
  dyingEngineFolder,
  git,
  PROTOCOLS_JSON,
  relabel,
  reviewedNow,
  sha256File,
  TEST_ACTIVATED,
} from "./_fixture_repo.ts";
import { SITE_BUNDLE } from "./_bundle.ts";

/** How the site must show an entry. */
export type Expected =
  | "ranked"
  | "partial"
  | "outside"
  | "failed"
  | "unverifiable"
  | "absent";

/** One scenario: a folder, its run id, what was done to it, and how the site must show it. */
export interface Scenario {
  name: string;
  runId: string;
  folder: string;
  changed: string;
  expected: Expected;
  /** A piece of the reason the site must give (failed / unverifiable). */
  reason?: RegExp;
}

export interface ResultsRepository {
  repo: string;
  protocolsFile: string;
  scenarios: Scenario[];
  /** The commit that added the result folders. */
  evidenceCommit: string;
  byName(name: string): Scenario;
}

const RTX3060 = "NVIDIA GeForce RTX 3060";
const A4000 = "NVIDIA RTX A4000";
const MODEL = "Qwen/Qwen3.8-Flash-Next";

/** Builds the repository under `root` (a temporary folder the caller removes). */
export async function buildResultsRepository(root: string): Promise<ResultsRepository> {
  const made = join(root, "made");
  const repo = join(root, "results-repo");
  const results = join(repo, "bench", "results");
  await Deno.mkdir(made, { recursive: true });
  await Deno.mkdir(results, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  const protocolsFile = join(root, "protocols.json");
  await Deno.writeTextFile(protocolsFile, PROTOCOLS_JSON);

  const scenarios: Scenario[] = [];
  const place = async (
    name: string,
    from: string,
    runId: string,
    changed: string,
    expected: Expected,
    reason?: RegExp,
  ) => {
    const folder = `bench/results/${name}`;
    await copyFolder(from, join(repo, folder));
    const scenario: Scenario = { name, runId, folder, changed, expected, ...(reason === undefined ? {} : { reason }) };
    scenarios.push(scenario);
    return join(repo, folder);
  };

  const demoA = await demoFolder(join(made, "a"));
  const demoB = await demoFolder(join(made, "b"), true);
  const demoC = await demoFolder(join(made, "c"));
  const demoD = await demoFolder(join(made, "d"));
  const demoE = await demoFolder(join(made, "e"));
  const dying = await dyingEngineFolder(made);
  const runIdOf = async (folder: string) =>
    JSON.parse(await Deno.readTextFile(join(folder, "results.json"))).run.id as string;
  const idE = await runIdOf(demoE);

  const activated = { protocolId: TEST_ACTIVATED, status: "complete" as const, model: MODEL, engine: "b7000-80fb11a" };
  let dir = await place("clean-3060", demoA, await runIdOf(demoA), "none", "ranked");
  await relabel(dir, { ...activated, gpu: RTX3060, quant: "IQ3_XXS" });
  dir = await place("reproduction-a4000", demoB, await runIdOf(demoB), "none; reproduces clean-3060", "ranked");
  await relabel(dir, { ...activated, gpu: A4000, quant: "IQ3_XXS" });
  dir = await place("partial-3060", dying, await runIdOf(dying), "none (the engine died at sanity-R3)", "partial");
  await relabel(dir, { ...activated, status: "partial", gpu: RTX3060, quant: "Q4_K_M" });
  dir = await place("nonconforming-sim", demoC, await runIdOf(demoC), "none (a labelled simulation)", "outside");
  await relabel(dir, { protocolId: TEST_ACTIVATED, gpu: RTX3060 });
  dir = await place("draft-protocol", demoD, await runIdOf(demoD), "none (draft protocol id)", "outside");
  await relabel(dir, { protocolId: DRAFT_ID, status: "complete", gpu: A4000, model: MODEL, quant: "IQ3_XXS" });

  const copyOfE = async (name: string, suffix: string, changed: string, expected: Expected, reason?: RegExp) => {
    const runId = `${idE}-${suffix}`;
    const folder = await place(name, demoE, runId, changed, expected, reason);
    await relabel(folder, { ...activated, runId, gpu: RTX3060, quant: "Q8_0" });
    return folder;
  };
  dir = await copyOfE(
    "false-verdict",
    "verdict",
    "outputs.jsonl: sanity-I2's answer made wrong ([9,2,1]) and re-hashed; results.json still says passed",
    "failed",
    /sanity-I2: results\.json says passed, the saved output fails/,
  );
  await falsifyAnswer(dir);
  await copyOfE(
    "manifest-hash",
    "hash",
    "the manifest's results_sha256 has one wrong digit",
    "failed",
    /results\.json has SHA-256 [0-9a-f]{64}, but the reviewed hash in the manifest is/,
  );
  dir = await copyOfE(
    "artifact-missing",
    "missing",
    "config.json left out of the commit (results.json lists it)",
    "failed",
    /artifact config\.json is missing from the evidence/,
  );
  await Deno.remove(join(dir, "config.json"));
  await copyOfE(
    "outputs-changed",
    "outputs",
    "one byte of outputs.jsonl changed in a later commit, which the entry names as evidence",
    "failed",
    /artifact outputs\.jsonl has SHA-256 [0-9a-f]{64}, but results\.json records [0-9a-f]{64}: its bytes changed/,
  );
  dir = await copyOfE(
    "schema-v2",
    "schema",
    "results.json schema_version 2",
    "unverifiable",
    /schema_version 2/,
  );
  await relabel(dir, { edit: (r) => (r.schema_version = 2) });
  dir = await copyOfE(
    "unknown-protocol",
    "protocol",
    "protocol id strata-other-v9",
    "unverifiable",
    /protocol id "strata-other-v9", unknown to this site/,
  );
  await relabel(dir, { protocolId: "strata-other-v9" });
  await copyOfE("withdrawn", "withdrawn", "approved, then removed from the manifest", "absent");
  const legacy = join(repo, "bench/results/legacy-report");
  await Deno.mkdir(legacy, { recursive: true });
  await Deno.writeTextFile(
    join(legacy, "results.json"),
    `${JSON.stringify({ schema: 1, gpu: RTX3060, tokens_per_second: 41.7 })}\n`,
  );
  scenarios.push({
    name: "legacy-report",
    runId: "legacy-2025-rtx3060",
    folder: "bench/results/legacy-report",
    changed: "a legacy community report (no format field)",
    expected: "unverifiable",
    reason: /legacy and other reports are not standard/,
  });

  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "benchmark results");
  const evidenceCommit = (await git(repo, "rev-parse", "HEAD")).stdout.trim();

  // After review: one byte of outputs.jsonl changes (a letter of reasoning text, so the JSON stays valid).
  const outputs = join(repo, "bench/results/outputs-changed/outputs.jsonl");
  const bytes = await Deno.readFile(outputs);
  const at = new TextDecoder().decode(bytes).indexOf("Let me think");
  bytes[at] = "l".charCodeAt(0);
  await Deno.writeFile(outputs, bytes);
  await git(repo, "commit", "-q", "-am", "outputs edited after review");
  const afterEdit = (await git(repo, "rev-parse", "HEAD")).stdout.trim();

  // The maintainer's approvals: `approved add` for the reviewed results, by hand for the rest.
  const gitRepo = new GitRepo(gitRunner(repo));
  const protocols = knownProtocols(await Deno.readFile(protocolsFile));
  const manifestPath = join(repo, MANIFEST_PATH);
  const files = {
    readManifest: async () => {
      try {
        return await Deno.readTextFile(manifestPath);
      } catch {
        return null;
      }
    },
    writeManifest: (text: string) => Deno.writeTextFile(manifestPath, text),
  };
  const add = (name: string, reproduces: string[] = []) =>
    addApproved(gitRepo, files, {
      folder: `bench/results/${name}`,
      reviewPr: `https://github.com/example/results/pull/${scenarios.findIndex((s) => s.name === name) + 1}`,
      reviewedBy: "maintainer-one",
      // Each result is another person's submission.
      submittedBy: `submitter-${scenarios.findIndex((s) => s.name === name) + 1}`,
      now: new Date(),
      reproduces,
      replace: false,
      protocols,
      ...SITE_BUNDLE,
    });
  const byHand = async (name: string, change: Partial<ManifestEntry> = {}): Promise<ManifestEntry> => {
    const scenario = scenarios.find((s) => s.name === name)!;
    const resultsPath = `${scenario.folder}/results.json`;
    return {
      run_id: scenario.runId,
      protocol_id: TEST_ACTIVATED,
      results_path: resultsPath,
      results_sha256: await sha256File(join(repo, resultsPath)),
      evidence_commit: evidenceCommit,
      review_pr: "https://github.com/example/results/pull/99",
      reviewed_by: "maintainer-two",
      reviewed_at: reviewedNow(),
      verification: "evidence-reviewed",
      reproduction_run_ids: [],
      ...change,
    };
  };
  await Deno.mkdir(join(repo, "bench"), { recursive: true });
  await add("clean-3060");
  await add("reproduction-a4000", [scenarios[0]!.runId]);
  await add("partial-3060");
  // approved add refuses a simulation; a maintainer who lists one by hand gets it shown with its labels.
  const simulated = JSON.parse(await Deno.readTextFile(manifestPath));
  simulated.entries.push(await byHand("nonconforming-sim"));
  await Deno.writeTextFile(manifestPath, `${JSON.stringify(simulated, null, 2)}\n`);
  for (const name of ["draft-protocol", "withdrawn"]) await add(name);

  const manifest = JSON.parse(await Deno.readTextFile(manifestPath));
  const hashEntry = await byHand("manifest-hash");
  hashEntry.results_sha256 = hashEntry.results_sha256.slice(0, -1) +
    (hashEntry.results_sha256.endsWith("0") ? "1" : "0");
  manifest.entries.push(
    await byHand("false-verdict"),
    hashEntry,
    await byHand("artifact-missing"),
    await byHand("outputs-changed", { evidence_commit: afterEdit }),
    await byHand("schema-v2"),
    await byHand("unknown-protocol", { protocol_id: "strata-other-v9" }),
    await byHand("legacy-report", { protocol_id: "legacy" }),
    await byHand("clean-3060", {
      run_id: "missing-commit",
      evidence_commit: "0123456789abcdef0123456789abcdef01234567",
    }),
    await byHand("clean-3060", { run_id: "missing-path", results_path: "bench/results/not-there/results.json" }),
    { ...(await byHand("clean-3060")), run_id: "malformed-entry", reviewed_at: "yesterday" },
  );
  scenarios.push(
    {
      name: "missing-commit",
      runId: "missing-commit",
      folder: "bench/results/clean-3060",
      changed: "evidence_commit names no commit of the repository",
      expected: "unverifiable",
      reason: /is not a commit of this repository/,
    },
    {
      name: "missing-path",
      runId: "missing-path",
      folder: "bench/results/not-there",
      changed: "results_path does not exist at evidence_commit",
      expected: "unverifiable",
      reason: /does not exist at evidence_commit/,
    },
    {
      name: "malformed-entry",
      runId: "malformed-entry",
      folder: "bench/results/clean-3060",
      changed: 'reviewed_at is "yesterday"',
      expected: "unverifiable",
      reason: /reviewed_at: expected a UTC ISO 8601 time/,
    },
  );
  await Deno.writeTextFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  if (!readManifest(await Deno.readTextFile(manifestPath)).ok) throw new Error("fixture manifest unreadable");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "approve reviewed results");

  // Withdrawal: the entry leaves the current manifest; git history keeps it.
  const withdrawnId = scenarios.find((s) => s.name === "withdrawn")!.runId;
  manifest.entries = manifest.entries.filter((e: ManifestEntry) => e.run_id !== withdrawnId);
  await Deno.writeTextFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await git(repo, "commit", "-q", "-am", "withdraw a result (reason in its review PR)");

  return {
    repo,
    protocolsFile,
    scenarios,
    evidenceCommit,
    byName(name) {
      const found = scenarios.find((s) => s.name === name);
      if (found === undefined) throw new Error(`no scenario ${name}`);
      return found;
    },
  };
}

/** Makes sanity-I2's saved answer wrong and re-hashes outputs.jsonl in results.json (results still claim a pass). */
async function falsifyAnswer(folder: string): Promise<void> {
  const path = join(folder, "outputs.jsonl");
  const lines = (await Deno.readTextFile(path)).split("\n");
  const index = lines.findIndex((l) => l.includes('"request_id":"sanity-I2"'));
  lines[index] = (lines[index] as string).replace('"final_answer":"[-4,1,2,9]"', '"final_answer":"[9,2,1]"');
  await Deno.writeTextFile(path, lines.join("\n"));
  const sha = await sha256File(path);
  // Edited by hand, not relabelled: the measured digest the run recorded still names the old answer.
  const results = join(folder, "results.json");
  const r = JSON.parse(await Deno.readTextFile(results));
  for (const a of r.artifacts) if (a.path === "outputs.jsonl") a.sha256 = sha;
  await Deno.writeTextFile(results, `${JSON.stringify(r, null, 2)}\n`);
}
