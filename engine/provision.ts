/**
 * `deno task engine:build`: obtains llama.cpp's source from the node-llama-cpp npm tarball (`npm pack`, no install
 * scripts), clones its git bundle into the cache, and builds only the llama-server target with cmake (CPU,
 * Release). A present binary is reused; a build another process is running in the same folder is waited for,
 * never started twice. Output of every tool goes to `<cache>/cmake-build.log`; progress goes to stderr.
 */
import { join } from "node:path";
import {
  args,
  exit,
  type Outcome,
  readTextOutcome,
  resultFiles,
  runCommand,
  spawnProcess,
  statOutcome,
  sys,
  toolkitCacheDir,
  writeStderr,
} from "../runtime/mod.ts";
import { type EnginePaths, enginePaths, LLAMA_CPP_COMMIT, NODE_LLAMA_CPP } from "./paths.ts";

/** Options of cmake's configure step: CPU only, Release, no curl, no tests or examples, static libraries. */
export const CMAKE_CONFIGURE_FLAGS = [
  "-DCMAKE_BUILD_TYPE=Release",
  "-DGGML_NATIVE=OFF",
  "-DLLAMA_CURL=OFF",
  "-DLLAMA_BUILD_TESTS=OFF",
  "-DLLAMA_BUILD_EXAMPLES=OFF",
  "-DBUILD_SHARED_LIBS=OFF",
] as const;

/** Why provisioning stopped. */
export class ProvisionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProvisionError";
  }
}

/** Result of provisioning: where the binary is and whether it was built now. */
export interface ProvisionResult {
  llamaServer: string;
  commit: string;
  built: boolean;
  buildSeconds: number | null;
}

/** The last line of a finished build log: "rc=<code> end=<unix seconds>". */
const BUILD_END = /^rc=(-?\d+) end=(\d+)\s*$/m;

/** Reads the state of a build log: finished (with rc and end time), running, or absent. */
export function buildLogState(text: string | null, logAgeS: number | null):
  | { state: "absent" }
  | { state: "finished"; rc: number; endS: number }
  | { state: "running" }
  | { state: "stale" } {
  if (text === null) return { state: "absent" };
  const lines = text.trimEnd().split("\n");
  const last = lines[lines.length - 1] ?? "";
  const end = BUILD_END.exec(last);
  if (end) return { state: "finished", rc: Number(end[1]), endS: Number(end[2]) };
  // A log without an end line that nobody wrote to for 10 minutes belongs to a build that died.
  return logAgeS !== null && logAgeS < 600 ? { state: "running" } : { state: "stale" };
}

async function exists(path: string): Promise<boolean> {
  return (await statOutcome(path)).ok;
}

function need<T>(outcome: Outcome<T>, hint: string): T {
  if (!outcome.ok) throw new ProvisionError(`${outcome.reason}; ${hint}`);
  return outcome.value;
}

async function run(command: string, argv: string[], hint: string, timeoutMs = 600_000): Promise<string> {
  const result = need(await runCommand(command, argv, { timeoutMs }), hint);
  if (result.code !== 0) {
    const tail = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-15).join("\n");
    throw new ProvisionError(`Cannot ${hint}: ${command} exited with ${result.code}:\n${tail}`);
  }
  return result.stdout;
}

/** Checks that cmake and a C++ compiler are installed; throws naming what is missing. */
async function checkToolchain(): Promise<void> {
  const cmake = await runCommand("cmake", ["--version"]);
  if (!cmake.ok) {
    throw new ProvisionError(
      `Cannot build llama-server: ${cmake.reason}. Install cmake 3.14 or newer (e.g. apt-get install cmake)`,
    );
  }
  for (const compiler of ["c++", "g++", "clang++"]) {
    const found = await runCommand(compiler, ["--version"]);
    if (found.ok && found.value.code === 0) return;
  }
  throw new ProvisionError(
    "Cannot build llama-server: no C++ compiler found (tried c++, g++, clang++). Install one " +
      "(e.g. apt-get install build-essential)",
  );
}

