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
export type ExitCode = typeof EXIT[keyof typeof EXIT];
