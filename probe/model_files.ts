/**
 * Finds the model files a run uses (the server's model_path, every shard of a split GGUF, files named in the
 * engine arguments) and hashes them with SHA-256, reusing the hash cache where the file is unchanged.
 */
import type { ModelFile } from "../contract/mod.ts";
import { type FileFacts, type MissingMap, type Outcome, type ProbeDeps, readPrefix } from "./_deps.ts";
import { type HashCache, openHashCache } from "./hash_cache.ts";
import { hashFile, type HashProgress, streamHash } from "./hash_file.ts";
import { startWorkerHasher, type WorkerHasher } from "./_hash_pool.ts";

/** Options of findAndHashModelFiles. */
export interface ModelFileOptions {
  /** The server's model_path (/props), absolute on the machine that runs the engine. */
  modelPath?: string | null;
  /** Files named in the engine arguments (-m, --model-draft), as written. */
  engineArgFiles?: readonly string[];
  /** Folder the files are published relative to; otherwise each file is named by its base name. */
  packDir?: string | null;
  /** Folder of the hash cache; null disables the cache. */
  cacheDir: string | null;
  /** Hash every file again even when the cache has it. */
  rehash?: boolean;
  onProgress?: (progress: ModelHashProgress) => void;
  /** Most files hashed at once, one worker each (default: the CPU count); 1 hashes them one after another. */
  maxParallel?: number;
  /** Below this many bytes to hash in all, no worker is started (default 256 MiB): starting one costs more. */
  parallelMinBytes?: number;
  /** Aborting stops hashing within one chunk; unhashed files keep a null hash with the reason. */
  signal?: AbortSignal;
}

/** Progress of one file, plus all files being hashed together (the cached ones are not counted). */
export interface ModelHashProgress extends HashProgress {
  fileIndex: number;
  fileCount: number;
  overall: {
    bytesDone: number;
    bytesTotal: number;
    /** Bytes per second over all files since hashing began, null before the first chunk. */
    rateBytesPerS: number | null;
    etaS: number | null;
    filesDone: number;
    filesTotal: number;
  };
}

/** One model file as found and hashed. `absolutePath` is private: never publish it. */
export interface ModelFileDetail {
  path: string;
  absolutePath: string;
  sizeBytes: number | null;
  sha256: string | null;
  fromCache: boolean;
  reason: string | null;
}

/** Model files for the contract plus how they were obtained. */
export interface ModelFilesResult {
  files: ModelFile[] | null;
  details: ModelFileDetail[];
  /** Absolute pointers (/model/files, /model/files/0/sha256) -> reason. */
  missing: MissingMap;
  nonconformingReasons: string[];
  /** Bytes actually read and hashed (not served by the cache), and the seconds that took. */
  hashedBytes: number;
  hashSeconds: number;
  /** Why the cache was not used or not saved; null when it worked. */
  cacheProblem: string | null;
  /** Workers that hashed files in parallel (0: all in this thread). */
  hashWorkers: number;
  /** Why some or all files were hashed in this thread although workers were asked for; null when none. */
  parallelProblem: string | null;
}

const SHARD = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

function dirName(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut < 0 ? "." : path.slice(0, cut) || "/";
}

/** Every shard path of a split GGUF (`name-00001-of-00003.gguf` -> 3 paths); other paths unchanged. */
export function expandShards(path: string): string[] {
  const name = baseName(path);
  const match = SHARD.exec(name);
  if (!match) return [path];
  const count = Number(match[3]);
  if (count < 1 || count > 9999) return [path];
  const dir = path.slice(0, path.length - name.length);
  return Array.from(
    { length: count },
    (_, i) => `${dir}${match[1]}-${String(i + 1).padStart(5, "0")}-of-${match[3]}.gguf`,
  );
}

/** The name a published result uses for a file: relative to the pack folder when inside it, else its base name. */
export function packRelativeName(absolutePath: string, packDir: string | null | undefined): string {
  const normalized = absolutePath.replaceAll("\\", "/");
  if (packDir) {
    const root = packDir.replaceAll("\\", "/").replace(/\/+$/, "");
    if (normalized.startsWith(`${root}/`)) {
      const relative = normalized.slice(root.length + 1);
      if (!relative.split("/").includes("..")) return recordableName(relative);
    }
  }
  return recordableName(baseName(normalized));
}

/**
 * A file name as a result may record it (the contract's relative-path format): control characters and a leading
 * "~" percent-encoded (%07, %1B, %7E), so a name the file system allows never makes the run reject its own result.
 */
function recordableName(name: string): string {
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
  // deno-lint-ignore no-control-regex -- control characters are exactly what is encoded here
  return name.replace(/[\u0000-\u001f\u007f]/g, hex).replace(/^~/, hex);
}

/**
 * Finds and hashes the model files. Never throws: a file that cannot be read keeps a null hash with a reason
 * and makes the run nonconforming; no file at all gives `files: null`.
 */
