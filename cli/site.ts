/** `site build | serve | verify`: the approved-results website. */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import {
  invocationFolder,
  onTerminationSignal,
  readFile,
  refusedPermissionFlag,
  serveHttp,
  writeStderr,
  writeStdout,
} from "../runtime/mod.ts";
import { isLoopbackHost } from "../client/mod.ts";
import {
  buildSite,
  type BundleRead,
  type CheckOutcome,
  folderReader,
  GitRepo,
  gitRunner,
  type KnownProtocol,
  knownProtocols,
  MANIFEST_PATH,
  openSiteOutput,
  outputFiles,
  readWebFile,
  type Reviewer,
  siteRequestHandler,
  verifyFolder,
} from "../site/mod.ts";
import { loadBundle } from "../fixtures/mod.ts";
import { reviewFolder } from "../review/mod.ts";
import { endWith, EXIT, failureText } from "./exit_codes.ts";
import { UsageError } from "./_args.ts";
import { helpFooter } from "./_help.ts";

export const HELP = `Usage: strata-bench site build [--repo DIR] [--out DIR] [--branch NAME] [--protocols FILE]
       strata-bench site serve [DIR] [--port N] [--host HOST]
       strata-bench site verify DIR [--sha256 HEX] [--protocols FILE]

build   reads ${MANIFEST_PATH} on the default branch of the results repository, and for each entry the
        results.json and its artifacts at the entry's evidence_commit (from git's object store), and writes a
        static site into --out (default site-dist): index.html, one page per entry under r/, the browser code,
        and every evidence file once under evidence/sha256/<its SHA-256>. It works from any static host.
        Before a page shows a result, the reader's browser checks the SHA-256 of results.json against the
        manifest and of every artifact against results.json, and recomputes the sanity verdicts, quality,
        request counts, rates and per-case statistics from the evidence; a difference shows "verification
        failed" with its reason and no numbers. The build runs the review of "approved verify" on every entry
        (report's strict validator with the measured digest and the folder's files, the site's check, the status
        rules): an entry it refuses is published without its evidence, shown unverifiable with the refusal, and
        the build fails (exit 1) naming the entry, the judge and the reason. Entries that cannot be read are
        named here and shown as unverifiable. --out must be new, empty, or an earlier site build.
serve   serves a built site (default site-dist) on loopback (default 127.0.0.1:8000) until Ctrl-C.
verify  runs the same check on one result folder, e.g. a pull request's, before approval; --sha256 also
        compares results.json with a reviewed hash.

Protocols: the site knows the draft protocol strata-qwen38-thinking-v1-draft.1, whose results it keeps outside
the standard list. --protocols FILE declares further ids (for example the activated id, once the pilot froze it
with the draft's workload): {"format":"strata-site-protocols","schema_version":1,"protocols":[{"id":"...",
"stage":"activated","definition_of":"strata-qwen38-thinking-v1-draft.1"}]}.

Options:
  --repo DIR       the results repository (default: the current folder)
  --out DIR        where build writes the site (default: site-dist)
  --branch NAME    the default branch (default: origin/HEAD, else main, else master)
  --port N, --host HOST   where serve listens (default 8000 on 127.0.0.1; loopback only)

${
  helpFooter([
    "strata-bench site build --repo .",
    "strata-bench site serve site-dist --port 8000",
    "strata-bench site verify bench/results/run-a",
  ])
}
Exit codes:
  ${EXIT.ok}  built with every entry readable / served until stopped / verified
  ${EXIT.resultNotOk}  built, but the review refused some entries, or they are unverifiable or contradict their review /
     verification failed
  ${EXIT.usage}  usage error
  ${EXIT.environment}  git missing, not a repository, no manifest on the branch, unreadable folder, or an --out folder
     holding other files
`;

/** A path the person typed, resolved against the folder they ran the command from (deno task's INIT_CWD). */
function typed(path: string): string {
  return resolve(invocationFolder(), path);
}

/** The protocols a command knows, with those --protocols FILE declares, and that file's bytes (null without one). */
export async function protocolsFrom(path: unknown) {
  const bytes = typeof path === "string" ? await readFile(typed(path)) : null;
  return { bytes, protocols: knownProtocols(bytes) };
}

/**
 * The review conductor (review/) that `approved add`, `approved verify` and `site build` run on every entry:
 * report's validator, the site's check, the status rules and the redaction check, all on one folder.
 */
export function reviewer(protocols: readonly KnownProtocol[]): Reviewer {
  return async (folder) => reviewFolder(folder, protocols, await loadedBundle());
}

/** The bundle this build ships, loaded (so verified) once per process for every judge that reads it. */
let bundle: ReturnType<typeof loadBundle> | null = null;
function loadedBundle(): ReturnType<typeof loadBundle> {
  return bundle ??= loadBundle();
}

/**
 * The frozen bundle's files for the site's check (`site verify`, `approved add`): read from the bundle this build
 * ships, loaded (so verified) once; the check hashes the manifest against the protocol's corpus as the browser does.
 */
