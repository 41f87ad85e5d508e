import process from "node:process";

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
