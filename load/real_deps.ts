/**
 * The real parts a load test joins: the runtime's clocks, files and streaming output, the project's streaming
 * client (or the non-streaming one), the sanitizer, this toolkit's version and commit, and the client-headroom
 * cache in the user's cache folder (keyed by host, CPU, runtime and commit).
 */
import { chatOnce, streamChat } from "../client/mod.ts";
import { probeDialect, readRunnerCommit, readToolkitVersion, toolkitDirFromModule } from "../probe/mod.ts";
import { machineSanitizer } from "../sanitize/mod.ts";
import {
  collectGarbage,
  openLineWriter,
  readTextFile,
  readTextOutcome,
  runtimeName,
  statOutcome,
  sys,
  toolkitCacheDir,
  writeTextOutcome,
} from "../runtime/mod.ts";
import { sha256Hex } from "../contract/mod.ts";
import type { LoadTestDeps } from "./_load_types.ts";

/** The headroom cache file in the toolkit's cache folder, or null when there is none (HOME unreadable). */
function headroomCachePath(): string | null {
  const dir = toolkitCacheDir();
  return dir.ok ? `${dir.value}/client-headroom.json` : null;
}

/** Milliseconds of idle after the pre-epoch collection (its sweeping took a few; 30 left the first 50 ms quiet). */
const GC_SETTLE_MS = 30;
/** Binds the real implementations; `signal` cancels in-flight requests and stops issuance. */
export function realLoadDeps(signal?: AbortSignal, options: { stream?: boolean } = {}): LoadTestDeps {
  let toolkit: Promise<{ version: string; commit: string | null }> | null = null;
  const cachePath = headroomCachePath();
  const deps: LoadTestDeps = {
    streamChat: options.stream === false ? (o) => chatOnce(o) : (o) => streamChat(o),
    nowS: () => performance.now() / 1000,
    collectGarbage: async () => {
      // Then idle: V8's helper threads sweep what the collection freed while this thread waits, not on the client's
      // core in the schedule's first milliseconds, where they had stalled it 4-10 ms in about half the runs.
      if (collectGarbage()) await new Promise((resolve) => setTimeout(resolve, GC_SETTLE_MS));
    },
    wallMs: () => Date.now(),
    readText: (path) => readTextFile(path),
    writeText: async (path, text) => {
      const r = await writeTextOutcome(path, text);
      return r.ok ? { ok: true } : { ok: false, reason: r.reason };
    },
    openLines: async (path) => {
      // A new file: never over an earlier result of the same name.
      const opened = await openLineWriter(path);
      if (!opened.ok) return { ok: false, reason: opened.reason };
      const writer = opened.value;
      return {
        ok: true,
        value: {
          write: (text) => writer.write(text),
          close: async () => {
            const r = await writer.close();
            return r.ok ? { ok: true } : { ok: false, reason: r.reason };
          },
          discard: () => writer.discard(),
        },
      };
    },
    // Loaded only for the self-check and the headroom check: load against real servers never starts it otherwise.
    startMockEngine: async (o) => (await import("../mock/mod.ts")).startMockEngine(o),
    sanitizer: machineSanitizer(),
    dialectOf: (url) => probeDialect(url, { fetch: (input, init) => fetch(input, init), timeoutMs: 5000 }),
    toolkit: () =>
      toolkit ??= readRunnerCommit({ toolkitDir: toolkitDirFromModule() }, {
        readText: readTextOutcome,
        stat: statOutcome,
      }).then(async (c) => ({
        version: await readToolkitVersion(toolkitDirFromModule(), { readText: readTextOutcome }) ?? "unknown",
        commit: c.runnerCommit,
      })),
    cacheIdentity: async () => {
      if (cachePath === null) return null;
      const host = sys.hostname();
      const cpu = sys.cpuModel();
      const commit = (await deps.toolkit!()).commit;
      const runtime = runtimeName();
      return sha256Hex(
        [host.ok ? host.value : "?", cpu.ok ? cpu.value : "?", sys.cpuCount(), runtime.name, runtime.version, commit]
          .join("|"),
      ).slice(0, 16);
    },
    readCache: async () => {
      if (cachePath === null) return null;
      const r = await readTextOutcome(cachePath);
      return r.ok ? r.value : null;
    },
    loadPerCpu: () => {
      const one = sys.loadAverage1m();
      return one.ok ? one.value / sys.cpuCount() : null;
    },
    writeCache: async (text) => {
      if (cachePath !== null) await writeTextOutcome(cachePath, text);
    },
  };
  if (signal) deps.signal = signal;
  return deps;
}
