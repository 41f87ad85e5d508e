/**
 * `report --seal`'s use case: read a result folder's results.json safely, seal it (seal.ts's sealResult: re-hash the
 * redacted artifacts, re-derive the texts drawn from them, refuse any change to what is measured) and write the
 * sealed results.json and the README drawn again. The folder's files are read as `report` reads them.
 */
import { join } from "node:path";
import { FolderFileError, writeTextOutcome } from "../../runtime/mod.ts";
import type { LoadedBundle } from "../../fixtures/mod.ts";
import { RESULT_FILES } from "../../contract/mod.ts";
import { folderArtifactReader, readResultsText, validationOptions } from "../read_result.ts";
import { type SealOutcome, sealResult } from "./seal.ts";
import { validateResultText } from "../validate.ts";
import { renderReadme } from "../render.ts";

/** What sealing a folder did: refused with reasons, nothing to seal, sealed, or a file it could not read or write. */
export type FolderSeal =
  | { kind: "unreadable"; message: string }
  | { kind: "refused"; reasons: string[] }
  | { kind: "nothing" }
  | { kind: "unwritable"; file: string; reason: string }
  | { kind: "sealed"; outcome: SealOutcome & { ok: true } };

/** Seals the result folder `dir` against the fixture bundle; writes README.md and results.json when it seals. */
export async function sealFolder(
  dir: string,
  bundle: LoadedBundle,
  now: () => Date = () => new Date(),
): Promise<FolderSeal> {
  const read = await readResultsText(dir);
  if (read.kind === "unreadable" || read.kind === "absent") return { kind: "unreadable", message: read.message };
  if (read.kind === "invalid") {
    return { kind: "unreadable", message: `Cannot read "${join(dir, RESULT_FILES.results)}": ${read.message}` };
  }
  const reader = folderArtifactReader(dir);
  const options = validationOptions(bundle, reader);
  let outcome: SealOutcome;
  try {
    outcome = await sealResult(read.text, {
      read: reader,
      validate: (candidate) => validateResultText(candidate, options),
      fixtures: bundle.fixtures,
      renderReadme,
      now,
    });
  } catch (error) {
    // An artifact that cannot be read as a result file (over its cap, a link, gone): refused with its reason.
    if (error instanceof FolderFileError) return { kind: "refused", reasons: [error.message] };
    throw error;
  }
  if (!outcome.ok) return { kind: "refused", reasons: outcome.reasons };
  if (outcome.text === null) return { kind: "nothing" };
  const writes: [string, string][] = [
    ...(outcome.readme.kind === "rendered"
      ? [[join(dir, RESULT_FILES.readme), outcome.readme.text] as [string, string]]
      : []),
    [join(dir, RESULT_FILES.results), outcome.text],
  ];
  for (const [file, content] of writes) {
    const written = await writeTextOutcome(file, content);
    if (!written.ok) return { kind: "unwritable", file, reason: written.reason };
  }
  return { kind: "sealed", outcome };
}
