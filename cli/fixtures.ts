/** `fixtures` command: rebuild the frozen bundle byte for byte, or verify a bundle against its manifest. */
import { PROTOCOL_ID } from "../contract/mod.ts";
import { writeStderr, writeStdout } from "../runtime/mod.ts";
import {
  buildBundle,
  defaultBundleSource,
  MANIFEST_FILE,
  STANDARD_V1_CORPUS_SHA256,
  verifyBundle,
} from "../fixtures/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { helpFooter } from "./_help.ts";

export const HELP = `Usage: strata-bench fixtures build [--out DIR]
       strata-bench fixtures build --tokenizer DIR --template FILE --protocol-id ID --out DIR
       strata-bench fixtures verify [DIR]

build   Rebuilds the standard-v1 fixture bundle (one JSON file per scheduled request, build.json and
        MANIFEST.sha256) from the pinned stand-in tokenizer and chat template in node_modules. Without --out it
        rewrites the committed bundle; the result must be byte-identical to it. DIR must be empty or hold only
        bundle files. With --tokenizer, --template and --protocol-id it freezes a pack's own bundle instead (the
        activation pilot): prints which requests changed against the committed bundle and the new corpus SHA-256.
verify  Checks every file of the bundle in DIR (default: the committed bundle) against its MANIFEST.sha256 and
        names each file that differs, is missing, or is extra. For the committed bundle it also checks the
        corpus SHA-256 this version of strata-bench expects.

Options:
  --out DIR            (build) write the bundle into DIR instead of the committed folder (default:
                       fixtures/standard-v1; required with --tokenizer)
  --tokenizer DIR      (build) the pack's tokenizer.json and tokenizer_config.json
  --template FILE      (build) the pack's chat template (Jinja text)
  --protocol-id ID     (build) the protocol id the pack's bundle is frozen under; never the standard id

${
  helpFooter([
    "strata-bench fixtures verify",
    "strata-bench fixtures build --out /tmp/standard-v1",
    "strata-bench fixtures verify /tmp/standard-v1",
  ])
}
Exit codes:
  ${EXIT.ok}  built / the bundle matches
  ${EXIT.resultNotOk}  the bundle differs from its manifest, or the build broke the 2% length rule
  ${EXIT.usage}  usage error (unknown subcommand or flag, missing value, too many folders)
  ${EXIT.environment}  environment failure (tokenizer packages missing, folder not readable or writable)
`;

function usage(message: string): number {
  writeStderr(`${message}\nRun "strata-bench fixtures --help" for usage.\n`);
  return EXIT.usage;
}

