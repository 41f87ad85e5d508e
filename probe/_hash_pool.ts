/**
 * SHA-256 on module workers: a port to one worker (the real one, or a fake in tests) and a ChunkHasher that sends
 * it the chunks the main thread reads. A worker that cannot start, answers with an error or dies is reported as a
 * failure, so the caller can hash the file in-thread instead.
 */
import type { ChunkHasher } from "./hash_file.ts";
import { errorLine } from "../runtime/mod.ts";

/** The little of a Worker the hash pool uses; tests pass fakes. */
export interface HashWorkerPort {
  post(message: unknown, transfer: ArrayBuffer[]): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the worker cannot load or dies. */
  onFailure(listener: (reason: string) => void): void;
  terminate(): void;
}

/** Starts a hash worker; may throw when workers are unavailable. */
export type StartHashWorker = () => HashWorkerPort;

/** Starts `_hash_worker.js` as a module worker (Deno and Bun). Throws when the runtime cannot start it. */
export function startModuleHashWorker(): HashWorkerPort {
  const worker = new Worker(new URL("./_hash_worker.js", import.meta.url).href, { type: "module" });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.addEventListener("message", (event) => listener(event.data)),
    onFailure: (listener) => {
      worker.addEventListener("error", (event) => {
        // Handled here: without preventDefault Deno rethrows a worker's error in the parent.
        event.preventDefault();
        listener(event.message || "the hash worker failed");
      });
      worker.addEventListener("messageerror", () => listener("the hash worker sent a message that cannot be read"));
    },
    terminate: () => worker.terminate(),
  };
}

/** A ChunkHasher on one worker, reusable for several files in turn; `close()` ends the worker. */
export interface WorkerHasher extends ChunkHasher {
  close(): void;
}

interface Waiter {
  resolve(message: { kind?: unknown; buffer?: unknown; hex?: unknown; message?: unknown }): void;
  reject(error: Error): void;
}

/**
 * Starts a worker and waits (up to `readyTimeoutMs`) for it to say it is ready. Resolves with the hasher, or with
 * the reason no worker could be used.
 */
export async function startWorkerHasher(
  start: StartHashWorker,
  readyTimeoutMs = 10_000,
): Promise<{ ok: true; value: WorkerHasher } | { ok: false; reason: string }> {
  let port: HashWorkerPort;
  try {
    port = start();
  } catch (error) {
    return { ok: false, reason: `cannot start a hash worker: ${errorLine(error)}` };
  }
  let failure: string | null = null;
  const waiters: Waiter[] = [];
  let ready: { resolve(): void; reject(error: Error): void } | null = null;
  const terminate = () => {
    try {
      port.terminate();
    } catch { /* already gone */ }
  };
  const fail = (reason: string) => {
    if (failure !== null) return;
    failure = reason;
    ready?.reject(new Error(reason));
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(reason));
    terminate();
  };
  port.onFailure((reason) => fail(`the hash worker failed: ${reason}`));
  port.onMessage((data) => {
    const message = (typeof data === "object" && data !== null ? data : {}) as Parameters<Waiter["resolve"]>[0];
    if (message.kind === "ready") return ready?.resolve();
    if (message.kind === "error") return fail(`the hash worker reported: ${String(message.message)}`);
    const waiter = waiters.shift();
    if (waiter) waiter.resolve(message);
    else fail(`the hash worker sent an unexpected ${String(message.kind)} message`);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      ready = { resolve, reject };
      if (failure !== null) reject(new Error(failure));
      timer = setTimeout(() => fail(`the hash worker did not start within ${readyTimeoutMs} ms`), readyTimeoutMs);
    });
  } catch (error) {
    return { ok: false, reason: errorLine(error) };
  } finally {
    clearTimeout(timer);
    ready = null;
  }
  const request = (message: unknown, transfer: ArrayBuffer[]) =>
    new Promise<Parameters<Waiter["resolve"]>[0]>((resolve, reject) => {
      if (failure !== null) return reject(new Error(failure));
      waiters.push({ resolve, reject });
      try {
        port.post(message, transfer);
      } catch (error) {
        fail(`cannot send to the hash worker: ${errorLine(error)}`);
      }
    });
  return {
    ok: true,
    value: chunkHasher(port, request, () => failure, () => {
      failure ??= "closed";
      for (const waiter of waiters.splice(0)) waiter.reject(new Error("the hash worker was closed"));
      terminate();
    }),
  };
}

/** The hasher over a started worker: a file begins on its first chunk, and its digest ends it. */
function chunkHasher(
  port: HashWorkerPort,
  request: (message: unknown, transfer: ArrayBuffer[]) => Promise<Parameters<Waiter["resolve"]>[0]>,
  failure: () => string | null,
  close: () => void,
): WorkerHasher {
  let begun = false;
  /** Tells the worker a file starts, unless it already did. */
  const begin = () => {
    if (begun) return;
    const failed = failure();
    if (failed !== null) throw new Error(failed);
    port.post({ kind: "begin" }, []);
    begun = true;
  };
  return {
    update: async (buffer, length) => {
      begin();
      const reply = await request({ kind: "chunk", buffer: buffer.buffer, length }, [buffer.buffer as ArrayBuffer]);
      if (!(reply.buffer instanceof ArrayBuffer)) throw new Error("the hash worker returned no buffer");
      return new Uint8Array(reply.buffer);
    },
    digest: async () => {
      begin();
      begun = false;
      const reply = await request({ kind: "end" }, []);
      if (typeof reply.hex !== "string") throw new Error("the hash worker returned no digest");
      return reply.hex;
    },
    reset: () => {
      begun = false;
    },
    close,
  };
}
