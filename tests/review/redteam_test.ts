/**
 * The red team: every forgery of tests/review/_forgeries.ts, committed to a results repository, is refused by
 * `approved add` (with the review conductor the command uses) with its named reason, and nothing in the
 * repository changes; the genuine result of the scripted engine is approved. The test prints which judges caught
 * each forgery (report validator, site check, status rules; "disagree" when the two scorers read it differently).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadBundle } from "../../fixtures/mod.ts";
import { reviewFolder } from "../../review/mod.ts";
import type { FullVerdict } from "../../review/review.ts";
import {
  addApproved,
  ApprovedAddError,
  buildSite,
  GitRepo,
  gitRunner,
  knownProtocols,
  MANIFEST_PATH,
  readWebFile,
  type ReviewedFolder,
} from "../../site/mod.ts";
import { type ManifestEntry, manifestText } from "../../site/web/manifest.js";
import { cleanup, runScripted, SCRIPTED_DECLARED, type ScriptedRun } from "../scripted/_harness.ts";
import { copyFolder, git, PROTOCOLS_JSON, sha256File, TEST_ACTIVATED } from "../site/_fixture_repo.ts";
import { forge, forgeries } from "./_forgeries.ts";
import { SITE_BUNDLE } from "../site/_bundle.ts";

const protocols = knownProtocols(new TextEncoder().encode(PROTOCOLS_JSON));
const bundle = await loadBundle();

interface Setup {
  run: ScriptedRun;
  repo: string;
  gitRepo: GitRepo;
  manifest: () => Promise<string | null>;
}

async function setUp(): Promise<Setup> {
  const run = await runScripted();
  const repo = join(run.dir, "results-repo");
  await Deno.mkdir(join(repo, "bench/results"), { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await copyFolder(run.report.folder, join(repo, "bench/results/genuine"));
  await copyFolder(run.report.folder, join(repo, "bench/results/genuine-again"));
  for (const forgery of forgeries({ activated: TEST_ACTIVATED, unknown: "strata-other-v9" })) {
    await forge(run.report.folder, join(repo, `bench/results/${forgery.name}`), forgery);
  }
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "results");
  const manifestPath = join(repo, MANIFEST_PATH);
  const manifest = () => Deno.readTextFile(manifestPath).catch(() => null);
  return { run, repo, gitRepo: new GitRepo(gitRunner(repo)), manifest };
}

/** `approved add` as the command runs it, the conductor's verdict kept. */
function add(setup: Setup, name: string, replace = false, now = new Date()) {
  let verdict: FullVerdict | null = null;
  const manifestPath = join(setup.repo, MANIFEST_PATH);
  const attempt = addApproved(setup.gitRepo, {
    readManifest: setup.manifest,
    writeManifest: async (text) => {
      await Deno.mkdir(join(setup.repo, "bench"), { recursive: true });
      await Deno.writeTextFile(manifestPath, text);
    },
  }, {
    folder: `bench/results/${name}`,
    reviewPr: "https://github.com/example/results/pull/1",
    reviewedBy: "maintainer-one",
    now,
    reproduces: [],
    replace,
    protocols,
    ...SITE_BUNDLE,
    review: async (folder: ReviewedFolder) => (verdict = await reviewFolder(folder, protocols, bundle)),
  });
  return { attempt, verdict: () => verdict };
}

/**
 * Lists `entries` in the manifest by hand, the last one's results.json given its run id (a copy needs its own) and
 * committed, and builds the site with the review; says whether the last entry's results.json was published.
 */
async function builtWithReview(setup: Setup, entries: Record<string, unknown>[]) {
  const last = entries.at(-1)!;
  const results = join(setup.repo, last.results_path as string);
  const edited = JSON.parse(await Deno.readTextFile(results));
  edited.run.id = last.run_id;
  await Deno.writeTextFile(results, `${JSON.stringify(edited, null, 2)}\n`);
  await git(setup.repo, "commit", "-q", "-am", "a copy with its own run id");
  last.evidence_commit = (await git(setup.repo, "rev-parse", "HEAD")).stdout.trim();
  last.results_sha256 = await sha256File(results);
  await Deno.writeTextFile(join(setup.repo, MANIFEST_PATH), manifestText(entries as unknown as ManifestEntry[]));
  await git(setup.repo, "add", "-A");
  await git(setup.repo, "commit", "-q", "-m", "an entry listed by hand");
  const written = new Set<string>();
  const report = await buildSite(new GitRepo(gitRunner(setup.repo)), {
    write: (path) => Promise.resolve(void written.add(path)),
  }, {
    protocols,
    ...SITE_BUNDLE,
    protocolDeclarations: null,
    readWebFile,
    review: (folder) => reviewFolder(folder, protocols, bundle),
  });
  return { entries: report.entries, refusedEvidence: written.has(`evidence/sha256/${last.results_sha256}`) };
}

function judgesOf(verdict: FullVerdict | null): string {
  if (verdict === null) return "(refused before review)";
  const caught: string[] = verdict.judgements.filter((j) => j.problems.length > 0).map((j) => j.judge);
  if (verdict.refusals.some((r) => r.startsWith("the two scorers disagree"))) caught.push("disagree");
  if (verdict.refusals.some((r) => r.startsWith("policy:"))) caught.push("policy (simulation)");
  return caught.join(" + ");
}