/** Waits for a build another process runs in the same folder; returns its exit code. */
async function waitForRunningBuild(paths: EnginePaths, progress: (line: string) => void): Promise<number> {
  let lastPercent = "";
  for (;;) {
    const text = await readTextOutcome(paths.buildLog);
    const facts = await statOutcome(paths.buildLog);
    const ageS = facts.ok ? (Date.now() - facts.value.mtimeMs) / 1000 : null;
    const state = buildLogState(text.ok ? text.value : null, ageS);
    if (state.state === "finished") return state.rc;
    if (state.state !== "running") {
      throw new ProvisionError(`Cannot wait for the build: its log ${paths.buildLog} stopped without an end line`);
    }
    const percent = text.ok ? [...text.value.matchAll(/\[\s*(\d+)%\]/g)].pop()?.[1] ?? "" : "";
    if (percent !== lastPercent) progress(`another build is running: ${percent}%`);
    lastPercent = percent;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
}

/** Runs one step with its output appended to the build log and `[ NN%]` progress reported. */
async function logged(
  paths: EnginePaths,
  command: string,
  argv: string[],
  progress: (line: string) => void,
): Promise<number> {
  const decoder = new TextDecoder();
  let pending: Promise<void> = Promise.resolve();
  let lastPercent = "";
  const started = await spawnProcess(command, argv, {
    onOutput: (chunk) => {
      pending = pending.then(() => resultFiles.appendDurable(paths.buildLog, chunk));
      const percent = [...decoder.decode(chunk).matchAll(/\[\s*(\d+)%\]/g)].pop()?.[1];
      if (percent !== undefined && percent !== lastPercent) {
        lastPercent = percent;
        progress(`building llama-server: ${percent}%`);
      }
    },
  });
  const child = need(started, `start ${command}`);
  const status = await child.exited;
  await pending;
  return status.code ?? 128;
}

/**
 * Makes sure the llama-server binary for the pinned node-llama-cpp version exists, building it when needed.
 * @throws {ProvisionError} naming the step that failed (npm, tar, git, cmake, compiler) with a hint.
 */
export async function provisionLlamaServer(
  options: { jobs?: number; progress?: (line: string) => void } = {},
): Promise<ProvisionResult> {
  const progress = options.progress ?? (() => {});
  const cache = need(toolkitCacheDir(), "set XDG_CACHE_HOME or HOME");
  let paths = enginePaths(cache);
  if (await exists(paths.llamaServer)) {
    return { llamaServer: paths.llamaServer, commit: LLAMA_CPP_COMMIT, built: false, buildSeconds: null };
  }
  await resultFiles.makeDirectory(paths.npmDir);
  await fetchBundle(paths, progress);
  const heads = await run("git", ["bundle", "list-heads", paths.bundle], "read the bundle (is git installed?)");
  const commit = /^([0-9a-f]{40})\s/m.exec(heads)?.[1];
  if (!commit) throw new ProvisionError(`Cannot read the bundle's commit: git bundle list-heads printed "${heads}"`);
  if (commit !== LLAMA_CPP_COMMIT) progress(`note: the bundle holds ${commit}, not the pinned ${LLAMA_CPP_COMMIT}`);
  paths = enginePaths(cache, commit);
  if (await exists(paths.llamaServer)) {
    return { llamaServer: paths.llamaServer, commit, built: false, buildSeconds: null };
  }

  const logText = await readTextOutcome(paths.buildLog);
  const logFacts = await statOutcome(paths.buildLog);
  const logState = buildLogState(
    logText.ok ? logText.value : null,
    logFacts.ok ? (Date.now() - logFacts.value.mtimeMs) / 1000 : null,
  );
  if (logState.state === "running") {
    progress(`waiting for the build already running (log: ${paths.buildLog})`);
    const rc = await waitForRunningBuild(paths, progress);
    if (rc === 0 && await exists(paths.llamaServer)) {
      return { llamaServer: paths.llamaServer, commit, built: false, buildSeconds: null };
    }
    throw new ProvisionError(`Cannot use the other build: it ended with rc=${rc}; see ${paths.buildLog}`);
  }

  return await buildFromSource(paths, commit, options.jobs ?? Math.max(1, sys.cpuCount()), progress);
}

/** The bundle of llama.cpp's source that node-llama-cpp's npm tarball ships, fetched and extracted once. */
async function fetchBundle(paths: EnginePaths, progress: (line: string) => void): Promise<void> {
  if (!(await exists(paths.tarball))) {
    progress(`npm pack ${NODE_LLAMA_CPP.name}@${NODE_LLAMA_CPP.version} (no install scripts)`);
    await run("npm", [
      "pack",
      `${NODE_LLAMA_CPP.name}@${NODE_LLAMA_CPP.version}`,
      "--ignore-scripts",
      "--pack-destination",
      paths.npmDir,
    ], "download the node-llama-cpp tarball (is npm installed and the registry reachable?)");
  }
  if (!(await exists(paths.bundle))) {
    progress("extracting llama/gitRelease.bundle");
    await run(
      "tar",
      ["-xzf", paths.tarball, "-C", paths.npmDir, "package/llama/gitRelease.bundle"],
      "extract the bundle",
    );
  }
}

/**
 * Clones the bundle (once), configures with cmake (once) and builds llama-server with `jobs` jobs, the build's
 * start and end in its log. @throws {ProvisionError} when cmake fails or leaves no llama-server.
 */
async function buildFromSource(
  paths: EnginePaths,
  commit: string,
  jobs: number,
  progress: (line: string) => void,
): Promise<ProvisionResult> {
  await checkToolchain();
  if (!(await exists(paths.sourceDir))) {
    progress(`cloning llama.cpp ${commit.slice(0, 7)} from the bundle`);
    await run("git", ["clone", "--quiet", paths.bundle, paths.sourceDir], "clone the bundle");
  }
  const startS = Math.floor(Date.now() / 1000);
  await resultFiles.writeAtomic(paths.buildStartFile, new TextEncoder().encode(`${startS}\n`));
  await resultFiles.writeAtomic(paths.buildLog, new Uint8Array());
  if (!(await exists(join(paths.buildDir, "CMakeCache.txt")))) {
    progress("configuring (cmake, CPU, Release)");
    const rc = await logged(
      paths,
      "cmake",
      ["-S", paths.sourceDir, "-B", paths.buildDir, ...CMAKE_CONFIGURE_FLAGS],
      progress,
    );
    if (rc !== 0) {
      throw new ProvisionError(`Cannot configure llama.cpp: cmake exited with ${rc}; see ${paths.buildLog}`);
    }
  }
  progress(`building llama-server with ${jobs} jobs (tens of minutes on 2 cores)`);
  const rc = await logged(
    paths,
    "cmake",
    ["--build", paths.buildDir, "--config", "Release", "--target", "llama-server", `-j${jobs}`],
    progress,
  );
  const endS = Math.floor(Date.now() / 1000);
  await resultFiles.appendDurable(paths.buildLog, new TextEncoder().encode(`\nrc=${rc} end=${endS}\n`));
  if (rc !== 0 || !(await exists(paths.llamaServer))) {
    throw new ProvisionError(`Cannot build llama-server: cmake exited with ${rc}; see ${paths.buildLog}`);
  }
  return { llamaServer: paths.llamaServer, commit, built: true, buildSeconds: endS - startS };
}

/** Command-line entry: `engine/provision.ts [--jobs N]`. */
export async function main(argv: readonly string[]): Promise<number> {
  const jobsAt = argv.indexOf("--jobs");
  const jobs = jobsAt >= 0 ? Number(argv[jobsAt + 1]) : undefined;
  if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1)) {
    writeStderr("Cannot parse --jobs: give a positive integer\n");
    return 2;
  }
  try {
    const result = await provisionLlamaServer({
      ...(jobs === undefined ? {} : { jobs }),
      progress: (line) => writeStderr(`${line}\n`),
    });
    const version = await runCommand(result.llamaServer, ["--version"], { timeoutMs: 30_000 });
    const versionText = version.ok
      ? `${version.value.stdout}${version.value.stderr}`.split("\n").find((l) => l.startsWith("version:")) ?? ""
      : "";
    writeStderr(
      `${result.built ? `built in ${result.buildSeconds} s` : "reusing"} ${result.llamaServer}` +
        `${versionText ? ` (${versionText})` : ""}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ProvisionError) {
      writeStderr(`${error.message}\n`);
      return 4;
    }
    throw error;
  }
}

if (import.meta.main) exit(await main(args()));
