/**
 * `strata-bench submit FOLDER --repo CLONE` as a submitter types it, through the installed launcher, from a folder
 * that is neither the result's nor the clone's: a genuine folder lands byte for byte on a new branch with one
 * commit and the pull request's body; a simulation, an edited folder, a folder already there, an unclean clone and a
 * result folder holding a subfolder are refused, and each leaves the clone as it was.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanup, runScripted, type ScriptedRun } from "../scripted/_harness.ts";

const LAUNCHER = join(fileURLToPath(new URL("../../", import.meta.url)), "bin", "strata-bench.mjs");
const decoder = new TextDecoder();

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" }).output();
  assert.equal(out.code, 0, `git ${args.join(" ")}: ${decoder.decode(out.stderr)}`);
  return decoder.decode(out.stdout).trim();
}

async function submit(cwd: string, ...args: string[]) {
  return await submitWith({}, cwd, ...args);
}

async function submitWith(env: Record<string, string>, cwd: string, ...args: string[]) {
  const out = await new Deno.Command("node", {
    args: [LAUNCHER, "submit", ...args],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** A results repository's clone: one commit with an empty approved manifest. */
async function resultsClone(root: string): Promise<string> {
  const repo = join(root, "results");
  await Deno.mkdir(join(repo, "bench"), { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await git(repo, "config", "user.name", "Submitter");
  await git(repo, "config", "user.email", "submitter@example.org");
  await Deno.writeTextFile(join(repo, "bench", "approved.json"), '{\n  "entries": []\n}\n');
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "an empty results repository");
  return repo;
}

/** The clone's state a refusal must leave alone: its branch, its commit, its branches and its files. */
async function state(repo: string): Promise<string> {
  return [
    await git(repo, "rev-parse", "--abbrev-ref", "HEAD"),
    await git(repo, "rev-parse", "HEAD"),
    await git(repo, "branch", "--list"),
    await git(repo, "status", "--porcelain", "--untracked-files=all"),
  ].join("\n");
}

async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) await Deno.copyFile(join(from, entry.name), join(to, entry.name));
}

