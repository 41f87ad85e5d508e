/**
 * Where the real engine and the tiny model live: a cache folder outside the repository,
 * `${XDG_CACHE_HOME:-~/.cache}/strata-bench`, keyed by the llama.cpp commit so builds of different sources never
 * mix. Nothing here is ever committed.
 */
import { join } from "node:path";

/** The npm package whose tarball carries llama.cpp's source as a git bundle. */
export const NODE_LLAMA_CPP = { name: "node-llama-cpp", version: "3.21.1" } as const;
/** Path of the git bundle inside the package tarball. */
export const BUNDLE_PATH_IN_PACKAGE = "package/llama/gitRelease.bundle";
/** The llama.cpp commit that node-llama-cpp 3.21.1 ships (checked against the bundle when provisioning). */
export const LLAMA_CPP_COMMIT = "80fb11ac73e66d89eae2c6a91d8a77428fa733ed";

/** Cache paths of one llama.cpp commit. */
export interface EnginePaths {
  cache: string;
  npmDir: string;
  tarball: string;
  bundle: string;
  sourceDir: string;
  buildDir: string;
  llamaServer: string;
  buildLog: string;
  buildStartFile: string;
}

/** Every cache path, for `commit` (default: the pinned one). */
export function enginePaths(cache: string, commit: string = LLAMA_CPP_COMMIT): EnginePaths {
  const npmDir = join(cache, "npm");
  const sourceDir = join(cache, `llama-src-${commit}`);
  const buildDir = join(sourceDir, "build");
  return {
    cache,
    npmDir,
    tarball: join(npmDir, `${NODE_LLAMA_CPP.name}-${NODE_LLAMA_CPP.version}.tgz`),
    bundle: join(npmDir, BUNDLE_PATH_IN_PACKAGE),
    sourceDir,
    buildDir,
    llamaServer: join(buildDir, "bin", "llama-server"),
    buildLog: join(cache, "cmake-build.log"),
    buildStartFile: join(cache, "build-start"),
  };
}
