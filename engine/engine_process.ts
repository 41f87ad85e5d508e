/**
 * Engine process control for `run --profile`: use a server already listening on the profile's port (and leave it
 * running), or start the profile's engine on loopback, capture its log, wait until /health says ready, and stop
 * it afterwards (SIGTERM, then SIGKILL after the grace period). Startup failures carry the log's tail.
 */
import { type ProcessExit, spawnProcess } from "../runtime/mod.ts";
import { engineArgv, type EngineProfile, profileBaseUrl } from "./profile.ts";

/** Why the engine could not be used. */
export class EngineStartError extends Error {
  readonly code: "no-start" | "spawn" | "exited" | "not-ready" | "not-engine" | "cancelled";
  constructor(code: EngineStartError["code"], message: string) {
    super(message);
    this.name = "EngineStartError";
    this.code = code;
  }
}

/** A server the run talks to, started here or found running. */
export interface EngineHandle {
  baseUrl: string;
  /** True when this process started the engine (and will stop it). */
  started: boolean;
  /** The engine's argv without the program name, when started here; null for a server found running. */
  engineArgs: string[] | null;
  /** Model files the profile names besides the -m files of its arguments (hashed by the probe). */
  modelFiles: string[];
  /** The engine's full commit as the profile declares it, else null. */
  engineCommit: string | null;
  /** Variables the profile gave the started engine on top of the environment ({} for a server found running). */
  env: Readonly<Record<string, string>>;
  /** Process id of the started engine, else null. */
  pid: number | null;
  /**
   * Seconds from spawning the engine to its first ready /health answer (model loading included), on the monotonic
   * clock; null for a server found running (its load was not watched).
   */
  loadSeconds: number | null;
  /** Everything the engine wrote to stdout and stderr so far ("" for a server found running). */
  log(): string;
  /** The started engine's exit, once it ended; null while it runs or when it was not started here. */
  exitStatus(): ProcessExit | null;
  /** Sends a signal to the started engine (tests kill it mid-run); false when not started here or ended. */
  kill(signal: "SIGTERM" | "SIGKILL"): boolean;
  /** Stops a started engine (SIGTERM, SIGKILL after the grace period) and resolves with its exit; no-op otherwise. */
  stop(): Promise<ProcessExit | null>;
}

/** Options of startEngine. */
export interface StartEngineOptions {
  /** Never start an engine: a server must already listen on the profile's port. */
  noStart?: boolean;
  /** Aborting stops waiting (and the started engine). */
  signal?: AbortSignal;
  /** Called with each progress sentence (starting, waiting, ready). */
  progress?: (line: string) => void;
  fetch?: typeof fetch;
}

/**
 * Result of one /health probe: no answer, loading (503, as llama-server answers while it loads the model), ready
 * (200), or "foreign": any other status, from a server that is not a llama.cpp-compatible engine (or a broken one).
 */
type HealthState = { state: "down" | "loading" | "ready" } | { state: "foreign"; status: number };

async function health(baseUrl: string, fetchFn: typeof fetch, timeoutMs: number): Promise<HealthState> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchFn(`${baseUrl}/health`, { signal: controller.signal });
    await response.body?.cancel();
    if (response.status === 200) return { state: "ready" };
    if (response.status === 503) return { state: "loading" };
    return { state: "foreign", status: response.status };
  } catch {
    return { state: "down" };
  } finally {
    clearTimeout(timer);
  }
}

/** The sentence that says why a server answering /health with `status` cannot be used as the engine. */
function foreignServer(url: string, status: number): string {
  return `the server on ${url} answers /health with HTTP ${status}: it is not a llama.cpp-compatible engine that ` +
    `is loading (503) or ready (200)`;
}

/** The last `lines` lines of a log, indented, for an error message. */
export function logTail(log: string, lines = 20): string {
  const tail = log.trimEnd().split("\n").slice(-lines);
  return tail.length === 0 || (tail.length === 1 && tail[0] === "")
    ? "  (the engine wrote nothing)"
    : tail.map((l) => `  | ${l}`).join("\n");
}

