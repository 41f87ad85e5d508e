/** The input readers read regular files only, size-capped: a FIFO, a device or a folder is refused at once. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileReadError, readFile, readTextFile, readTextOutcome } from "../../../runtime/mod.ts";

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "strata-files-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

Deno.test("a regular file is read whole, and its BOM is kept", async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, "a.txt"), "\uFEFFhello");
    assert.equal(await readTextFile(join(dir, "a.txt")), "\uFEFFhello");
    assert.deepEqual(await readTextOutcome(join(dir, "a.txt")), { ok: true, value: "\uFEFFhello" });
  });
});

Deno.test("a FIFO with no writer is refused at once as not a regular file, never waited on", async () => {
  await withDir(async (dir) => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    await assert.rejects(readTextFile(fifo), (e: FileReadError) => e.code === "not_regular" && /FIFO/.test(e.message));
    const outcome = await readTextOutcome(fifo);
    assert.equal(outcome.ok, false);
    assert.match(outcome.ok ? "" : outcome.reason, /not a regular file/);
  });
});

Deno.test("a device (/dev/zero) and a folder are refused, not read", async () => {
  await assert.rejects(readFile("/dev/zero"), (e: FileReadError) => e.code === "not_regular");
  await withDir(async (dir) => {
    await assert.rejects(readFile(dir), (e: FileReadError) => e.code === "is_directory");
  });
});

Deno.test("a file over the cap is refused with its size; one at the cap is read", async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, "big"), "x".repeat(11));
    await assert.rejects(
      readFile(join(dir, "big"), { maxBytes: 10 }),
      (e: FileReadError) => e.code === "too_large" && /11 bytes, more than the 10/.test(e.message),
    );
    assert.equal((await readFile(join(dir, "big"), { maxBytes: 11 })).length, 11);
  });
});

Deno.test("a missing file is not_found", async () => {
  await assert.rejects(readFile("/nonexistent-strata-file"), (e: FileReadError) => e.code === "not_found");
});