Deno.test("every forgery is refused by approved add with its reason; the genuine result is approved", async () => {
  const setup = await setUp();
  try {
    const rows: { kind: string; name: string; judges: string }[] = [];
    const corpus = forgeries({ activated: TEST_ACTIVATED, unknown: "strata-other-v9" });
    for (const forgery of corpus) {
      const { attempt, verdict } = add(setup, forgery.name);
      const error = await attempt.then(() => null, (e) => e);
      assert.ok(error instanceof ApprovedAddError, `${forgery.name} was approved`);
      // Refused by the review itself (or by approved verify's entry checks before it), never as a duplicate run.
      assert.notEqual(verdict()?.approved, true, `${forgery.name} passed every judge`);
      const folder = `bench/results/${forgery.name}`;
      assert.ok(error.message.includes(folder), `${forgery.name}: the refusal names the folder`);
      const why = error.message.replaceAll(folder, "<folder>");
      assert.match(why, forgery.reason, `${forgery.name}: ${why}`);
      assert.equal(await setup.manifest(), null, `${forgery.name}: a refused add wrote the manifest`);
      rows.push({ kind: forgery.kind, name: forgery.name, judges: judgesOf(verdict()) });
    }
    // A review clock before the run began is refused (the plausibility table's review row), nothing written.
    const early = add(setup, "genuine", false, new Date("2025-06-01T00:00:00Z"));
    await assert.rejects(
      early.attempt,
      /implausible: the entry's reviewed_at 2025-06-01T00:00:00Z is before the run.*check this clock/,
    );
    assert.equal(await setup.manifest(), null);
    const genuine = add(setup, "genuine");
    await genuine.attempt;
    assert.equal(genuine.verdict()?.approved, true, genuine.verdict()?.refusals.join("\n"));
    const approvedManifest = await setup.manifest();
    // Replaced entries: the genuine run id again, without and with --replace, from a forged copy.
    const replaced = add(setup, "partial-claimed-nonconforming", true);
    await assert.rejects(replaced.attempt, ApprovedAddError);
    rows.push({ kind: "replaced entries", name: "replace-with-forgery", judges: judgesOf(replaced.verdict()) });
    assert.equal(await setup.manifest(), approvedManifest);
    assert.equal((await git(setup.repo, "status", "--porcelain", "bench/results")).stdout, "");

    // A genuine replacement after a new review: the old entry stays, marked superseded by the new one.
    const again = add(setup, "genuine-again", true);
    await again.attempt;
    const entries = JSON.parse((await setup.manifest())!).entries;
    assert.equal(entries.length, 2);
    assert.equal(entries[0].superseded_by.review_pr, "https://github.com/example/results/pull/1");
    assert.equal(entries[0].superseded_by.results_sha256, entries[1].results_sha256);
    assert.equal(entries[1].superseded_by, undefined);

    // site build runs the same review per entry: a forgery listed by hand is refused, named with its judge, and
    // published without its evidence; the genuine entries (the superseded one too) pass.
    const byHand = { ...entries[1], run_id: "cpu-name-by-hand", results_path: "bench/results/cpu-name/results.json" };
    const site = await builtWithReview(setup, [...entries, byHand]);
    assert.deepEqual(site.entries.map((e) => e.refusals.length === 0), [true, true, false]);
    assert.match(site.entries[2]!.refusals.join("\n"), /^report validator \(bench\/results\/cpu-name\): .*hardware/m);
    assert.equal(site.refusedEvidence, false, "a refused entry's results.json was published");

    assert.ok(rows.length >= 40, `${rows.length} forgeries`);
    const table = rows.map((r) => `| ${r.kind} | ${r.name} | ${r.judges} |`).join("\n");
    const tally = new Map<string, number>();
    for (const r of rows) tally.set(r.judges, (tally.get(r.judges) ?? 0) + 1);
    console.log(`\nred team: ${rows.length} forgeries, 0 approved; genuine scripted result approved\n`);
    console.log(`| kind | forgery | caught by |\n| --- | --- | --- |\n${table}\n`);
    console.log([...tally].map(([judges, n]) => `${n}\t${judges}`).join("\n"));
  } finally {
    await cleanup(setup.run);
  }
});

Deno.test("a genuine nonconforming run passes every judge and is still refused by policy; the manifest is untouched", async () => {
  // The engine's commit is not given: the run is honestly nonconforming (missing required identity).
  const run = await runScripted({
    run: { declared: { ...SCRIPTED_DECLARED, engineCommit: null } },
  });
  try {
    assert.equal(run.result.run.status, "nonconforming");
    assert.deepEqual(run.problems, [], "the result itself is valid");
    const repo = join(run.dir, "results-repo");
    await Deno.mkdir(join(repo, "bench/results"), { recursive: true });
    await git(repo, "init", "-q", "-b", "main");
    await copyFolder(run.report.folder, join(repo, "bench/results/nonconforming"));
    await git(repo, "add", "-A");
    await git(repo, "commit", "-q", "-m", "results");
    const setup: Setup = {
      run,
      repo,
      gitRepo: new GitRepo(gitRunner(repo)),
      manifest: () => Deno.readTextFile(join(repo, MANIFEST_PATH)).catch(() => null),
    };
    const { attempt, verdict } = add(setup, "nonconforming");
    const error = await attempt.then(() => null, (e) => e);
    assert.equal(verdict()?.approved, true, "every judge accepts the honest result");
    assert.ok(error instanceof ApprovedAddError, "a nonconforming run was approved");
    assert.match(
      error.message,
      /bench\/results\/nonconforming": policy: its run is nonconforming \(.*commit.*\); the protocol keeps/,
    );
    assert.equal(await setup.manifest(), null);
  } finally {
    await cleanup(run);
  }
});
