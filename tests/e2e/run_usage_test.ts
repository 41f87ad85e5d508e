/** `mod.ts run` usage errors as a person meets them: a child deno process, exit codes and messages. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

async function strataBench(cwd: string, args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-net=127.0.0.1",
      `--allow-write=${cwd}`,
      join(REPO, "mod.ts"),
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

Deno.test("help COMMAND prints the command's help; a mistyped command or flag gets the nearest one", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  try {
    const help = await strataBench(cwd, ["help", "run"]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: strata-bench run /);
    const typo = await strataBench(cwd, ["rnu"]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /no such command; did you mean "run"\?/);
    const flag = await strataBench(cwd, ["run", "--ulr", "http://127.0.0.1:8080"]);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown flag --ulr; did you mean --url\?/);
    const plan = await strataBench(cwd, ["compare", "--plan"]);
    assert.equal(plan.code, 2);
    assert.match(plan.stderr, /^Cannot compare: --plan needs a value/);
    assert.doesNotMatch(plan.stderr, /ambiguous|Option '/);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("run exits 2 (usage) for a malformed --url, names the problem and shows a well-formed example", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "strata-e2e-" });
  try {
    for (
      const [url, why] of [
        ["notaurl", /not a URL/],
        ["ftp://127.0.0.1:21", /only http and https/],
        ["http://127.0.0.1:99999", /port 99999 is above 65535/],
      ] as const
    ) {
      const run = await strataBench(cwd, ["run", "--url", url]);
      assert.equal(run.code, 2, `${url}: ${run.stderr}`);
      assert.match(run.stderr, why);
      assert.match(run.stderr, /pass e\.g\. --url http:\/\/127\.0\.0\.1:8080/);
    }
    const names: string[] = [];
    for await (const entry of Deno.readDir(cwd)) names.push(entry.name);
    assert.deepEqual(names, [], "a usage error writes nothing");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
