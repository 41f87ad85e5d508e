/** `load merge FILE...`: joins the JSONL of a fleet run's shards into per-shard, per-host and pooled summaries. */
import { openReaderOutcome, writeStderr, writeStdout, writeTextOutcome } from "../runtime/mod.ts";
import { DEFAULT_MAX_CLOCK_SPREAD_S, MergeRefusal, mergeShardFiles, renderEndpointSummary } from "../load/mod.ts";
import { machineSanitizer } from "../report/mod.ts";
import { numberFlag, parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";

export const MERGE_HELP = `Usage: strata-bench load merge FILE.jsonl... [--out MERGED.json] [--max-clock-spread-ms MS]

Joins the --out files of every shard of one fleet run (load --shard I/N --start-at T). Refuses files of different
schedules (plan, seed, workload), shard counts or toolkit versions, a shard missing or given twice, and a shard that
did not finish. Prints and writes a summary per shard, per host and pooled over all hosts (pooled_mixture), each
computed from the union of its rows: the distributions one generator would give for them. The pooled window runs
from the earliest measured send to the latest terminal event; the spread of the shards' epoch wall clocks is its
stated uncertainty.

Options:
  --out FILE                write the merged result as JSON
  --max-clock-spread-ms MS  a larger spread of the shards' epoch clocks fails the merge (exit ${EXIT.resultNotOk}; default ${
  DEFAULT_MAX_CLOCK_SPREAD_S * 1000
})

Exit codes: ${EXIT.ok} merged; ${EXIT.resultNotOk} merged but the clock spread exceeds the bound; ${EXIT.usage} the files do not form one
complete run (or a usage error); ${EXIT.environment} a file cannot be read or written.
`;

/** Entry point of `load merge`. */
export async function main(argv: string[]): Promise<number> {
  let values: Record<string, unknown>, files: string[];
  try {
    const parsed = parseFlags("load merge", argv, {
      out: { type: "string" },
      "max-clock-spread-ms": { type: "string" },
      help: { type: "boolean" },
    }, { positionals: true });
    values = parsed.values;
    files = parsed.positionals;
    if (values.help === true) {
      writeStdout(MERGE_HELP);
      return EXIT.ok;
    }
    if (files.length === 0) throw new UsageError("Cannot merge: give the shards' JSONL files");
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  let spread: number | undefined;
  try {
    spread = numberFlag("load merge", values, "max-clock-spread-ms", { min: 0 });
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const sanitizer = machineSanitizer();
  try {
    const result = await mergeShardFiles(files, {
      openRead: async (path) => {
        const opened = await openReaderOutcome(path);
        if (!opened.ok) throw new Error(`Cannot read ${path}: ${opened.reason}`);
        return opened.value;
      },
    }, spread === undefined ? {} : { maxClockSpreadS: spread / 1000 });
    writeStdout(
      `load merge: ${result.shards} shards of schedule ${
        result.schedule_sha256.slice(0, 16)
      }..., ${result.mode} loop; ` +
        `clock spread ${
          result.clock.spread_s === null ? "unknown" : `${(result.clock.spread_s * 1000).toFixed(1)} ms`
        }` +
        ` (window uncertainty), bound ${(result.clock.bound_s * 1000).toFixed(0)} ms\n`,
    );
    for (const s of result.per_host) writeStdout(renderEndpointSummary(s));
    writeStdout(renderEndpointSummary(result.pooled));
    if (values.out !== undefined) {
      const written = await writeTextOutcome(values.out as string, JSON.stringify(sanitizer.json(result)) + "\n");
      if (!written.ok) {
        writeStderr(`Cannot write "${values.out}": ${written.reason}\n`);
        return EXIT.environment;
      }
      writeStderr(`load merge: wrote ${values.out}\n`);
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
    writeStderr(`${(error as Error).message}\n`);
    return error instanceof MergeRefusal ? EXIT.usage : EXIT.environment;
  }
}
