/**
 * One call that gathers the hardware, software, model and configuration facts of a run, with every null
 * explained in `missing` (absolute JSON Pointers) and every identity gap listed in `nonconformingReasons`.
 */
import type {
  EngineCommandLine,
  Hardware,
  Model,
  ModelFileFacts,
  ProbedConfiguration,
  Software,
} from "../contract/mod.ts";
import { toolkitCacheDir } from "../runtime/mod.ts";
import type { MissingMap, ProbeDeps } from "./_deps.ts";
import { buildConfigurationObjects, type EngineArgsReading, forbiddenServerSettings } from "./configuration.ts";
import { readRunnerCommit } from "./commit.ts";
import { declaredEngineArgs, type EngineCommandLineReading, observeEngineCommandLine } from "./engine_command_line.ts";
import { resolveEngineCommit, shortEngineCommit } from "./engine_source.ts";
import { readModelFileFacts } from "./model_file_facts.ts";
import { machineToken } from "./machine_token.ts";
import { type DeviceSelection, probeHardware } from "./hardware.ts";
import { expandShards, findAndHashModelFiles, type ModelFilesResult, type ModelHashProgress } from "./model_files.ts";
import { probeServer, type ServerFacts } from "./server.ts";

/** What the operator states because no probe can read it (the run's provenance flags). */
export interface OperatorFacts {
  /** Full engine commit (--engine-commit) when the server's build info carries only a short one. */
  engineCommit?: string;
  /** A local llama.cpp checkout (--engine-source) that resolves the server's short commit to the full one. */
  engineSource?: string;
  buildOptions?: readonly string[];
  modelId?: string;
  modelRevision?: string;
  sourceRevision?: string;
  quantization?: string;
  tokenizerRevision?: string;
  customPack?: string;
}

/** Options of collectProvenance. */
export interface CollectProvenanceOptions {
  deps: ProbeDeps;
  /** The server to probe (loopback URL); ignored when `server` is given; neither means no server facts. */
  baseUrl?: string | null;
  /** Server facts probed earlier (probeServer), to avoid asking twice. */
  server?: ServerFacts | null;
  /** The engine argv without the program name, when the runner starts the engine from a profile. */
  engineArgs?: readonly string[] | null;
  /**
   * Without `engineArgs`: read the command line of the process listening on this loopback URL's port (a server
   * the runner did not start), else use `declaredEngineArgs`.
   */
  observeEngineAt?: string | null;
  /** The operator's --engine-args command line, used where the process cannot be observed. */
  declaredEngineArgs?: string | null;
  /** More model files to hash besides the server's model_path and the engine arguments' -m files. */
  extraModelFiles?: readonly string[];
  /** Folder model files are named relative to (else base names). */
  packDir?: string | null;
  /** Hash cache folder; undefined uses the default ($XDG_CACHE_HOME/strata-bench), null disables it. */
  cacheDir?: string | null;
  rehash?: boolean;
  /** The toolkit's root (holds .git in a checkout). */
  toolkitDir: string | null;
  /** Folder of the running executable, where a release keeps its COMMIT file. */
  executableDir?: string | null;
  backgroundWorkloads?: readonly string[];
  /** Variables a profile gives the engine on top of the runner's environment (for the GPU selection). */
  engineEnv?: Readonly<Record<string, string>>;
  operator?: OperatorFacts;
  /** Result-folder path of the attached chat template artifact (default "provenance/chat_template.jinja"). */
  templateArtifactPath?: string;
  onHashProgress?: (progress: ModelHashProgress) => void;
  /** Aborting (Ctrl-C) stops the model hashing within one chunk; the files keep null hashes with the reason. */
  signal?: AbortSignal;
}

