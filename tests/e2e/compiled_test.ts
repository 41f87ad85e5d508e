/**
 * The single-executable path: `bun build --compile` through the release script, then the binary alone in a folder
 * with no source runs the protocol against the scripted engine and writes a result the strict validator accepts.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { arch, platform } from "node:os";
import { loadBundle } from "../../fixtures/mod.ts";
import { startMockEngine } from "../../mock/mod.ts";
import { readGitHead } from "../../probe/mod.ts";
import { readTextOutcome, statOutcome } from "../../runtime/mod.ts";
import { compileRelease, sha256OfFile } from "../../release/compile.ts";
import { hostTarget } from "../../release/_targets.ts";
import { validateFolder } from "./_validate_folder.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

async function runBinary(binary: string, cwd: string, args: string[]) {
  const output = await new Deno.Command(binary, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

Deno.test("the bun-compiled binary, alone in an empty folder, runs the protocol and knows its commit", async () => {
  const host = hostTarget(platform(), arch());
  assert.ok(host, "the test machine is a release target");
  const head = await readGitHead(REPO, { readText: readTextOutcome, stat: statOutcome });
  assert.ok(head.ok, "the tests run from a git checkout");
  const work = await Deno.makeTempDir({ prefix: "strata-compiled-" });
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
  try {
    const log: string[] = [];
    const report = await compileRelease({
      targets: { deno: [], bun: [host] },
      explicit: true,
      outDir: join(work, "dist"),
      bunPath: join(REPO, "node_modules", ".bin", "bun"),
      denoPath: null,
      denortBin: null,
      denortDir: null,
      log: (line) => log.push(line),
    });
    assert.deepEqual(report.failed, [], log.join("\n"));
    assert.equal(report.commit, head.value);
    const built = report.artifacts.find((a) => a.name.endsWith(`${host.name}-bun${host.exeSuffix}`));
    assert.ok(built, JSON.stringify(report.artifacts));
    const sums = await Deno.readTextFile(join(work, "dist", "SHA256SUMS"));
    assert.ok(sums.includes(`${await sha256OfFile(built.path)}  ${built.name}\n`), sums);
    assert.equal(await Deno.readTextFile(join(work, "dist", "COMMIT")), `${head.value}\n`);

    // Only the binary: no source, no COMMIT file beside it, no node_modules.
    const alone = join(work, "alone");
    await Deno.mkdir(alone);
    const binary = join(alone, `strata-bench${host.exeSuffix}`);
    await Deno.copyFile(built.path, binary);

    const verify = await runBinary(binary, alone, ["fixtures", "verify"]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /built into this executable/);

    const run = await runBinary(binary, alone, ["run", "--url", engine.url, "--simulated"]);
    assert.equal(run.code, 1, `a simulated run is nonconforming (exit 1)\n${run.stderr}`);
    assert.equal(engine.requests.length, 22);
    const folder = run.stdout.trim().split("\n").at(-1)!;
    assert.ok(folder.startsWith(join(alone, "bench-results")), folder);
    assert.deepEqual(await validateFolder(folder, bundle), []);
    const result = JSON.parse(await Deno.readTextFile(join(folder, "results.json")));
    assert.equal(result.software.runner_commit, head.value);
    assert.equal(result.software.build_kind, "release");
    assert.equal(result.missing["/software/runner_commit"], undefined);
    // The picture libraries travel inside the binary: the run drew its pictures instead of recording why not.
    assert.equal(result.extensions.pictures_problem, undefined, result.extensions.pictures_problem);
    assert.match(await Deno.readTextFile(join(folder, "rates.svg")), /^<svg /);

    const reread = await runBinary(binary, alone, ["report", folder]);
    assert.match(reread.stdout, new RegExp(result.run.id));
    assert.doesNotMatch(reread.stdout + reread.stderr, /invalid/i);

    // load and compare with their default workload: the real-text corpus travels inside the binary too.
    const load = await runBinary(binary, alone, [
      "load",
      "--url",
      engine.url,
      "--concurrency",
      "2",
      "--requests",
      "4",
      "--no-headroom-check",
      "--quiet",
    ]);
    assert.equal(load.code, 0, load.stdout + load.stderr);
    assert.match(load.stdout + load.stderr, /real text \(sotu-v1/);
    const compare = await runBinary(binary, alone, [
      "compare",
      "--baseline",
      engine.url,
      "--candidate",
      engine.url,
      "--concurrency",
      "1",
      "--requests",
      "2",
      "--rounds",
      "2",
      "--quiet",
    ]);
    assert.ok(compare.code === 0 || compare.code === 1, `compare ran to a verdict\n${compare.stdout}${compare.stderr}`);
    assert.match(compare.stdout, /gate/i, compare.stdout + compare.stderr);
  } finally {
    await engine.close();
    await Deno.remove(work, { recursive: true });
  }
});
