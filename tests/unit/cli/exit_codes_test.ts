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