export async function findAndHashModelFiles(options: ModelFileOptions, deps: ProbeDeps): Promise<ModelFilesResult> {
  const missing: MissingMap = {};
  const nonconformingReasons: string[] = [];
  const candidates = [
    ...(options.modelPath ? [options.modelPath] : []),
    ...(options.engineArgFiles ?? []),
  ];
  const result: ModelFilesResult = {
    files: null,
    details: [],
    missing,
    nonconformingReasons,
    hashedBytes: 0,
    hashSeconds: 0,
    cacheProblem: null,
    hashWorkers: 0,
    parallelProblem: null,
  };
  if (candidates.length === 0) {
    missing["/model/files"] = "no model file known: the server reports no model_path and no engine arguments name one";
    nonconformingReasons.push("the model files could not be identified, so none was hashed");
    return result;
  }
  const paths = await distinctShards(candidates, deps);
  let cache: HashCache | null = null;
  if (options.cacheDir === null) result.cacheProblem = "hash cache disabled";
  else cache = await openHashCache(options.cacheDir, deps);
  const startedMs = deps.nowMs();
  const { jobs, notGguf } = await detailFiles(paths, cache, options, deps, result);
  if (notGguf > 0) {
    nonconformingReasons.push(
      `${notGguf} file(s) the server or the engine arguments name as the model are not GGUF files (their first ` +
        "bytes are not GGUF); they were neither hashed nor named",
    );
  }
  if (result.details.length === 0) {
    missing["/model/files"] = "no GGUF model file found: every file the server or the engine arguments name " +
      "is missing a GGUF header";
    return result;
  }
  const outcomes = await hashJobs(jobs, result.details.length, options, deps, result);
  recordHashes(jobs, outcomes, cache, result);
  result.hashSeconds = (deps.nowMs() - startedMs) / 1000;
  if (cache) {
    const saved = await cache.save();
    if (!saved.ok) result.cacheProblem = `hash cache not saved: ${saved.reason}`;
  }
  result.files = result.details.map((d) => ({ path: d.path, sha256: d.sha256 }));
  return result;
}

/** Every shard of the candidates, once each (two paths to one file count once), in the order first named. */
async function distinctShards(candidates: readonly string[], deps: ProbeDeps): Promise<string[]> {
  const seen = new Set<string>();
  const paths: string[] = [];
  for (const candidate of candidates) {
    for (const shard of expandShards(candidate)) {
      const resolved = await deps.realPath(shard);
      const key = resolved.ok ? resolved.value : shard;
      if (seen.has(key)) continue;
      seen.add(key);
      paths.push(shard);
    }
  }
  return paths;
}

/**
 * One detail per GGUF file (its size, or why it cannot be read; the cache's hash when it has one), and the hash
 * jobs for the rest; a readable file that is not GGUF is counted and left out.
 */
async function detailFiles(
  paths: readonly string[],
  cache: HashCache | null,
  options: ModelFileOptions,
  deps: ProbeDeps,
  result: ModelFilesResult,
): Promise<{ jobs: HashJob[]; notGguf: number }> {
  const jobs: HashJob[] = [];
  let notGguf = 0;
  for (const path of paths) {
    const facts = await deps.stat(path);
    const resolved = await deps.realPath(path);
    const absolute = resolved.ok ? resolved.value : path;
    const cached = facts.ok && facts.value.isFile && !options.rehash
      ? cache?.lookup(absolute, facts.value) ?? null
      : null;
    // Only a GGUF file is read to its end: a path a server or profile names might be any file of the machine.
    // (A file the cache serves was hashed, and so checked, before.)
    if (cached === null && facts.ok && facts.value.isFile && (await ggufMagic(path, deps)) === "not_gguf") {
      notGguf++;
      continue;
    }
    const fileIndex = result.details.length;
    const detail: ModelFileDetail = {
      path: packRelativeName(path, options.packDir),
      absolutePath: path,
      sizeBytes: null,
      sha256: null,
      fromCache: false,
      reason: null,
    };
    result.details.push(detail);
    if (!facts.ok || !facts.value.isFile) {
      detail.reason = facts.ok ? `${detail.path} is not a regular file` : facts.reason;
      continue;
    }
    detail.sizeBytes = facts.value.sizeBytes;
    if (cached) {
      detail.sha256 = cached;
      detail.fromCache = true;
    } else {
      jobs.push({ fileIndex, path, absolute, facts: facts.value, detail });
    }
  }
  return { jobs, notGguf };
}

/** Each job's hash into its detail (and the cache), or its reason; every file left without a hash said so. */
function recordHashes(
  jobs: readonly HashJob[],
  outcomes: readonly Outcome<string>[],
  cache: HashCache | null,
  result: ModelFilesResult,
): void {
  for (const [n, job] of jobs.entries()) {
    const hashed = outcomes[n]!;
    if (hashed.ok) {
      job.detail.sha256 = hashed.value;
      result.hashedBytes += job.facts.sizeBytes;
      cache?.store(job.absolute, job.facts, hashed.value);
    } else {
      job.detail.reason = hashed.reason;
    }
  }
  for (const [fileIndex, detail] of result.details.entries()) {
    if (detail.sha256 === null) {
      const reason = `cannot hash model file ${detail.path}: ${
        scrubPath(detail.reason ?? "unreadable", detail.absolutePath, detail.path)
      }`;
      result.missing[`/model/files/${fileIndex}/sha256`] = reason;
      result.nonconformingReasons.push(reason);
    }
  }
}

