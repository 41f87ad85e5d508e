/** A repeating timer that never keeps the process alive (progress redraws and heartbeats). */

/** Calls `tick` every `intervalMs` until the returned function is called; the timer is unref'd. */
export function everyMs(intervalMs: number, tick: () => void): () => void {
  const timer = setInterval(tick, intervalMs);
  (timer as { unref?: () => void }).unref?.();
  if (typeof timer === "number") (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno?.unrefTimer(timer);
  return () => clearInterval(timer);
}