/** Grows a text log, keeping the first and last halves of `maxBytes` when it gets longer. */
function logBuffer(maxBytes: number) {
  const decoder = new TextDecoder();
  let head = "";
  let tail = "";
  let dropped = 0;
  return {
    append(chunk: Uint8Array) {
      const text = decoder.decode(chunk, { stream: true });
      if (head.length < maxBytes / 2) {
        head += text;
        return;
      }
      tail += text;
      if (tail.length > maxBytes / 2) {
        const cut = tail.length - Math.floor(maxBytes / 2);
        dropped += cut;
        tail = tail.slice(cut);
      }
    },
    text: () => (dropped > 0 ? `${head}\n[... ${dropped} characters of engine log dropped ...]\n${tail}` : head + tail),
  };
}

function foundRunning(baseUrl: string, modelFiles: string[], engineCommit: string | null): EngineHandle {
  return {
    baseUrl,
    started: false,
    engineArgs: null,
    modelFiles,
    engineCommit,
    env: {},
    pid: null,
    loadSeconds: null,
    log: () => "",
    exitStatus: () => null,
    kill: () => false,
    stop: () => Promise.resolve(null),
  };
}

/**
 * Returns a ready server for the profile: the one already listening on its port, or the engine started now.
 * @throws {EngineStartError} when starting is forbidden, the engine cannot start, exits, never gets ready, or the
 * wait is cancelled; the message carries the log's tail.
 */
