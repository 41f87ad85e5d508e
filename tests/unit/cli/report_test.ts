import assert from "node:assert/strict";
import { appendFile, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../../cli/report.ts";
import { EXIT } from "../../../cli/exit_codes.ts";
import { buildRealisticResult, type RealisticResult } from "../report/_realistic_result.ts";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

async function withFolder(body: (r: RealisticResult) => Promise<void>): Promise<void> {
  const r = await buildRealisticResult();
  try {
    await body(r);
  } finally {
    await r.cleanup();
  }
}

Deno.test("report exits 0 for a valid, complete result folder", async () => {
  await withFolder(async (r) => assert.equal(await main([r.dir]), EXIT.ok));
});

Deno.test("report exits 1 for a valid result whose run is nonconforming", async () => {
  await withFolder(async (r) => {
    const value = JSON.parse(r.text);
    value.run.status = "nonconforming";
    value.extensions.nonconforming_reasons = ["the server is not on loopback"];
    await writeFile(join(r.dir, "results.json"), JSON.stringify(value, null, 2));
    assert.equal(await main([r.dir]), EXIT.resultNotOk);
  });
});

Deno.test("report exits 1 when an artifact file changed or disappeared after hashing", async () => {
  await withFolder(async (r) => {
    await appendFile(join(r.dir, "outputs.jsonl"), "\n");
    assert.equal(await main([r.dir]), EXIT.resultNotOk);
  });
  await withFolder(async (r) => {
    await unlink(join(r.dir, "engine.log"));
    assert.equal(await main([r.dir]), EXIT.resultNotOk);
  });
});

Deno.test("report exits 1 for a results.json that is not UTF-8", async () => {
  await withFolder(async (r) => {
    await writeFile(join(r.dir, "results.json"), new Uint8Array([0x7b, 0xff, 0x7d]));
    assert.equal(await main([r.dir]), EXIT.resultNotOk);
  });
});

Deno.test("report usage errors exit 2: no folder, two folders, unknown flag", async () => {
  assert.equal(await main([]), EXIT.usage);
  assert.equal(await main(["a", "b"]), EXIT.usage);
  assert.equal(await main(["--strict", "a"]), EXIT.usage);
});

Deno.test("report exits 3 when the folder is missing, has no results.json, or is a file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-report-cli-"));
  try {
    assert.equal(await main([join(dir, "nope")]), EXIT.environment);
    assert.equal(await main([dir]), EXIT.environment);
    await writeFile(join(dir, "plain.txt"), "x");
    assert.equal(await main([join(dir, "plain.txt")]), EXIT.environment);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("mod.ts report prints the summary on stdout and each problem with its pointer on stderr", async () => {
  await withFolder(async (r) => {
    await appendFile(join(r.dir, "outputs.jsonl"), "tampered\n");
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-P=report", "--no-prompt", "mod.ts", "report", r.dir],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, EXIT.resultNotOk, stderr);
    assert.match(stdout, /^Standard benchmark: NVIDIA GeForce RTX 3060/);
    assert.match(stdout, /Capped/);
    assert.match(stderr, /results\.json is invalid: 2 problem\(s\)/);
    assert.match(stderr, /\/artifacts\/2\/sha256: does not match the bytes of "outputs\.jsonl"/);
    assert.match(stderr, /\/artifacts\/2: outputs\.jsonl line 23: not strict JSON/);
  });
});

Deno.test("the demo's result folder passes report with zero problems, evidence included (exit 1: simulated)", async () => {
  const out = await mkdtemp(join(tmpdir(), "strata-report-demo-"));
  const command = (...args: string[]) =>
    new Deno.Command(Deno.execPath(), { args, cwd: REPO_ROOT, stdout: "piped", stderr: "piped" }).output();
  try {
    const demo = await command(
      "run",
      "-P=test",
      "--no-prompt",
      "mod.ts",
      "demo",
      "--optional-concurrency",
      "--time-scale",
      "0.01",
      "--out",
      out,
    );
    assert.equal(demo.code, EXIT.ok, new TextDecoder().decode(demo.stderr));
    const [folder] = await Array.fromAsync(Deno.readDir(out));
    assert.ok(folder?.isDirectory);
    const report = await command("run", "-P=report", "--no-prompt", "mod.ts", "report", join(out, folder.name));
    const stderr = new TextDecoder().decode(report.stderr);
    assert.equal(report.code, EXIT.resultNotOk, stderr);
    assert.match(stderr, /results\.json is valid, but the run is nonconforming/);
    assert.doesNotMatch(stderr, /invalid|problem/);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

Deno.test("mod.ts report names the missing file and gives a hint", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-report-cli-"));
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-P=report", "--no-prompt", "mod.ts", "report", dir],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, EXIT.environment);
    assert.match(stderr, /Cannot read ".*results\.json": the folder has no results\.json; pass the folder a run wrote/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
