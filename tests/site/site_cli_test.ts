/**
 * `approved verify`, `approved add` and `site build` on a results repository made of the tool's own result folders
 * (see _results_repo.ts), run as a person runs them, under the tasks' narrow permission sets.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildResultsRepository } from "./_results_repo.ts";
import { copyFolder, DENO, git, REPO_ROOT, run, sha256File, strataBench } from "./_fixture_repo.ts";
import { cleanup, runScripted } from "../scripted/_harness.ts";

const root = await Deno.makeTempDir({ prefix: "strata-site-cli-" });
const fixture = await buildResultsRepository(root);
const repo = fixture.repo;
const approvedPermissions = ["-P=approved", `--allow-write=${join(repo, "bench")}`];
const buildPermissions = (out: string) => ["-P=site-build", `--allow-write=${out}`];

globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

Deno.test("approved verify names every entry whose commit, path, hash, format or protocol is wrong, and exits 1", async () => {
  const out = await strataBench(
    ["approved", "verify", "--repo", repo, "--protocols", fixture.protocolsFile],
    approvedPermissions,
  );
  assert.equal(out.code, 1, out.stderr);
  for (const scenario of fixture.scenarios) {
    if (scenario.expected === "absent") {
      assert.doesNotMatch(out.stdout, new RegExp(scenario.runId));
      continue;
    }
    // Every entry is refused: the fixtures relabel demo results (see _fixture_repo.ts), which is a forgery the
    // review catches (report's validator reads the measured digest; the site's check recomputes everything).
    assert.match(out.stdout, new RegExp(`  BAD  ${scenario.runId}\\n`), scenario.name);
  }
  // The relabelled fixtures record their digest again; the false verdict was edited after it, and both scorers say so.
  assert.match(
    out.stdout,
    /report validator \(bench\/results\/false-verdict\): results\.json \/extensions\/measured_digest: changed after the run/,
  );
  assert.match(
    out.stdout,
    /site check \(bench\/results\/false-verdict\): changed after the run \(the measured digest\): outputs\.jsonl line \d+/,
  );
  assert.match(out.stdout, /report validator \(bench\/results\/clean-3060\): results\.json \/protocol\/id: expected/);
  // The hashes of false-verdict match: the recomputation catches it; the simulation is named as one.
  assert.match(out.stdout, /site check \(bench\/results\/false-verdict\): sanity-I2: results\.json says passed/);
  assert.match(out.stdout, /policy: bench\/results\/nonconforming-sim is a simulation/);
  assert.match(
    out.stdout,
    /evidence_commit 0123456789abcdef0123456789abcdef01234567 is not a commit of this repository/,
  );
  assert.match(out.stdout, /bench\/results\/not-there\/results\.json does not exist at evidence_commit/);
  assert.match(out.stdout, /artifact config\.json is missing at evidence_commit/);
  assert.match(out.stdout, /reviewed_at: expected a UTC ISO 8601 time .*"yesterday"/);
  assert.match(out.stdout, /15 of 15 entries have problems/);
});

Deno.test("in a shallow clone an entry whose commit is not there says to fetch the full history", async () => {
  const shallow = join(root, "shallow");
  await git(root, "clone", "-q", "--depth", "1", `file://${repo}`, shallow);
  const out = await strataBench(
    ["approved", "verify", "--repo", shallow, "--protocols", fixture.protocolsFile],
    ["-P=approved", `--allow-write=${join(shallow, "bench")}`],
  );
  assert.equal(out.code, 1);
  assert.match(
    out.stdout,
    /evidence_commit [0-9a-f]{40} is not a commit of this repository \(this clone is shallow: older commits are not in it; run git fetch --unshallow, then try again\)/,
  );
  const full = await strataBench(
    ["approved", "verify", "--repo", repo, "--protocols", fixture.protocolsFile],
    approvedPermissions,
  );
  assert.doesNotMatch(full.stdout, /shallow/);
});

Deno.test("approved verify without the protocol declaration calls the activated id unknown", async () => {
  const out = await strataBench(["approved", "verify", "--repo", repo], approvedPermissions);
  assert.equal(out.code, 1);
  assert.match(out.stdout, /has protocol id "test-activated-qwen38-thinking-v1", unknown to this site/);
});

Deno.test("the approved and site tasks read relative paths from the folder they were started in", async () => {
  // deno task runs in the toolkit's root; INIT_CWD says where the person started it. deno task keeps an INIT_CWD
  // it inherits (as npm does), and this test itself runs under "deno task test", so the child is given its own.
  const task = (...args: string[]) =>
    run(DENO, ["task", "-q", "--config", join(REPO_ROOT, "deno.json"), ...args], {
      cwd: repo,
      expect: [0, 1, 2, 3],
      env: { INIT_CWD: repo },
    });
  const verified = await task("approved", "verify", "--protocols", fixture.protocolsFile);
  assert.equal(verified.code, 1, verified.stderr);
  assert.match(verified.stdout, /bench\/approved\.json: 15 entries, default branch main/);
  const built = await task("site:build", "--protocols", fixture.protocolsFile);
  assert.equal(built.code, 1, built.stderr);
  await Deno.stat(join(repo, "site-dist", "index.html"));
  await Deno.remove(join(repo, "site-dist"), { recursive: true });
  const checked = await task("site:verify", "bench/results/clean-3060", "--protocols", fixture.protocolsFile);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  assert.match(checked.stdout, /^site verify bench\/results\/clean-3060: /);
});

Deno.test("a refused permission is exit 3 with the flag to add, never a stack trace", async () => {
  const elsewhere = join(root, "elsewhere-site");
  const refused = await strataBench(
    ["site", "build", "--repo", repo, "--out", elsewhere, "--protocols", fixture.protocolsFile],
    ["-P=site-build"],
  );
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(
    refused.stderr,
    new RegExp(`permission to write "${elsewhere}" refused \\(add --allow-write=${elsewhere}\\)`),
  );
  assert.doesNotMatch(refused.stderr, /NotCapable|at async/);
  // A clone without the malformed entry, so that add gets as far as writing.
  const clone = join(root, "clone-permission");
  await git(root, "clone", "-q", repo, clone);
  const manifest = JSON.parse(await Deno.readTextFile(join(clone, "bench/approved.json")));
  manifest.entries = manifest.entries.filter((e: { run_id: string }) => e.run_id !== "malformed-entry");
  await Deno.writeTextFile(join(clone, "bench/approved.json"), JSON.stringify(manifest, null, 2));
  await git(clone, "commit", "-q", "-am", "drop the malformed entry");
  // A genuine result (the scripted engine looking exactly like llama-server), which the review approves.
  const scripted = await runScripted();
  try {
    await copyFolder(scripted.report.folder, join(clone, "bench/results/genuine"));
  } finally {
    await cleanup(scripted);
  }
  await git(clone, "add", "-A");
  await git(clone, "commit", "-q", "-m", "a genuine result");
  const add = await strataBench([
    "approved",
    "add",
    join(clone, "bench/results/genuine"),
    "--repo",
    clone,
    "--branch",
    "main",
    "--review-pr",
    "https://github.com/example/results/pull/7",
    "--reviewed-by",
    "maintainer-one",
    "--protocols",
    fixture.protocolsFile,
  ], ["-P=approved"]);
  assert.equal(add.code, 3, add.stderr);
  assert.match(add.stderr, new RegExp(`permission refused \\(add --allow-write=${join(clone, "bench")}`));
  assert.doesNotMatch(add.stderr, /NotCapable|at async/);
});

Deno.test("approved add refuses evidence the independent check rejects, changed folders, and duplicates", async () => {
  const malformed = await strataBench([
    "approved",
    "add",
    join(repo, "bench/results/clean-3060"),
    "--repo",
    repo,
    "--review-pr",
    "https://github.com/example/results/pull/7",
    "--reviewed-by",
    "maintainer-one",
  ], approvedPermissions);
  assert.equal(malformed.code, 1);
  assert.match(malformed.stderr, /fix its malformed entries first \(malformed-entry: reviewed_at/);
  // A clone whose manifest lost the malformed entry, so that add gets to its other checks.
  const clone = join(root, "clone");
  await git(root, "clone", "-q", repo, clone);
  const manifest = JSON.parse(await Deno.readTextFile(join(clone, "bench/approved.json")));
  manifest.entries = manifest.entries.filter((e: { run_id: string }) => e.run_id !== "malformed-entry");
  await Deno.writeTextFile(join(clone, "bench/approved.json"), JSON.stringify(manifest, null, 2));
  const add = (folder: string, ...more: string[]) =>
    strataBench([
      "approved",
      "add",
      join(clone, folder),
      "--repo",
      clone,
      "--review-pr",
      "https://github.com/example/results/pull/7",
      "--reviewed-by",
      "maintainer-one",
      "--protocols",
      fixture.protocolsFile,
      ...more,
    ], ["-P=approved", `--allow-write=${join(clone, "bench")}`]);
  const before = await Deno.readTextFile(join(clone, "bench/approved.json"));
  // Approved by hand in the fixture; --replace puts it through the review again.
  const forged = await add("bench/results/false-verdict", "--replace");
  assert.equal(forged.code, 1);
  assert.match(forged.stderr, /the review refuses it:\n/);
  assert.match(
    forged.stderr,
    /\n {2}site check \(bench\/results\/false-verdict\): sanity-I2: results\.json says passed/,
  );
  const edited = await add("bench/results/outputs-changed");
  assert.equal(edited.code, 1);
  assert.match(edited.stderr, /it changed after [0-9a-f]{40} \(in [0-9a-f]{40}\); review the version you approve/);
  const again = await add("bench/results/clean-3060");
  assert.equal(again.code, 1);
  assert.match(again.stderr, /is already approved; pass --replace after a new review/);
  const badLink = await add("bench/results/clean-3060", "--review-pr", "http://example.com/x");
  assert.equal(badLink.code, 1);
  assert.match(badLink.stderr, /is not an https URL of the review/);
  // What approved verify would reject is refused here too: an evidence commit that does not introduce the folder.
  const head = (await git(clone, "rev-parse", "HEAD")).stdout.trim();
  const wrongCommit = await add("bench/results/draft-protocol", "--replace", "--evidence-commit", head);
  assert.equal(wrongCommit.code, 1);
  assert.match(
    wrongCommit.stderr,
    /approved verify would reject the entry:\n {2}evidence_commit [0-9a-f]{40} does not add or change/,
  );
  // A simulation is never approved.
  const simulated = await add("bench/results/nonconforming-sim", "--replace");
  assert.equal(simulated.code, 1);
  assert.match(simulated.stderr, /bench\/results\/nonconforming-sim is a simulation \(the scripted engine/);
  // An independent reproduction is another person's run on another machine.
  const cleanId = fixture.byName("clean-3060").runId;
  const reproduce = (...more: string[]) =>
    add("bench/results/reproduction-a4000", "--replace", "--reproduces", cleanId, ...more);
  const samePerson = await reproduce("--submitted-by", "Submitter-1");
  assert.equal(samePerson.code, 1);
  assert.match(
    samePerson.stderr,
    /both were submitted by submitter-1; an independent reproduction is another person's/,
  );
  const nobody = await reproduce();
  assert.match(nobody.stderr, /names no submitter \(submitted_by\).*approved add --submitted-by/);
  const sameMachine = await add(
    "bench/results/partial-3060",
    "--replace",
    "--reproduces",
    cleanId,
    "--submitted-by",
    "someone-else",
  );
  assert.equal(sameMachine.code, 1);
  assert.match(sameMachine.stderr, /both results carry machine token [0-9a-f]{12}\.\.\. .*one machine measured both/);
  // A reproduction of another quantization (Q4_K_M against IQ3_XXS) links nothing.
  const partial = fixture.byName("partial-3060");
  const unrelated = await add("bench/results/draft-protocol", "--replace", "--reproduces", partial.runId);
  assert.equal(unrelated.code, 1);
  assert.match(unrelated.stderr, /cannot reproduce .*: protocols differ/);
  assert.match(unrelated.stderr, /not shown to be the same model and quantization/);
  const outside = await add("../elsewhere");
  assert.equal(outside.code, 2);
  assert.equal(await Deno.readTextFile(join(clone, "bench/approved.json")), before, "a refused add writes nothing");
  // The same rule in approved verify: a manifest edited by hand to link that pair is named.
  const linked = JSON.parse(before);
  const clean = fixture.byName("clean-3060").runId;
  for (const entry of linked.entries) {
    if (entry.run_id === partial.runId || entry.run_id === clean) {
      entry.verification = "independently-reproduced";
      entry.reproduction_run_ids.push(entry.run_id === clean ? partial.runId : clean);
    }
  }
  await Deno.writeTextFile(join(clone, "bench/approved.json"), JSON.stringify(linked, null, 2));
  const verified = await strataBench(
    ["approved", "verify", "--repo", clone, "--protocols", fixture.protocolsFile],
    ["-P=approved", `--allow-write=${join(clone, "bench")}`],
  );
  assert.match(
    verified.stdout,
    new RegExp(`BAD  ${partial.runId}\\n(?: {9}[^\\n]*\\n)*? {9}[^\\n]*cannot reproduce ${clean}`),
  );
  // A review time edited by hand into the future or before its run began is named, as approved add refuses it.
  const redated = JSON.parse(before);
  for (const entry of redated.entries) {
    if (entry.run_id === clean) entry.reviewed_at = "2099-01-01T00:00:00Z";
    if (entry.run_id === partial.runId) entry.reviewed_at = "1999-01-01T00:00:00Z";
  }
  await Deno.writeTextFile(join(clone, "bench/approved.json"), JSON.stringify(redated, null, 2));
  const dated = await strataBench(
    ["approved", "verify", "--repo", clone, "--protocols", fixture.protocolsFile],
    ["-P=approved", `--allow-write=${join(clone, "bench")}`],
  );
  assert.match(dated.stdout, /implausible: the entry's reviewed_at 2099-01-01T00:00:00Z is in the future/);
  assert.match(dated.stdout, /implausible: the entry's reviewed_at 1999-01-01T00:00:00Z is before the run began/);
});

Deno.test("approved add records the commit that introduced the folder and the hash of its results.json", async () => {
  const manifest = JSON.parse(await Deno.readTextFile(join(repo, "bench/approved.json")));
  const clean = fixture.byName("clean-3060");
  const entry = manifest.entries.find((e: { run_id: string }) => e.run_id === clean.runId);
  assert.equal(entry.evidence_commit, fixture.evidenceCommit);
  assert.equal(entry.results_sha256, await sha256File(join(repo, clean.folder, "results.json")));
  assert.equal(entry.verification, "independently-reproduced");
  assert.deepEqual(entry.reproduction_run_ids, [fixture.byName("reproduction-a4000").runId]);
  // The review's time: the clock of approved add, to the second, after the run it reviewed.
  assert.match(entry.reviewed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const started = JSON.parse(await Deno.readTextFile(join(repo, clean.folder, "results.json"))).run.started_at;
  assert.ok(Date.parse(entry.reviewed_at) >= Math.floor(Date.parse(started) / 1000) * 1000, entry.reviewed_at);
});

Deno.test("site build writes every evidence file once under its SHA-256, a page per entry, and names bad entries", async () => {
  const out = join(root, "site");
  const built = await strataBench(
    ["site", "build", "--repo", repo, "--out", out, "--protocols", fixture.protocolsFile],
    buildPermissions(out),
  );
  assert.equal(built.code, 1, built.stderr);
  assert.match(built.stdout, /site: 15 entries from bench\/approved\.json on main [0-9a-f]{40}/);
  // The build runs approved verify's review on every entry it can read: the relabelled fixtures are refused (see
  // the approved verify test), each named with its judge, and published without their evidence.
  for (const scenario of fixture.scenarios) {
    const state = scenario.expected === "unverifiable"
      ? "unverifiable"
      : scenario.expected === "failed" && scenario.name !== "false-verdict"
      ? "will fail"
      : "refused";
    if (scenario.expected === "absent") assert.doesNotMatch(built.stdout, new RegExp(scenario.runId));
    else assert.match(built.stdout, new RegExp(`  ${state} +${scenario.runId} `), scenario.name);
  }
  assert.match(
    built.stdout,
    /\n {15}site check \(bench\/results\/false-verdict\): sanity-I2: results\.json says passed/,
  );
  assert.match(built.stdout, /\n {15}policy: bench\/results\/nonconforming-sim is a simulation/);
  let packed = 0;
  for await (const file of Deno.readDir(join(out, "evidence/sha256"))) {
    const path = join(out, "evidence/sha256", file.name);
    if (!file.name.endsWith(".gz")) {
      assert.equal(await sha256File(path), file.name);
      continue;
    }
    // A compressed copy for site serve: it must decode to the very bytes named by its hash.
    packed++;
    const bytes = await new Response((await Deno.open(path)).readable.pipeThrough(new DecompressionStream("gzip")))
      .arrayBuffer();
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    assert.equal([...digest].map((b) => b.toString(16).padStart(2, "0")).join(""), file.name.slice(0, -3));
  }
  assert.ok(packed > 0);
  const site = JSON.parse(await Deno.readTextFile(join(out, "data/site.json")));
  assert.equal(site.entries.length, 15);
  // Consecutive entries share a pack (one request for several); each entry's spans cut exactly its own files.
  const sharing = new Map<string, number>();
  for (const { pack } of site.entries.filter((e: { pack: unknown }) => e.pack !== null)) {
    const file = await Deno.open(join(out, pack.location));
    const bytes = new Uint8Array(
      await new Response(file.readable.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer(),
    );
    assert.equal(bytes.length, pack.size);
    for (const [location, [offset, length]] of Object.entries(pack.files as Record<string, [number, number]>)) {
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.subarray(offset, offset + length)));
      assert.equal(`evidence/sha256/${[...digest].map((b) => b.toString(16).padStart(2, "0")).join("")}`, location);
    }
    sharing.set(pack.location, (sharing.get(pack.location) ?? 0) + 1);
  }
  assert.ok([...sharing.values()].some((entries) => entries > 1), JSON.stringify([...sharing]));
  const clean = fixture.byName("clean-3060");
  const refused = site.entries.find((e: { run_id: string }) => e.run_id === clean.runId);
  assert.equal(refused.results, null);
  assert.match(
    refused.build_problems.join("\n"),
    /^refused by the review: report validator \(bench\/results\/clean-3060\)/m,
  );
  await assert.rejects(
    Deno.stat(join(out, "evidence/sha256", await sha256File(join(repo, clean.folder, "results.json")))),
  );
  for (const entry of site.entries) await Deno.stat(join(out, "r", entry.slug, "index.html"));
  const withdrawn = fixture.byName("withdrawn");
  await assert.rejects(Deno.stat(join(out, "r", withdrawn.runId)));
  const head = (await git(repo, "show", "main:bench/approved.json")).stdout;
  assert.equal(await Deno.readTextFile(join(out, "data/approved.json")), head);
  const page = await Deno.readTextFile(join(out, "index.html"));
  assert.match(page, /Content-Security-Policy" content="default-src 'none'; script-src 'self'/);
  assert.doesNotMatch(page, /tok\/s|\d+\/12/, "the static page carries no result numbers");
});

Deno.test("a rebuild replaces the previous build: a withdrawn entry's page goes; a foreign folder is refused", async () => {
  const out = join(root, "site-rebuild");
  const older = await strataBench(
    ["site", "build", "--repo", repo, "--out", out, "--branch", "main~1", "--protocols", fixture.protocolsFile],
    buildPermissions(out),
  );
  assert.match(older.stdout, /site: 16 entries/);
  const withdrawn = fixture.byName("withdrawn");
  await Deno.stat(join(out, "r", withdrawn.runId, "index.html"));
  const newer = await strataBench(
    ["site", "build", "--repo", repo, "--out", out, "--protocols", fixture.protocolsFile],
    buildPermissions(out),
  );
  assert.match(newer.stdout, /site: 15 entries/);
  await assert.rejects(Deno.stat(join(out, "r", withdrawn.runId, "index.html")));
  const foreign = join(root, "foreign");
  await Deno.mkdir(foreign);
  await Deno.writeTextFile(join(foreign, "notes.txt"), "mine");
  const refused = await strataBench(["site", "build", "--repo", repo, "--out", foreign], buildPermissions(foreign));
  assert.equal(refused.code, 3);
  assert.match(refused.stderr, /holds files that no site build wrote/);
  assert.equal(await Deno.readTextFile(join(foreign, "notes.txt")), "mine");
});

Deno.test("a link planted in a previous build refuses the next one: nothing outside --out is written or removed", async () => {
  const out = join(root, "site-linked");
  const first = await strataBench(
    ["site", "build", "--repo", repo, "--out", out, "--protocols", fixture.protocolsFile],
    buildPermissions(out),
  );
  assert.equal(first.code, 1, first.stderr);
  const victims = join(root, "victimdir");
  await Deno.mkdir(victims);
  await Deno.writeTextFile(join(victims, "victim.txt"), "keep me");
  // evidence/ becomes a link out of the folder, and the marker names a file behind it.
  await Deno.remove(join(out, "evidence"), { recursive: true });
  await Deno.symlink(victims, join(out, "evidence"));
  const marker = JSON.parse(await Deno.readTextFile(join(out, ".strata-site-files.json")));
  marker.files.push("evidence/victim.txt");
  await Deno.writeTextFile(join(out, ".strata-site-files.json"), JSON.stringify(marker));
  const refused = await strataBench(
    ["site", "build", "--repo", repo, "--out", out, "--protocols", fixture.protocolsFile],
    [...buildPermissions(out), `--allow-write=${victims}`],
  );
  assert.equal(refused.code, 3, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /"evidence" is a symbolic link; nothing is written or removed through a link/);
  assert.equal(await Deno.readTextFile(join(victims, "victim.txt")), "keep me");
  assert.deepEqual([...Deno.readDirSync(victims)].map((e) => e.name), ["victim.txt"]);
});

Deno.test("a malformed manifest builds a site that says so; a missing repository or branch is an environment error", async () => {
  await git(repo, "checkout", "-q", "-b", "broken");
  await Deno.writeTextFile(join(repo, "bench/approved.json"), '{"format":"strata-approved-benchmarks",');
  await git(repo, "commit", "-q", "-am", "break the manifest");
  await git(repo, "checkout", "-q", "main");
  const out = join(root, "site-broken");
  const built = await strataBench(
    ["site", "build", "--repo", repo, "--out", out, "--branch", "broken"],
    buildPermissions(out),
  );
  assert.equal(built.code, 1);
  assert.match(built.stdout, /the manifest cannot be read: bench\/approved\.json is malformed: not strict JSON/);
  const site = JSON.parse(await Deno.readTextFile(join(out, "data/site.json")));
  assert.match(site.manifest_problem, /malformed/);
  const noBranch = await strataBench(
    ["site", "build", "--repo", repo, "--out", out, "--branch", "nope"],
    buildPermissions(out),
  );
  assert.equal(noBranch.code, 3);
  assert.match(noBranch.stderr, /Cannot find branch "nope"/);
  const notRepo = await strataBench(
    ["site", "build", "--repo", root, "--out", join(root, "x")],
    buildPermissions(join(root, "x")),
  );
  assert.equal(notRepo.code, 3);
  assert.match(notRepo.stderr, /Cannot read the repository/);
});

Deno.test("the installed command may write the manifest of the --repo it is given, run from another folder", async () => {
  const clone = join(root, "withdraw-clone");
  await git(root, "clone", "-q", `file://${repo}`, clone);
  const runId = fixture.scenarios.find((s) => s.name === "clean-3060")!.runId;
  // The fixture's manifest holds malformed entries on purpose; this clone keeps one entry and its reproduction.
  const file = join(clone, "bench", "approved.json");
  const kept = JSON.parse(await Deno.readTextFile(file));
  type Entry = { run_id: string; reproduction_run_ids?: string[] };
  const ids = [runId, ...kept.entries.find((e: Entry) => e.run_id === runId).reproduction_run_ids ?? []];
  kept.entries = kept.entries.filter((e: Entry) => ids.includes(e.run_id));
  await Deno.writeTextFile(file, JSON.stringify(kept, null, 2));
  const launcher = join(REPO_ROOT, "bin", "strata-bench.mjs");
  const args = ["approved", "withdraw", runId, "--reason", "a test", "--review-pr", "https://example.org/pr/1"];
  const out = await new Deno.Command("node", {
    args: [launcher, ...args, "--repo", clone],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.match(stderr, new RegExp(`withdrew ${runId} from `));
  const manifest = JSON.parse(await Deno.readTextFile(file));
  assert.ok(manifest.withdrawn.some((w: { run_id: string }) => w.run_id === runId));
  assert.ok(!manifest.entries.some((e: { run_id: string }) => e.run_id === runId));
});
