/**
 * `deno task compile`: builds the single-file strata-bench executables of a release into `dist/`, as HELP below
 * says. A `bun build --compile` binary runs with the user's full rights: Bun has no permission system.
 */
import { Buffer } from "node:buffer";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { arch, platform } from "node:os";
import {
  args,
  env,
  exit,
  LOAD_V8_FLAGS,
  openReaderOutcome,
  readTextOutcome,
  spawnProcess,
  statOutcome,
  sys,
  writeStderr,
  writeStdout,
} from "../runtime/mod.ts";
import { hashFile, readGitHead } from "../probe/mod.ts";
import { sha256Hex } from "../contract/mod.ts";
import { corpusFiles } from "../load/mod.ts";
import { BUNDLE_DIR, STANDARD_V1_CORPUS_SHA256, verifyBundle } from "../fixtures/mod.ts";
import { EXIT } from "../cli/exit_codes.ts";
import { encodeBundleFiles } from "./embedded_bundle.ts";
import { permissionFlags, permissionSetFrom } from "./permissions.ts";
import { hostTarget, RELEASE_TARGETS, type ReleaseTarget, selectTargets } from "./_targets.ts";

const REPO_DIR = fileURLToPath(new URL("../", import.meta.url));

export const HELP = `Usage: deno task compile [--target NAME]... [--with deno|bun|deno,bun] [--out DIR]

Builds single-file strata-bench executables with the fixture bundle and the source commit inside them, then
writes COMMIT and SHA256SUMS beside them.

  --target NAME   ${RELEASE_TARGETS.map((t) => t.name).join(", ")}, all or host (repeatable).
                  Default: all for deno compile, host for bun build --compile.
  --with LIST     which compilers to use (default deno,bun)
  --out DIR       output folder (default dist)

deno compile bakes the "run" permission set of deno.json into the binary. It needs Deno's runtime base (denort)
for each target: DENORT_BIN=/path/to/denort (used for one target, or for the host when several are asked for),
or DENORT_DIR=folder with denort-<triple>[.exe] files (from the denort-<triple>.zip of the matching Deno
release). Without one a target is skipped with a message; when you named targets yourself, that is an error.
bun build --compile cross-compiles by fetching the target's Bun runtime from the npm registry.

Exit codes: ${EXIT.ok} built; ${EXIT.resultNotOk} a compiler failed; ${EXIT.usage} usage error; ${EXIT.environment} a requested target
cannot be built here (no denort, no bun, permission refused).
`;

/** One produced file. */
export interface Artifact {
  name: string;
  path: string;
  sizeBytes: number;
  sha256: string;
}

/** What compileRelease needs to know. */
export interface CompileOptions {
  targets: { deno: readonly ReleaseTarget[]; bun: readonly ReleaseTarget[] };
  /** Whether the targets were named by the user: then a target that cannot be built is an error. */
  explicit: boolean;
  outDir: string;
  /** Path of the bun executable. */
  bunPath: string;
  /** Path of the deno executable (deno compile). */
  denoPath: string | null;
  /** DENORT_BIN and DENORT_DIR. */
  denortBin: string | null;
  denortDir: string | null;
  log: (line: string) => void;
}

/** Outcome of compileRelease. */
export interface CompileReport {
  commit: string;
  artifacts: Artifact[];
  skipped: string[];
  failed: string[];
}

/** SHA-256 of a file, streamed by the probe's file hasher (binaries are about 100 MB); throws when unreadable. */
export async function sha256OfFile(path: string): Promise<string> {
  const hashed = await hashFile(path, { openReader: openReaderOutcome, nowMs: () => performance.now() });
  if (!hashed.ok) throw new Error(`Cannot hash ${path}: ${hashed.reason}`);
  return hashed.value;
}

/** The source commit, or throws with the reason (a release is never built without one). */
async function sourceCommit(): Promise<string> {
  const head = await readGitHead(REPO_DIR, { readText: readTextOutcome, stat: statOutcome });
  if (!head.ok) {
    throw new Error(`Cannot compile: no source commit (${head.reason}); build from a git checkout`);
  }
  return head.value;
}