/** The four contract sections plus the evidence behind them. */
export interface Provenance {
  hardware: Hardware;
  software: Software;
  model: Model;
  configuration: ProbedConfiguration;
  /** Where the configuration objects' command line came from (/extensions/engine_command_line); null: none. */
  engineCommandLine: EngineCommandLine | null;
  /** What the model file's header says (/extensions/model_file_facts); null with a reason when it was not read. */
  modelFileFacts: ModelFileFacts | null;
  /** Template text to attach as the provenance artifact at configuration.template.path (null when unknown). */
  templateText: string | null;
  server: ServerFacts | null;
  modelFiles: ModelFilesResult;
  /** Kernel release, for `extensions`. */
  kernel: string | null;
  /** The anonymous token of this machine (/extensions/machine_token); null with a reason where none was read. */
  machineToken: string | null;
  /** Which GPUs the engine may use (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES), for `extensions`. */
  deviceSelection: DeviceSelection;
  /** Known engine options that fit no configuration object. */
  otherEngineOptions: Record<string, unknown> | null;
  /** Absolute JSON Pointer -> why the value is null, for every null in the four sections. */
  missing: MissingMap;
  /** Why the run cannot be conforming on identity grounds (no commit, model files, template). */
  nonconformingReasons: string[];
}

const FULL_COMMIT = /^[0-9a-f]{40}$/;

/**
 * Gathers the hardware, software, model and configuration sections. Never throws for an unavailable fact;
 * throws RangeError only for an operator engine commit that is not a full 40-hex id.
 * @throws {RangeError} when `operator.engineCommit` is not a full commit id.
 */
export async function collectProvenance(options: CollectProvenanceOptions): Promise<Provenance> {
  const { deps } = options;
  const operator = options.operator ?? {};
  if (operator.engineCommit !== undefined && !FULL_COMMIT.test(operator.engineCommit.toLowerCase())) {
    throw new RangeError(
      `Cannot use engine commit "${operator.engineCommit}": a full 40-character hexadecimal commit is required`,
    );
  }
  const server = options.server ??
    (options.baseUrl ? await probeServer(options.baseUrl, { fetch: deps.fetch }) : null);
  const gaps: Gaps = { server, missing: {}, nonconformingReasons: [] };
  const hardwareFacts = await probeHardware(deps, {
    backgroundWorkloads: options.backgroundWorkloads ?? [],
    ...(options.engineEnv === undefined ? {} : { engineEnv: options.engineEnv }),
  });
  Object.assign(gaps.missing, hardwareFacts.missing);
  const machine = await machineToken(deps);
  if (machine.token === null) gaps.missing["/extensions/machine_token"] = machine.reason;

  const commandLine = await engineCommandLineOf(options);
  const config = buildConfigurationObjects(
    commandLine.ok ? commandLine.argv : null,
    commandLine.ok ? "" : commandLine.reason,
  );
  Object.assign(gaps.missing, config.missing);
  const reading = config.reading;
  gaps.nonconformingReasons.push(...forbiddenServerSettings(reading?.otherOptions ?? {}));

  const modelFiles = await hashModelFiles(options, reading?.modelFiles ?? [], gaps);
  const commit = await readRunnerCommit({
    toolkitDir: options.toolkitDir,
    executableDir: options.executableDir ?? null,
  }, deps);
  Object.assign(gaps.missing, commit.missing);
  if (!commit.runnerCommit) {
    gaps.nonconformingReasons.push(`runner commit unknown: ${commit.missing["/software/runner_commit"]}`);
  }
  const fileFacts = await modelFileFacts(options, modelFiles, gaps);
  const engine = await engineSoftware(operator, deps, gaps);
  const software: Software = {
    os: hardwareFacts.os,
    drivers: hardwareFacts.drivers,
    runtime: hardwareFacts.runtime,
    strata_commit: engine.commit,
    engine_version: engine.version,
    build_kind: commit.buildKind,
    runner_commit: commit.runnerCommit,
    build_options: engine.buildOptions,
  };
  const { template, ...sizes } = serverConfiguration(reading, options.templateArtifactPath, gaps);
  const configuration: ProbedConfiguration = { ...sizes, ...config.objects, template };
  return {
    hardware: hardwareFacts.hardware,
    software,
    model: modelSection(operator, modelFiles.files, gaps.missing),
    configuration,
    engineCommandLine: commandLine.ok ? { provenance: commandLine.provenance, source: commandLine.source } : null,
    modelFileFacts: fileFacts,
    templateText: server?.chatTemplate?.text ?? null,
    server,
    modelFiles,
    kernel: hardwareFacts.kernel,
    machineToken: machine.token,
    deviceSelection: hardwareFacts.deviceSelection,
    otherEngineOptions: reading?.otherOptions ?? null,
    missing: gaps.missing,
    nonconformingReasons: gaps.nonconformingReasons,
  };
}

