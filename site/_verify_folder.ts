/**
 * `site verify DIR`: the site's independent check on a result folder before it is approved (on a pull request,
 * for example): artifact hashes and the whole recomputation, by the same code the browser runs.
 */
import { type CheckOutcome, checkResult, type KnownProtocol } from "./web/mod.js";
import type { FolderRead } from "./_deps.ts";
import type { BundleRead } from "./_approved.ts";

/** Checks the result folder read by `read`; `expectedSha256` compares results.json with a reviewed hash. */
export async function verifyFolder(
  read: FolderRead,
  options: { protocols: readonly KnownProtocol[]; readBundle: BundleRead; expectedSha256?: string },
): Promise<CheckOutcome> {
  const resultsBytes = await read("results.json");
  const outcome = await checkResult({
    resultsBytes,
    missingReason: "the folder has no results.json (a regular file, not a link)",
    readArtifact: read,
    ...(read.list === undefined ? {} : { listFolder: read.list }),
    protocols: options.protocols,
    readBundle: options.readBundle,
  });
  if (options.expectedSha256 !== undefined && outcome.resultsSha256 !== null) {
    if (outcome.resultsSha256 !== options.expectedSha256) {
      return {
        ...outcome,
        state: "failed",
        reasons: [`results.json has SHA-256 ${outcome.resultsSha256}, not the expected ${options.expectedSha256}`],
        facts: null,
      };
    }
  }
  return outcome;
}
