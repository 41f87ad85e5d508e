import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLineWriter } from "../../../runtime/mod.ts";

Deno.test("the line writer keeps every line whole and in order across its buffers, whatever their size and script", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-lines-"));
  try {
    const opened = await openLineWriter(join(dir, "run.jsonl"));
    assert.ok(opened.ok);
    const lines: string[] = [];
    const pieces = ["a", "é", "€", "𝄞", '{"k":"\\u0000"}'];
    for (let i = 0; i < 3000; i++) {
      // Mostly short lines, a few longer than one buffer (256 KiB), in one-, two-, three- and four-byte UTF-8.
      const size = i % 997 === 0 ? 120_000 : 1 + (i * 7919) % 900;
      lines.push(`${i}:` + pieces[i % pieces.length]!.repeat(size) + "\n");
    }
    for (const line of lines) opened.value.write(line);
    assert.deepEqual(await opened.value.close(), { ok: true, value: true });
    const written = await readFile(join(dir, "run.jsonl"), "utf8");
    assert.equal(written.length, lines.join("").length);
    assert.equal(written, lines.join(""));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
