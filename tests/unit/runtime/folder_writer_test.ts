import assert from "node:assert/strict";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FolderFileError } from "../../../runtime/_folder_files.ts";
import { openFolderWriter } from "../../../runtime/_folder_writer.ts";

async function withFolders(body: (dir: string, outside: string) => Promise<void>): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: "strata-writer-" });
  const dir = join(base, "out");
  const outside = join(base, "outside");
  await mkdir(outside);
  try {
    await body(dir, outside);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

async function refusal(promise: Promise<unknown>): Promise<FolderFileError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof FolderFileError, String(error));
    return error;
  }
  assert.fail("the call was not refused");
}

Deno.test("a writer makes the folder and its subfolders, writes, reads back and removes regular files", async () => {
  await withFolders(async (dir) => {
    const folder = await openFolderWriter(dir);
    await folder.write("a/b/c.txt", new TextEncoder().encode("hello"));
    assert.equal(new TextDecoder().decode((await folder.read("a/b/c.txt", 5))!), "hello");
    assert.deepEqual(await folder.list(), ["a"]);
    await folder.remove("a/b/c.txt");
    await folder.remove("a/b/c.txt");
    assert.equal(await folder.read("a/b/c.txt", 5), null);
    assert.equal(await folder.read("no/such/file", 5), null);
  });
});

Deno.test("a writer refuses a link anywhere below the folder: nothing is written, read or removed through it", async () => {
  await withFolders(async (dir, outside) => {
    await writeFile(join(outside, "victim.txt"), "keep");
    const folder = await openFolderWriter(dir);
    await symlink(outside, join(dir, "evidence"));
    await symlink(join(outside, "victim.txt"), join(dir, "file-link"));
    for (
      const call of [
        () => folder.write("evidence/new.txt", new Uint8Array([1])),
        () => folder.write("evidence/sub/new.txt", new Uint8Array([1])),
        () => folder.remove("evidence/victim.txt"),
        () => folder.read("evidence/victim.txt", 100),
        () => folder.write("file-link", new Uint8Array([1])),
        () => folder.remove("file-link"),
      ]
    ) {
      assert.equal((await refusal(call())).code, "symlink");
    }
    assert.equal(await readFile(join(outside, "victim.txt"), "utf8"), "keep");
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["victim.txt"]);
  });
});

Deno.test("a writer refuses paths that could leave the folder, and a file where a folder must be", async () => {
  await withFolders(async (dir) => {
    const folder = await openFolderWriter(dir);
    for (const path of ["../x", "/etc/passwd", "a/../../x", "a\\b", "", "a//b", "./a"]) {
      assert.equal((await refusal(folder.write(path, new Uint8Array()))).code, "bad_path", path);
    }
    await folder.write("plain", new Uint8Array([1]));
    assert.equal((await refusal(folder.write("plain/x", new Uint8Array()))).code, "not_folder");
  });
});
