/**
 * Streaming SHA-256 of large files (multi-GB model shards): node:crypto createHash fed from one file handle with
 * two alternating 16 MiB buffers, so the next read runs on the I/O thread while the current chunk is hashed.
 */
import { createHash } from "node:crypto";
import type { FileReader, Outcome } from "../runtime/mod.ts";

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
}

/** SHA-256 (lowercase hex) of a file, or why it could not be read. Never throws. */
export async function hashFile(
  path: string,
  deps: HashFileDeps,
  options: HashFileOptions = {},
): Promise<Outcome<string>> {
  const opened = await deps.openReader(path);
  if (!opened.ok) return opened;
  const reader = opened.value;
  const chunkBytes = options.chunkBytes ?? 16 * 1024 * 1024;
  const buffers = [new Uint8Array(chunkBytes), new Uint8Array(chunkBytes)];
  const hash = createHash("sha256");
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
  try {
    let current = 0;
    let pending = reader.read(buffers[current]!);
    while (true) {
      const count = await pending;
      if (count === 0) break;
      const filled = buffers[current]!;
      current ^= 1;
      pending = reader.read(buffers[current]!);
      hash.update(filled.subarray(0, count));
      bytesDone += count;
      report(false);
    }
    report(true);
    return { ok: true, value: hash.digest("hex") };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, kind: "failed", reason: `cannot read ${path} to hash it: ${message.split("\n")[0]}` };
  } finally {
    await reader.close().catch(() => undefined);
  }
}
