/** deno.json: every task the README names exists, runs with a named permission set, and none grants everything. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { permissionSetFrom } from "../../../release/permissions.ts";
import { LOAD_V8_FLAGS } from "../../../runtime/mod.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const CONFIG_TEXT = await Deno.readTextFile(`${REPO}deno.json`);
const CONFIG = JSON.parse(CONFIG_TEXT) as { tasks: Record<string, string>; permissions: Record<string, unknown> };

const README_TASKS = [
  "run",
  "run:profile",
  "demo",
  "report",
  "probe",
  "mock",
  "load",
  "load:profile",
  "compare",
  "compare:profile",
  "fixtures",
  "test",
  "test:engine",
  "bench:client",
  "bench:hash",
  "bench:open-loop",
  "engine:build",
  "engine:model",
  "compile",
  "check",
  "approved",
  "site:build",
  "site:serve",
  "site:verify",
  "test:browser",
  "bench:site",
];

Deno.test("deno.json has every task the README names", () => {
  for (const name of README_TASKS) assert.ok(CONFIG.tasks[name], `task ${name} is missing`);
});

Deno.test("no task grants all permissions", () => {
  for (const [name, command] of Object.entries(CONFIG.tasks)) {
    assert.doesNotMatch(command, /(^|\s)(-A|--allow-all)(\s|$)/, `task ${name}: ${command}`);
  }
});

Deno.test("every deno run or deno test task uses a permission set that exists, never prompts, and names a file that exists", () => {
  for (const [name, command] of Object.entries(CONFIG.tasks)) {
    for (const invocation of command.split("&&").map((part) => part.trim())) {
      const words = invocation.split(/\s+/);
      const sub = words[1];
      if (sub !== "run" && sub !== "test") continue;
      const set = words.find((w) => w.startsWith("-P="))?.slice(3);
      assert.ok(set, `task ${name} runs without a named permission set`);
      assert.ok(CONFIG.permissions[set], `task ${name} uses the unknown set ${set}`);
      assert.doesNotThrow(() => permissionSetFrom(CONFIG_TEXT, set));
      assert.ok(words.includes("--no-prompt"), `task ${name} may prompt`);
      const target = words.find((w, i) => i > 1 && !w.startsWith("-"));
      assert.ok(target && existsSync(`${REPO}${target}`), `task ${name} names a missing file: ${target}`);
    }
  }
});

Deno.test("the run set used by the run task keeps net on loopback and names every program it may start", () => {
  const run = permissionSetFrom(CONFIG_TEXT, "run");
  assert.deepEqual(run.net, ["127.0.0.1", "localhost", "[::1]"]);
  // lsof, ps and ss find and read the process of a --url server on this machine (its observed command line).
  assert.deepEqual(run.run, ["nvidia-smi", "rocm-smi", "amd-smi", "sysctl", "sw_vers", "lsblk", "lsof", "ps", "ss"]);
  assert.ok(
    (run.env as string[]).includes("CUDA_VISIBLE_DEVICES") && (run.env as string[]).includes("HIP_VISIBLE_DEVICES"),
  );
  assert.match(
    CONFIG.tasks.run!,
    /-P=run .*--allow-write=bench-results,bench\/results,\$HOME\/\.cache\/strata-bench .*mod\.ts run$/,
  );
  const profile = permissionSetFrom(CONFIG_TEXT, "run-profile");
  assert.ok((profile.run as string[]).includes("llama-server"));
  assert.deepEqual(profile.net, run.net);
});

Deno.test("the run tasks run V8 single-threaded, load, compare and the compiled binary keep V8's GC threads, all with gc exposed", async () => {
  for (const name of ["run", "run:profile", "bench:client", "bench:run-client"]) {
    assert.match(
      CONFIG.tasks[name] ?? "",
      /\s--v8-flags=--single-threaded,--max-semi-space-size=8,--expose-gc\s/,
      `task ${name}`,
    );
  }
  // An open-loop schedule cannot wait out a single-threaded mark-compact (30-70 ms at 2,000 arrivals/s): load and
  // compare let V8 mark and sweep on its helper threads.
  // They also stop at V8's mid tier (Maglev): Turbofan's compile jobs, still running a second into the measured
  // schedule, took the client's core from it (docs/development.md).
  for (const name of ["load", "load:profile", "compare", "compare:profile", "bench:open-loop"]) {
    assert.ok((CONFIG.tasks[name] ?? "").includes(` --v8-flags=${LOAD_V8_FLAGS} `), `task ${name}`);
  }
  // A deno-compiled binary carries one set for every command (denort reads no V8 flag at run time): load's.
  const compile = await Deno.readTextFile(`${REPO}release/compile.ts`);
  assert.match(compile, /`--v8-flags=\$\{LOAD_V8_FLAGS\}`/);
  assert.equal(LOAD_V8_FLAGS, "--max-semi-space-size=8,--expose-gc,--maglev-as-top-tier");
  assert.doesNotMatch(compile, /--single-threaded/);
});

Deno.test("tasks are named after the commands they run: deno task X runs mod.ts X", () => {
  for (const [name, command] of Object.entries(CONFIG.tasks)) {
    const run = /\smod\.ts (\S+)(?: (\S+))?$/.exec(command);
    if (run === null) continue;
    const [, first, second] = run;
    const expected = [first, ...(second === undefined ? [] : [second])].join(":");
    assert.ok(
      // demo:site is demo with the right to run git (the throwaway site commits the demo result).
      name === expected || [":profile", ":write", ":site"].some((variant) => name === `${expected}${variant}`),
      `task ${name} runs mod.ts ${expected}`,
    );
  }
});
