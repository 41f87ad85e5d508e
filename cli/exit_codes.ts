import { errorMessage, FileReadError, FolderFileError, refusedPermissionFlag, writeStderr } from "../runtime/mod.ts";
import { FixtureBundleError, LengthRuleError } from "../fixtures/mod.ts";
import { ApprovedAddError, GitError, ManifestMissingError, ProtocolsFileError, SiteOutputError } from "../site/mod.ts";
import { explainParseError, UsageError } from "./_args.ts";

/** Named exit codes, documented in `--help` and the README. */
export const EXIT = {
  /** The command did what was asked; for `run` and `report`, the result is valid and conforming. */
  ok: 0,
  /** It ran, but the result is invalid, nonconforming, partial, or a gate failed. */
  resultNotOk: 1,
  /** Bad command line: unknown flag, missing value, refused workload-changing flag. */
  usage: 2,
  /** The environment failed: permission refused, engine missing, server unreachable, unreadable files. */
  environment: 3,
  /**
   * A signal (Ctrl-C, SIGTERM, the parent's death) stopped `load` or `compare` before its plan was done: what was
   * measured is kept and marked interrupted, and no verdict or complete summary was made of it. The npm launcher
   * also ends with it when the benchmark was ended by a signal it could not handle (never 128 + N). Under npx,
   * npm's own shell dies of Ctrl-C and npx itself reports 130; the benchmark still stops as documented.
   */
  interrupted: 4,
} as const;
type ExitCode = typeof EXIT[keyof typeof EXIT];

/** A bad command line: a UsageError, or node:util's parseArgs refusing a flag (a TypeError with an ERR_ code). */
function isUsageError(error: unknown): boolean {
  return error instanceof UsageError || (error instanceof TypeError && "code" in error);
}

/**
 * The toolkit's own errors a command may end with, and the code each means; last, the built-in errors of a file or
 * value a person gave that does not parse (SyntaxError) or is out of range (RangeError): load's and compare's inputs.
 */
const ERROR_CODES: readonly [abstract new (...args: never[]) => Error, ExitCode][] = [
  [ProtocolsFileError, EXIT.usage],
  [ApprovedAddError, EXIT.resultNotOk],
  [LengthRuleError, EXIT.resultNotOk],
  [GitError, EXIT.environment],
  [FileReadError, EXIT.environment],
  [FolderFileError, EXIT.environment],
  [SiteOutputError, EXIT.environment],
  [ManifestMissingError, EXIT.environment],
  [FixtureBundleError, EXIT.environment],
  [SyntaxError, EXIT.usage],
  [RangeError, EXIT.usage],
];

/**
 * Errors of the parts a command loads only when it needs them, known by name (importing runner/, load/ or engine/
 * here would load them, and all below them, for every command): a run refused before anything was sent, a result
 * folder that could not be written, an engine that did not start or build, a load target that is not a streaming
 * chat server; shard files that do not form one run; a saved result that is damaged or foreign.
 */
const NAMED_ERRORS: Readonly<Record<string, ExitCode>> = {
  RunRefusedError: EXIT.environment,
  RunWriteError: EXIT.environment,
  EngineStartError: EXIT.environment,
  ProvisionError: EXIT.environment,
  TargetRefused: EXIT.environment,
  MergeRefusal: EXIT.usage,
  SavedResultsRefusal: EXIT.resultNotOk,
  SubmitRefused: EXIT.resultNotOk,
  SubmitUnusable: EXIT.environment,
  SubmitInterrupted: EXIT.interrupted,
};

/** The permission flag a refused permission names, where that (not one of the toolkit's own errors) is the error. */
function refusedFlagOf(error: unknown): string | null {
  return ERROR_CODES.some(([kind]) => error instanceof kind) ? null : refusedPermissionFlag(error);
}

/**
 * What `command` prints for an error exitCodeOf maps: the message with the --help hint for a bad command line,
 * the flag to add (and `permissionHint`) for a refused permission, else the error's own message.
 */
export function failureText(command: string, sub: string | undefined, error: unknown, permissionHint = ""): string {
  // node:util's parser errors carry a code: they are said in the person's words, never the parser's own text.
  const message = error instanceof TypeError && "code" in error
    ? explainParseError(error, [])
    : error instanceof Error
    ? error.message
    : String(error);
  if (isUsageError(error)) {
    return `Cannot run ${command}: ${message}\nRun "strata-bench ${command} --help" for usage.\n`;
  }
  const flag = refusedFlagOf(error);
  if (flag !== null) return `Cannot run ${command} ${sub}: permission refused (add ${flag}).${permissionHint}\n`;
  return `${message}\n`;
}

/**
 * The exit code of an error a command could not finish for, the one mapping of errors to codes: a bad command line
 * (or a protocols file, load merge's shard files, a load or compare input the person named) is usage; a refused
 * approval, a broken length rule or a damaged saved result is resultNotOk; git, an unreadable file or folder, a site
 * --out folder, the fixture bundle, a refused permission, a run refused before it began or one whose result folder
 * could not be written, an engine that did not start, a target that is no chat server is environment. Null for an
 * error that is a defect (the caller rethrows it).
 */
export function exitCodeOf(error: unknown): ExitCode | null {
  if (isUsageError(error)) return EXIT.usage;
  const named = error instanceof Error ? NAMED_ERRORS[error.name] : undefined;
  if (named !== undefined) return named;
  const known = ERROR_CODES.find(([kind]) => error instanceof kind);
  if (known !== undefined) return known[1];
  return refusedPermissionFlag(error) !== null ? EXIT.environment : null;
}

/**
 * Ends a command with an error exitCodeOf maps: writes `say` of its message (to stderr, or `write`) and returns the
 * code. An error with no code is a defect and is thrown again, unless the command names `otherwise`, the code of any
 * failure it cannot name past its command line (load's, compare's, mock's: the environment's, such as a network's).
 */
export function endWith(
  error: unknown,
  say: (message: string) => string = (message) => message,
  { otherwise = null, write = writeStderr }: { otherwise?: ExitCode | null; write?: (text: string) => void } = {},
): ExitCode {
  const code = exitCodeOf(error) ?? otherwise;
  if (code === null) throw error;
  write(`${say(errorMessage(error))}\n`);
  return code;
}
