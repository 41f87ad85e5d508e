import assert from "node:assert/strict";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FolderFileError, openSafeFolder } from "../../../runtime/_folder_files.ts";

async function withFolder(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "strata-safe-" });
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function refusal(promise: Promise<unknown>): Promise<FolderFileError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof FolderFileError, String(error));
    return error;
  }
  assert.fail("the read was not refused");
}

Deno.test("a regular file inside the folder is read whole, within its cap", async () => {
  await withFolder(async (dir) => {
    await mkdir(join(dir, "sub"));
    await writeFile(join(dir, "sub", "a.txt"), "hello");
    const folder = await openSafeFolder(dir);
    assert.equal(new TextDecoder().decode(await folder.read("sub/a.txt", 5)), "hello");
  });
});

Deno.test("paths that could leave the folder are refused before any file system call", async () => {
  await withFolder(async (dir) => {
    const folder = await openSafeFolder(dir);
    for (const path of ["../x", "/etc/passwd", "a/../../x", "a\\b", "C:/x", "", "a//b", "./a", "a\0b"]) {
      assert.equal((await refusal(folder.read(path, 10))).code, "bad_path", path);
    }
  });
});

Deno.test({
  name: "a link at any component is refused, a file or a folder, even when it points inside",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withFolder(async (dir) => {
      await mkdir(join(dir, "real"));
      await writeFile(join(dir, "real", "f"), "x");
      await symlink(join(dir, "real"), join(dir, "linked"));
      await symlink(join(dir, "real", "f"), join(dir, "real", "g"));
      const folder = await openSafeFolder(dir);
      const viaFolder = await refusal(folder.read("linked/f", 10));
      assert.equal(viaFolder.code, "symlink");
      assert.match(viaFolder.message, /"linked" is a symbolic link/);
      assert.equal((await refusal(folder.read("real/g", 10))).code, "symlink");
      assert.equal((await refusal(folder.read("real/f/x", 10))).code, "not_folder");
    }),
});

Deno.test("a file over its cap is refused with its size; a missing one is not_found", async () => {
  await withFolder(async (dir) => {
    await writeFile(join(dir, "big"), "123456");
    const folder = await openSafeFolder(dir);
    const big = await refusal(folder.read("big", 5));
    assert.equal(big.code, "too_large");
    assert.equal(big.sizeBytes, 6);
    assert.equal((await refusal(folder.read("nope", 5))).code, "not_found");
  });
});

Deno.test({
  name: "a FIFO is refused without being opened (opening one would wait for a writer)",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withFolder(async (dir) => {
      const made = await new Deno.Command("mkfifo", { args: [join(dir, "pipe")] }).output();
      assert.equal(made.code, 0);
      const refused = await refusal((await openSafeFolder(dir)).read("pipe", 10));
      assert.equal(refused.code, "not_regular");
      assert.match(refused.message, /"pipe" is a FIFO \(named pipe\); only regular files are read/);
    }),
});

Deno.test("the folder's top level is listed with link kinds as lstat sees them", async () => {
  await withFolder(async (dir) => {
    await writeFile(join(dir, "a"), "x");
    await mkdir(join(dir, "b"));
    if (Deno.build.os !== "windows") await symlink("a", join(dir, "c"));
    const entries = await (await openSafeFolder(dir)).list();
    assert.deepEqual(entries.map((e) => [e.name, e.kind]), [
      ["a", "file"],
      ["b", "folder"],
      ...(Deno.build.os !== "windows" ? [["c", "symlink"]] : []),
    ]);
  });
});