/** The server probed (or null), and where each stage writes why a value is null and why the run cannot conform. */
interface Gaps {
  server: ServerFacts | null;
  missing: MissingMap;
  nonconformingReasons: string[];
}

const NO_SERVER = "no server was probed";

/** Why `pointer` is null (`first`, else the server's reason, else `otherwise`); with a `cause`, why not conforming. */
function explain(gaps: Gaps, pointer: string, otherwise: string, cause?: string, first: string | null = null): void {
  const reason = first ?? gaps.server?.missing[pointer] ?? otherwise;
  gaps.missing[pointer] = reason;
  if (cause !== undefined) gaps.nonconformingReasons.push(`${cause}: ${reason}`);
}

/** Hashes the server's model file, the engine arguments' -m files and the extra ones (cache folder by default). */
async function hashModelFiles(options: CollectProvenanceOptions, engineArgFiles: readonly string[], gaps: Gaps) {
  const dir = options.cacheDir === undefined
    ? toolkitCacheDir(options.deps)
    : { ok: true as const, value: options.cacheDir };
  const modelFiles = await findAndHashModelFiles({
    modelPath: gaps.server?.modelPath ?? null,
    engineArgFiles: [...engineArgFiles, ...(options.extraModelFiles ?? [])],
    packDir: options.packDir ?? null,
    cacheDir: dir.ok ? dir.value : null,
    rehash: options.rehash ?? false,
    ...(options.onHashProgress ? { onProgress: options.onHashProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  }, options.deps);
  Object.assign(gaps.missing, modelFiles.missing);
  gaps.nonconformingReasons.push(...modelFiles.nonconformingReasons);
  return modelFiles;
}

/** What the first model file (all its shards) says of itself, or null with the reason. */
async function modelFileFacts(
  options: CollectProvenanceOptions,
  modelFiles: ModelFilesResult,
  { server, missing }: Gaps,
) {
  const firstModel = modelFiles.details[0]?.absolutePath;
  const fileFacts = await readModelFileFacts({
    paths: firstModel === undefined ? [] : expandShards(firstModel),
    packDir: options.packDir ?? null,
    declaredQuantization: options.operator?.quantization ?? null,
    declaredModelId: options.operator?.modelId ?? null,
    effectiveTemplateSha256: server?.chatTemplate?.sha256 ?? null,
  }, options.deps);
  const at = "/extensions/model_file_facts";
  if (fileFacts.facts === null) missing[at] = fileFacts.reason ?? "the model file was not read";
  for (const [pointer, reason] of Object.entries(fileFacts.missing)) missing[`${at}${pointer}`] = reason;
  return fileFacts.facts;
}

/** The engine's commit (operator's, server's, or its short one resolved), version and build options, or why not. */
async function engineSoftware(operator: OperatorFacts, deps: ProbeDeps, gaps: Gaps) {
  const { server } = gaps;
  let commit = operator.engineCommit?.toLowerCase() ?? server?.engineCommit ?? null;
  let sourceProblem: string | null = null;
  if (!commit && operator.engineSource !== undefined) {
    const short = shortEngineCommit(server?.engineVersion ?? null);
    const resolved = short === null
      ? { ok: false as const, reason: "the server reports no short commit to resolve" }
      : await resolveEngineCommit(operator.engineSource, short, deps);
    if (resolved.ok) commit = resolved.value;
    else sourceProblem = `--engine-source: ${resolved.reason}`;
  }
  if (!commit) {
    const otherwise = `${NO_SERVER}; pass the engine commit explicitly`;
    explain(gaps, "/software/strata_commit", otherwise, "engine commit unknown", sourceProblem);
  }
  const version = server?.engineVersion ?? null;
  if (!version) explain(gaps, "/software/engine_version", NO_SERVER);
  const buildOptions = operator.buildOptions ? [...operator.buildOptions] : null;
  if (!buildOptions) {
    gaps.missing["/software/build_options"] =
      "not given: the runner cannot read build options from a server (pass --build-options)";
  }
  return { commit, version, buildOptions };
}

/** The context size and server capacity (the server's, else the engine arguments') and the chat template. */
function serverConfiguration(reading: EngineArgsReading | null, templatePath: string | undefined, gaps: Gaps) {
  const { server } = gaps;
  const context_tokens = server?.contextTokens ?? reading?.contextTokens ?? null;
  if (context_tokens === null) {
    explain(gaps, "/configuration/context_tokens", `${NO_SERVER} and the engine arguments set no -c / --ctx-size`);
  }
  const server_capacity = server?.serverCapacity ?? reading?.serverCapacity ?? null;
  if (server_capacity === null) {
    explain(gaps, "/configuration/server_capacity", `${NO_SERVER} and the engine arguments set no -np / --parallel`);
  }
  const template = server?.chatTemplate
    ? { path: templatePath ?? "provenance/chat_template.jinja", sha256: server.chatTemplate.sha256 }
    : null;
  if (!template) {
    const otherwise = `${NO_SERVER}, so the effective chat template is unknown`;
    explain(gaps, "/configuration/template", otherwise, "chat template unknown");
  }
  return { context_tokens, server_capacity, template };
}

/** The model section: the files and their facts, and the fields only the operator can state (null with a reason). */
function modelSection(
  operator: OperatorFacts,
  files: Model["files"],
  missing: MissingMap,
): Model {
  const stated = (value: string | undefined, field: string, reason: string): string | null => {
    if (value !== undefined && value !== "") return value;
    missing[`/model/${field}`] = reason;
    return null;
  };
  return {
    id: stated(operator.modelId, "id", "not given (pass the model id)"),
    revision: stated(operator.modelRevision, "revision", "not given (pass --model-revision)"),
    source_revision: stated(operator.sourceRevision, "source_revision", "not given (pass --source-revision)"),
    quantization: stated(operator.quantization, "quantization", "not given (pass --quantization)"),
    files,
    tokenizer_revision: stated(
      operator.tokenizerRevision,
      "tokenizer_revision",
      "not given (pass --tokenizer-revision)",
    ),
    custom_pack: stated(operator.customPack, "custom_pack", "no custom pack declared (--custom-pack)"),
  };
}

/**
 * The engine argv behind the configuration objects: the profile's (the runner started it), else the listening
 * process's (observed), else the operator's --engine-args (declared), else why none is known.
 */
async function engineCommandLineOf(
  options: CollectProvenanceOptions,
): Promise<
  (EngineCommandLineReading & { ok: true; provenance: EngineCommandLine["provenance"] }) | { ok: false; reason: string }
> {
  if (options.engineArgs) {
    return {
      ok: true,
      argv: [...options.engineArgs],
      program: "",
      source: "the command line the runner started (profile)",
      provenance: "profile",
    };
  }
  const observed = options.observeEngineAt
    ? await observeEngineCommandLine(options.observeEngineAt, options.deps)
    : { ok: false as const, reason: "the server's process was not looked for" };
  if (observed.ok) return { ...observed, provenance: "observed" };
  if (options.declaredEngineArgs) return { ...declaredEngineArgs(options.declaredEngineArgs), provenance: "declared" };
  return { ok: false, reason: observed.reason };
}
