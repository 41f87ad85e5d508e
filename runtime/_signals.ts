import process from "node:process";

/**
 * What ends a command as if cancelled: Ctrl-C (SIGINT), a supervisor's SIGTERM, the terminal closing (SIGHUP), or
 * the death of the process that started it (its parent; see onParentExit), which no signal announces.
 */
export type TerminationSignal = "SIGINT" | "SIGTERM" | "SIGHUP" | typeof PARENT_EXITED;

/** The TerminationSignal of a parent that died. */
export const PARENT_EXITED = "the parent process exited";

/**
 * Calls `handler` when the process receives SIGINT, SIGTERM or SIGHUP (neither of the last two is delivered on
 * Windows), or when its
 * parent process dies (onParentExit), so a benchmark whose launcher was killed stops like a cancelled one instead
 * of running on as an orphan. The returned function removes the listeners. While a listener is installed the
 * default "exit at once" behaviour is replaced. `parentPid`: the process that must be this one's parent (a worker's
 * parent names itself), so a parent that died before the watch was set is noticed too.
 */
export function onTerminationSignal(
  handler: (signal: TerminationSignal) => void,
  options: { parentPid?: number } = {},
): () => void {
  const g = globalThis as {
    Deno?: {
      build: { os: string };
      addSignalListener(signal: string, listener: () => void): void;
      removeSignalListener(signal: string, listener: () => void): void;
    };
  };
  const names: TerminationSignal[] = ["SIGINT"];
  if (g.Deno ? g.Deno.build.os !== "windows" : process.platform !== "win32") names.push("SIGTERM", "SIGHUP");
  const listeners = names.map((name) => [name, () => handler(name)] as const);
  for (const [name, listener] of listeners) {
    if (g.Deno) g.Deno.addSignalListener(name, listener);
    else process.on(name, listener);
  }
  const stopWatching = onParentExit(() => handler(PARENT_EXITED), 500, options.parentPid);
  return () => {
    stopWatching();
    for (const [name, listener] of listeners) {
      if (g.Deno) g.Deno.removeSignalListener(name, listener);
      else process.off(name, listener);
    }
  };
}

/**
 * Calls `handler` once when the process that started this one ends (it was killed, even with SIGKILL, which no
 * signal reaches): the parent process id then changes, as the orphan is adopted by init or a subreaper. Polled
 * every `intervalMs` (default 500) on a timer that does not keep the process alive. No watch is set when the
 * parent is already init (pid 1: started detached on purpose) or the runtime cannot tell the parent, unless
 * `expected` names the parent: then a parent other than it (one that died before this call) is noticed at the first
 * poll. Returns the function that stops watching.
 */
export function onParentExit(handler: () => void, intervalMs = 500, expected?: number): () => void {
  const parentPid = (): number | null => {
    const g = globalThis as { Deno?: { ppid?: number } };
    const pid = g.Deno ? g.Deno.ppid : process.ppid;
    return typeof pid === "number" && pid > 0 ? pid : null;
  };
  const first = expected ?? parentPid();
  if (first === null || (first === 1 && expected === undefined)) return () => {};
  const timer = setInterval(() => {
    if (parentPid() === first) return;
    clearInterval(timer);
    handler();
  }, intervalMs);
  (timer as { unref?: () => void }).unref?.();
  if (typeof timer === "number") (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno?.unrefTimer(timer);
  return () => clearInterval(timer);
}
