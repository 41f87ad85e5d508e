import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultProbeDeps, readRunnerCommit } from "../../../probe/mod.ts";

const A = "0123456789abcdef0123456789abcdef01234567";
const B = "89abcdef0123456789abcdef0123456789abcdef";
const deps = defaultProbeDeps();

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "strata-commit-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function put(path: string, text: string): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text);
}

Deno.test("a branch with a loose ref: HEAD -> refs/heads/main -> commit, build kind source", async () => {
  await withDir(async (dir) => {
    await put(join(dir, ".git/HEAD"), "ref: refs/heads/main\n");
    await put(join(dir, ".git/refs/heads/main"), `${A}\n`);
    const result = await readRunnerCommit({ toolkitDir: dir }, deps);
    assert.deepEqual(result, { runnerCommit: A, buildKind: "source", source: ".git", missing: {} });
  });
});

Deno.test("a branch only in packed-refs (after git gc) is found there, skipping peeled tag lines", async () => {
  await withDir(async (dir) => {
    await put(join(dir, ".git/HEAD"), "ref: refs/heads/release\n");
    await put(
      join(dir, ".git/packed-refs"),
      `# pack-refs with: peeled fully-peeled sorted \n${B} refs/heads/main\n${A} refs/heads/release\n${B} refs/tags/v1\n^${A}\n`,
    );
    assert.equal((await readRunnerCommit({ toolkitDir: dir }, deps)).runnerCommit, A);
  });
});

Deno.test("a detached HEAD holds the commit itself", async () => {
  await withDir(async (dir) => {
    await put(join(dir, ".git/HEAD"), `${B}\n`);
    assert.equal((await readRunnerCommit({ toolkitDir: dir }, deps)).runnerCommit, B);
  });
});

Deno.test("a worktree's .git file points to its git folder, whose commondir holds the shared refs", async () => {
  await withDir(async (dir) => {
    const main = join(dir, "main");
    const worktree = join(dir, "wt");
    await put(join(main, ".git/HEAD"), "ref: refs/heads/main\n");
    await put(join(main, ".git/refs/heads/feature"), `${B}\n`);
    await put(join(main, ".git/worktrees/wt/HEAD"), "ref: refs/heads/feature\n");
    await put(join(main, ".git/worktrees/wt/commondir"), "../..\n");
    await put(join(worktree, ".git"), `gitdir: ${join(main, ".git/worktrees/wt")}\n`);
    const result = await readRunnerCommit({ toolkitDir: worktree }, deps);
    assert.equal(result.runnerCommit, B);
    assert.equal(result.buildKind, "source");
  });
});

Deno.test("an unborn branch (fresh git init) is a source build with a null commit and a reason", async () => {
  await withDir(async (dir) => {
    await put(join(dir, ".git/HEAD"), "ref: refs/heads/main\n");
    const result = await readRunnerCommit({ toolkitDir: dir }, deps);
    assert.equal(result.runnerCommit, null);
    assert.equal(result.buildKind, "source");
    assert.match(result.missing["/software/runner_commit"] ?? "", /refs\/heads\/main has no commit yet/);
  });
});

Deno.test("a release binary's COMMIT file beside the executable gives build kind release", async () => {
  await withDir(async (dir) => {
    const bin = join(dir, "bin");
    await put(join(bin, "COMMIT"), `${A.toUpperCase()}\n`);
    const result = await readRunnerCommit({ toolkitDir: join(dir, "src"), executableDir: bin }, deps);
    assert.deepEqual(result, { runnerCommit: A, buildKind: "release", source: "COMMIT", missing: {} });
  });
});

Deno.test("neither .git nor COMMIT: commit and build kind null with the same reason", async () => {
  await withDir(async (dir) => {
    await put(join(dir, "COMMIT"), "abc123\n");
    const result = await readRunnerCommit({ toolkitDir: dir }, deps);
    assert.equal(result.runnerCommit, null);
    assert.equal(result.buildKind, null);
    assert.match(result.missing["/software/runner_commit"] ?? "", /no \.git.*not hold a full commit/);
    assert.equal(result.missing["/software/build_kind"], result.missing["/software/runner_commit"]);
  });
});
