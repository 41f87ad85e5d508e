/** Outputs are written through the folder writer: a link in place of the file or of its folder is never followed. */
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLineWriter, writeNewTextOutcome, writeTextOutcome } from "../../../runtime/mod.ts";

async function withLinks(body: (dir: string, outside: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "strata-links-" });
  const outside = join(await Deno.makeTempDir({ dir: tmpdir(), prefix: "strata-outside-" }));
  try {
    await writeFile(join(outside, "victim.txt"), "keep");
    await symlink(outside, join(dir, "linked-folder"));
    await symlink(join(outside, "victim.txt"), join(dir, "linked-file.txt"));
    await symlink(join(outside, "absent.txt"), join(dir, "dangling.jsonl"));
    await body(dir, outside);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
}

Deno.test({
  name: "a whole-file write refuses a link at the file's name or as its folder, and writes nothing outside",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withLinks(async (dir, outside) => {
      const onFile = await writeTextOutcome(join(dir, "linked-file.txt"), "page");
      assert.equal(onFile.ok, false);
      assert.match(onFile.ok ? "" : onFile.reason, /not a regular file|symbolic link/);
      const inFolder = await writeTextOutcome(join(dir, "linked-folder", "report.csv"), "csv");
      assert.equal(inFolder.ok, false);
      assert.match(inFolder.ok ? "" : inFolder.reason, /"[^"]*linked-folder" is a symbolic link/);
      assert.equal(await readFile(join(outside, "victim.txt"), "utf8"), "keep");
      assert.deepEqual(await readdir(outside), ["victim.txt"]);
      // A plain folder (made when absent) takes the file.
      assert.deepEqual(await writeTextOutcome(join(dir, "new", "page.html"), "ok"), { ok: true, value: true });
      assert.equal(await readFile(join(dir, "new", "page.html"), "utf8"), "ok");
    }),
});

Deno.test({
  name: "a growing output refuses a linked folder, a dangling link at its name and an existing file",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withLinks(async (dir, outside) => {
      const linkedFolder = await openLineWriter(join(dir, "linked-folder", "run.jsonl"));
      assert.equal(linkedFolder.ok, false);
      assert.match(linkedFolder.ok ? "" : linkedFolder.reason, /is a symbolic link/);
      assert.equal((await openLineWriter(join(dir, "dangling.jsonl"))).ok, false);
      assert.deepEqual((await readdir(outside)).sort(), ["victim.txt"]);
      await mkdir(join(dir, "out"));
      await writeFile(join(dir, "out", "earlier.jsonl"), "earlier\n");
      assert.equal((await openLineWriter(join(dir, "out", "earlier.jsonl"))).ok, false);
      assert.equal(await readFile(join(dir, "out", "earlier.jsonl"), "utf8"), "earlier\n");
      const opened = await openLineWriter(join(dir, "out", "new.jsonl"));
      assert.ok(opened.ok);
      opened.value.write("a\n");
      assert.deepEqual(await opened.value.close(), { ok: true, value: true });
      assert.equal(await readFile(join(dir, "out", "new.jsonl"), "utf8"), "a\n");
    }),
});

Deno.test({
  name: "a new-file write refuses an existing name, a link at the name and a linked folder, replacing nothing",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withLinks(async (dir, outside) => {
      assert.deepEqual(await writeNewTextOutcome(join(dir, "new", "page.html"), "first"), { ok: true, value: true });
      const again = await writeNewTextOutcome(join(dir, "new", "page.html"), "second");
      assert.equal(again.ok, false);
      assert.match(again.ok ? "" : again.reason, /page\.html already exists/);
      assert.equal(await readFile(join(dir, "new", "page.html"), "utf8"), "first");
      for (const name of ["linked-file.txt", "dangling.jsonl", join("linked-folder", "x.csv")]) {
        assert.equal((await writeNewTextOutcome(join(dir, name), "x")).ok, false, name);
      }
      assert.equal(await readFile(join(outside, "victim.txt"), "utf8"), "keep");
      assert.deepEqual(await readdir(outside), ["victim.txt"]);
    }),
});
