/** `probe` command (not implemented yet). */
import { writeStderr } from "../runtime/mod.ts";
import { EXIT } from "./exit_codes.ts";

export const HELP = "Usage: strata-bench probe\n\nNot implemented yet.\n";

/** Entry point of `probe`. */
export function main(_argv: string[]): Promise<number> {
  writeStderr("Cannot run probe: not implemented yet.\n");
  return Promise.resolve(EXIT.environment);
}
