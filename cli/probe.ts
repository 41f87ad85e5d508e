/** `probe`: prints the hardware, software, server and model-file facts the runner would record, as JSON. */
import { writeStderr, writeStdout } from "../runtime/mod.ts";
import { collectProvenance, defaultProbeDeps, type ModelHashProgress, toolkitDirFromModule } from "../probe/mod.ts";
import { machineSanitizer } from "../sanitize/mod.ts";
import { parseFlags, refuseInert } from "./_args.ts";
import { helpFooter } from "./_help.ts";
import { errorLine, formatBytes, openProgress, progressMode } from "./_progress.ts";
import { hashStatus } from "./_run_progress.ts";
import { endWith, EXIT } from "./exit_codes.ts";
import { templateCheckLines } from "./_template_table.ts";

export const HELP = `Usage: strata-bench probe [--url URL] [options]

Prints what the runner would record about this machine, the server and the model files, as one JSON object on
stdout: hardware (GPUs, CPU, RAM, storage), software (OS, drivers, runtimes, commits), model files with SHA-256,
configuration facts, and "missing": a JSON Pointer for every null with the reason. Facts that cannot be read
(a tool not installed, a permission refused) are null with a reason; the probe does not stop for them.
Home folders, user and host names, private addresses and secrets are replaced in the output.

Options:
  --url URL          also ask this server: /props, /v1/status, /slots, /metrics (and hash its model_path files)
  --model FILE       a model file to hash (repeatable; every shard of a split GGUF is included)
  --pack-dir DIR     name model files relative to DIR instead of by their base names
  --template         with --url: only the template check: every request of the frozen bundle rendered and
                     counted by the server (POST /apply-template, /tokenize), side by side with the frozen
                     counts and shared prefixes (exit ${EXIT.resultNotOk} on a mismatch)
  --rehash           hash every model file again even when the hash cache has it
  --no-cache         neither read nor write the hash cache
                     (the cache: $XDG_CACHE_HOME/strata-bench/hashes.json, else ~/.cache/strata-bench/)
  (defaults: no server, no extra model file, base names, the hash cache read and written)

Progress: the model hashing on stderr (file i/n, bytes, rate, ETA), in place on a terminal, else a line every 5 s.

${
  helpFooter([
    "strata-bench probe",
    "strata-bench probe --url http://127.0.0.1:8080",
    "strata-bench probe --model model.gguf --rehash --quiet",
  ], true)
}
Permissions (Deno): --allow-run=nvidia-smi,rocm-smi,amd-smi,sysctl,sw_vers,lsblk,lsof,ps,ss --allow-read --allow-sys
--allow-env --allow-net=127.0.0.1 and --allow-write for the hash cache; each one refused only nulls its facts.

Exit codes:
  ${EXIT.ok}  the facts were printed
  ${EXIT.usage}  usage error (unknown flag, missing value)
  ${EXIT.environment}  --url was given but the server did not answer /props (the facts are still printed, the reason
     is on stderr)
`;

/** The hashing progress: the status line (bytes, rate, ETA) on the display's timer, a line as each file is done. */
function hashProgress(quiet: boolean) {
  const progress = openProgress(progressMode(quiet), { heartbeatS: 5 });
  let latest: ModelHashProgress | null = null;
  progress.status(() => (latest === null ? null : hashStatus(latest)));
  return {
    onHashProgress(p: ModelHashProgress) {
      latest = p;
      if (p.done) {
        progress.line(`hashed ${p.fileIndex + 1}/${p.fileCount} (${formatBytes(p.bytesTotal)})`);
        if (p.overall.filesDone === p.overall.filesTotal) latest = null;
      }
      progress.refresh();
    },
    finish: () => progress.stop(),
  };
}

/** Parses the probe's command line. @throws {UsageError}, also for a flag with no effect in the combination. */
export function parseCommandLine(argv: readonly string[]) {
  const { values } = parseFlags("run probe", argv, {
    url: { type: "string" },
    model: { type: "string", multiple: true },
    "pack-dir": { type: "string" },
    template: { type: "boolean" },
    rehash: { type: "boolean" },
    "no-cache": { type: "boolean" },
    quiet: { type: "boolean" },
  });
  refuseInert("run probe", [
    ["--template", values.template === true, values.url === undefined ? "without --url (no server to ask)" : null],
    ["--rehash", values.rehash === true, values["no-cache"] === true ? "with --no-cache (nothing is cached)" : null],
    [
      "--pack-dir",
      values["pack-dir"] !== undefined,
      values.url === undefined && values.model === undefined
        ? "without --url or --model (no model file to name)"
        : null,
    ],
  ]);
  return values;
}

