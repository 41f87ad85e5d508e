/**
 * `report` on hostile result folders, run as a person runs it (mod.ts under the `report` permission set): links
 * out of the folder, devices, FIFOs, oversized files, interrupted runs, terminal escapes in a valid result, and a
 * file of many records. Each case checks the exit code, the words on stderr, and that nothing of a file outside
 * the folder is printed.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRealisticResult, type RealisticResult } from "../unit/report/_realistic_result.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const POSIX = Deno.build.os !== "windows";
/** A readable file outside every result folder whose lines must never be echoed. */
const OUTSIDE = "/etc/passwd";

async function report(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--config", join(REPO, "deno.json"), "-P=report", "--no-prompt", join(REPO, "mod.ts")]
      .concat(["report", dir]),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

async function withResult(body: (r: RealisticResult) => Promise<void>): Promise<void> {
  const r = await buildRealisticResult();
  try {
    await body(r);
  } finally {
    await r.cleanup();
  }
}

async function outsideLines(): Promise<string[]> {
  return (await readFile(OUTSIDE, "utf8")).split("\n").filter((line) => line.length >= 8).map((l) => l.slice(0, 8));
}

function assertNoOutsideText(text: string, lines: readonly string[]): void {
  for (const line of lines) assert.ok(!text.includes(line), `printed a line of ${OUTSIDE}: ${line}`);
}

async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(made.code, 0, "mkfifo failed");
}

Deno.test({
  name: "report refuses an artifact in a subfolder that links out of the folder and prints no outside hash",
  ignore: !POSIX,
  fn: () =>
    withResult(async (r) => {
      const value = JSON.parse(r.text);
      const outsideHash = createHash("sha256").update(await readFile(OUTSIDE)).digest("hex");
      value.artifacts.push({ kind: "provenance", path: "sub/passwd", sha256: "0".repeat(64) });
      await writeFile(join(r.dir, "results.json"), JSON.stringify(value, null, 2));
      await symlink("/etc", join(r.dir, "sub"));
      const run = await report(r.dir);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /"sub" is a symbolic link/);
      assert.ok(!run.stderr.includes(outsideHash) && !run.stdout.includes(outsideHash));
    }),
});

Deno.test({
  name: "report refuses outputs.jsonl linked to a file outside and echoes none of its lines",
  ignore: !POSIX,
  fn: () =>
    withResult(async (r) => {
      await unlink(join(r.dir, "outputs.jsonl"));
      await symlink(OUTSIDE, join(r.dir, "outputs.jsonl"));
      const run = await report(r.dir);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /"outputs\.jsonl" is a symbolic link/);
      assertNoOutsideText(run.stdout + run.stderr, await outsideLines());
    }),
});

Deno.test({
  name: "report refuses results.json linked to /dev/zero at once instead of reading it",
  ignore: !POSIX,
  fn: () =>
    withResult(async (r) => {
      await unlink(join(r.dir, "results.json"));
      await symlink("/dev/zero", join(r.dir, "results.json"));
      const run = await report(r.dir);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /"results\.json" is a symbolic link/);
    }),
});

Deno.test({
  name: "report refuses a FIFO as results.json (exit 3: it cannot be read) or as outputs.jsonl without waiting on it",
  ignore: !POSIX,
  fn: async () => {
    await withResult(async (r) => {
      await unlink(join(r.dir, "results.json"));
      await mkfifo(join(r.dir, "results.json"));
      const run = await report(r.dir);
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /"results\.json" is a FIFO \(named pipe\); only regular files are read/);
    });
    await withResult(async (r) => {
      await unlink(join(r.dir, "outputs.jsonl"));
      await mkfifo(join(r.dir, "outputs.jsonl"));
      const run = await report(r.dir);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /"outputs\.jsonl" is a FIFO/);
    });
  },
});

