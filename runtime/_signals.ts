import process from "node:process";

/** The termination signals the runner turns into a cancelled run. */
export type TerminationSignal = "SIGINT" | "SIGTERM";

/**
 * Calls `handler` when the process receives SIGINT or SIGTERM (SIGTERM is not delivered on Windows); the returned
 * function removes the listeners. While a listener is installed the default "exit at once" behaviour is replaced.
 */
export function onTerminationSignal(handler: (signal: TerminationSignal) => void): () => void {
  const g = globalThis as {
    Deno?: {
      build: { os: string };
      addSignalListener(signal: string, listener: () => void): void;
      removeSignalListener(signal: string, listener: () => void): void;
    };
  };
  const names: TerminationSignal[] = ["SIGINT"];
  if (g.Deno ? g.Deno.build.os !== "windows" : process.platform !== "win32") names.push("SIGTERM");
  const listeners = names.map((name) => [name, () => handler(name)] as const);
  for (const [name, listener] of listeners) {
    if (g.Deno) g.Deno.addSignalListener(name, listener);
    else process.on(name, listener);
  }
  return () => {
    for (const [name, listener] of listeners) {
      if (g.Deno) g.Deno.removeSignalListener(name, listener);
      else process.off(name, listener);
    }
  };
}