/** Entry point of `probe`. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseCommandLine(argv);
  } catch (error) {
    return endWith(error, (message) => `${message}. Run with --help to list the options.`);
  }
  if (values.url !== undefined && !URL.canParse(values.url)) {
    writeStderr(`Cannot run probe: --url "${values.url}" is not a URL (e.g. http://127.0.0.1:8080)\n`);
    return EXIT.usage;
  }
  const deps = defaultProbeDeps();
  if (values.template === true && values.url !== undefined) return await templateOnly(values.url, deps.fetch);
  const executable = deps.execPath();
  const hashing = hashProgress(values.quiet === true);
  const facts = await collectProvenance({
    deps,
    baseUrl: values.url ?? null,
    engineArgs: null,
    observeEngineAt: values.url ?? null,
    extraModelFiles: values.model ?? [],
    packDir: values["pack-dir"] ?? null,
    ...(values["no-cache"] ? { cacheDir: null } : {}),
    rehash: values.rehash ?? false,
    toolkitDir: toolkitDirFromModule(),
    executableDir: executable.ok ? executable.value.replace(/[\\/][^\\/]*$/, "") : null,
    onHashProgress: (p) => hashing.onHashProgress(p),
  });
  hashing.finish();
  const server = facts.server;
  const report = {
    hardware: facts.hardware,
    software: facts.software,
    model: facts.model,
    configuration: facts.configuration,
    server: server && {
      url: server.baseUrl,
      dialect: server.dialect,
      dialect_evidence: server.dialectEvidence,
      model_alias: server.modelAlias,
      prior_requests: {
        served: server.priorRequests.served,
        at_least: server.priorRequests.atLeast,
        freshly_loaded: server.priorRequests.freshlyLoaded,
        evidence: server.priorRequests.evidence,
        reason: server.priorRequests.reason,
      },
      default_generation_params: server.defaultGenerationParams,
      endpoint_problems: server.endpointProblems,
    },
    model_file_hashing: {
      files: facts.modelFiles.details.map((d) => ({ path: d.path, size_bytes: d.sizeBytes, from_cache: d.fromCache })),
      hashed_bytes: facts.modelFiles.hashedBytes,
      hash_seconds: Number(facts.modelFiles.hashSeconds.toFixed(3)),
      cache_problem: facts.modelFiles.cacheProblem,
    },
    kernel: facts.kernel,
    gpu_selection: facts.deviceSelection,
    missing: facts.missing,
    nonconforming_reasons: facts.nonconformingReasons,
  };
  const sanitizer = machineSanitizer();
  writeStdout(`${JSON.stringify(sanitizer.json(report), null, 2)}\n`);
  if (values.url !== undefined && !server?.props) {
    const problems = server?.endpointProblems ?? {};
    const why = problems["/props"] ?? Object.values(problems)[0];
    writeStderr(
      `probe: the server at ${values.url} did not answer /props${
        why === undefined ? "" : ` (${errorLine(sanitizer.text(why))})`
      }: its facts are missing from the output above; check --url\n`,
    );
    return EXIT.environment;
  }
  return EXIT.ok;
}

/** `probe --template`: the run's template check alone, as a table on stdout. */
async function templateOnly(url: string, fetchFn: typeof fetch): Promise<number> {
  const { loadBundle } = await import("../fixtures/mod.ts");
  const { buildChatBody, compareTemplateProbe, planRun } = await import("../runner/mod.ts");
  const { probeServer, renderAndCount } = await import("../probe/mod.ts");
  const { fixtures } = await loadBundle();
  const server = await probeServer(url, { fetch: fetchFn });
  const planned = planRun(fixtures, { optionalConcurrency: true }).fixtures;
  const requests = planned.map((f) => ({ id: f.id, body: buildChatBody(f, server.dialect).body }));
  const check = compareTemplateProbe(
    planned,
    await renderAndCount(url, requests, { fetch: fetchFn, timeoutMs: 30_000 }),
  );
  writeStdout(`${templateCheckLines(check).join("\n")}\n`);
  return check.mismatches > 0 ? EXIT.resultNotOk : EXIT.ok;
}
