/** Why a run could not start (nothing sent), and why it stopped when the result folder could not be written. */
import { errnoOf, errorLine, WRITE_FAILURE_WORDS } from "../runtime/mod.ts";
import type { TemplateCheck } from "./template_check.ts";

/** Why a run could not start; nothing was sent to the server. */
export class RunRefusedError extends Error {
  readonly code: "bundle" | "unreachable" | "url" | "folder" | "template";
  constructor(code: RunRefusedError["code"], message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "RunRefusedError";
    this.code = code;
  }
}

/**
 * The result folder could not be written during the run (a full or read-only disk, an I/O error): the run stopped
 * at once, the request in flight was cancelled, and the folder keeps `keptRequests` whole evidence lines (no
 * results.json). `report` reads such a folder as an interrupted run.
 */
export class RunWriteError extends Error {
  readonly folder: string;
  readonly keptRequests: number;
  /** The file system's error code (ENOSPC, EIO, EROFS, ...), or the error's name. */
  readonly code: string;
  constructor(folder: string, keptRequests: number, code: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "RunWriteError";
    this.folder = folder;
    this.keptRequests = keptRequests;
    this.code = code;
  }
}

const WRITE_ERROR_WORDS: Readonly<Record<string, string>> = {
  ...WRITE_FAILURE_WORDS,
  // report/result_folder.ts's own code: the folder at the run's path is no longer the one it created.
  FOLDER_REPLACED: "the folder was replaced during the run (a link or another folder stands at its path now), so " +
    "nothing more was written through it; what was written before stays in the folder that was moved",
};

export function writeError(folder: string, keptRequests: number, error: unknown, writing: string): RunWriteError {
  // The file system's code of the error ("ENOSPC"), or its name.
  const code = errnoOf(error) || "unknown";
  const words = WRITE_ERROR_WORDS[code] ?? errorLine(error);
  return new RunWriteError(
    folder,
    keptRequests,
    code,
    `Cannot write the result folder "${folder}" (${writing}): ${words} (${code}). The run stopped; ` +
      `outputs.jsonl keeps the whole evidence of ${keptRequests} request(s) and there is no results.json. ${
        code === "FOLDER_REPLACED" ? "Leave the folder in place while a run writes it" : "Free space or fix the disk"
      } and run again; "report ${folder}" reads what was kept.`,
    error,
  );
}

/**
 * The server renders or counts some fixture otherwise than the frozen bundle (the template check): the run would be
 * nonconforming, so it stops before the warm-up. `check` holds the counts side by side.
 */
export class TemplateMismatchError extends RunRefusedError {
  readonly check: TemplateCheck;
  constructor(check: TemplateCheck) {
    const first = check.rows.find((r) => r.verdict === "mismatch");
    super(
      "template",
      `Cannot run the protocol: the server renders ${check.mismatches} of ${check.rows.length} requests otherwise ` +
        `than the frozen bundle (${first?.id}: ${first?.reason}); its chat template or tokenizer is not the ` +
        "bundle's, so the run would be nonconforming. Nothing was measured. Start llama-server with --jinja and " +
        "the model's own template (check with: strata-bench probe --template), or pass --no-check-template to run " +
        "anyway",
    );
    this.check = check;
  }
}

/**
 * results.json could not be built from what was measured (a defect of the toolkit, not of the server or the disk):
 * the evidence stays in outputs.jsonl, and the message says so and where to report it.
 */
export function assemblyError(folder: string, keptRequests: number, error: unknown): RunWriteError {
  const words = errorLine(error);
  return new RunWriteError(
    folder,
    keptRequests,
    "ASSEMBLY",
    `Cannot assemble results.json in "${folder}": ${words}. This is a defect of strata-bench, not of the server ` +
      `or the disk. The run stopped; outputs.jsonl keeps the whole evidence of ${keptRequests} request(s) and there ` +
      `is no results.json; "report ${folder}" reads what was kept. Please report the defect with outputs.jsonl.`,
    error,
  );
}
