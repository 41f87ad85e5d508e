/**
 * Every command line in README.md and docs/*.md (the lines of their ```sh blocks) works as written: a strata-bench
 * command (npx, installed, or a release binary) and every `deno task` of mod.ts is accepted by the command's own
 * parser, every task exists in deno.json, the `deno install` and `deno run` lines carry exactly the `run`
 * permission set of deno.json, the compare spec docs show is the committed example and compare accepts it, and any
 * other line starts with a program the docs explain. README's own examples are run for real in
 * readme_examples_test.ts.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { splitWords } from "../unit/cli/_help_examples.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CONFIG = JSON.parse(readFileSync(join(REPO, "deno.json"), "utf8")) as {
  tasks: Record<string, string>;
  permissions: Record<string, Record<string, unknown>>;
};
const PACKAGE = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const DOCS = ["README.md", ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Each command line of a file's ```sh blocks: continuations joined, trailing comments and a final `&` removed. */
export function commandLines(file: string): string[] {
  const text = readFileSync(join(REPO, file), "utf8");
  const lines: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.replace(/\\\n\s*/g, "").split("\n")) {
      const line = raw.replace(/\s+#\s.*$/, "").replace(/\s*&$/, "").trim();
      if (line !== "") lines.push(line);
    }
  }
  return lines;
}

/** The `--allow-*` flags deno.json's `run` set spells out (with the hash cache folder the tasks add). */
function runSetFlags(): string[] {
  const run = CONFIG.permissions["run"]!;
  const list = (key: string, extra: string[] = []) => [...(run[key] as string[]), ...extra].join(",");
  return [
    `--allow-net=${list("net")}`,
    "--allow-read",
    `--allow-write=${list("write", ["$HOME/.cache/strata-bench"])}`,
    `--allow-run=${list("run")}`,
    `--allow-env=${list("env")}`,
    `--allow-sys=${list("sys")}`,
  ];
}

interface CommandModule {
  parseCommandLine(argv: string[]): unknown;
}

async function parses(words: string[], where: string): Promise<void> {
  const [command, ...rest] = words;
  if (command === "--version" || command === "--help" || command === "help") return;
  assert.ok(command !== undefined && /^[a-z]+$/.test(command), `${where}: no command`);
  const mod = await import(`../../cli/${command}.ts`) as CommandModule;
  assert.doesNotThrow(() => mod.parseCommandLine(rest), `${where}: ${words.join(" ")}`);
}

/** Programs a docs line may start with besides strata-bench and deno, each explained where it is shown. */
const OTHER_PROGRAMS = ["npm", "bash", "export", "sha256sum", "shasum", "(Get-FileHash", "llama-server"];

for (const file of DOCS) {
  Deno.test(`every command line in ${file} works as written`, async () => {
    for (const line of commandLines(file)) {
      const where = `${file}: ${line}`;
      const words = splitWords(line.replace(/\s*\|.*$/, "")).map((w) => w.replace(/^DENORT_DIR=\S+$/, ""))
        .filter((w) => w !== "");
      const [first = "", second = "", third = ""] = words;
      if (first === "npx" && second === "strata-bench") await parses(words.slice(2), where);
      else if (first === "strata-bench" || /^\.\/strata-bench-[\d.]+-[a-z0-9-]+$/.test(first)) {
        await parses(words.slice(1), where);
      } else if ((first === "./node_modules/.bin/deno" || first === "deno") && second === "task") {
        const task = CONFIG.tasks[third];
        assert.ok(task !== undefined, `${where}: no task "${third}" in deno.json`);
        const entry = /mod\.ts ([a-z ]+)$/.exec(task);
        if (entry) await parses([...entry[1]!.split(" "), ...words.slice(3)], where);
      } else if (first === "./node_modules/.bin/deno" && (second === "install" || second === "run")) {
        const allow = words.filter((w) => w.startsWith("--allow-"));
        assert.deepEqual(allow, runSetFlags(), `${where}: the flags are not deno.json's run set`);
        const entry = words.indexOf("mod.ts");
        assert.ok(entry > 0, `${where}: no mod.ts`);
        if (second === "run") await parses(words.slice(entry + 1), where);
        else assert.equal(entry, words.length - 1, where);
      } else if (first === "npx" && second === "bun") {
        assert.ok(PACKAGE.devDependencies["bun"] !== undefined, where);
      } else if (first === "npm" && (second === "run" || second === "test")) {
        assert.ok(PACKAGE.scripts[second === "run" ? third : "test"] !== undefined, `${where}: no such npm script`);
      } else {
        assert.ok(OTHER_PROGRAMS.includes(first), `${where}: a command line no test checks`);
      }
    }
  });
}

Deno.test("README speaks strata-bench (and deno task test), and names Node versions every dependency supports", () => {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  assert.match(readme, /deno task test/);
  // Every other command is strata-bench's: deno task belongs in docs/development.md.
  const other = readme.split("\n").filter((l) =>
    /deno task|node_modules\/\.bin\/deno/.test(l) && !/deno task test\b/.test(l)
  );
  assert.deepEqual(other, []);
  const engines = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { engines: { node: string } })
    .engines.node;
  const least = /^>=(\d+)$/.exec(engines)?.[1];
  assert.ok(least !== undefined, engines);
  assert.match(readme, new RegExp(`Node\\.js ${least} or newer`));
  assert.ok(readme.split("\n").length <= 200, "README stays a five-minute read");
});

Deno.test("docs speak strata-bench: deno task appears only in docs/development.md, other pages name tasks", () => {
  const named: string[] = [];
  for (const file of DOCS.filter((f) => f !== "README.md" && f !== "docs/development.md")) {
    const text = readFileSync(join(REPO, file), "utf8");
    assert.deepEqual(text.split("\n").filter((l) => /deno task/.test(l)), [], file);
    for (const m of text.matchAll(/\btasks? `([a-z][a-z:-]*)/g)) named.push(m[1]!);
  }
  // Each task another page names by name is one of deno.json's, and development.md shows how to run tasks.
  assert.ok(named.length >= 5, named.join(" "));
  for (const task of named) assert.ok(CONFIG.tasks[task] !== undefined, `no task "${task}" in deno.json`);
  assert.match(readFileSync(join(REPO, "docs", "development.md"), "utf8"), /\.\/node_modules\/\.bin\/deno task test/);
});

Deno.test("the compare spec docs/load.md shows is the committed example, and compare --plan accepts it", async () => {
  const spec = readFileSync(join(REPO, "docs", "examples", "gate.jsonc"), "utf8");
  const shown = /```jsonc\n([\s\S]*?)```/.exec(readFileSync(join(REPO, "docs", "load.md"), "utf8"))?.[1];
  assert.equal(shown?.trim(), spec.slice(spec.indexOf("{")).trim());
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-env",
      "--allow-net=127.0.0.1",
      join(REPO, "mod.ts"),
      "compare",
      "--plan",
      "docs/examples/gate.jsonc",
      "--baseline",
      "http://127.0.0.1:8080",
      "--candidate",
      "http://127.0.0.1:8081",
    ],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const plan = JSON.parse(new TextDecoder().decode(output.stdout)) as { kind: string; spec: { name: string } };
  assert.equal(plan.kind, "compare-plan");
  assert.equal(plan.spec.name, "example-gate");
});
