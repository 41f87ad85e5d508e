/**
 * What a compiled strata-bench runs first: it installs the fixture bundle, the real-text corpus and the commit the
 * compile step wrote into the executable (which has no node_modules), then dispatches the command line exactly as
 * `mod.ts` does.
 */
import { dispatch } from "../mod.ts";
import { useEmbeddedBundle } from "../fixtures/mod.ts";
import { useEmbeddedCorpus } from "../load/mod.ts";
import { bakeRunnerCommit, bakeToolkitVersion } from "../probe/mod.ts";
import { args, exit } from "../runtime/mod.ts";
import { memoryBundleSource } from "./embedded_bundle.ts";

/** Facts a compile step writes into the binary. */
export interface BinaryBuild {
  /** Full commit of the source the binary was built from (the COMMIT file's content). */
  commit: string;
  /** The toolkit version (package.json's at compile time); absent in binaries built before it was baked. */
  version?: string;
  /** The standard-v1 bundle: file name to base64 bytes. */
  bundleFilesBase64: Readonly<Record<string, string>>;
  /** The real-text corpus of load's named workloads: file name to text (absent in older binaries). */
  corpusFiles?: Readonly<Record<string, string>>;
}

/** Installs the embedded facts; exported apart from runBinary so a test can check it without exiting. */
export function installBinaryBuild(build: BinaryBuild): void {
  bakeRunnerCommit(build.commit);
  if (build.version !== undefined) bakeToolkitVersion(build.version);
  useEmbeddedBundle(memoryBundleSource(build.bundleFilesBase64));
  if (build.corpusFiles !== undefined) useEmbeddedCorpus(build.corpusFiles);
}

/** Entry of a compiled binary: installs `build`, runs argv, exits with the command's code. */
export async function runBinary(build: BinaryBuild): Promise<never> {
  installBinaryBuild(build);
  exit(await dispatch(args()));
}
