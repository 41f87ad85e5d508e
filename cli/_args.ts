/**
 * Command-line parsing shared by every command: one usage-error type (exit code 2), strict flag parsing (unknown
 * flags are errors, never ignored), and one parser for number flags.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A bad command line: the command prints the message and exits with the usage code. */
export class UsageError extends Error {
  override name = "UsageError";
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses `argv` strictly against `options`; `action` names what the command was asked to do ("load", "start
 * mock") and opens the message of any problem.
 * @throws {UsageError} on an unknown flag, a missing value, or a positional where none is allowed.
 */
export function parseFlags<O extends Options>(
  action: string,
  argv: readonly string[],
  options: O,
  config: { positionals?: boolean } = {},
): {
  values: ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: boolean }>>["values"];
  positionals: string[];
} {
  try {
    const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: config.positionals === true });
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(`Cannot ${action}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** What a number flag accepts: an integer or any decimal, and its bounds (`above` is exclusive). */
export interface NumberCheck {
  integer?: boolean;
  min?: number;
  above?: number;
  max?: number;
}

/**
 * Reads a number flag written in plain decimal ("8", "0.5", "-1"); undefined when absent.
 * @throws {UsageError} "Cannot <action>: --NAME must be <range>, got "<text>"" on a malformed or out-of-range value.
 */
export function numberFlag(
  action: string,
  values: Readonly<Record<string, unknown>>,
  name: string,
  check: NumberCheck = {},
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = typeof raw === "string" && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  const bad = !Number.isFinite(n) || (check.integer === true && !Number.isInteger(n)) ||
    (check.min !== undefined && n < check.min) || (check.above !== undefined && n <= check.above) ||
    (check.max !== undefined && n > check.max);
  if (bad) {
    const bounds = [
      check.min !== undefined ? `>= ${check.min}` : null,
      check.above !== undefined ? `> ${check.above}` : null,
      check.max !== undefined ? `<= ${check.max}` : null,
    ].filter((b) => b !== null).join(" and ");
    const range = `${check.integer ? "an integer" : "a number"}${bounds === "" ? "" : ` ${bounds}`}`;
    throw new UsageError(`Cannot ${action}: --${name} must be ${range}, got "${String(raw)}"`);
  }
  return n;
}