/** Runs a program, streams its output to the log, and returns its exit code (or why it could not start). */
async function runTool(
  command: string,
  argv: readonly string[],
  log: (line: string) => void,
  extraEnv: Record<string, string> = {},
): Promise<{ ok: true; code: number; output: string } | { ok: false; reason: string }> {
  const chunks: Uint8Array[] = [];
  const started = await spawnProcess(command, argv, { env: extraEnv, onOutput: (chunk) => chunks.push(chunk) });
  if (!started.ok) return { ok: false, reason: started.reason };
  const exited = await started.value.exited;
  const output = new TextDecoder().decode(Buffer.concat(chunks));
  if (exited.code !== 0) { for (const line of output.trimEnd().split("\n").slice(-15)) log(`    ${line}`); }
  return { ok: true, code: exited.code ?? 1, output };
}

/** Warns when tracked files differ from the commit the binary will claim. */
async function warnIfDirty(log: (line: string) => void): Promise<void> {
  const status = await runTool("git", ["-C", REPO_DIR, "status", "--porcelain", "--untracked-files=no"], () => {});
  if (!status.ok) {
    log(`note: cannot tell whether the working tree is clean (${status.reason})`);
  } else if (status.code === 0 && status.output.trim() !== "") {
    log("WARNING: tracked files differ from the commit; the binaries will claim a commit they do not match.");
    log("         Build a release from a clean checkout.");
  }
}

/** Writes the generated entry module (commit + bundle bytes) and returns its path. */
async function writeEntry(buildDir: string, commit: string, version: string): Promise<string> {
  const verified = await verifyBundle(BUNDLE_DIR);
  if (!verified.ok || verified.corpusSha256 !== STANDARD_V1_CORPUS_SHA256) {
    throw new Error(`Cannot compile: the fixture bundle does not verify; run "deno task fixtures verify"`);
  }
  const files = new Map<string, Uint8Array>();
  for (const entry of await readdir(BUNDLE_DIR, { withFileTypes: true })) {
    if (entry.isFile()) files.set(entry.name, new Uint8Array(await readFile(join(BUNDLE_DIR, entry.name))));
  }
  // The real-text corpus load and compare read by default: embedded, each file checked against its pin.
  const corpus: Record<string, string> = {};
  for (const file of corpusFiles()) {
    const text = await readFile(file.path, "utf8").catch(() => null);
    if (text === null || sha256Hex(text) !== file.sha256) {
      throw new Error(
        `Cannot compile: the real-text corpus file ${file.name} is missing or not its pinned bytes; run npm ci`,
      );
    }
    corpus[file.name] = text;
  }
  await mkdir(buildDir, { recursive: true });
  const entryPath = join(buildDir, "entry.ts");
  const mainModule = relative(buildDir, join(REPO_DIR, "release", "binary_main.ts")).replaceAll("\\", "/");
  const text =
    `// Generated by release/compile.ts: the entry of a compiled strata-bench. Not source; rebuilt each compile.
import { runBinary } from ${JSON.stringify(mainModule.startsWith(".") ? mainModule : `./${mainModule}`)};

await runBinary({
  commit: ${JSON.stringify(commit)},
  version: ${JSON.stringify(version)},
  bundleFilesBase64: ${JSON.stringify(encodeBundleFiles(files), null, 2).replaceAll("\n", "\n  ")},
  corpusFiles: ${JSON.stringify(corpus)},
});
`;
  await writeFile(entryPath, text);
  return entryPath;
}

function denortFor(target: ReleaseTarget, options: CompileOptions, host: ReleaseTarget | null): string | null {
  if (options.denortDir !== null) {
    return join(options.denortDir, `denort-${target.denoTriple}${target.exeSuffix}`);
  }
  if (options.denortBin !== null && (options.targets.deno.length === 1 || target === host)) return options.denortBin;
  return null;
}

async function isFile(path: string): Promise<boolean> {
  const facts = await statOutcome(path);
  return facts.ok && facts.value.isFile;
}

