import assert from "node:assert/strict";
import { join } from "node:path";
import { buildSite, GitRepo, gitRunner, KNOWN_PROTOCOLS, ManifestMissingError, readWebFile } from "../../site/mod.ts";
import { slugFor } from "../../site/_pages.ts";
import { git, strataBench } from "./_fixture_repo.ts";
import { SITE_BUNDLE } from "./_bundle.ts";

Deno.test("every entry gets its own page folder, also when a suffixed name is another run's id", () => {
  const taken = new Set<string>();
  // "a b" becomes "a-b", taken; its index suffix "a-b-6" is the second run's own id: it must not be reused.
  const slugs = [["a-b", 0], ["a-b-6", 1], ["a b", 6], ["a b", 7], ["A-B", 8]].map(([id, index]) =>
    slugFor(id as string, index as number, taken)
  );
  assert.deepEqual(slugs, ["a-b", "a-b-6", "a-b-6-2", "a-b-7", "A-B-8"]);
  assert.equal(new Set(slugs.map((s) => s.toLowerCase())).size, slugs.length);
});

Deno.test("a run id without a usable character names its page by the entry's index", () => {
  const taken = new Set<string>();
  assert.equal(slugFor(null, 3, taken), "entry-3");
  assert.equal(slugFor("...", 4, taken), "entry-4");
  assert.equal(slugFor("entry-3", 5, taken), "entry-3-5");
});

Deno.test("site build without a manifest on the branch fails with a clear error and writes nothing", async () => {
  const root = await Deno.makeTempDir({ prefix: "strata-site-no-manifest-" });
  try {
    const repo = join(root, "repo");
    await Deno.mkdir(repo);
    await git(repo, "init", "-q", "-b", "main");
    await Deno.writeTextFile(join(repo, "README.md"), "no results yet\n");
    await git(repo, "add", "-A");
    await git(repo, "commit", "-q", "-m", "start");
    const written: string[] = [];
    await assert.rejects(
      buildSite(new GitRepo(gitRunner(repo)), { write: (path) => Promise.resolve(void written.push(path)) }, {
        protocols: KNOWN_PROTOCOLS,
        ...SITE_BUNDLE,
        protocolDeclarations: null,
        readWebFile,
      }),
      (error: unknown) =>
        error instanceof ManifestMissingError &&
        /bench\/approved\.json does not exist on main .*approved add/.test(error.message),
    );
    assert.deepEqual(written, []);
    const out = join(root, "site");
    const cli = await strataBench(["site", "build", "--repo", repo, "--out", out], [
      "-P=site-build",
      `--allow-write=${out}`,
    ]);
    assert.equal(cli.code, 3, cli.stdout + cli.stderr);
    assert.match(cli.stderr, /Cannot build the site: bench\/approved\.json does not exist on main/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
