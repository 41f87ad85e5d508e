/**
 * `deno task fuzz`: every property target of _properties.ts for --runs cases (default 1,000,000) from --seed, one
 * after another, printing for each the cases run, the outcome and the time taken (and the counterexample of a
 * failure). Exits 1 when a target fails.
 *
 *   deno task fuzz [--runs 1000000] [--seed N] [--target TEXT]
 */
import fc from "fast-check";
import { parseArgs } from "node:util";
import { args, exit, writeStderr, writeStdout } from "../../runtime/mod.ts";
import { TARGETS } from "./_properties.ts";

const USAGE = `Usage: deno task fuzz [--runs N] [--seed N] [--target TEXT]

Runs every property target (or those whose name contains TEXT) for N cases each (default 1000000) from the seed
(default: from the clock, printed), and prints each target's cases, outcome and time. Exits 1 when a target fails,
2 on a usage error.

Targets: ${TARGETS.map((t) => t.name).join(", ")}
`;

/** The parsed command line, or the exit code after help or a usage error. */
function parseCommandLine(): { runs: number; seed: number; target: string } | number {
  let values;
  try {
    values = parseArgs({
      args: args(),
      options: {
        runs: { type: "string", default: "1000000" },
        seed: { type: "string", default: String(Date.now() % 2 ** 31) },
        target: { type: "string", default: "" },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    writeStderr(`fuzz: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    writeStdout(USAGE);
    return 0;
  }
  const runs = Number(values.runs);
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(runs) || runs < 1 || !Number.isSafeInteger(seed)) {
    writeStderr(
      `fuzz: --runs must be a positive integer and --seed an integer (got "${values.runs}", "${values.seed}")\n`,
    );
    return 2;
  }
  return { runs, seed, target: values.target };
}

const parsed = parseCommandLine();
if (typeof parsed === "number") exit(parsed);
const { runs, seed, target: only } = parsed as Exclude<typeof parsed, number>;

writeStdout(`fuzz: ${runs} cases per target, seed ${seed}\n`);
let failed = 0;
for (const target of TARGETS.filter((t) => t.name.includes(only))) {
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
