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

Deno.test("report usage errors exit 2: no folder, unknown flag or format, --pr/--seal with two folders or together", async () => {
  assert.equal(await main([]), EXIT.usage);
  assert.equal(await main(["--strict", "a"]), EXIT.usage);
  assert.equal(await main(["--format", "xml", "a", "b"]), EXIT.usage);
  assert.equal(await main(["--pr", "a", "b"]), EXIT.usage);
  assert.equal(await main(["--seal", "a", "b"]), EXIT.usage);
  assert.equal(await main(["--pr", "--seal", "a"]), EXIT.usage);
  assert.equal(await main(["--pr", "--format", "csv", "a"]), EXIT.usage);
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
    assert.match(
      stdout,
      /^INVALID: results\.json has \d+ problem\(s\)[^\n]*\nStandard benchmark: NVIDIA GeForce RTX 3060/,
    );
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
    // The audit's prose fits 100 columns (only table rows are wider), and it ends on run's one screen.
    const stdout = new TextDecoder().decode(report.stdout).trimEnd().split("\n");
    const wide = stdout.filter((l) => l.length > 100 && (l.trim().match(/\S {2,}(?=\S)/g) ?? []).length < 2);
    assert.deepEqual(wide, []);
    const end = stdout.slice(stdout.findLastIndex((l) => l.startsWith("report: ")));
    assert.match(end[0]!, /^report: valid; nonconforming \(simulated engine\); sanity 12\/12/);
    assert.ok(end.length <= 15 && end.at(-1) === join(out, folder.name), end.join("\n"));
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

function runReport(args: string[], permissions: string[] = ["-P=report"]) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, "--no-prompt", "mod.ts", "report", ...args],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output().then((o) => ({
    code: o.code,
    stdout: new TextDecoder().decode(o.stdout),
    stderr: new TextDecoder().decode(o.stderr),
  }));
}

