/**
 * Write failures for real, through `mod.ts run` as a person runs it: a disk that fills during the run (a small
 * tmpfs this test mounts and unmounts; needs root, as CI has) and a results folder that is a link out of the area
 * the write permission names.
 */
import assert from "node:assert/strict";
import { readdir, readFile, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle } from "../../fixtures/mod.ts";
import { startMockEngine } from "../../mock/mod.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const ROOT = Deno.build.os === "linux" && Deno.uid() === 0;

async function mockEngine() {
  const bundle = await loadBundle();
  return await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
}

async function command(program: string, args: string[], cwd?: string) {
  const output = await new Deno.Command(program, {
    args,
    ...(cwd === undefined ? {} : { cwd }),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

function runArgs(writable: string, url: string, extra: string[]): string[] {
  return [
    "run",
    "--no-prompt",
    "--allow-net=127.0.0.1",
    "--allow-read",
    `--allow-write=${writable}`,
    "--allow-env",
    "--allow-sys",
    join(REPO, "mod.ts"),
    "run",
    "--url",
    url,
    "--simulated",
    ...extra,
  ];
}

Deno.test({
  name: "a disk that fills during the run: exit 3, the folder named, whole lines kept, report reads it as interrupted",
  ignore: !ROOT,
  fn: async () => {
    const mount = await Deno.makeTempDir({ prefix: "strata-tmpfs-" });
    const mounted = await command("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mount]);
    assert.equal(mounted.code, 0, `mount failed: ${mounted.stderr}`);
    const engine = await mockEngine();
    try {
      const out = join(mount, "results");
      const run = await command(Deno.execPath(), runArgs(mount, engine.url, ["--out", out]));
      assert.equal(run.code, 3, run.stderr);
      const names = await readdir(out);
      assert.equal(names.length, 1);
      const folder = join(out, names[0]!);
      const kept = /keeps the whole evidence of (\d+) request\(s\)/.exec(run.stderr)?.[1];
      assert.ok(kept !== undefined, run.stderr);
      assert.ok(run.stderr.includes(`"${folder}"`), run.stderr);
      assert.match(run.stderr, /no space left on the disk \(ENOSPC\)/);
      const text = await readFile(join(folder, "outputs.jsonl"), "utf8");
      const lines = text === "" ? [] : text.trimEnd().split("\n");
      assert.ok(text === "" || text.endsWith("\n"), "the last line is cut");
      assert.equal(lines.length, Number(kept));
      assert.ok(lines.length > 0 && lines.length < 22, `${lines.length} lines`);
      for (const line of lines) JSON.parse(line);
      assert.ok(!(await readdir(folder)).includes("results.json"));

      const report = await command(Deno.execPath(), [
        "run",
        "--quiet",
        "--config",
        join(REPO, "deno.json"),
        "-P=report",
        "--no-prompt",
        join(REPO, "mod.ts"),
        "report",
        folder,
      ]);
      assert.equal(report.code, 1, report.stderr);
      assert.match(report.stderr, new RegExp(`holds the evidence of ${kept} request\\(s\\)`));
    } finally {
      await engine.close();
      const unmounted = await command("umount", [mount]);
      assert.equal(unmounted.code, 0, unmounted.stderr);
      await rm(mount, { recursive: true });
    }
  },
});

Deno.test({
  name: "a results folder linked out of the permitted area refuses the run (exit 3) and writes nothing there",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const cwd = await Deno.makeTempDir({ prefix: "strata-cwd-" });
    const outside = await Deno.makeTempDir({ prefix: "strata-outside-" });
    const engine = await mockEngine();
    try {
      await symlink(outside, join(cwd, "bench-results"));
      const run = await command(Deno.execPath(), runArgs(join(cwd, "bench-results"), engine.url, []), cwd);
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /Cannot write results: .*bench-results" \(it resolves to .*: a link leads out\)/);
      assert.deepEqual(await readdir(outside), []);
      assert.equal(engine.requests.length, 0, "a request was sent");
    } finally {
      await engine.close();
      await rm(cwd, { recursive: true });
      await rm(outside, { recursive: true });
    }
  },
});

Deno.test({
  name: "a read-only --out folder refuses the run before anything is measured",
  ignore: !ROOT,
  fn: async () => {
    const mount = await Deno.makeTempDir({ prefix: "strata-ro-" });
    const mounted = await command("mount", ["-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", mount]);
    assert.equal(mounted.code, 0, `mount failed: ${mounted.stderr}`);
    const engine = await mockEngine();
    try {
      const run = await command(Deno.execPath(), runArgs(mount, engine.url, ["--out", mount]));
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /Cannot write results: cannot write into ".*": the disk is read-only/);
      assert.equal(engine.requests.length, 0, "a request was sent");
    } finally {
      await engine.close();
      await command("umount", [mount]);
      await rm(mount, { recursive: true });
    }
  },
});