async function build(argv: string[]): Promise<number> {
  const { values } = parseFlags("run fixtures build", argv, {
    out: { type: "string" },
    tokenizer: { type: "string" },
    template: { type: "string" },
    "protocol-id": { type: "string" },
  });
  const packFlags = [values.tokenizer, values.template, values["protocol-id"]];
  if (packFlags.some((v) => v !== undefined) && packFlags.some((v) => v === undefined)) {
    throw new UsageError("Cannot build a pack's bundle: pass --tokenizer DIR, --template FILE and --protocol-id ID");
  }
  if (values["protocol-id"] === PROTOCOL_ID) {
    throw new UsageError(
      `Cannot freeze a pack's bundle under the standard protocol id "${PROTOCOL_ID}": pass a pilot id instead`,
    );
  }
  if (values.tokenizer !== undefined && values.out === undefined) {
    throw new UsageError("Cannot build a pack's bundle into the committed folder: pass --out DIR");
  }
  const pack = values.tokenizer === undefined
    ? undefined
    : { tokenizerDir: values.tokenizer, templateFile: values.template!, protocolId: values["protocol-id"]! };
  const startedMs = performance.now();
  try {
    const report = await buildBundle({
      ...(values.out === undefined ? {} : { outDir: values.out }),
      ...(pack === undefined ? {} : { pack }),
    });
    const seconds = ((performance.now() - startedMs) / 1000).toFixed(1);
    const tokens = report.inputTokens;
    writeStdout(
      `Built ${report.files.length} files into ${report.outDir} in ${seconds} s\n` +
        `  prompt-4k:  ${report.recordCounts["prompt-4k"]} records, ` +
        `${tokens["performance-prompt-4k-r1"]} input tokens (target 4096)\n` +
        `  prompt-16k: ${report.recordCounts["prompt-16k"]} records, ` +
        `${tokens["performance-prompt-16k-r1"]} input tokens (target 16384)\n` +
        `corpus_sha256 ${report.corpusSha256}\n`,
    );
    if (report.changed !== null) {
      writeStdout(
        `${report.changed.length} of ${Object.keys(tokens).length} requests changed against the committed bundle\n`,
      );
      for (const c of report.changed) {
        writeStdout(`  ${c.id}: ${c.committedTokens ?? "none"} -> ${c.builtTokens} input tokens\n`);
      }
      return EXIT.ok;
    }
    if (report.corpusSha256 !== STANDARD_V1_CORPUS_SHA256) {
      writeStderr(
        `Note: this corpus differs from the one this version expects (${STANDARD_V1_CORPUS_SHA256}). ` +
          "The runner refuses the committed bundle until STANDARD_V1_CORPUS_SHA256 in fixtures/mod.ts matches.\n",
      );
    }
    return EXIT.ok;
  } catch (error) {
    return endWith(error, undefined, { otherwise: EXIT.environment });
  }
}

async function verify(argv: string[]): Promise<number> {
  const { positionals } = parseFlags("run fixtures verify", argv, {}, { positionals: true });
  if (positionals.length > 1) {
    return usage(`Cannot verify fixtures: expected at most one folder, got ${positionals.length}`);
  }
  const dir = positionals[0] ?? defaultBundleSource().location;
  try {
    const result = await verifyBundle(positionals[0]);
    const problems = [...result.problems];
    if (positionals.length === 0 && result.ok && result.corpusSha256 !== STANDARD_V1_CORPUS_SHA256) {
      problems.push({
        file: MANIFEST_FILE,
        message: `corpus SHA-256 is ${result.corpusSha256}, this version expects ${STANDARD_V1_CORPUS_SHA256}`,
      });
    }
    if (problems.length === 0) {
      writeStdout(`ok: every file in ${dir} matches ${MANIFEST_FILE}\ncorpus_sha256 ${result.corpusSha256}\n`);
      return EXIT.ok;
    }
    for (const problem of problems) writeStdout(`${problem.file}: ${problem.message}\n`);
    writeStdout(`${problems.length} problem(s) in ${dir}; corpus_sha256 ${result.corpusSha256 ?? "none"}\n`);
    return EXIT.resultNotOk;
  } catch (error) {
    return endWith(error, (message) => `Cannot verify fixtures in "${dir}": ${message}`, {
      otherwise: EXIT.environment,
    });
  }
}

/** Parses `build [--out DIR]` or `verify [DIR]`. @throws {UsageError}. */
export function parseCommandLine(argv: string[]) {
  const [subcommand, ...rest] = argv;
  if (subcommand === "build") return parseFlags("run fixtures build", rest, { out: { type: "string" } });
  if (subcommand === "verify") return parseFlags("run fixtures verify", rest, {}, { positionals: true });
  throw new UsageError(`Cannot run fixtures: no subcommand "${subcommand ?? ""}"; use build or verify`);
}

/** Entry point of `fixtures`: `build [--out DIR]` or `verify [DIR]`. */
export async function main(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  try {
    if (subcommand === "build") return await build(rest);
    if (subcommand === "verify") return await verify(rest);
  } catch (error) {
    return endWith(error, (message) => `${message}\nRun "strata-bench fixtures --help" for usage.`);
  }
  if (subcommand === undefined) return usage("Cannot run fixtures: name a subcommand, build or verify");
  return usage(`Cannot run fixtures: no subcommand "${subcommand}"; use build or verify`);
}
