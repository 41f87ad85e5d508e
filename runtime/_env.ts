import process from "node:process";
import { isAbsolute } from "node:path";

/**
 * Reads an environment variable; undefined when unset or when the permission to read it is refused.
 */
export function env(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

/**
 * The folder the person ran the command from. `deno task` runs a task in the toolkit's root and says where it was
 * started in INIT_CWD (npm does the same), so relative paths a person types resolve against that folder; outside
 * a task (or where INIT_CWD may not be read) it is the working folder.
 */
export function invocationFolder(): string {
  const started = env("INIT_CWD");
  return started !== undefined && isAbsolute(started) ? started : process.cwd();
}