async function artifactOf(path: string): Promise<Artifact> {
  return {
    name: relative(dirname(path), path),
    path,
    sizeBytes: (await stat(path)).size,
    sha256: await sha256OfFile(path),
  };
}

/** Removes earlier release files from `outDir` so SHA256SUMS never lists a binary of another commit. */
async function clearOldArtifacts(outDir: string): Promise<void> {
  let names: string[] = [];
  try {
    names = await readdir(outDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith("strata-bench-") || name === "COMMIT" || name === "SHA256SUMS") {
      await rm(join(outDir, name), { force: true });
    }
  }
}

/** Builds every requested binary and writes COMMIT and SHA256SUMS. */
export async function compileRelease(options: CompileOptions): Promise<CompileReport> {
  const { log } = options;
  const commit = await sourceCommit();
  await warnIfDirty(log);
  const version = (JSON.parse(await readFile(join(REPO_DIR, "package.json"), "utf8")) as { version: string })
    .version;
  await mkdir(options.outDir, { recursive: true });
  await clearOldArtifacts(options.outDir);
  const buildDir = join(options.outDir, ".build");
  const entry = await writeEntry(buildDir, commit, version);
  const report: CompileReport = { commit, artifacts: [], skipped: [], failed: [] };
  const host = hostTarget(platform(), arch());

  // deno compile of the source would embed all of node_modules (the Deno and Bun runtimes included, 300 MB), so it
  // compiles one JavaScript bundle of the entry instead: the same modules, with the npm packages inlined.
  const bundle = join(buildDir, "strata-bench.mjs");
  if (options.targets.deno.length > 0) {
    const bundled = await runTool(options.bunPath, [
      "build",
      "--target=node",
      "--format=esm",
      "--outfile",
      bundle,
      entry,
    ], log);
    if (!bundled.ok || bundled.code !== 0) {
      throw new Error(
        `Cannot bundle the entry for deno compile: ${bundled.ok ? `exit ${bundled.code}` : bundled.reason}`,
      );
    }
  }

  for (const target of options.targets.deno) await compileDeno(target, { options, host, version, bundle, report });

  for (const target of options.targets.bun) {
    const output = join(options.outDir, `strata-bench-${version}-${target.name}-bun${target.exeSuffix}`);
    log(`bun build --compile ${target.name}`);
    const result = await runTool(options.bunPath, [
      "build",
      "--compile",
      `--target=${target.bunTarget}`,
      "--outfile",
      output,
      entry,
    ], log);
    if (result.ok && result.code === 0) report.artifacts.push(await artifactOf(output));
    else report.failed.push(`${target.name} (bun build): ${result.ok ? `exit ${result.code}` : result.reason}`);
  }

  await writeFile(join(options.outDir, "COMMIT"), `${commit}\n`);
  report.artifacts.push(await artifactOf(join(options.outDir, "COMMIT")));
  report.artifacts.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const sums = report.artifacts.map((a) => `${a.sha256}  ${a.name}\n`).join("");
  await writeFile(join(options.outDir, "SHA256SUMS"), sums);
  await rm(buildDir, { recursive: true, force: true });
  return report;
}

