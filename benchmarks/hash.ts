/**
 * Model-file hashing speed: our streaming SHA-256 (probe/hash_file.ts, node:crypto fed by double-buffered reads)
 * against `openssl dgst -sha256` on the same multi-GB file in the same run, and a repeated run served by the hash
 * cache, which must answer for a 10 GiB file in well under a second without reading it.
 *
 *   deno run --no-prompt --allow-read --allow-write --allow-run=openssl --allow-env --allow-sys benchmarks/hash.ts \
 *     [--gb 3] [--cache-gb 10] [--rounds 2] [--dir DIR] [--shards 4 --shard-gb 1]
 *
 * With --shards N (N >= 2) it measures only split-GGUF hashing: N shards of --shard-gb each, hashed one after
 * another in this thread (maxParallel 1) and in parallel on min(N, cores) workers, best of --rounds, alternating
 * which goes first; it reports the speed-up and checks both give the same hashes.
 *
 * Permissions: read+write for the temporary files (removed at the end) and the cache, run=openssl for the
 * reference, env/sys only for the temporary folder. The files are written under --dir (default: the OS temp
 * folder); they need --gb of free disk (the 10 GiB cache file is sparse and takes no space).
 */
import { mkdtemp, open, rm, stat, truncate, writeFile } from "node:fs/promises";
import { randomFillSync } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { args, runCommand, writeStderr, writeStdout } from "../runtime/mod.ts";
import { defaultProbeDeps, findAndHashModelFiles, hashFile, type ProbeDeps } from "../probe/mod.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    gb: { type: "string", default: "3" },
    "cache-gb": { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    dir: { type: "string" },
    shards: { type: "string", default: "0" },
    "shard-gb": { type: "string", default: "1" },
  },
  strict: true,
});
const GIB = 1024 ** 3;
const fileBytes = Math.round(Number(values.gb) * GIB);
const cacheFileBytes = Math.round(Number(values["cache-gb"]) * GIB);
const rounds = Math.max(1, Number(values.rounds));
if (!(fileBytes > 0) || !(cacheFileBytes > 0)) throw new RangeError("Cannot run: --gb and --cache-gb must be positive");

const dir = await mkdtemp(join(values.dir ?? tmpdir(), "strata-bench-hash-"));
const deps = defaultProbeDeps();

/** Writes `bytes` of incompressible data: one random 16 MiB block, its first 8 bytes changed per block. */
async function writeRandomish(path: string, bytes: number): Promise<void> {
  const block = randomFillSync(new Uint8Array(16 * 1024 * 1024));
  const view = new DataView(block.buffer);
  const handle = await open(path, "w");
  try {
    for (let written = 0, n = 0; written < bytes; n++) {
      view.setFloat64(0, n);
      const size = Math.min(block.length, bytes - written);
      await handle.write(block, 0, size);
      written += size;
    }
  } finally {
    await handle.close();
  }
}

async function timeS<T>(fn: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { seconds: (performance.now() - start) / 1000, value };
}

function row(cells: string[]): string {
  return `${cells[0]!.padEnd(34)}${cells.slice(1).map((c) => c.padStart(14)).join("")}\n`;
}

/** Shards mode: sequential vs parallel findAndHashModelFiles over N shard files. */
async function shardsBench(count: number, shardBytes: number): Promise<void> {
  const first = join(dir, `model-00001-of-${String(count).padStart(5, "0")}.gguf`);
  for (let i = 1; i <= count; i++) {
    const path = join(dir, `model-${String(i).padStart(5, "0")}-of-${String(count).padStart(5, "0")}.gguf`);
    writeStderr(`writing shard ${i}/${count} (${(shardBytes / GIB).toFixed(2)} GiB)...\n`);
    await writeRandomish(path, shardBytes);
  }
  const cores = deps.cpuCount();
  const times: Record<"sequential" | "parallel", number[]> = { sequential: [], parallel: [] };
  const hashes: Record<string, string> = {};
  let workers = 0;
  let problem: string | null = null;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["sequential", "parallel"] as const : ["parallel", "sequential"] as const;
    for (const mode of order) {
      const { seconds, value } = await timeS(() =>
        findAndHashModelFiles({ modelPath: first, cacheDir: null, maxParallel: mode === "parallel" ? cores : 1 }, deps)
      );
      if (value.files?.some((f) => f.sha256 === null)) throw new Error(`Cannot hash: ${value.nonconformingReasons}`);
      const joined = value.files!.map((f) => f.sha256).join(",");
      if ((hashes[mode] ??= joined) !== joined) throw new Error(`Cannot compare: ${mode} hashes changed`);
      if (mode === "parallel") ({ hashWorkers: workers, parallelProblem: problem } = value);
      times[mode].push(seconds);
    }
  }
  if (hashes.sequential !== hashes.parallel) throw new Error("Hashes differ between sequential and parallel");
  const best = (xs: number[]) => Math.min(...xs);
  const total = count * shardBytes;
  const gbps = (s: number) => (total / 1e9 / s).toFixed(2);
  writeStdout(
    `\n${count} shards x ${(shardBytes / GIB).toFixed(2)} GiB, ${cores} cores, best of ${rounds} (same run)\n`,
  );
  writeStdout(row(["", "seconds", "GB/s"]));
  writeStdout(row(["sequential (in-thread)", best(times.sequential).toFixed(3), gbps(best(times.sequential))]));
  writeStdout(row([`parallel (${workers} workers)`, best(times.parallel).toFixed(3), gbps(best(times.parallel))]));
  writeStdout(row(["speed-up", (best(times.sequential) / best(times.parallel)).toFixed(2), ""]));
  writeStdout(
    `all rounds: sequential ${times.sequential.map((t) => t.toFixed(2))}; parallel ${
      times.parallel.map((t) => t.toFixed(2))
    }\n`,
  );
  if (problem) writeStdout(`worker problem: ${problem}\n`);
  writeStdout("hashes identical: yes\n");
}

