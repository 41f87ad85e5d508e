/**
 * site/_deps.ts: git bounded in time and bytes. A git first on PATH that hangs through a child holding its pipes,
 * or floods its output, is killed and reported at its bound; a real git answers as before.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { gitRunner } from "../../../site/_deps.ts";
import { withPath } from "../probe/_gpu_tools.ts";

async function fakeGit(dir: string, script: string): Promise<string> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(join(bin, "git"), `#!/bin/sh\n${script}\n`);
  await Deno.chmod(join(bin, "git"), 0o755);
  return `${bin}:${Deno.env.get("PATH") ?? ""}`;
}

Deno.test("gitRunner: a git that hangs through a child is killed at the deadline, not waited on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-git-hang-" });
  try {
    // The child inherits stdout and outlives its parent's kill: the pipe stays open for 3 s.
    const path = await fakeGit(dir, "sleep 3 &\nsleep 3");
    const startedMs = performance.now();
    const out = await withPath(path, () => gitRunner(dir, { timeoutMs: 200, stdoutCap: 1024 })(["log"]));
    assert.deepEqual(out, { error: "git log did not finish within 200 ms (killed)" });
    assert.ok(performance.now() - startedMs < 2_000, "returned at its deadline");
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gitRunner: a git that floods past its cap is killed and reported; a real git answers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-git-flood-" });
  try {
    const path = await fakeGit(dir, "exec yes");
    const out = await withPath(path, () => gitRunner(dir, { timeoutMs: 10_000, stdoutCap: 1 << 20 })(["cat-file"]));
    assert.deepEqual(out, { error: "git cat-file printed more than 1048576 bytes on stdout (killed)" });
    const real = await gitRunner(dir)(["--version"]);
    assert.ok("code" in real && real.code === 0 && /^git version/.test(new TextDecoder().decode(real.stdout)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
