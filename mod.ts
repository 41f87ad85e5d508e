/**
 * strata-bench entry point: parses the subcommand, hands the rest of argv to its module in cli/, and turns the
 * outcome into an exit code. Each cli module exports `main(argv): Promise<number>` and `HELP`.
 */
import { args, exit, writeStderr, writeStdout } from "./runtime/mod.ts";
import { EXIT } from "./cli/exit_codes.ts";

interface CommandModule {
  main(argv: string[]): Promise<number>;
  HELP: string;
}

/** The commands in the order a newcomer meets them: the demo first, the maintainer's tools last. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  demo: {
    summary: "run the whole protocol against the scripted engine (a labelled simulation)",
    load: () => import("./cli/demo.ts"),
  },
  run: { summary: "run the standard benchmark protocol against a local server", load: () => import("./cli/run.ts") },
  report: {
    summary: "validate a saved result folder strictly and print it again",
    load: () => import("./cli/report.ts"),
  },
  submit: {
    summary: "put a result folder into your clone of a results repository as a pull request branch",
    load: () => import("./cli/submit.ts"),
  },
  load: {
    summary: "load-test a server (closed or open loop) by the performance methodology",
    load: () => import("./cli/load.ts"),
  },
  compare: {
    summary: "gate a candidate server against a baseline on the same machine",
    load: () => import("./cli/compare.ts"),
  },
  probe: {
    summary: "print hardware, software, server and model-file facts as JSON",
    load: () => import("./cli/probe.ts"),
  },
  mock: { summary: "start the scripted llama.cpp-compatible engine on loopback", load: () => import("./cli/mock.ts") },
  site: {
    summary: "build, serve or verify the approved-results website (checks every hash in the browser)",
    load: () => import("./cli/site.ts"),
  },
  approved: {
    summary: "a results repository: init it, check a folder, verify, add, or withdraw an approved result",
    load: () => import("./cli/approved.ts"),
  },
  fixtures: { summary: "build or verify the frozen fixture bundle", load: () => import("./cli/fixtures.ts") },
};

export const HELP = `strata-bench: benchmarks for local OpenAI-compatible LLM streaming servers

Usage: strata-bench <command> [options]     (each command has --help; or: strata-bench help <command>)
       strata-bench --version

Commands:
${Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)}${c.summary}`).join("\n")}

One vocabulary in every command: --profile NAME|FILE is an engine profile (compare: --baseline-profile and
--candidate-profile); --workload NAME is a load workload; --out DIR is a folder the command writes into (a result
folder, or a new file whose name it prints); --quiet hides progress; -h/--help and --version work everywhere.

Options:
  -h, --help   this text
  --version    the toolkit's version and commit

Examples:
  strata-bench demo
  strata-bench run --url http://127.0.0.1:8080 --track custom --track-notes "flash attention on"
  strata-bench load --url http://127.0.0.1:8080 --concurrency 8 --duration 60

Exit codes:
  ${EXIT.ok}  success (for run/report: a valid, conforming result)
  ${EXIT.resultNotOk}  ran, but the result is invalid, partial or nonconforming, or a gate failed
  ${EXIT.usage}  usage error (unknown flag, missing value, a flag with no effect, refused workload-changing flag)
  ${EXIT.environment}  environment failure (permission refused, engine missing, server unreachable or not an LLM server,
     output folder not writable); the reason is on stderr
  ${EXIT.interrupted}  load or compare interrupted by a signal: what was measured is kept, marked interrupted
`;

/** Runs one command line and returns its exit code. */
export async function dispatch(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || (name === "help" && rest.length === 0)) {
    writeStdout(HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version") {
    writeStdout(await (await import("./cli/_version.ts")).versionText());
    return EXIT.ok;
  }
  // "strata-bench help run" is "strata-bench run --help".
  if (name === "help" && rest[0] !== undefined) return await dispatch([rest[0], "--help"]);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    const { didYouMean } = await import("./cli/_args.ts");
    const near = didYouMean(name, Object.keys(COMMANDS));
    writeStderr(
      `Cannot run "${name}": no such command${near === null ? "." : `; did you mean "${near}"?`} Run with --help ` +
        "to list the commands.\n",
    );
    return EXIT.usage;
  }
  const mod = await command.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    writeStdout(mod.HELP);
    return EXIT.ok;
  }
  if (rest.includes("--version")) {
    writeStdout(await (await import("./cli/_version.ts")).versionText());
    return EXIT.ok;
  }
  return await mod.main(rest);
}

if (import.meta.main) {
  exit(await dispatch(args()));
}