Deno.test("report refuses a results.json over its size cap with a message that names the cap", async () => {
  await withResult(async (r) => {
    await writeFile(join(r.dir, "results.json"), " ".repeat(16 * 1024 * 1024 + 1));
    const run = await report(r.dir);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /"results\.json" is 16777217 bytes, more than the 16777216 bytes a result file may have/);
  });
});

// The tests run as root, whom mode 000 does not refuse: a folder named results.json is a file report cannot read.
Deno.test("report exits 3, not 1, for a results.json that is a folder (it cannot be read)", async () => {
  await withResult(async (r) => {
    await unlink(join(r.dir, "results.json"));
    await mkdir(join(r.dir, "results.json"));
    const run = await report(r.dir);
    assert.equal(run.code, 3, run.stderr);
    assert.doesNotMatch(run.stderr, /is invalid/);
    assert.match(run.stderr, /"results\.json" is a folder; only regular files are read/);
  });
});

Deno.test("report names a folder without results.json an interrupted run and counts its evidence", async () => {
  await withResult(async (r) => {
    await unlink(join(r.dir, "results.json"));
    const lines = (await readFile(join(r.dir, "outputs.jsonl"), "utf8")).split("\n").filter((l) => l !== "");
    // A run killed while writing its eighth line: seven whole lines and half of the next.
    await writeFile(join(r.dir, "outputs.jsonl"), lines.slice(0, 7).join("\n") + "\n" + lines[7]!.slice(0, 40));
    const run = await report(r.dir);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /is an interrupted run: it has no results\.json/);
    assert.match(run.stderr, /holds the evidence of 7 request\(s\), 7 of them sent; 1 line\(s\) are not/);
    assert.match(run.stderr, /its last line is cut off/);
  });
});

Deno.test("report still exits 3 for a folder that holds neither results.json nor outputs.jsonl", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-empty-" });
  try {
    const run = await report(dir);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /the folder has no results\.json/);
  } finally {
    await rm(dir, { recursive: true });
  }
});

Deno.test("report prints a valid result's engine text with its terminal escapes neutralized", async () => {
  await withResult(async (r) => {
    const value = JSON.parse(r.text);
    const notes = "\x1b]0;pwned\x07\x1b[2K\rcompleted 999 tok/s\u202e";
    value.configuration.track_notes = notes;
    // config.json states the track notes too (every judge holds it to results.json): edited alike and re-hashed.
    const config = JSON.parse(await readFile(join(r.dir, "config.json"), "utf8"));
    const configText = `${JSON.stringify({ ...config, track_notes: notes }, null, 2)}\n`;
    await writeFile(join(r.dir, "config.json"), configText);
    const sha = createHash("sha256").update(configText).digest("hex");
    for (const a of value.artifacts) if (a.path === "config.json") a.sha256 = sha;
    await writeFile(join(r.dir, "results.json"), JSON.stringify(value, null, 2));
    const run = await report(r.dir);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes("\\u001b]0;pwned\\u0007\\u001b[2K\\u000dcompleted 999 tok/s\\u202e"), run.stdout);
    // deno-lint-ignore no-control-regex
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/.test(run.stdout + run.stderr));
  });
});

Deno.test("report rejects 100,000 empty records with a bounded list of problems and their count", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-many-" });
  try {
    const head = `"format":"strata-standard-benchmark","schema_version":1`;
    await writeFile(join(dir, "results.json"), `{${head},"requests":[${Array(100_000).fill("{}").join(",")}]}`);
    const run = await report(dir);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /\/requests: 100000 items, more than the 34 a result can have/);
    const listed = run.stderr.split("\n").filter((line) => line.startsWith("  /") || line.startsWith("  (root)"));
    assert.ok(listed.length <= 200, `${listed.length} problems printed`);
    assert.match(run.stderr, /results\.json is invalid: \d+ problem\(s\); the first 200 are listed/);
  } finally {
    await rm(dir, { recursive: true });
  }
});
