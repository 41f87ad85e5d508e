/** `probe`: prints the hardware, software, server and model-file facts the runner would record, as JSON. */
import { rewriteStderrLine, stderrIsTerminal, writeStderr, writeStdout } from "../runtime/mod.ts";
import { collectProvenance, defaultProbeDeps, type ModelHashProgress, toolkitDirFromModule } from "../probe/mod.ts";
import { machineSanitizer } from "../report/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { EXIT } from "./exit_codes.ts";

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
  --rehash           hash every model file again even when the hash cache has it
  --no-cache         neither read nor write the hash cache
                     (the cache: $XDG_CACHE_HOME/strata-bench/hashes.json, else ~/.cache/strata-bench/)
  -h, --help         this text

Permissions (Deno): --allow-run=nvidia-smi,rocm-smi,amd-smi,sysctl,sw_vers,lsblk --allow-read --allow-sys
--allow-env --allow-net=127.0.0.1 and --allow-write for the hash cache; each one refused only nulls its facts.

Exit codes:
  ${EXIT.ok}  the facts were printed
  ${EXIT.usage}  usage error (unknown flag, missing value)
  ${EXIT.environment}  --url was given but the server did not answer /props (the facts are still printed)
`;

function formatBytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

function progressRenderer(): (p: ModelHashProgress) => void {
  const terminal = stderrIsTerminal();
  let lastLineMs = -Infinity;
  return (p) => {
    const name = p.path.slice(Math.max(p.path.lastIndexOf("/"), p.path.lastIndexOf("\\")) + 1);
    // Several files hash at once: the line sums them (bytes, rate, ETA) and names the file that reported last.
    const all = p.overall;
    const rate = all.rateBytesPerS === null ? "" : ` ${formatBytes(all.rateBytesPerS)}/s`;
    const eta = all.etaS === null ? "" : ` ETA ${Math.ceil(all.etaS)} s`;
    const files = all.filesTotal > 1 ? `${all.filesDone}/${all.filesTotal} files done, ` : "";
    const line = `hashing ${p.fileIndex + 1}/${p.fileCount} ${name} (${files}${formatBytes(all.bytesDone)}/${
      formatBytes(all.bytesTotal)
    }${rate}${eta})`;
    const finished = p.done && all.filesDone === all.filesTotal;
    if (terminal) rewriteStderrLine(line, finished);
    else if (p.done || performance.now() - lastLineMs > 5000) {
      lastLineMs = performance.now();
      writeStderr(`${line}\n`);
    }
  };
}

/** Entry point of `probe`. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseFlags("run probe", argv, {
      url: { type: "string" },
      model: { type: "string", multiple: true },
      "pack-dir": { type: "string" },
      rehash: { type: "boolean" },
      "no-cache": { type: "boolean" },
    }));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeStderr(`${error.message}. Run with --help to list the options.\n`);
    return EXIT.usage;
  }
  if (values.url !== undefined && !URL.canParse(values.url)) {
    writeStderr(`Cannot run probe: --url "${values.url}" is not a URL (e.g. http://127.0.0.1:8080)\n`);
    return EXIT.usage;
  }
  const deps = defaultProbeDeps();
  const executable = deps.execPath();
  const facts = await collectProvenance({
    deps,
    baseUrl: values.url ?? null,
    engineArgs: null,
    extraModelFiles: values.model ?? [],
    packDir: values["pack-dir"] ?? null,
    ...(values["no-cache"] ? { cacheDir: null } : {}),
    rehash: values.rehash ?? false,
    toolkitDir: toolkitDirFromModule(),
    executableDir: executable.ok ? executable.value.replace(/[\\/][^\\/]*$/, "") : null,
    onHashProgress: progressRenderer(),
  });
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
  return values.url !== undefined && !server?.props ? EXIT.environment : EXIT.ok;
}
