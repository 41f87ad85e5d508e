/**
 * Terminal escapes from an engine reach no terminal and no README raw: the hostile engine puts ESC/OSC/CSI, C1,
 * a bare carriage return and a right-to-left override into its error messages, answers and /props, and each
 * command that prints engine text (run's progress and summary, probe's JSON) and the README a run writes are
 * checked byte for byte. (`report` on a valid result holding escapes: report_hostile_test.ts. load and compare
 * print counts, statistics and the operator's URLs, no engine text; their JSONL files are data.)
 */
import assert from "node:assert/strict";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHostileEngine } from "../hostile/_hostile_engine.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const ATTACK = "\x1b]0;pwned\x07\x1b[2K\rcompleted 999 tok/s\u009b2J\u202e";
// deno-lint-ignore no-control-regex
const RAW_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

async function command(args: string[], cwd: string) {
  const output = await new Deno.Command(Deno.execPath(), { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

function assertNoRawControls(where: string, text: string): void {
  const found = RAW_CONTROLS.exec(text);
  assert.equal(found, null, `${where} holds a raw U+${found?.[0].charCodeAt(0).toString(16)}`);
}

Deno.test("run prints engine error text and answers escaped, and its README holds no raw control", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-escapes-" });
  const engine = startHostileEngine({
    faults: { "performance-short-r1": "http 500 whose message holds terminal escapes" },
    answers: { "sanity-I4": { answer: ATTACK, reasoning: ATTACK } },
    props: { build_info: `b7000-80fb11a${ATTACK}` },
  });
  try {
    const run = await command([
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      "--allow-read",
      `--allow-write=${dir}`,
      "--allow-env",
      "--allow-sys",
      join(REPO, "mod.ts"),
      "run",
      "--url",
      engine.url,
      "--out",
      dir,
      "--track-notes",
      ATTACK,
    ], dir);
    assert.equal(run.code, 1, run.stderr);
    assertNoRawControls("run's stderr", run.stderr);
    assertNoRawControls("run's stdout", run.stdout);
    assert.match(
      run.stderr,
      /performance-short-r1 \.\.\. failed \(.*\\u001b\]0;pwned\\u0007\\u001b\[2K\\u000dcompleted/,
    );
    const [name] = await readdir(dir);
    const readme = await readFile(join(dir, name!, "README.md"), "utf8");
    assertNoRawControls("README.md", readme);
    assert.ok(readme.includes("\\\\u001b\\]0;pwned"), "the README shows the escape as visible text");
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("probe prints /props facts with their escapes neutralized, as JSON that still parses", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-escapes-" });
  const engine = startHostileEngine({ props: { build_info: `b7000-80fb11a${ATTACK}`, model_alias: ATTACK } });
  try {
    const probe = await command([
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      join(REPO, "mod.ts"),
      "probe",
      "--url",
      engine.url,
      "--no-cache",
    ], dir);
    assertNoRawControls("probe's stdout", probe.stdout);
    assertNoRawControls("probe's stderr", probe.stderr);
    const facts = JSON.parse(probe.stdout);
    assert.equal(facts.server.model_alias, ATTACK, "the JSON value is the engine's, unchanged");
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});
