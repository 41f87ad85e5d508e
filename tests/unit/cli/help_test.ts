/**
 * Every --help as a person reads it: -h and --version listed, the flags with their defaults, and two or three
 * examples that work as written; each example is parsed by the command's own parser (a broken one fails here).
 */
import assert from "node:assert/strict";
import { helpExamples, splitWords } from "./_help_examples.ts";
import { HELP as TOP_HELP } from "../../../mod.ts";

const COMMANDS = [
  "run",
  "demo",
  "load",
  "compare",
  "report",
  "submit",
  "probe",
  "mock",
  "fixtures",
  "approved",
  "site",
];

interface CommandModule {
  HELP: string;
  parseCommandLine(argv: string[]): unknown;
}

async function commandModule(name: string): Promise<CommandModule> {
  return await import(`../../../cli/${name}.ts`) as CommandModule;
}

for (const name of COMMANDS) {
  Deno.test(`${name} --help lists -h, --version and examples that ${name}'s own parser accepts`, async () => {
    const mod = await commandModule(name);
    assert.match(mod.HELP, /^Usage: strata-bench /);
    assert.match(mod.HELP, /-h, --help/);
    assert.match(mod.HELP, /--version/);
    assert.match(mod.HELP, /Exit codes/);
    const examples = helpExamples(mod.HELP);
    assert.ok(examples.length >= 2 && examples.length <= 3, `${name}: ${examples.length} examples`);
    for (const words of examples) {
      assert.equal(words[0], name, words.join(" "));
      assert.doesNotThrow(() => mod.parseCommandLine(words.slice(1)), `example: strata-bench ${words.join(" ")}`);
    }
    // The examples test can fail: an example with a flag the command does not know is refused.
    assert.throws(() => mod.parseCommandLine([...examples[0]!.slice(1), "--no-such-flag"]));
  });
}

Deno.test("load merge's help has its own working examples", async () => {
  const { MERGE_HELP } = await import("../../../cli/_load_merge.ts");
  const load = await commandModule("load");
  const examples = helpExamples(MERGE_HELP);
  assert.equal(examples.length, 2);
  for (const words of examples) assert.doesNotThrow(() => load.parseCommandLine(words.slice(1)), words.join(" "));
});

Deno.test("the top-level help lists --version, the one vocabulary, and examples of real commands", async () => {
  assert.match(TOP_HELP, /--version/);
  assert.match(TOP_HELP, /-h, --help/);
  assert.match(TOP_HELP, /--profile NAME\|FILE is an engine profile/);
  assert.match(TOP_HELP, /4 {2}load or compare interrupted by a signal/);
  for (const words of helpExamples(TOP_HELP)) {
    const mod = await commandModule(words[0]!);
    assert.doesNotThrow(() => mod.parseCommandLine(words.slice(1)), words.join(" "));
  }
});

Deno.test("every help that can exit interrupted says so with the documented code", async () => {
  for (const name of ["load", "compare"]) {
    assert.match((await commandModule(name)).HELP, /\n {2}4 {2}interrupted by a signal/);
  }
});

Deno.test("example lines split as a shell splits them", () => {
  assert.deepEqual(splitWords(`run --track-notes "flash attention on" --x 'a b'`), [
    "run",
    "--track-notes",
    "flash attention on",
    "--x",
    "a b",
  ]);
});

Deno.test("load --help starts with the flags a newcomer needs and the examples, before the full list", async () => {
  const help = (await commandModule("load")).HELP;
  const start = help.indexOf("\nStart here");
  const examples = help.indexOf("\nExamples:\n");
  const full = help.indexOf("\nTarget:\n");
  assert.ok(start > 0 && start < examples && examples < full, "Start here, then Examples, then every flag");
  const block = help.slice(start, examples);
  const flags = [...block.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!);
  assert.deepEqual(flags, ["--url", "--concurrency", "--duration", "--workload", "--html", "--out"]);
  // Each of them is described again in the full list below.
  for (const flag of flags) assert.match(help.slice(full), new RegExp(`\\n {2}${flag} `), flag);
});

Deno.test("the top-level help lists the commands in the order a newcomer meets them, demo first", () => {
  const listed = [...TOP_HELP.slice(TOP_HELP.indexOf("Commands:\n")).matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
  assert.deepEqual(listed.slice(0, 6), ["demo", "run", "report", "submit", "load", "compare"]);
  assert.equal(listed.at(-1), "fixtures", "the maintainer's bundle tool last");
});