Deno.test("submit commits a genuine folder on a new branch byte for byte, and refuses what must not be submitted", async () => {
  const root = await Deno.makeTempDir({ prefix: "strata-submit-" });
  let genuine: ScriptedRun | undefined, simulated: ScriptedRun | undefined;
  try {
    genuine = await runScripted();
    simulated = await runScripted({ mock: { announceScripted: true } });
    const repo = await resultsClone(root);
    const elsewhere = join(root, "elsewhere");
    await Deno.mkdir(elsewhere);
    const folder = genuine.report.folder;
    const name = folder.split("/").at(-1)!;

    // A simulation: refused before the clone is touched.
    const before = await state(repo);
    const sim = await submit(elsewhere, simulated.report.folder, "--repo", repo);
    assert.equal(sim.code, 1, sim.stderr);
    assert.match(sim.stderr, /it is a simulation \(the scripted engine\); run a real server/);
    assert.equal(await state(repo), before);

    // An edited folder that was not sealed: refused, pointing at --seal.
    const edited = join(root, "edited", name);
    await copyFolder(folder, edited);
    const outputs = await Deno.readTextFile(join(edited, "outputs.jsonl"));
    await Deno.writeTextFile(join(edited, "outputs.jsonl"), outputs.replace('"status":"', '"status": "'));
    const bad = await submit(elsewhere, edited, "--repo", repo);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /results\.json has \d+ problem\(s\) .*sealed first \(strata-bench report FOLDER --seal\)/);
    assert.equal(await state(repo), before);

    // A folder holding more than a run writes (a subfolder): refused by the check, before the clone is touched.
    const odd = join(root, "odd", name);
    await copyFolder(folder, odd);
    await Deno.mkdir(join(odd, "extra"));
    const oddOut = await submit(elsewhere, odd, "--repo", repo);
    assert.equal(oddOut.code, 1, oddOut.stderr);
    assert.match(oddOut.stderr, /the folder holds "extra\/", which results\.json does not list/);
    assert.equal(await state(repo), before);

    // A clone whose bench/results is a link out of it: the copy refuses to write through it, nothing lands outside,
    // and the branch made for it is undone.
    const hostile = await resultsClone(join(root, "hostile"));
    const outside = join(root, "outside");
    await Deno.mkdir(outside);
    await Deno.symlink(outside, join(hostile, "bench", "results"));
    await git(hostile, "add", "-A");
    await git(hostile, "commit", "-q", "-m", "a link");
    const hostileBefore = await state(hostile);
    const linked = await submit(elsewhere, folder, "--repo", hostile);
    assert.equal(linked.code, 3, linked.stderr);
    assert.match(linked.stderr, /symbolic link; nothing is written or removed through a link/);
    assert.deepEqual([...Deno.readDirSync(outside)], [], "nothing was written through the link");
    assert.equal(await state(hostile), hostileBefore, "the branch made for it is undone");

    // The genuine folder.
    const ok = await submit(elsewhere, folder, "--repo", repo);
    assert.equal(ok.code, 0, ok.stderr);
    const runId = genuine.result.run.id;
    assert.match(ok.stdout, /^Title: .+\n\n/);
    assert.match(ok.stderr, new RegExp(`committed bench/results/${name} on the new branch submit/${runId}`));
    assert.match(ok.stderr, new RegExp(`next: git -C \\S+ push -u origin submit/${runId}\\n`));
    assert.match(ok.stderr, /gh pr create --repo OWNER\/REPO --title '.+' --body-file \S+\.md\n/);
    assert.equal(await git(repo, "rev-parse", "--abbrev-ref", "HEAD"), `submit/${runId}`);
    assert.equal(await git(repo, "rev-list", "--count", "main..HEAD"), "1", "one commit on the new branch");
    const committed = (await git(repo, "show", "--name-only", "--format=", "HEAD")).split("\n").sort();
    const files = [...Deno.readDirSync(folder)].map((e) => `bench/results/${name}/${e.name}`).sort();
    assert.deepEqual(committed, files);
    for await (const entry of Deno.readDir(folder)) {
      const copied = await Deno.readFile(join(repo, "bench", "results", name, entry.name));
      assert.deepEqual(copied, await Deno.readFile(join(folder, entry.name)), entry.name);
    }
    const bodyFile = /--body-file (\S+)\n/.exec(ok.stderr)![1]!;
    assert.equal(await Deno.readTextFile(bodyFile), ok.stdout.slice(ok.stdout.indexOf("\n\n") + 2));
    assert.equal(await git(repo, "status", "--porcelain"), "", "nothing left uncommitted in the work tree");

    // The same folder again: it is there already, never replaced.
    const again = await submit(elsewhere, folder, "--repo", repo, "--branch", "second");
    assert.equal(again.code, 3, again.stderr);
    assert.match(
      again.stderr,
      new RegExp(
        `bench/results/${name} is there already \\(committed, or ignored by git\\); a folder is never replaced`,
      ),
    );

    // An unclean clone.
    await git(repo, "checkout", "-q", "main");
    await Deno.writeTextFile(join(repo, "notes.txt"), "work in progress\n");
    const dirty = await submit(elsewhere, folder, "--repo", repo, "--branch", "third");
    assert.equal(dirty.code, 3, dirty.stderr);
    assert.match(dirty.stderr, /it has uncommitted changes; commit or stash them first/);
  } finally {
    await cleanup(genuine);
    await cleanup(simulated);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("submit into a hostile clone: ignored files, a worktree, GIT_DIR elsewhere, a signal mid-commit, two at once", async () => {
  const root = await Deno.makeTempDir({ prefix: "strata-submit-hostile-" });
  let genuine: ScriptedRun | undefined;
  try {
    genuine = await runScripted();
    const folder = genuine.report.folder;
    const name = folder.split("/").at(-1)!;
    const elsewhere = join(root, "elsewhere");
    await Deno.mkdir(elsewhere);

    // A .gitignore that would drop the pictures from the commit: every file is committed all the same.
    const ignoring = await resultsClone(join(root, "ignoring"));
    await Deno.writeTextFile(join(ignoring, ".gitignore"), "*.svg\n");
    await git(ignoring, "add", "-A");
    await git(ignoring, "commit", "-q", "-m", "ignore pictures");
    const out = await submit(elsewhere, folder, "--repo", ignoring);
    assert.equal(out.code, 0, out.stderr);
    const committed = (await git(ignoring, "show", "--name-only", "--format=", "HEAD")).split("\n").length;
    assert.equal(committed, [...Deno.readDirSync(folder)].length, "the ignored pictures are committed too");

    // An ignored file already where the folder would go: refused, and the file is left as it was.
    const precious = await resultsClone(join(root, "precious"));
    await Deno.writeTextFile(join(precious, ".gitignore"), "bench/results/*/\n");
    await git(precious, "add", "-A");
    await git(precious, "commit", "-q", "-m", "ignore result folders");
    await Deno.mkdir(join(precious, "bench", "results", name), { recursive: true });
    await Deno.writeTextFile(join(precious, "bench", "results", name, "README.md"), "mine\n");
    const kept = await state(precious);
    const taken = await submit(elsewhere, folder, "--repo", precious);
    assert.equal(taken.code, 3, taken.stderr);
    assert.match(taken.stderr, /is there already \(committed, or ignored by git\); a folder is never replaced/);
    assert.equal(await Deno.readTextFile(join(precious, "bench", "results", name, "README.md")), "mine\n");
    assert.equal(await state(precious), kept);

    // A linked worktree, and GIT_DIR pointing at another repository: refused before anything is written.
    const main = await resultsClone(join(root, "main"));
    const tree = join(root, "tree");
    await git(main, "worktree", "add", "-q", tree);
    const before = await state(main);
    const linked = await submit(elsewhere, folder, "--repo", tree);
    assert.equal(linked.code, 3, linked.stderr);
    assert.match(linked.stderr, /not its own \.git \(a linked worktree, or \.git elsewhere\)/);
    const other = await resultsClone(join(root, "other"));
    const redirected = await submitWith({ GIT_DIR: join(other, ".git") }, elsewhere, folder, "--repo", main);
    assert.equal(redirected.code, 3, redirected.stderr);
    assert.match(redirected.stderr, /GIT_DIR is set, and git would then work on another repository; unset it/);
    assert.equal(await state(main), before);
    assert.equal(await git(other, "branch", "--list"), "* main");

    // SIGTERM while git commits (a slow pre-commit hook): exit 4, and the clone is put back, the lock released.
    await Deno.writeTextFile(join(main, ".git", "hooks", "pre-commit"), "#!/bin/sh\nsleep 3\n");
    await Deno.chmod(join(main, ".git", "hooks", "pre-commit"), 0o755);
    const child = new Deno.Command("node", {
      args: [LAUNCHER, "submit", folder, "--repo", main],
      cwd: elsewhere,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const deadline = Date.now() + 30_000;
    while (!(await exists(join(main, "bench", "results", name, "results.json"))) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    child.kill("SIGTERM");
    const ended = await child.output();
    assert.equal(ended.code, 4, decoder.decode(ended.stderr));
    assert.match(decoder.decode(ended.stderr), /interrupted by SIGTERM; the clone is put back as it was/);
    assert.equal(await state(main), before);
    assert.ok(!(await exists(join(main, ".git", "strata-bench-submit.lock"))), "the lock is released");
    await Deno.remove(join(main, ".git", "hooks", "pre-commit"));

    // Two at once into one clone: one commits, the other is refused while the first holds the clone.
    const [one, two] = await Promise.all([
      submit(elsewhere, folder, "--repo", main, "--branch", "one"),
      submit(elsewhere, folder, "--repo", main, "--branch", "two"),
    ]);
    assert.deepEqual([one.code, two.code].sort(), [0, 3], one.stderr + two.stderr);
    const winner = one.code === 0 ? "one" : "two";
    assert.equal(await git(main, "rev-parse", "--abbrev-ref", "HEAD"), winner);
    assert.equal(await git(main, "rev-list", "--count", `main..${winner}`), "1");
    assert.equal(await git(main, "status", "--porcelain"), "");
  } finally {
    await cleanup(genuine);
    await Deno.remove(root, { recursive: true });
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
