/**
 * Command-line parsing shared by every command: one usage-error type (exit code 2), strict flag parsing (unknown
 * flags are errors, never ignored), and one parser for number flags.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { errorMessage } from "../runtime/mod.ts";

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
    throw new UsageError(`Cannot ${action}: ${explainParseError(error, Object.keys(options))}`);
  }
}

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours count one each). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!, prev = d[i - 1]!;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word closest to a mistyped one (within a third of its length, at least 1 and at most 3 edits), or
 * null: "--ulr" -> "--url", "--concurency" -> "--concurrency", "rnu" -> "run".
 */
export function didYouMean(word: string, known: readonly string[]): string | null {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null, bestDistance = limit + 1;
  for (const candidate of known) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/**
 * A parser error in the person's words, never the parser's own text: an unknown flag with the nearest known one,
 * a flag missing its value (also when the next word is another flag), a value given to a switch, a stray word.
 */
export function explainParseError(error: unknown, flags: readonly string[]): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = errorMessage(error);
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? "";
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const near = didYouMean(flag.replace(/^-+/, ""), flags);
      return `unknown flag ${flag}${near === null ? "" : `; did you mean --${near}?`} (--help lists the flags)`;
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/does not take an argument/.test(message)) return `${flag} takes no value`;
      return `${flag} needs a value${/ambiguous/.test(message) ? " (the next word is another flag)" : ""}: ` +
        `write ${flag} VALUE (--help says what it takes)`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL": {
      const word = /Unexpected argument '([^']*)'/.exec(message)?.[1] ?? "";
      return `unexpected word "${word}": this command takes flags only (--help lists them)`;
    }
    default:
      return message.split("\n")[0]!;
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

/** The most points one sweep loads (each is a whole measured run). */
const MAX_SWEEP_POINTS = 8;

/**
 * `--concurrency 1,4,16` or `--rate 1,2,4`: the points of a sweep, in increasing order, each checked as one value
 * is. @throws {UsageError} for a bad or repeated point, or more than MAX_SWEEP_POINTS.
 */
export function pointsFlag(
  action: string,
  values: Readonly<Record<string, unknown>>,
  name: string,
  check: NumberCheck,
): number[] | undefined {
  const text = values[name];
  if (text === undefined) return undefined;
  const points = String(text).split(",").map((part) => numberFlag(action, { [name]: part.trim() }, name, check)!);
  if (new Set(points).size !== points.length || points.length > MAX_SWEEP_POINTS) {
    throw new UsageError(`Cannot sweep --${name} ${String(text)}: at most ${MAX_SWEEP_POINTS} points, each once`);
  }
  return points.sort((a, b) => a - b);
}

/**
 * Refuses an old spelling that now means something else, before parsing: each `flag` in `switches` takes no value
 * any more, so `--flag VALUE` or `--flag=VALUE` is an error that says what to write instead (never read as a
 * positional or silently reinterpreted).
 * @throws {UsageError} naming the flag and its new use.
 */
export function refuseSwitchValues(
  action: string,
  argv: readonly string[],
  switches: Readonly<Record<string, string>>,
): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return;
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const hint = Object.hasOwn(switches, name) ? switches[name] : undefined;
    if (hint === undefined) continue;
    const next = argv[i + 1];
    if (eq > 0 || (next !== undefined && !next.startsWith("-"))) {
      const value = eq > 0 ? arg.slice(eq + 1) : next;
      throw new UsageError(`Cannot ${action}: ${name} takes no value now (got "${value}"): ${hint}`);
    }
  }
}

/** File endings that show an --out value was meant as a file (the old spelling of load and compare). */
const FILE_ENDINGS = /\.(jsonl|json|html|svg|csv|md)$/i;

/**
 * The folder --out names (default `fallback`); a value that looks like a file (FILE.jsonl, the old spelling) is
 * refused with the new meaning.
 * @throws {UsageError} for an empty value or a file name.
 */
export function outFolderFlag(action: string, values: Readonly<Record<string, unknown>>, fallback: string): string {
  const out = values.out;
  if (out === undefined) return fallback;
  if (typeof out !== "string" || out.trim() === "") throw new UsageError(`Cannot ${action}: --out needs a folder`);
  if (FILE_ENDINGS.test(out)) {
    throw new UsageError(
      `Cannot ${action}: --out names a folder now, not a file ("${out}"): the command writes a new file into that ` +
        "folder and prints its name; pass e.g. --out bench-results",
    );
  }
  return out;
}

/**
 * Refuses flags that would have no effect in this combination: each entry is [given, why] where `given` says the
 * flag was passed and `why` says what makes it inert (null: it has an effect).
 * @throws {UsageError} "Cannot <action>: --FLAG has no effect <why>".
 */
export function refuseInert(action: string, checks: readonly (readonly [string, boolean, string | null])[]): void {
  for (const [flag, given, why] of checks) {
    if (given && why !== null) throw new UsageError(`Cannot ${action}: ${flag} has no effect ${why}`);
  }
}