export function bundleReader(): BundleRead {
  return async (_corpus, file) => (await loadedBundle()).readFile(file);
}

/** The frozen bundle's files by name, for the site build to copy (the bundle loaded, so verified, once). */
export function bundleFiles(): (name: string) => Promise<Uint8Array | null> {
  const read = bundleReader();
  return (name) => read("", name);
}

/** Seconds between two progress lines on stderr. */
const PROGRESS_EVERY_S = 2;

/**
 * A progress callback that prints "<what> N of M entries (S s)" on stderr, at most every PROGRESS_EVERY_S seconds
 * and at the end when it took longer than that, so a large manifest shows that it moves.
 */
export function progressLine(what: string): (done: number, total: number) => void {
  const started = performance.now();
  let last = started;
  return (done, total) => {
    const now = performance.now();
    if (now - last < PROGRESS_EVERY_S * 1000 && !(done === total && now - started >= PROGRESS_EVERY_S * 1000)) return;
    last = now;
    writeStderr(`${what} ${done} of ${total} entries (${((now - started) / 1000).toFixed(0)} s)\n`);
  };
}

async function build(values: Record<string, unknown>): Promise<number> {
  const repoDir = typed(typeof values.repo === "string" ? values.repo : ".");
  const outDir = typed(typeof values.out === "string" ? values.out : "site-dist");
  const { bytes, protocols } = await protocolsFrom(values.protocols);
  const repo = new GitRepo(gitRunner(repoDir));
  await repo.assertRepository();
  const out = await openSiteOutput(outputFiles, outDir);
  const report = await buildSite(repo, out, {
    protocols,
    protocolDeclarations: bytes,
    readWebFile,
    readBundleFile: bundleFiles(),
    review: reviewer(protocols),
    onProgress: progressLine("site build: reviewed"),
    ...(typeof values.branch === "string" ? { branch: values.branch } : {}),
  });
  await out.finish(report.files);
  writeStdout(
    `site: ${report.entries.length} entries from ${MANIFEST_PATH} on ${report.branch.name} ${report.branch.commit}\n`,
  );
  if (report.manifestProblem !== null) {
    writeStdout(`  the manifest cannot be read: ${report.manifestProblem}\n`);
  }
  let flagged = 0;
  for (const entry of report.entries) {
    const state = entry.refusals.length > 0
      ? "refused"
      : entry.problems.length > 0
      ? "unverifiable"
      : entry.contradictions.length > 0
      ? "will fail"
      : "ok";
    if (state !== "ok") flagged++;
    writeStdout(`  ${state.padEnd(12)} ${entry.label}  r/${entry.slug}/\n`);
    for (const line of [...entry.refusals, ...entry.problems, ...entry.contradictions]) {
      writeStdout(`               ${line}\n`);
    }
  }
  const mib = (report.evidenceBytes / 1048576).toFixed(1);
  const packs = (report.packBytes / 1048576).toFixed(1);
  writeStdout(
    `wrote ${report.files.length} files (${mib} MiB of evidence, ${packs} MiB of shared packs, gzip) to ${outDir}\n`,
  );
  return flagged === 0 && report.manifestProblem === null ? EXIT.ok : EXIT.resultNotOk;
}

async function serve(values: Record<string, unknown>, positionals: string[]): Promise<number> {
  if (positionals.length > 1) throw new UsageError(`site serve takes one folder, got ${positionals.length}`);
  const dir = typed(positionals[0] ?? "site-dist");
  const host = typeof values.host === "string" ? values.host : "127.0.0.1";
  if (!isLoopbackHost(host)) throw new UsageError(`host "${host}" is not loopback; use 127.0.0.1 or ::1`);
  const portText = typeof values.port === "string" ? values.port : "8000";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`--port must be 0-65535, got "${portText}"`);
  const hostname = /^\[.*\]$/.test(host) ? host.slice(1, -1) : host;
  return await serveFolder(dir, hostname, port);
}

/**
 * Serves the built site in `dir` on loopback `hostname`:`port` until Ctrl-C (also for `demo --site`); prints
 * its URL on stdout. Returns the exit code.
 */
export async function serveFolder(dir: string, hostname: string, port: number): Promise<number> {
  const read = folderReader(dir);
  if (await read("index.html") === null) {
    writeStderr(`Cannot serve "${dir}": it has no index.html; run "site build" first\n`);
    return EXIT.environment;
  }
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  let server: Awaited<ReturnType<typeof serveHttp>>;
  try {
    server = await serveHttp({ hostname, port, onRequest: siteRequestHandler(read) });
  } catch (error) {
    if (refusedPermissionFlag(error) !== null) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    const why = code === "EADDRINUSE"
      ? "the port is in use (another server, or an earlier site serve still running)"
      : code === "EADDRNOTAVAIL"
      ? "this machine has no such loopback address"
      : null;
    return endWith(
      error,
      (message) =>
        `Cannot serve on ${shown}:${port}: ${why ?? message}; pass --port N with a free port, or --port 0 for any`,
      { otherwise: EXIT.environment },
    );
  }
  writeStdout(`http://${shown}:${server.port}/\n`);
  writeStderr("serving the site; stop with Ctrl-C\n");
  await new Promise<void>((resolve) => {
    const stop = onTerminationSignal(() => {
      stop();
      resolve();
    });
  });
  await server.close();
  return EXIT.ok;
}