/** One deno compile of the bundle for `target` (over a local denort runtime base), into the report. */
async function compileDeno(
  target: CompileOptions["targets"]["deno"][number],
  { options, host, version, bundle, report }: {
    options: CompileOptions;
    host: ReturnType<typeof hostTarget>;
    version: string;
    bundle: string;
    report: CompileReport;
  },
): Promise<void> {
  const { log } = options;
  const output = join(options.outDir, `strata-bench-${version}-${target.name}${target.exeSuffix}`);
  const denort = denortFor(target, options, host);
  if (options.denoPath === null) {
    report.skipped.push(`${target.name} (deno compile): the deno executable's path is unknown`);
    return;
  }
  if (denort === null || !(await isFile(denort))) {
    const why = denort === null ? "DENORT_BIN / DENORT_DIR is not set for it" : `${denort} does not exist`;
    report.skipped.push(
      `${target.name} (deno compile): no denort runtime base (${why}); deno compile would download ` +
        `denort-${target.denoTriple}.zip from dl.deno.land, which this machine cannot reach`,
    );
    return;
  }
  log(`deno compile ${target.name} (denort ${denort})`);
  const runSet = permissionSetFrom(await readFile(join(REPO_DIR, "deno.json"), "utf8"), "run");
  const result = await runTool(
    options.denoPath,
    [
      "compile",
      "--no-check",
      // The bundle is self-contained: without a config deno compile embeds no node_modules folder.
      "--no-config",
      "--target",
      target.denoTriple,
      "--output",
      output,
      // One V8 flag set for every command: a compiled binary reads V8 flags only from what is baked here (not from
      // DENO_V8_FLAGS nor its arguments; a child it starts gets the same), so it cannot switch per command as the
      // tasks do. It carries load's and compare's set (runtime's LOAD_V8_FLAGS), which an open-loop schedule
      // needs (docs/commands.md).
      `--v8-flags=${LOAD_V8_FLAGS}`,
      ...permissionFlags(runSet),
      bundle,
    ],
    log,
    { DENORT_BIN: denort },
  );
  if (result.ok && result.code === 0) report.artifacts.push(await artifactOf(output));
  else report.failed.push(`${target.name} (deno compile): ${result.ok ? `exit ${result.code}` : result.reason}`);
}

function splitList(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
}

/** Entry point of the compile task. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        target: { type: "string", multiple: true },
        with: { type: "string", multiple: true },
        out: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (error) {
    writeStderr(`Cannot compile: ${(error as Error).message}\n${HELP}`);
    return EXIT.usage;
  }
  if (values.help) {
    writeStdout(HELP);
    return EXIT.ok;
  }
  const compilers = splitList(values.with ?? ["deno,bun"]);
  const unknown = compilers.filter((c) => c !== "deno" && c !== "bun");
  if (unknown.length > 0) {
    writeStderr(`Cannot compile: unknown compiler "${unknown[0]}"; use --with deno, bun or deno,bun\n`);
    return EXIT.usage;
  }
  const named = splitList(values.target ?? []);
  const host = hostTarget(platform(), arch());
  let deno: ReleaseTarget[], bun: ReleaseTarget[];
  try {
    deno = compilers.includes("deno") ? selectTargets(named.length > 0 ? named : ["all"], host) : [];
    bun = compilers.includes("bun") ? selectTargets(named.length > 0 ? named : ["host"], host) : [];
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const execPath = sys.execPath();
  const options: CompileOptions = {
    targets: { deno, bun },
    explicit: named.length > 0,
    outDir: resolve(values.out ?? join(REPO_DIR, "dist")),
    bunPath: join(REPO_DIR, "node_modules", ".bin", platform() === "win32" ? "bun.exe" : "bun"),
    denoPath: execPath.ok ? execPath.value : null,
    denortBin: env("DENORT_BIN") ?? null,
    denortDir: env("DENORT_DIR") ?? null,
    log: (line) => writeStderr(`${line}\n`),
  };
  let report: CompileReport;
  try {
    report = await compileRelease(options);
  } catch (error) {
    writeStderr(`${(error as Error).message}\n`);
    return EXIT.environment;
  }
  for (const line of report.skipped) writeStderr(`skipped ${line}\n`);
  for (const line of report.failed) writeStderr(`FAILED ${line}\n`);
  writeStdout(`commit ${report.commit}\n`);
  for (const a of report.artifacts) {
    writeStdout(`${a.sha256}  ${a.name}  (${(a.sizeBytes / 1e6).toFixed(1)} MB)\n`);
  }
  writeStdout(`SHA256SUMS written to ${join(options.outDir, "SHA256SUMS")}\n`);
  if (report.failed.length > 0) return EXIT.resultNotOk;
  if (report.skipped.length > 0 && options.explicit) return EXIT.environment;
  return EXIT.ok;
}

if (import.meta.main) exit(await main(args()));