export async function startEngine(profile: EngineProfile, options: StartEngineOptions = {}): Promise<EngineHandle> {
  const fetchFn = options.fetch ?? fetch;
  const progress = options.progress ?? (() => {});
  const running = await runningEngine(profile, options, fetchFn, progress);
  if (running !== null) return running;

  // 32 MiB of log kept in memory; beyond that the middle is dropped with a marker.
  const log = logBuffer(32 * 1024 * 1024);
  let listening: string | null = null;
  const argv = engineArgv(profile);
  progress(`starting ${profile.label}`);
  const spawnedAtMs = performance.now();
  const spawned = await spawnProcess(profile.engine, argv, {
    env: profile.env,
    onOutput: (chunk) => {
      log.append(chunk);
      if (listening === null) {
        listening = /listening on (https?:\/\/[^\s/]+)/.exec(log.text())?.[1] ?? null;
      }
    },
  });
  if (!spawned.ok) {
    const hint = spawned.kind === "not_found" ? " (build it with `deno task engine:build`)" : "";
    throw new EngineStartError("spawn", `Cannot start ${profile.engine}: ${spawned.reason}${hint}`);
  }
  const child = spawned.value;
  const stop = async (): Promise<ProcessExit> => {
    if (child.exitStatus() === null) {
      child.kill("SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<"grace">((resolve) => {
        timer = setTimeout(() => resolve("grace"), profile.stopGraceS * 1000);
      });
      const first = await Promise.race([child.exited, graceOver]);
      clearTimeout(timer);
      if (first === "grace") child.kill("SIGKILL");
    }
    return await child.exited;
  };
  const fixedUrl = profile.port === 0 ? null : profileBaseUrl(profile.host, profile.port);
  try {
    const url = await waitReady(fixedUrl, () => listening, profile, options, fetchFn, log.text, child);
    const loadSeconds = (performance.now() - spawnedAtMs) / 1000;
    progress(`engine ready at ${url} (pid ${child.pid}) after ${loadSeconds.toFixed(1)} s`);
    return {
      baseUrl: url,
      started: true,
      engineArgs: argv,
      modelFiles: profile.modelFiles,
      engineCommit: profile.engineCommit,
      env: profile.env,
      pid: child.pid,
      loadSeconds,
      log: log.text,
      exitStatus: child.exitStatus,
      kill: (signal) => child.kill(signal),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The server already answering at the profile's fixed port (waited for while it loads), or null when nothing
 * answers and the engine may be started. @throws {EngineStartError} for a foreign server, or when --no-start
 * forbids starting one.
 */
async function runningEngine(
  profile: EngineProfile,
  options: StartEngineOptions,
  fetchFn: typeof fetch,
  progress: (line: string) => void,
): Promise<EngineHandle | null> {
  if (profile.port !== 0) {
    const url = profileBaseUrl(profile.host, profile.port);
    const found = await health(url, fetchFn, 2_000);
    if (found.state === "foreign") {
      throw new EngineStartError(
        "not-engine",
        `Cannot use profile "${profile.name}": ${foreignServer(url, found.status)}; stop what listens on port ` +
          `${profile.port} or give the profile another port`,
      );
    }
    if (found.state !== "down") {
      progress(`a server already answers at ${url}; using it and leaving it running`);
      if (found.state === "loading") await waitReady(url, null, profile, options, fetchFn, () => "", undefined, true);
      return foundRunning(url, profile.modelFiles, profile.engineCommit);
    }
    if (options.noStart) {
      throw new EngineStartError(
        "no-start",
        `Cannot use profile "${profile.name}": nothing answers at ${url} and --no-start forbids starting ` +
          `${profile.engine}; start it yourself or leave out --no-start`,
      );
    }
  } else if (options.noStart) {
    throw new EngineStartError(
      "no-start",
      `Cannot use profile "${profile.name}" with --no-start: its port is 0, so there is no running server to find`,
    );
  }

  return null;
}

/**
 * Waits until /health answers 200, the engine exits, /health answers neither 200 nor 503, the deadline passes, or
 * the signal aborts.
 */
async function waitReady(
  fixedUrl: string | null,
  learnedUrl: (() => string | null) | null,
  profile: EngineProfile,
  options: StartEngineOptions,
  fetchFn: typeof fetch,
  logText: () => string,
  child?: { exited: Promise<ProcessExit>; exitStatus(): ProcessExit | null },
  failWhenDown = false,
): Promise<string> {
  const deadline = performance.now() + profile.readyTimeoutS * 1000;
  let exited: ProcessExit | null = null;
  child?.exited.then((status) => {
    exited = status;
  });
  for (;;) {
    if (options.signal?.aborted) {
      throw new EngineStartError("cancelled", `Cancelled while waiting for ${profile.engine} to get ready`);
    }
    const status = exited ?? child?.exitStatus() ?? null;
    if (status !== null) {
      const how = status.signal !== null ? `was ended by ${status.signal}` : `exited with code ${status.code}`;
      throw new EngineStartError(
        "exited",
        `Cannot start profile "${profile.name}": ${profile.engine} ${how} before it was ready. Its log ends:\n` +
          logTail(logText()),
      );
    }
    const url = fixedUrl ?? learnedUrl?.() ?? null;
    const answer: HealthState = url === null ? { state: "down" } : await health(url, fetchFn, 2_000);
    if (answer.state === "ready" && url !== null) return url;
    if (answer.state === "foreign" && url !== null) {
      const why = foreignServer(url, answer.status);
      throw new EngineStartError(
        "not-engine",
        child === undefined
          ? `Cannot use profile "${profile.name}": ${why}; stop what listens there or give the profile another port`
          : `Cannot start profile "${profile.name}": ${why}; check the profile's engine and arguments. ` +
            `Its log ends:\n${logTail(logText())}`,
      );
    }
    if (answer.state === "down" && failWhenDown) {
      throw new EngineStartError(
        "exited",
        `Cannot use the server at ${url}: it stopped answering while it was loading; start it again`,
      );
    }
    if (performance.now() > deadline) {
      throw new EngineStartError(
        "not-ready",
        `Cannot start profile "${profile.name}": not ready after ${profile.readyTimeoutS} s (raise ` +
          `"ready_timeout_s" for a large model). Its log ends:\n${logTail(logText())}`,
      );
    }
    // Wake on whichever comes first: the engine exiting, the abort, or the next probe time.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 200);
      const onAbort = () => done();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      child?.exited.then(() => done());
      function done() {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve();
      }
    });
  }
}
