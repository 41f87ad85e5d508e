/**
 * `deno task fuzz`: every property target of _properties.ts for --runs cases (default 1,000,000) from --seed, one
 * after another, printing for each the cases run, the outcome and the time taken (and the counterexample of a
 * failure). Exits 1 when a target fails.
 *
 *   deno task fuzz [--runs 1000000] [--seed N] [--target TEXT]
 */
import fc from "fast-check";
import { parseArgs } from "node:util";
import { args, exit, writeStdout } from "../../runtime/mod.ts";
import { TARGETS } from "./_properties.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    runs: { type: "string", default: "1000000" },
    seed: { type: "string", default: String(Date.now() % 2 ** 31) },
    target: { type: "string", default: "" },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
if (!Number.isSafeInteger(runs) || runs < 1) {
  throw new RangeError(`--runs must be a positive integer, got ${values.runs}`);
}

writeStdout(`fuzz: ${runs} cases per target, seed ${seed}\n`);
let failed = 0;
for (const target of TARGETS.filter((t) => t.name.includes(values.target))) {
  const started = performance.now();
  const details = await fc.check(target.property as fc.IAsyncPropertyWithHooks<unknown[]>, { numRuns: runs, seed });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (details.failed) {
    failed++;
    writeStdout(
      `FAIL ${target.name}: after ${details.numRuns} cases (${seconds} s), seed ${details.seed}, path ` +
        `${details.counterexamplePath}\n  counterexample: ${fc.stringify(details.counterexample)}\n` +
        `  error: ${String(details.errorInstance)}\n`,
    );
  } else {
    writeStdout(`ok   ${target.name}: ${details.numRuns} cases, ${details.numSkips} skipped, ${seconds} s\n`);
  }
}
writeStdout(`${failed === 0 ? "all targets held" : `${failed} target(s) failed`}\n`);
exit(failed === 0 ? 0 : 1);