function fixed(value: number | null | undefined, digits: number): string {
  return value === null || value === undefined ? "not measured" : value.toFixed(digits);
}

/** The lines `site verify` prints for an outcome. */
export function verifyText(dir: string, outcome: CheckOutcome): string {
  const lines = [`site verify ${dir}: the site's independent check (no code shared with the runner)`];
  for (const check of outcome.checks) lines.push(`  ok  ${check}`);
  if (outcome.state !== "verified" || outcome.facts === null) {
    lines.push(`verification ${outcome.state === "failed" ? "failed" : "impossible: unverifiable"}:`);
    for (const reason of outcome.reasons) lines.push(`  - ${reason}`);
    return `${lines.join("\n")}\n`;
  }
  const f = outcome.facts;
  lines.push(
    `run ${f.runId}: ${f.status}${f.simulated ? " (simulated engine)" : ""}, protocol ${f.protocolId} (${f.stage})`,
  );
  lines.push(
    `sanity ${f.quality.passed}/12 (instruction ${f.quality.categories.instruction?.passed}/4, retrieval ${f.quality.categories.retrieval?.passed}/4, tool_call ${f.quality.categories.tool_call?.passed}/4)`,
  );
  for (const row of f.cases) {
    const m = row.metrics;
    lines.push(
      `  ${row.caseId.padEnd(11)} c=${row.concurrency}  prompt ${fixed(m.prompt_tps?.median, 1)} tok/s  decode ${
        fixed(m.decode_tps?.median, 1)
      } tok/s  ttft ${fixed(m.ttft_s?.median, 3)} s  (n=${m.decode_tps?.n ?? 0}, capped ${row.capped}/${row.requests})`,
    );
  }
  const drawings = f.artifacts.filter((a) => a.path.endsWith(".svg")).map((a) => a.path);
  if (drawings.length > 0) {
    lines.push(
      `not recomputed: ${drawings.join(", ")} are the runner's drawings (their bytes match their hashes; ` +
        '"report DIR" draws them again from results.json and compares)',
    );
  }
  lines.push("verified: every recomputed value equals results.json");
  return `${lines.join("\n")}\n`;
}

async function verify(values: Record<string, unknown>, positionals: string[]): Promise<number> {
  if (positionals.length !== 1) throw new UsageError(`site verify needs one result folder, got ${positionals.length}`);
  const shown = positionals[0] as string;
  const dir = typed(shown);
  const sha = values.sha256;
  if (sha !== undefined && (typeof sha !== "string" || !/^[0-9a-f]{64}$/.test(sha))) {
    throw new UsageError("--sha256 needs a lowercase 64-digit SHA-256");
  }
  const { protocols } = await protocolsFrom(values.protocols);
  const read = folderReader(dir);
  if (await read("results.json") === null) {
    writeStderr(`Cannot verify "${shown}": no results.json there (a regular file inside the folder)\n`);
    return EXIT.environment;
  }
  const readBundle = bundleReader();
  const outcome = await verifyFolder(read, {
    protocols,
    readBundle,
    ...(typeof sha === "string" ? { expectedSha256: sha } : {}),
  });
  writeStdout(verifyText(shown, outcome));
  return outcome.state === "verified" ? EXIT.ok : EXIT.resultNotOk;
}

/** Parses `site build|serve|verify ...`. @throws {UsageError} or node:util's TypeError with a code. */
export function parseCommandLine(argv: readonly string[]) {
  const [sub, ...rest] = argv;
  if (sub !== "build" && sub !== "serve" && sub !== "verify") {
    throw new UsageError(`expected "build", "serve" or "verify", got ${JSON.stringify(sub ?? "")}`);
  }
  const options = {
    build: {
      repo: { type: "string" },
      out: { type: "string" },
      branch: { type: "string" },
      protocols: { type: "string" },
    },
    serve: { port: { type: "string" }, host: { type: "string" } },
    verify: { sha256: { type: "string" }, protocols: { type: "string" } },
  } as const;
  const { values, positionals } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: sub !== "build",
    options: options[sub],
  });
  return { sub, values, positionals };
}

/** Entry point of `site`. */
export async function main(argv: string[]): Promise<number> {
  try {
    const { sub, values, positionals } = parseCommandLine(argv);
    if (sub === "build") return await build(values as Parameters<typeof build>[0]);
    if (sub === "serve") return await serve(values as Parameters<typeof serve>[0], positionals);
    return await verify(values as Parameters<typeof verify>[0], positionals);
  } catch (error) {
    return endWith(error, () => failureText("site", argv[0], error).trimEnd());
  }
}
