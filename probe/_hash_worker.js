/**
 * Module worker that computes SHA-256 over chunks the main thread reads and transfers to it. It opens no file and
 * needs no permission: the main thread keeps the file access (and its refusals), the worker only does the CPU work.
 *
 * Plain JavaScript on purpose: `deno test` type-checks every TypeScript worker module as it starts (seconds per
 * worker); a .js module starts at once. The message shapes are checked at run time.
 *
 * Messages in: `{ kind: "begin" }`, `{ kind: "chunk", buffer, length }`, `{ kind: "end" }`.
 * Messages out: `{ kind: "ready" }` once loaded, `{ kind: "chunk", buffer }` (the buffer handed back for reuse),
 * `{ kind: "digest", hex }`, or `{ kind: "error", message }`.
 */
import { createHash } from "node:crypto";

/** @type {{ onmessage: ((event: { data: any }) => void) | null, postMessage(m: unknown, t?: ArrayBuffer[]): void }} */
const scope = /** @type {any} */ (globalThis);
/** @type {import("node:crypto").Hash | null} */
let hash = null;

scope.onmessage = (event) => {
  const message = event.data;
  try {
    if (message.kind === "begin") {
      hash = createHash("sha256");
    } else if (message.kind === "chunk" && message.buffer instanceof ArrayBuffer) {
      if (hash === null) throw new Error("a chunk arrived before begin");
      hash.update(new Uint8Array(message.buffer, 0, Number(message.length)));
      scope.postMessage({ kind: "chunk", buffer: message.buffer }, [message.buffer]);
    } else if (message.kind === "end") {
      if (hash === null) throw new Error("end arrived before begin");
      const hex = hash.digest("hex");
      hash = null;
      scope.postMessage({ kind: "digest", hex });
    } else {
      throw new Error(`unknown message ${JSON.stringify(message.kind)}`);
    }
  } catch (error) {
    scope.postMessage({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
};
scope.postMessage({ kind: "ready" });