const GGUF_MAGIC = [0x47, 0x47, 0x55, 0x46]; // "GGUF"

/**
 * Whether a path starts with the GGUF magic bytes: "not_gguf" only when the file could be read and does not; a file
 * that cannot be opened is left to the hash step, which records why.
 */
async function ggufMagic(path: string, deps: ProbeDeps): Promise<"gguf" | "not_gguf" | "unknown"> {
  const head = await readPrefix(deps, path, 4);
  if (typeof head === "string") return "unknown";
  return head.length === 4 && GGUF_MAGIC.every((byte, i) => head[i] === byte) ? "gguf" : "not_gguf";
}

interface HashJob {
  fileIndex: number;
  path: string;
  absolute: string;
  facts: FileFacts;
  detail: ModelFileDetail;
}

/**
 * Hashes the files that the cache did not serve: on min(files, maxParallel) workers when there are several files
 * and enough bytes, else one after another in this thread. A lane whose worker cannot start or fails hashes its
 * files in this thread from then on (a file it was in the middle of starts again). Outcomes come in job order.
 */
async function hashJobs(
  jobs: readonly HashJob[],
  fileCount: number,
  options: ModelFileOptions,
  deps: ProbeDeps,
  result: ModelFilesResult,
): Promise<Outcome<string>[]> {
  const outcomes: Outcome<string>[] = [];
  const progress = jobProgress(jobs, fileCount, options, deps);
  const { of: progressOf, bytesTotal } = progress;
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const inThread = (n: number) =>
    hashFile(jobs[n]!.path, deps, { sizeBytes: jobs[n]!.facts.sizeBytes, ...progressOf(n), ...signal });

  const cores = Math.max(1, Math.floor(options.maxParallel ?? deps.cpuCount()));
  const lanes = Math.min(jobs.length, cores);
  const start = deps.startHashWorker;
  if (lanes < 2 || !start || bytesTotal < (options.parallelMinBytes ?? 256 * 1024 * 1024)) {
    for (const n of jobs.keys()) outcomes.push(await inThread(n));
    return outcomes;
  }
  const problems: string[] = [];
  let next = 0;
  const runLane = async () => {
    const started = await startWorkerHasher(start);
    let hasher: WorkerHasher | null = started.ok ? started.value : null;
    if (started.ok) result.hashWorkers += 1;
    else problems.push(started.reason);
    try {
      while (next < jobs.length) {
        const n = next++;
        if (hasher) {
          const job = jobs[n]!;
          const hashed = await streamHash(
            job.path,
            deps,
            { sizeBytes: job.facts.sizeBytes, ...progressOf(n), ...signal },
            hasher,
          );
          if (hashed.ok || hashed.kind !== "hasher") {
            outcomes[n] = hashed;
            continue;
          }
          problems.push(hashed.reason);
          hasher.close();
          hasher = null;
          progress.restart(n);
        }
        outcomes[n] = await inThread(n);
      }
    } finally {
      hasher?.close();
    }
  };
  await Promise.all(Array.from({ length: lanes }, runLane));
  if (problems.length > 0) {
    result.parallelProblem = `hashed in this thread instead of on a worker (${problems.length}x): ${problems[0]}`;
  }
  return outcomes;
}

/**
 * Progress per job for `options.onProgress` (none without it), with the overall bytes, rate and ETA over all jobs;
 * `restart` forgets a job's bytes when it starts again in this thread.
 */
function jobProgress(jobs: readonly HashJob[], fileCount: number, options: ModelFileOptions, deps: ProbeDeps) {
  const bytesTotal = jobs.reduce((sum, job) => sum + job.facts.sizeBytes, 0);
  const bytesByJob = jobs.map(() => 0);
  const startedMs = deps.nowMs();
  let filesDone = 0;
  const progressOf = (n: number) => {
    const onProgress = options.onProgress;
    if (!onProgress) return {};
    const job = jobs[n]!;
    return {
      onProgress: (p: HashProgress) => {
        bytesByJob[n] = p.bytesDone;
        if (p.done) filesDone += 1;
        const bytesDone = bytesByJob.reduce((sum, b) => sum + b, 0);
        const elapsedS = (deps.nowMs() - startedMs) / 1000;
        const rate = elapsedS > 0 ? bytesDone / elapsedS : null;
        const etaS = rate && bytesTotal > 0 ? Math.max(0, (bytesTotal - bytesDone) / rate) : null;
        onProgress({
          ...p,
          fileIndex: job.fileIndex,
          fileCount,
          overall: { bytesDone, bytesTotal, rateBytesPerS: rate, etaS, filesDone, filesTotal: jobs.length },
        });
      },
    };
  };
  return { of: progressOf, bytesTotal, restart: (n: number) => bytesByJob[n] = 0 };
}

/** Replaces the machine path of a file in a reason with its published name. */
function scrubPath(reason: string, absolutePath: string, published: string): string {
  return reason.replaceAll(absolutePath, published).replaceAll(dirName(absolutePath), "<model folder>");
}
