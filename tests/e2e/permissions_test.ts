/**
 * The CLI under the narrow `run` permission set of deno.json (loopback net, named programs, named env/sys), as
 * `deno task run` grants it: it completes against the scripted engine, and Deno itself refuses anything else.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { loadBundle } from "../../fixtures/mod.ts";
import { startMockEngine } from "../../mock/mod.ts";
import { permissionSetFrom } from "../../release/permissions.ts";
import { validateFolder } from "./_validate_folder.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CONFIG = join(REPO, "deno.json");
const DENO = Deno.execPath();

/** `deno run -P=<set>` with the repository's deno.json; `write` replaces the set's write list (a temp folder). */
async function underSet(set: string, cwd: string, write: string[] | null, args: string[]) {
  const output = await new Deno.Command(DENO, {
    args: [
      "run",
      "--quiet",
      "--config",
      CONFIG,
      `-P=${set}`,
      ...(write === null ? [] : [`--allow-write=${write.join(",")}`]),
      "--no-prompt",
      join(REPO, "mod.ts"),
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("the run permission set grants loopback net only, named programs, named env and sys, and no broad write", async () => {
  const set = permissionSetFrom(await Deno.readTextFile(CONFIG), "run");
  assert.deepEqual(set.net, ["127.0.0.1", "localhost", "[::1]"]);
  assert.deepEqual(set.write, ["bench-results", "bench/results"]);
  for (const kind of ["net", "write", "run", "env", "sys"] as const) {
    assert.ok(Array.isArray(set[kind]), `${kind} must be a list, not ${JSON.stringify(set[kind])}`);
  }
  assert.ok((set.run as string[]).includes("nvidia-smi"));
});

Deno.test("run completes under the narrow run set against the scripted engine and writes a result that validates", async () => {
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
  const cwd = await Deno.makeTempDir({ prefix: "strata-perm-" });
  try {
    const run = await underSet("run", cwd, [join(cwd, "bench-results")], [
      "run",
      "--url",
      engine.url,
      "--simulated",
    ]);
    assert.equal(run.code, 1, `a simulated run is nonconforming (exit 1), not refused\n${run.stderr}`);
    assert.doesNotMatch(run.stderr, /NotCapable|Requires \w+ access|Cannot run/);
    assert.equal(engine.requests.length, 22);
    const folder = run.stdout.trim().split("\n").at(-1)!;
    assert.ok(folder.startsWith(join(cwd, "bench-results")), folder);
    assert.deepEqual(await validateFolder(folder, bundle), []);
    const text = await Deno.readTextFile(join(folder, "results.json"));
    const result = JSON.parse(text);
    assert.equal(result.run.status, "nonconforming");
    // What the narrow set refused is recorded as a null with a reason, never a crash.
    assert.equal(typeof result.missing, "object");

    const report = await underSet("report", cwd, null, ["report", folder]);
    assert.match(report.stdout, new RegExp(result.run.id));
    assert.doesNotMatch(report.stdout + report.stderr, /invalid|Requires \w+ access/i);
  } finally {
    await engine.close();
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a server on a non-loopback host is refused by Deno's permission system, and the message names the missing flag", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "strata-perm-" });
  try {
    // 192.0.2.1 is TEST-NET-1: the refusal comes before any packet could be sent.
    const run = await underSet("run", cwd, [cwd], ["run", "--url", "http://192.0.2.1:8080"]);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /permission to connect to 192\.0\.2\.1:8080 refused/);
    assert.match(run.stderr, /--allow-net=192\.0\.2\.1:8080/);
    assert.deepEqual(await entries(cwd), [], "nothing is written when the server is refused");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a refused write permission says which flag is missing", async () => {
  const bundle = await loadBundle();
  const engine = await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
  });
  const cwd = await Deno.makeTempDir({ prefix: "strata-perm-" });
  try {
    // The set's own write list is relative to deno.json, so this temp folder is not writable under it.
    const run = await underSet("run", cwd, null, ["run", "--url", engine.url, "--simulated"]);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /--allow-write/);
    assert.deepEqual(await entries(cwd), []);
  } finally {
    await engine.close();
    await Deno.remove(cwd, { recursive: true });
  }
});
