/**
 * Streaming SHA-256 of large files (multi-GB model shards): node:crypto createHash fed from one file handle with
 * two alternating 16 MiB buffers, so the next read runs on the I/O thread while the current chunk is hashed.
 */
import { createHash } from "node:crypto";
import type { FileReader, Outcome } from "../runtime/mod.ts";
import { errorMessage } from "../runtime/mod.ts";

/** Progress of one file's hash; the CLI renders it on stderr. */
export interface HashProgress {
  path: string;
  bytesDone: number;
  bytesTotal: number;
  /** Bytes per second since this file started, null before the first chunk. */
  rateBytesPerS: number | null;
  /** Seconds left at the current rate, null when unknown. */
  etaS: number | null;
  /** True on the one final report of a file (hash complete), false before. */
  done: boolean;
}

/** What hashFile needs. */
export interface HashFileDeps {
  openReader(path: string): Promise<Outcome<FileReader>>;
  nowMs(): number;
}

/** Options of hashFile. */
export interface HashFileOptions {
  /** Size used for progress (from stat); 0 when unknown. */
  sizeBytes?: number;
  /** Read size in bytes (default 16 MiB). */
  chunkBytes?: number;
  onProgress?: (progress: HashProgress) => void;
  /** Minimum milliseconds between progress calls (default 250); the last chunk always reports. */
  progressIntervalMs?: number;
  /**
   * Aborting stops the hash before the next chunk is read (a chunk takes milliseconds at disk speed, so within
   * well under a second of Ctrl-C): the outcome is kind "cancelled" with the reason, and nothing is cached.
   */
  signal?: AbortSignal;
}

/**
 * Where the chunks of a file go to be hashed: in-thread (node:crypto) or a worker. `update` may keep the buffer
 * (a worker takes it) and gives back the buffer to read into next.
 */
export interface ChunkHasher {
  /** Hashes the first `length` bytes of `buffer`; resolves with a buffer (the same or an equal-sized one) to reuse. */
  update(buffer: Uint8Array, length: number): Uint8Array | Promise<Uint8Array>;
  /** Lowercase hex SHA-256 of everything updated since the last digest or reset. */
  digest(): string | Promise<string>;
  /** Forgets a partly hashed file. */
  reset(): void;
}

/** The in-thread hasher: node:crypto on the calling thread. */
export function inThreadHasher(): ChunkHasher {
  let hash = createHash("sha256");
  return {
    update: (buffer, length) => {
      hash.update(buffer.subarray(0, length));
      return buffer;
    },
    digest: () => {
      const hex = hash.digest("hex");
      hash = createHash("sha256");
      return hex;
    },
    reset: () => {
      hash = createHash("sha256");
    },
  };
}

/** A hashFile outcome, or (kind "hasher") the hasher failed and the file should be hashed another way. */
export type StreamHashOutcome = Outcome<string> | { ok: false; kind: "hasher"; reason: string };

/** Why a hash was stopped: the abort reason in words. */
export function cancelReason(signal: AbortSignal): string {
  const reason = signal.reason;
  const what = typeof reason === "string" ? reason : reason instanceof Error ? reason.message : "an abort signal";
  return `hashing was cancelled (${what}) before the file was read to its end`;
}

class HashCancelled extends Error {}

/** SHA-256 (lowercase hex) of a file, or why it could not be read. Never throws. */
export async function hashFile(
  path: string,
  deps: HashFileDeps,
  options: HashFileOptions = {},
): Promise<Outcome<string>> {
  const outcome = await streamHash(path, deps, options, inThreadHasher());
  // The in-thread hasher does not fail on its own; should node:crypto ever throw, it is a failed hash.
  return outcome.ok || outcome.kind !== "hasher" ? outcome : { ok: false, kind: "failed", reason: outcome.reason };
}

type Settled = { ok: true; buffer: Uint8Array } | { ok: false; error: unknown };

function settle(value: Uint8Array | Promise<Uint8Array>): Promise<Settled> {
  return Promise.resolve(value).then((buffer) => ({ ok: true, buffer }), (error) => ({ ok: false, error }));
}

class HasherFailed extends Error {}

/**
 * hashFile with a chosen hasher: reads into two alternating buffers, so the next read runs while the current chunk
 * is hashed (in this thread, or on a worker). Never throws; a hasher failure is kind "hasher".
 */
export async function streamHash(
  path: string,
  deps: HashFileDeps,
  options: HashFileOptions,
  hasher: ChunkHasher,
): Promise<StreamHashOutcome> {
  const signal = options.signal;
  if (signal?.aborted) return { ok: false, kind: "cancelled", reason: cancelReason(signal) };
  const opened = await deps.openReader(path);
  if (!opened.ok) return opened;
  const reader = opened.value;
  const chunkBytes = options.chunkBytes ?? 16 * 1024 * 1024;
  const buffers: Uint8Array[] = [new Uint8Array(chunkBytes), new Uint8Array(chunkBytes)];
  const inFlight: (Promise<Settled> | null)[] = [null, null];
  const startedMs = deps.nowMs();
  let lastReportMs = -Infinity;
  let bytesDone = 0;
  const total = options.sizeBytes ?? 0;
  const report = (force: boolean) => {
    if (!options.onProgress) return;
    const now = deps.nowMs();
    if (!force && now - lastReportMs < (options.progressIntervalMs ?? 250)) return;
    lastReportMs = now;
    const elapsedS = (now - startedMs) / 1000;
    const rate = elapsedS > 0 ? bytesDone / elapsedS : null;
    const eta = rate && total > 0 ? Math.max(0, (total - bytesDone) / rate) : null;
    options.onProgress({ path, bytesDone, bytesTotal: total, rateBytesPerS: rate, etaS: eta, done: force });
  };
  /** Waits until buffer `index` is back from the hasher. */
  const reclaim = async (index: number) => {
    const waiting = inFlight[index];
    if (!waiting) return;
    inFlight[index] = null;
    const settled = await waiting;
    if (!settled.ok) throw new HasherFailed(settled.error instanceof Error ? settled.error.message : "hasher failed");
    buffers[index] = settled.buffer;
  };
  let pending: Promise<number> | null = null;
  try {
    let current = 0;
    pending = reader.read(buffers[current]!);
    while (true) {
      const count = await pending;
      if (count === 0) break;
      if (signal?.aborted) throw new HashCancelled(cancelReason(signal));
      const filled = buffers[current]!;
      current ^= 1;
      await reclaim(current);
      pending = reader.read(buffers[current]!);
      inFlight[current ^ 1] = settle(hasher.update(filled, count));
      bytesDone += count;
      report(false);
    }
    await reclaim(0);
    await reclaim(1);
    const hex = await Promise.resolve(hasher.digest()).catch((error) => {
      throw new HasherFailed(errorMessage(error));
    });
    report(true);
    return { ok: true, value: hex };
  } catch (error) {
    // A read still in flight must end before the file is closed under it.
    await pending?.catch(() => 0);
    await Promise.all(inFlight.map((waiting) => waiting ?? undefined));
    hasher.reset();
    const message = errorMessage(error);
    if (error instanceof HasherFailed) return { ok: false, kind: "hasher", reason: message };
    if (error instanceof HashCancelled) return { ok: false, kind: "cancelled", reason: message };
    return { ok: false, kind: "failed", reason: `cannot read ${path} to hash it: ${message.split("\n")[0]}` };
  } finally {
    await reader.close().catch(() => undefined);
  }
}
