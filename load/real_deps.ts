/** The real parts a load test joins: the runtime's clock and files, the project's streaming client and sanitizer. */
import { streamChat } from "../client/mod.ts";
import { machineSanitizer } from "../report/mod.ts";
import { readTextFile, writeTextOutcome } from "../runtime/mod.ts";
import type { LoadTestDeps } from "./load_run.ts";

/** Binds the real implementations; `signal` cancels in-flight requests and stops issuance. */
export function realLoadDeps(signal?: AbortSignal): LoadTestDeps {
  const deps: LoadTestDeps = {
    streamChat: (o) => streamChat(o),
    nowS: () => performance.now() / 1000,
    readText: (path) => readTextFile(path),
    writeText: async (path, text) => {
      const r = await writeTextOutcome(path, text);
      return r.ok ? { ok: true } : { ok: false, reason: r.reason };
    },
    // Loaded only for the self-check: a load against real servers never loads the scripted engine.
    startMockEngine: async (options) => (await import("../mock/mod.ts")).startMockEngine(options),
    sanitizer: machineSanitizer(),
  };
  if (signal) deps.signal = signal;
  return deps;
}