const shardCount = Math.floor(Number(values.shards));
try {
  if (shardCount >= 2) {
    const shardBytes = Math.round(Number(values["shard-gb"]) * GIB);
    if (!(shardBytes > 0)) throw new RangeError("Cannot run: --shard-gb must be positive");
    await shardsBench(shardCount, shardBytes);
  } else await classicBench();
} finally {
  await rm(dir, { recursive: true, force: true });
}

async function classicBench(): Promise<void> {
  const bigFile = join(dir, "model-00001-of-00001.gguf");
  writeStderr(`writing ${(fileBytes / GIB).toFixed(1)} GiB of random data...\n`);
  await writeRandomish(bigFile, fileBytes);

  const ours: number[] = [];
  const openssl: number[] = [];
  let oursHash = "";
  let opensslHash = "";
  for (let round = 0; round < rounds; round++) {
    // Alternate the order so neither side always gets the warmer page cache.
    const order = round % 2 === 0 ? ["openssl", "ours"] : ["ours", "openssl"];
    for (const who of order) {
      if (who === "ours") {
        const { seconds, value } = await timeS(() => hashFile(bigFile, deps));
        if (!value.ok) throw new Error(`Cannot hash: ${value.reason}`);
        oursHash = value.value;
        ours.push(seconds);
      } else {
        const { seconds, value } = await timeS(() =>
          runCommand("openssl", ["dgst", "-sha256", bigFile], { timeoutMs: 600_000 })
        );
        if (!value.ok || value.value.code !== 0) {
          throw new Error(`Cannot run openssl: ${value.ok ? value.value.stderr : value.reason}`);
        }
        opensslHash = /= ?([0-9a-f]{64})/.exec(value.value.stdout)?.[1] ?? "";
        openssl.push(seconds);
      }
    }
  }
  if (oursHash !== opensslHash) throw new Error(`Hashes differ: ours ${oursHash}, openssl ${opensslHash}`);

  // Cache: a sparse file of --cache-gb, hashed once (holes read as zeros), then looked up.
  const cacheDir = join(dir, "cache");
  const sparseFile = join(dir, "sparse-00001-of-00001.gguf");
  await writeFile(sparseFile, "");
  await truncate(sparseFile, cacheFileBytes);
  writeStderr(`hashing the ${(cacheFileBytes / GIB).toFixed(0)} GiB sparse file once to fill the cache...\n`);
  const fill = await timeS(() => findAndHashModelFiles({ modelPath: sparseFile, cacheDir }, deps));
  const opened: string[] = [];
  const counting: ProbeDeps = { ...deps, openReader: (path) => (opened.push(path), deps.openReader(path)) };
  const cached = await timeS(() => findAndHashModelFiles({ modelPath: sparseFile, cacheDir }, counting));
  const servedFromCache = cached.value.details[0]?.fromCache === true && opened.length === 0 &&
    cached.value.files?.[0]?.sha256 === fill.value.files?.[0]?.sha256;
  const sparseOnDisk = (await stat(sparseFile)).blocks * 512;

  const best = (xs: number[]) => Math.min(...xs);
  const gbps = (bytes: number, s: number) => (bytes / 1e9 / s).toFixed(2);
  const ratio = best(openssl) / best(ours);
  writeStdout(`\nStreaming SHA-256 of one ${(fileBytes / GIB).toFixed(1)} GiB file (best of ${rounds}, same run)\n`);
  writeStdout(row(["", "seconds", "GB/s"]));
  writeStdout(row(["strata-bench hashFile", best(ours).toFixed(3), gbps(fileBytes, best(ours))]));
  writeStdout(row(["openssl dgst -sha256", best(openssl).toFixed(3), gbps(fileBytes, best(openssl))]));
  writeStdout(row(["ratio (ours / openssl throughput)", ratio.toFixed(3), ratio >= 0.9 ? "ok >= 0.9" : "BELOW 0.9"]));
  writeStdout(
    `\nHash cache, ${(cacheFileBytes / GIB).toFixed(0)} GiB file (${(sparseOnDisk / 1e6).toFixed(1)} MB on disk)\n`,
  );
  writeStdout(row(["first run (hashed)", fill.seconds.toFixed(3), gbps(cacheFileBytes, fill.seconds)]));
  writeStdout(row([
    "repeated run (cache)",
    cached.seconds.toFixed(3),
    servedFromCache && cached.seconds < 1 ? "ok < 1 s" : "NOT OK",
  ]));
  writeStdout(`files opened by the repeated run: ${opened.length}; served from cache: ${servedFromCache}\n`);
  writeStdout(`sha256 ${oursHash} (ours = openssl)\n`);
}
