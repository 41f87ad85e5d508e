import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { endWith, EXIT, exitCodeOf, failureText } from "../../../cli/exit_codes.ts";
import { RunRefusedError, RunWriteError, TemplateMismatchError } from "../../../runner/run_errors.ts";
import { UsageError } from "../../../cli/_args.ts";
import { FixtureBundleError } from "../../../fixtures/mod.ts";

function parseError(): unknown {
  try {
    parseArgs({ args: ["--nope"], strict: true, options: {} });
  } catch (error) {
    return error;
  }
  throw new Error("parseArgs accepted an unknown flag");
}

Deno.test("a bad command line (a UsageError or parseArgs refusing a flag) exits with the usage code", () => {
  assert.equal(exitCodeOf(new UsageError("Cannot run x: no")), EXIT.usage);
  assert.equal(exitCodeOf(parseError()), EXIT.usage);
});

Deno.test("a refused permission and the toolkit's environment errors exit with the environment code", () => {
  const refused = Object.assign(new Error('Requires read access to "x", run again with the --allow-read flag'), {
    name: "NotCapable",
  });
  assert.equal(exitCodeOf(refused), EXIT.environment);
  assert.equal(
    failureText("site", "build", refused),
    "Cannot run site build: permission refused (add --allow-read=x).\n",
  );
  assert.equal(
    failureText("site", "build", new UsageError("no")),
    'Cannot run site: no\nRun "strata-bench site --help" for usage.\n',
  );
  assert.equal(exitCodeOf(new FixtureBundleError("bundle_invalid", "the bundle is gone", [])), EXIT.environment);
});

Deno.test("an error that is a defect has no exit code (the command rethrows it)", () => {
  assert.equal(exitCodeOf(new Error("a bug")), null);
  assert.equal(exitCodeOf(new TypeError("a bug")), null);
  assert.equal(exitCodeOf("thrown text"), null);
});

Deno.test("a run refused before it began, or one whose folder could not be written, exits with the environment code", () => {
  assert.equal(exitCodeOf(new RunRefusedError("unreachable", "Cannot reach the server")), EXIT.environment);
  assert.equal(exitCodeOf(new RunWriteError("f", 3, "ENOSPC", "the disk is full")), EXIT.environment);
  const check = { mismatches: 1, rows: [{ id: "short", verdict: "mismatch", reason: "x" }] };
  assert.equal(exitCodeOf(new TemplateMismatchError(check as never)), EXIT.environment);
  // An error of another name is a defect.
  assert.equal(exitCodeOf(Object.assign(new Error("x"), { name: "RunRefused" })), null);
});

Deno.test("endWith returns an error's code after its text, and throws a defect again", () => {
  assert.equal(endWith(new UsageError("Cannot run x: no"), (m) => `${m} (said)`), EXIT.usage);
  const defect = new Error("a bug");
  assert.throws(() => endWith(defect), (error) => error === defect);
});

Deno.test("the errors of load, merge, saved results, engines and the fixtures' length rule have their codes", async () => {
  const { SavedResultsRefusal } = await import("../../../load/mod.ts");
  const { MergeRefusal } = await import("../../../load/merge.ts");
  const { TargetRefused } = await import("../../../load/preflight.ts");
  const { LengthRuleError } = await import("../../../fixtures/mod.ts");
  const { FolderFileError } = await import("../../../runtime/mod.ts");
  assert.equal(exitCodeOf(new MergeRefusal("the shards do not form one run")), EXIT.usage);
  assert.equal(exitCodeOf(new SyntaxError("Cannot use the compare spec: not JSON")), EXIT.usage);
  assert.equal(exitCodeOf(new RangeError("Cannot plan the load: it is unbounded")), EXIT.usage);
  assert.equal(exitCodeOf(new SavedResultsRefusal("damaged", ["line 3: not strict JSON"])), EXIT.resultNotOk);
  assert.equal(exitCodeOf(new LengthRuleError("renders more than 2% from 4096")), EXIT.resultNotOk);
  assert.equal(exitCodeOf(new TargetRefused("not a streaming chat server")), EXIT.environment);
  assert.equal(exitCodeOf(new FolderFileError("x", "symlink", '"x" is a symbolic link')), EXIT.environment);
  assert.equal(
    exitCodeOf(Object.assign(new Error("llama-server exited"), { name: "EngineStartError" })),
    EXIT.environment,
  );
});

Deno.test("endWith gives a command's `otherwise` to an error the mapping does not name, and writes where told", () => {
  const written: string[] = [];
  const write = (text: string) => written.push(text);
  assert.equal(endWith(new Error("ECONNRESET"), (m) => `Cannot: ${m}`, { otherwise: EXIT.environment, write }), 3);
  assert.equal(endWith(new UsageError("no"), undefined, { otherwise: EXIT.environment, write }), EXIT.usage);
  assert.deepEqual(written, ["Cannot: ECONNRESET\n", "no\n"]);
});

Deno.test("no cli/ catch block maps an error to an exit code by hand: each goes through endWith", async () => {
  const dir = new URL("../../../cli/", import.meta.url);
  const offenders: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".ts") || entry.name === "exit_codes.ts") continue;
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    for (const match of text.matchAll(/catch(?: \(\w+\))? \{/g)) {
      // The catch block's body, to its balanced closing brace.
      let depth = 1, end = match.index + match[0].length;
      while (depth > 0 && end < text.length) depth += { "{": 1, "}": -1 }[text[end++]!] ?? 0;
      const body = text.slice(match.index, end);
      // A code a catch block may name: `otherwise` (what the command's unnamed failures mean) or a signal's.
      const codes = [...body.matchAll(/(otherwise: )?EXIT\.(\w+)/g)].filter((m) => !m[1] && m[2] !== "interrupted");
      if (codes.length > 0 || /exitCodeOf\(/.test(body)) {
        offenders.push(`${entry.name}:${text.slice(0, match.index).split("\n").length}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});