Deno.test("report with several folders prints the comparison and refuses an invalid or foreign folder by name", async () => {
  const a = await buildRealisticResult({ runId: "run-a" });
  const b = await buildRealisticResult({ runId: "run-b", startedAt: "2026-11-29T15:00:00.000Z" });
  const foreign = await mkdtemp(join(tmpdir(), "strata-report-foreign-"));
  try {
    await writeFile(
      join(foreign, "results.json"),
      JSON.stringify({ format: "strata-standard-benchmark", schema_version: 2 }),
    );
    const out = await runReport([a.dir, b.dir, foreign]);
    assert.equal(out.code, EXIT.resultNotOk, out.stderr);
    assert.match(out.stdout, /^# Comparison of 3 result folders: 2 compared, 1 refused/);
    assert.match(out.stdout, /- \*\*A\*\* \(2 run\(s\): /);
    assert.match(out.stdout, /\| A \| prompt-4k \| 4089 \| 4 \| 512 \\\[365-512\\\] \| 2 \|/);
    assert.match(
      out.stdout,
      /Refused \(not compared\):\n\n- strata-report-foreign-\w+: invalid .*schema\\_version 2: not a result this strata-bench reads/,
    );
    const csv = await runReport(["--format", "csv", a.dir, b.dir]);
    assert.equal(csv.code, EXIT.ok, csv.stderr);
    assert.equal(csv.stdout.split("\n").filter((l) => l !== "").length, 1 + 3, "a header and one row per case");
    const json = await runReport(["--format", "json", b.dir, a.dir]);
    assert.equal(JSON.parse(json.stdout).format, "strata-bench-comparison");
    const pictures = join(a.dir, "pictures");
    const svg = await runReport(["--svg", "--out", pictures, a.dir, b.dir]);
    assert.equal(svg.code, EXIT.environment, "the read-only set may only read");
    assert.match(svg.stderr, /Run "strata-bench report A B --svg", which may write/);
    assert.doesNotMatch(svg.stderr, /deno task|report:write/, "the command a person types, not a task");
    const written = await runReport(["--svg", "--out", pictures, a.dir, b.dir], [
      "-P=report-write",
      `--allow-write=${a.dir}`,
    ]);
    assert.equal(written.code, EXIT.ok, written.stderr);
    // A new file in the --out folder, named by the command, which says where it went.
    const name = /comparison picture written to (\S+)/.exec(written.stderr)?.[1];
    assert.ok(name !== undefined && name.startsWith(pictures), written.stderr);
    assert.match(name!, /-comparison-\d{8}T\d{6}Z-[a-z0-9]{6}\.svg$/);
    assert.match(await Deno.readTextFile(name!), /^<svg /);
    const old = await runReport(["--svg", join(a.dir, "cmp.svg"), a.dir, b.dir]);
    assert.equal(old.code, EXIT.usage, "the old spelling --svg FILE is refused with the new one");
    assert.match(old.stderr, /--svg takes no file now .*--svg --out DIR/);
  } finally {
    await a.cleanup();
    await b.cleanup();
    await rm(foreign, { recursive: true, force: true });
  }
});

Deno.test("report --pr prints the title and body; report --seal re-hashes a redaction and refuses a measured edit", async () => {
  const r = await buildRealisticResult({ asWritten: true });
  try {
    const pr = await runReport([r.dir, "--pr"]);
    assert.equal(pr.code, EXIT.ok, pr.stderr);
    assert.match(
      pr.stdout,
      /^Title: benchmark: NVIDIA GeForce RTX 3060 \/ Qwen\/Qwen3\.8-Flash-Next \/ IQ3_XXS \/ strata-/,
    );
    assert.match(pr.stdout, /- README\.md: as the run wrote it/);
    assert.match(
      pr.stdout,
      /results\.json records no seal, so by its own record no file was re-hashed after the run; every file results\.json lists \([^)]*config\.json[^)]*\) matched its recorded SHA-256/,
    );

    const log = join(r.dir, "engine.log");
    await writeFile(log, (await Deno.readTextFile(log)).replace("127.0.0.1", "<redacted>"));
    await writeFile(join(r.dir, "README.md"), "# my own words\n");
    const before = await runReport([r.dir]);
    assert.equal(before.code, EXIT.resultNotOk, "the log changed after hashing");
    assert.match(before.stderr, /README\.md was edited after the run/);
    const readOnly = await runReport([r.dir, "--seal"]);
    assert.equal(readOnly.code, EXIT.environment);
    assert.match(readOnly.stderr, /Run "strata-bench report .* --seal", which may write/);
    const sealed = await runReport([r.dir, "--seal"], ["-P=report-write", `--allow-write=${r.dir}`]);
    assert.equal(sealed.code, EXIT.ok, sealed.stderr);
    assert.match(sealed.stdout, /re-hashed engine\.log \(engine_log\): [0-9a-f]{64} -> [0-9a-f]{64}/);
    const after = await runReport([r.dir]);
    assert.equal(after.code, EXIT.ok, after.stderr);
    assert.match(after.stderr, /sealed at .*: re-hashed by a person, nothing measured changed: engine\.log/);
    const sealedPr = await runReport([r.dir, "--pr"]);
    assert.match(
      sealedPr.stdout,
      /a person re-hashed them with `strata-bench report DIR --seal`, which found nothing measured changed \([^)]*re-hashed engine\.log\)/,
    );
    // A README a person deleted is named missing, by report and in the body, not "unknown".
    await Deno.remove(join(r.dir, "README.md"));
    const missing = await runReport([r.dir]);
    assert.match(missing.stderr, /README\.md is missing from the folder/);
    const missingPr = await runReport([r.dir, "--pr"]);
    assert.match(missingPr.stdout, /- README\.md: missing from the folder/);
    assert.match(missingPr.stderr, /README\.md is missing from the folder: restore it before you submit/);
    await writeFile(join(r.dir, "README.md"), "# my own words\n");

    const outputs = join(r.dir, "outputs.jsonl");
    await writeFile(
      outputs,
      (await Deno.readTextFile(outputs)).replace('"final_answer":"DELTA-609"', '"final_answer":"DELTA-906"'),
    );
    const resultsBefore = await Deno.readTextFile(join(r.dir, "results.json"));
    const refused = await runReport([r.dir, "--seal"], ["-P=report-write", `--allow-write=${r.dir}`]);
    assert.equal(refused.code, EXIT.resultNotOk);
    assert.match(refused.stderr, /Cannot seal .*nothing was changed[\s\S]*\(sanity-R3\) differs in a measured value/);
    assert.equal(await Deno.readTextFile(join(r.dir, "results.json")), resultsBefore, "results.json untouched");
  } finally {
    await r.cleanup();
  }
});

Deno.test("a legacy results.json without format fields is refused by what it lacks, not 'format undefined'", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-report-legacy-" });
  try {
    await Deno.writeTextFile(join(dir, "results.json"), JSON.stringify({ gpu: "RTX 3060", tokens_per_second: 41 }));
    const out = await runReport([dir]);
    assert.equal(out.code, EXIT.resultNotOk);
    assert.match(out.stderr, /results\.json has no format and no schema_version \(a legacy community report/);
    assert.doesNotMatch(out.stderr, /undefined/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
