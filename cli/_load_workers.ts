/**
 * `load --workers N`: the plan run as N shards (`--shard I/N`) by N child processes on this host, for machines whose
 * cores outnumber what one client thread needs. The children run with this process's runtime and permissions
 * (runtime's selfCommand), start their measurement at one epoch a few seconds ahead, and write their JSONL into a
 * folder of their own in --out; `load merge`'s code then joins them exactly into one result that names the worker
 * count. A signal to this process, or its failure (a worker that fails, an error here), stops every child; a child
 * whose parent dies stops by itself (its parent-death watch).
 */
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import {
  onTerminationSignal,
  readDirOutcome,
  selfCommand,
  type SpawnedProcess,
  spawnProcess,
  sys,
  toolkitCacheDir,
  writeStderr,
} from "../runtime/mod.ts";
import type { LoadTestOptions } from "../load/mod.ts";
import { mergeAndPrint } from "./_load_merge.ts";
import { outputStem } from "./_out_files.ts";
import { endWith, EXIT } from "./exit_codes.ts";

/** Seconds from the workers' start to their common measurement epoch, before any headroom check or timed warm-up. */
export const WORKERS_LEAD_S = 5;

/** The flags the parent sets for each worker itself (removed from the person's command line, with their values). */
const PARENT_FLAGS = new Set(["--workers", "--out", "--worker-of"]);

/** The person's `load` arguments without --workers, --out and --worker-of (either spelling). */
export function workerArgv(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!.split("=")[0]!;
    if (!PARENT_FLAGS.has(flag)) kept.push(argv[i]!);
    else if (!argv[i]!.includes("=")) i++;
  }
  return kept;
}

/** What a worker needs beyond the parent's own run: the servers, the folders it reads and writes. */
function needs(options: LoadTestOptions, shardDir: string, toolkit: string) {
  const cache = toolkitCacheDir();
  const caches = cache.ok ? [cache.value] : [];
  return {
    read: [toolkit, resolve("."), ...caches],
    write: [resolve(shardDir), ...caches],
    // 127.0.0.1 whole: the client headroom check serves its scripted engine on a free port.
    net: ["127.0.0.1", ...options.urls.map((u) => new URL(u).host)],
    env: ["HOME", "XDG_CACHE_HOME", "LOCALAPPDATA", "NO_COLOR", "TERM"],
    sys: ["hostname", "osRelease", "cpus", "systemMemoryInfo", "loadavg"],
    run: [],
  };
}

/** Passes a worker's stderr on line by line, each line prefixed with the worker's shard. */
function prefixedLines(prefix: string): (chunk: Uint8Array, stream: "stdout" | "stderr") => void {
  const decoder = new TextDecoder();
  let rest = "";
  return (chunk, stream) => {
    if (stream !== "stderr") return; // the per-shard summaries: the merge prints them all
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) writeStderr(`${prefix}${line}\n`);
  };
}

/** Runs `load --workers N`; the exit code (the first failing worker's, 4 when interrupted, else the merge's). */
export async function runWorkers(
  argv: readonly string[],
  options: LoadTestOptions,
  folder: string,
  workers: number,
): Promise<number> {
  const stem = outputStem(folder, "load", new Date());
  const shardDir = `${stem}-workers`;
  const headroomS = options.headroom?.mode === "off" ? 0 : options.headroom?.durationS ?? 0;
  const startAt = Date.now() + Math.round((WORKERS_LEAD_S + headroomS + (options.plan.warmupS ?? 0)) * 1000);
  const entry = fileURLToPath(new URL("../mod.ts", import.meta.url));
  const self = selfCommand(entry, join(dirname(entry), "deno.json"), needs(options, shardDir, dirname(entry)));
  const base = [
    ...[...self.args, "load", ...workerArgv(argv), "--quiet", "--out", shardDir, "--start-at", `${startAt}`],
    // A worker whose parent died before it set its watch still notices: it knows which parent it must have.
    ...["--worker-of", `${sys.pid()}`],
  ];
  const children: SpawnedProcess[] = [];
  let failed: { worker: number; code: number } | null = null;
  let interrupted: string | null = null;
  const stopAll = () => children.forEach((c) => c.kill("SIGTERM"));
  const stop = onTerminationSignal((signal) => {
    if (interrupted !== null) return;
    interrupted = signal;
    writeStderr(`\n${signal}: stopping the ${workers} workers; the requests that ended are kept, marked interrupted\n`);
    stopAll();
  });
  try {
    for (let i = 0; i < workers && interrupted === null && failed === null; i++) {
      const started = await spawnProcess(self.command, [...base, "--shard", `${i}/${workers}`], {
        onOutput: prefixedLines(`worker ${i}/${workers}: `),
      });
      if (!started.ok) throw new Error(`Cannot start load worker ${i}: ${started.reason}`);
      children.push(started.value);
      void started.value.exited.then((exit) => {
        if (exit.code === 0 || failed !== null || interrupted !== null) return;
        failed = { worker: i, code: exit.code ?? EXIT.environment };
        writeStderr(`load: worker ${i}/${workers} failed (${JSON.stringify(exit)}): stopping the others\n`);
        stopAll();
      });
    }
    writeStderr(`load: ${workers} workers (pids ${children.map((c) => c.pid).join(", ")}) write into ${shardDir}\n`);
    await Promise.all(children.map((c) => c.exited));
    if (interrupted !== null) return EXIT.interrupted;
    if (failed !== null) return (failed as { code: number }).code;
    const listed = await readDirOutcome(shardDir);
    if (!listed.ok) throw new Error(`Cannot read ${shardDir}: ${listed.reason}`);
    const files = listed.value.filter((name) => name.endsWith(".jsonl")).sort().map((name) => join(shardDir, name));
    return await mergeAndPrint(files, { outDir: folder, spreadMs: undefined, workers });
  } catch (error) {
    return endWith(error, undefined, { otherwise: EXIT.environment });
  } finally {
    stopAll();
    await Promise.all(children.map((c) => c.exited));
    stop();
  }
}
