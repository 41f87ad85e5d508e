/** `load merge FILE...`: joins the JSONL of a fleet run's shards into per-shard, per-host and pooled summaries. */
import { openReaderOutcome, writeStderr, writeStdout, writeTextOutcome } from "../runtime/mod.ts";
import { DEFAULT_MAX_CLOCK_SPREAD_S, mergeShardFiles, renderEndpointSummary } from "../load/mod.ts";
import { machineSanitizer } from "../sanitize/mod.ts";
import { numberFlag, outFolderFlag, parseFlags, UsageError } from "./_args.ts";
import { outputStem } from "./_out_files.ts";
import { endWith, EXIT } from "./exit_codes.ts";

export const MERGE_HELP = `Usage: strata-bench load merge FILE.jsonl... [--out DIR] [--max-clock-spread-ms MS]

Joins the --out files of every shard of one fleet run (load --shard I/N --start-at T). Refuses files of different
schedules (plan, seed, workload), shard counts or toolkit versions, a shard missing or given twice, and a shard that
did not finish. Prints and writes a summary per shard, per host and pooled over all hosts (pooled_mixture), each
computed from the union of its rows: the distributions one generator would give for them. The pooled window runs
from the earliest measured send to the latest terminal event; the spread of the shards' epoch wall clocks is its
stated uncertainty.

Options:
  --out DIR                 also write the merged result as JSON into a new file in DIR,
                            <UTC-date>-merge-<run-id>.json (its name is printed)
  --max-clock-spread-ms MS  a larger spread of the shards' epoch clocks fails the merge (exit ${EXIT.resultNotOk}; default ${
  DEFAULT_MAX_CLOCK_SPREAD_S * 1000
})
  -h, --help                this text
  --version                 the toolkit's version and commit

Examples:
  strata-bench load merge results/*-load-*-shard-*.jsonl
  strata-bench load merge results/*-load-*-shard-*.jsonl --out results --max-clock-spread-ms 250

Exit codes: ${EXIT.ok} merged; ${EXIT.resultNotOk} merged but the clock spread exceeds the bound; ${EXIT.usage} the files do not form one
complete run (or a usage error); ${EXIT.environment} a file cannot be read or written.
`;

/** Parses `load merge`'s command line. @throws {UsageError}. */
export function parseMergeArgs(argv: readonly string[]) {
  const { values, positionals } = parseFlags("load merge", argv, {
    out: { type: "string" },
    "max-clock-spread-ms": { type: "string" },
    help: { type: "boolean" },
  }, { positionals: true });
  const help = values.help === true;
  if (!help && positionals.length === 0) throw new UsageError("Cannot merge: give the shards' JSONL files");
  return {
    help,
    files: positionals,
    spreadMs: numberFlag("load merge", values, "max-clock-spread-ms", { min: 0 }),
    outDir: values.out === undefined ? null : outFolderFlag("load merge", values, "bench-results"),
  };
}

/** Entry point of `load merge`. */
export async function main(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parseMergeArgs>;
  try {
    command = parseMergeArgs(argv);
  } catch (error) {
    return endWith(error);
  }
  if (command.help) {
    writeStdout(MERGE_HELP);
    return EXIT.ok;
  }
  return await mergeAndPrint(command.files, { outDir: command.outDir, spreadMs: command.spreadMs, workers: null });
}

/**
 * Merges shard files, prints the per-host and pooled summaries and, with `outDir`, writes the result there; the exit
 * code. `workers`: the count of this host's `load --workers` processes that wrote them (null: a fleet's files).
 */
export async function mergeAndPrint(
  files: readonly string[],
  options: { outDir: string | null; spreadMs: number | undefined; workers: number | null },
): Promise<number> {
  const { outDir, spreadMs: spread } = options;
  const sanitizer = machineSanitizer();
  try {
    const result = await mergeShardFiles(files, {
      openRead: async (path) => {
        const opened = await openReaderOutcome(path);
        if (!opened.ok) throw new Error(`Cannot read ${path}: ${opened.reason}`);
        return opened.value;
      },
    }, { workers: options.workers, ...(spread === undefined ? {} : { maxClockSpreadS: spread / 1000 }) });
    writeStdout(
      `load merge: ${result.shards} shards${
        result.workers === null ? "" : ` (load --workers ${result.workers} on this host)`
      } of schedule ${result.schedule_sha256.slice(0, 16)}..., ${result.mode} loop; ` +
        `clock spread ${
          result.clock.spread_s === null ? "unknown" : `${(result.clock.spread_s * 1000).toFixed(1)} ms`
        }` +
        ` (window uncertainty), bound ${(result.clock.bound_s * 1000).toFixed(0)} ms\n`,
    );
    for (const s of result.per_host) writeStdout(renderEndpointSummary(s));
    writeStdout(renderEndpointSummary(result.pooled));
    if (outDir !== null) {
      const path = `${outputStem(outDir, "merge", new Date())}.json`;
      const written = await writeTextOutcome(path, JSON.stringify(sanitizer.json(result)) + "\n");
      if (!written.ok) {
        writeStderr(`Cannot write "${path}": ${written.reason}\n`);
        return EXIT.environment;
      }
      writeStderr(`load merge: wrote ${path}\n`);
    }
    if (result.clock.within === false) {
      writeStderr(
        `load merge: the shards' epoch clocks spread ${(result.clock.spread_s! * 1000).toFixed(1)} ms, beyond the ` +
          `${(result.clock.bound_s * 1000).toFixed(0)} ms bound: check the hosts' time sync (NTP), start later so ` +
          "every warm-up ends in time, or raise --max-clock-spread-ms\n",
      );
      return EXIT.resultNotOk;
    }
    return EXIT.ok;
  } catch (error) {
    return endWith(error, undefined, { otherwise: EXIT.environment });
  }
}
