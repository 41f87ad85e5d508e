/**
 * A JSON file of earlier model-file hashes, so a second run does not read 40-70 GB again. An entry is keyed by
 * absolute path + size + mtime + inode: any change to the file (rewrite, copy, touch) misses the cache.
 */
import type { FileFacts, Outcome } from "../runtime/mod.ts";

const CACHE_FORMAT = "strata-bench-hash-cache";
const CACHE_VERSION = 1;

interface CacheEntry {
  sha256: string;
  hashed_at: string;
}

/** What the cache needs from the runtime. */
export interface HashCacheDeps {
  readText(path: string): Promise<Outcome<string>>;
  writeText(path: string, text: string): Promise<Outcome<true>>;
  env(name: string): Outcome<string>;
  homeDir(): Outcome<string>;
}

/** An open hash cache; `save()` writes it back when it changed. */
export interface HashCache {
  /** The cache file, or null when there is none (no cache folder could be determined). */
  path: string | null;
  lookup(absolutePath: string, facts: FileFacts): string | null;
  store(absolutePath: string, facts: FileFacts, sha256: string): void;
  /** Writes the cache if it changed; the outcome says why it could not. */
  save(): Promise<Outcome<true>>;
}

/** The cache key of one file version. */
export function hashCacheKey(absolutePath: string, facts: FileFacts): string {
  return `${absolutePath}|${facts.sizeBytes}|${Math.trunc(facts.mtimeMs)}|${facts.ino}`;
}

/** Opens (or starts) the cache in `dir`; a missing or corrupt file is an empty cache. */
export async function openHashCache(dir: string | null, deps: HashCacheDeps): Promise<HashCache> {
  const path = dir === null ? null : `${dir}${dir.includes("\\") && !dir.includes("/") ? "\\" : "/"}hashes.json`;
  const entries = new Map<string, CacheEntry>();
  if (path !== null) {
    const text = await deps.readText(path);
    if (text.ok) {
      try {
        const data = JSON.parse(text.value) as { format?: unknown; version?: unknown; entries?: unknown };
        if (
          data.format === CACHE_FORMAT && data.version === CACHE_VERSION && typeof data.entries === "object" &&
          data.entries
        ) {
          for (const [key, value] of Object.entries(data.entries as Record<string, CacheEntry>)) {
            if (typeof value?.sha256 === "string" && /^[0-9a-f]{64}$/.test(value.sha256)) entries.set(key, value);
          }
        }
      } catch { /* a corrupt cache is an empty cache */ }
    }
  }
  let changed = false;
  return {
    path,
    lookup: (absolutePath, facts) => entries.get(hashCacheKey(absolutePath, facts))?.sha256 ?? null,
    store: (absolutePath, facts, sha256) => {
      entries.set(hashCacheKey(absolutePath, facts), { sha256, hashed_at: new Date().toISOString() });
      changed = true;
    },
    save: async () => {
      if (path === null) return { ok: false, kind: "not_found", reason: "no cache folder" };
      if (!changed) return { ok: true, value: true };
      const body = { format: CACHE_FORMAT, version: CACHE_VERSION, entries: Object.fromEntries(entries) };
      const written = await deps.writeText(path, `${JSON.stringify(body, null, 1)}\n`);
      if (written.ok) changed = false;
      return written;
    },
  };
}
