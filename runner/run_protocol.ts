/**
 * The conductor of `run`: one run of the standard protocol as a library call. It verifies the bundle, asks the
 * server who it is, collects provenance, runs the stages (building each request's record once, as it ends, and
 * appending its evidence line), attaches the artifacts, assembles and writes the result, and validates what it
 * wrote. Every effect comes in through `RunDeps`, so tests and the demo drive it against the scripted engine;
 * `cli/run.ts` binds the real parts and prints.
 */
import { classifyServerUrl, type LoopbackVerdict } from "../client/mod.ts";
import {
  type Artifact,
  type ChatTemplateKwargs,
  type Dialect,
  type ExecutedRequest,
  type Fixture,
  type RequestRecord,
  type Result,
  type Sampling,
  SCRIPTED_ENGINE_PROP,
  type StreamProgress,
} from "../contract/mod.ts";
import type { GpuPowerSampler, Provenance, ServerFacts } from "../probe/mod.ts";
import {
  assembleResult,
  chooseResultsRoot,
  DIGEST_KEYS,
  gpuSlug,
  measuredDigest,
  newRunId,
  openResultFolder,
  PICTURES_RENDERER_KEY,
  publishRequest,
  RESULT_FILES,
  type ResultFolder,
  resultFolderName,
  sanitizeResult,
  type Sanitizers,
  type ScoredRequest,
} from "../report/mod.ts";
import type { ResultFiles } from "../runtime/mod.ts";
import { type BuiltRecord, type ConfigCheck, recordOf, roundQueueing } from "../score/mod.ts";
import type { ChatBody } from "./request_body.ts";
import { executeRun, type ExecutorDeps, type SchedulePosition } from "./executor.ts";
import { planRun, type RunPlan } from "./plan.ts";
import { type EngineLogSource, readEngineLog, startedEngineLog } from "./engine_log.ts";
import { recordGpuPower } from "./gpu_power.ts";

/** What the engine cannot tell the runner, as the operator declared it on the command line (null when unset). */
export interface DeclaredProvenance {
  modelId: string | null;
  modelRevision: string | null;
  sourceRevision: string | null;
  tokenizerRevision: string | null;
  quantization: string | null;
  customPack: string | null;
  background: string[];
  buildOptions: string[] | null;
  engineCommit: string | null;
}

/** Operator-supplied facts and choices. */
export interface RunOptions {
  baseUrl: string;
  optionalConcurrency: boolean;
  track: "default" | "custom";
  trackNotes: string | null;
  /** Provenance flags as given (null when unset). */
  declared: DeclaredProvenance;
  /** The operator says the server is a simulation (the demo); the run is labelled simulated. */
  simulated: boolean;
  /** Results root; default bench/results or ./bench-results under the current folder. */
  outRoot?: string;
  /** Per-request deadline; the protocol's 1,800 s unless a test shortens it. */
  deadlineS?: number;
  signal?: AbortSignal;
  /** The command line as typed (sanitized before it is written). */
  command: string;
  /** The engine's argv (without the program) when the runner started it from a profile; its model files are hashed. */
  engineArgs?: readonly string[] | null;
  /** Variables the profile gives the started engine on top of this environment (its GPU selection). */
  engineEnv?: Readonly<Record<string, string>>;
  /** More model files a profile names besides the -m files of `engineArgs`. */
  engineModelFiles?: readonly string[];
  /** The started engine's log so far; attached as the engine_log artifact. */
  engineLog?: () => string;
  /** A server's log the operator names (`--engine-log FILE`), read after the requests; checked like engineLog. */
  engineLogSource?: EngineLogSource;
  /**
   * Seconds the engine the runner started from a profile took from spawn to ready (model load included); the
   * result reports it apart from the run. Absent when the server was already running.
   */
  engineLoadSeconds?: number | null;
  /** A request is about to be sent; `live` is what its stream has delivered so far (see StreamProgress). */
  onRequestStart?(fixture: Fixture, position: SchedulePosition, live: StreamProgress): void;
  onRequestEnd?(record: RequestRecord, position: SchedulePosition): void;
  /**
   * The run's stages as they begin: the bundle and server checks, provenance (model hashing), the requests, and
   * the finishing of the folder.
   */
  onStage?(stage: RunStage): void;
}

/** What the run is doing, for a person's progress line. */
export type RunStage = "checking" | "provenance" | "requests" | "writing";

/** The parts the run joins. */
export interface RunDeps extends ExecutorDeps {
  loadBundle(): Promise<{ fixtures: Fixture[]; corpusSha256: string }>;
  buildChatBody(fixture: Fixture, dialect: Dialect): ChatBody;
  probeServer(baseUrl: string): Promise<ServerFacts>;
  /** The probe's provenance for this server (hardware, software, model, configuration, missing, reasons). */
  collectProvenance(server: ServerFacts, options: RunOptions): Promise<Provenance>;
  files: ResultFiles;
  sanitizers: Sanitizers;
  validateResultText(
    text: string,
    options: {
      maxSharedPrefixTokens: Readonly<Record<string, number>>;
      readArtifact?: (relativePath: string) => Promise<Uint8Array | null>;
      fixtures?: readonly Fixture[];
      corpusSha256?: string;
    },
  ): Promise<{ pointer: string; message: string }[]>;
  readArtifact(folder: string, relativePath: string): Promise<Uint8Array | null>;
  renderReadme(result: Result): string;
  /** The result's pictures (SVG text), drawn from the sanitized result. */
  renderPictures(result: Result): Promise<{ file: string; svg: string; renderer: string }[]>;
  /** Wall clock (started_at and the run id). */
  now(): Date;
  /** Starts sampling GPU power on the clock `nowMs` (extensions.gpu_power); absent: no power record. */
  startGpuPower?(nowMs: () => number): GpuPowerSampler;
}

/** Why a run could not start; nothing was sent to the server. */
export class RunRefusedError extends Error {
  readonly code: "bundle" | "unreachable" | "url" | "folder";
  constructor(code: RunRefusedError["code"], message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "RunRefusedError";
    this.code = code;
  }
}

/**
 * The result folder could not be written during the run (a full or read-only disk, an I/O error): the run stopped
 * at once, the request in flight was cancelled, and the folder keeps `keptRequests` whole evidence lines (no
 * results.json). `report` reads such a folder as an interrupted run.
 */
export class RunWriteError extends Error {
  readonly folder: string;
  readonly keptRequests: number;
  /** The file system's error code (ENOSPC, EIO, EROFS, ...), or the error's name. */
  readonly code: string;
  constructor(folder: string, keptRequests: number, code: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "RunWriteError";
    this.folder = folder;
    this.keptRequests = keptRequests;
    this.code = code;
  }
}

/** The file system's code of a write error ("ENOSPC"), or its name. */
function writeErrorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.name : "unknown";
}

const WRITE_ERROR_WORDS: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the disk",
  EDQUOT: "the disk quota is used up",
  EIO: "an input/output error on the disk",
  EROFS: "the disk is read-only",
  EFBIG: "the file grew past the largest size the disk allows",
  EACCES: "permission to write was withdrawn",
  EPERM: "permission to write was withdrawn",
};

function writeError(folder: string, keptRequests: number, error: unknown, writing: string): RunWriteError {
  const code = writeErrorCode(error);
  const words = WRITE_ERROR_WORDS[code] ?? (error instanceof Error ? error.message.split("\n")[0] : String(error));
  return new RunWriteError(
    folder,
    keptRequests,
    code,
    `Cannot write the result folder "${folder}" (${writing}): ${words} (${code}). The run stopped; ` +
      `outputs.jsonl keeps the whole evidence of ${keptRequests} request(s) and there is no results.json. Free ` +
      `space or fix the disk and run again; "report ${folder}" reads what was kept.`,
    error,
  );
}

export interface RunReport {
  folder: string;
  result: Result;
  /** Problems the strict validator found in the written results.json (expected: none). */
  validationProblems: { pointer: string; message: string }[];
  /** Nulls that got only a generic reason (a defect; expected: none). */
  unexplainedNulls: string[];
}

/** Everything known before the first request is sent. */
interface PreparedRun {
  bundle: { fixtures: Fixture[]; corpusSha256: string };
  where: LoopbackVerdict;
  server: ServerFacts;
  provenance: Provenance;
  plan: RunPlan;
  /** The exact body of every planned request, built once. */
  bodies: Map<string, ChatBody>;
  sampling: Sampling;
  chatTemplateKwargs: ChatTemplateKwargs;
  /** Run-level nonconforming reasons (not loopback, dialect unknown, simulated engine). */
  reasons: string[];
  simulated: boolean;
}

/**
 * Runs the protocol once and writes the result folder.
 * @throws {RunRefusedError} before anything is sent: bundle mismatch, bad URL, server unreachable, folder refused.
 */
export async function runProtocol(options: RunOptions, deps: RunDeps): Promise<RunReport> {
  const prepared = await prepareRun(options, deps);
  const startedAtDate = deps.now();
  const startedAt = startedAtDate.toISOString();
  const runId = newRunId(startedAtDate);
  const folder = await openFolder(options, deps, prepared, startedAt, runId);

  // A write failure stops the run as Ctrl-C does (the request in flight is cancelled, the rest skipped); the
  // evidence already flushed stays, and no further line is appended, so outputs.jsonl holds only whole lines.
  const stop = new AbortController();
  const forwardAbort = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) forwardAbort();
  else options.signal?.addEventListener("abort", forwardAbort, { once: true });
  let writeFailure: RunWriteError | null = null;
  let keptRequests = 0;

  // Each request's record is built once, when it ends, from the text as the engine sent it; what is published
  // (its evidence line and the record in results.json) is redacted and kept consistent by report/'s publishRequest.
  const built = new Map<string, BuiltRecord>();
  const overridden: Record<string, string[]> = {};
  const configChecks: Record<string, ConfigCheck> = {};
  let execution: Awaited<ReturnType<typeof executeRun>>;
  options.onStage?.("requests");
  const power = deps.startGpuPower ? recordGpuPower(deps.startGpuPower(() => deps.nowMs()), () => deps.nowMs()) : null;
  await power?.ready;
  try {
    execution = await executeRun({
      baseUrl: options.baseUrl,
      plan: prepared.plan,
      bodyOf: (fixture) => prepared.bodies.get(fixture.id)?.body ?? {},
      slotsUnavailable: slotsUnavailable(prepared.server),
      serverCapacity: prepared.server.serverCapacity,
      ...(options.deadlineS === undefined ? {} : { deadlineS: options.deadlineS }),
      signal: stop.signal,
      onRequestStart: (fixture, position, live) => {
        power?.requestStarted(fixture.id);
        options.onRequestStart?.(fixture, position, live);
      },
      onRequestEnd: async (request: ExecutedRequest, position) => {
        power?.requestEnded(request.fixture.id);
        const published = publishRequest(request, recordOf(request), request.fixture, deps.sanitizers);
        built.set(request.fixture.id, published.built);
        if (published.overridden.length > 0) overridden[request.fixture.id] = published.overridden;
        if (published.config !== null) configChecks[request.fixture.id] = published.config;
        if (writeFailure !== null) return;
        try {
          await folder.appendSanitizedOutput(published.line);
          keptRequests++;
        } catch (error) {
          writeFailure = writeError(folder.path, keptRequests, error, `appending ${RESULT_FILES.outputs}`);
          stop.abort("the result folder could not be written");
          return;
        }
        options.onRequestEnd?.(published.built.record, position);
      },
    }, deps);
  } finally {
    options.signal?.removeEventListener("abort", forwardAbort);
  }
  const gpuPower = power === null ? { reason: "no GPU power sampler in this run" } : await power.finish(
    execution.requests.flatMap((r) => built.get(r.fixture.id)?.record ?? []),
  );
  if (writeFailure !== null) throw writeFailure;
  const requests: ScoredRequest[] = execution.requests.map((request) => {
    const record = built.get(request.fixture.id);
    if (record === undefined) throw new RangeError(`Cannot assemble the result: no record of ${request.fixture.id}`);
    return { fixture: request.fixture, built: record };
  });
  const headersS = Object.fromEntries(
    execution.requests.map((r) => [r.fixture.id, r.kind === "outcome" ? r.outcome.offsets.headers_s : null]),
  );
  const queueing = options.optionalConcurrency
    ? roundQueueing(requests.map((r) => r.built.record), headersS, prepared.provenance.configuration.server_capacity)
    : [];

  let artifacts: Artifact[];
  options.onStage?.("writing");
  const logSource = options.engineLogSource ?? (options.engineLog ? startedEngineLog(options.engineLog) : null);
  const engineLog = logSource === null ? null : await readEngineLog(logSource, execution.requests);
  try {
    artifacts = await writeArtifacts(options, prepared, folder, engineLog?.text ?? null);
  } catch (error) {
    throw writeError(folder.path, keptRequests, error, "writing the artifacts");
  }
  const { requests: _executed, ...timeline } = execution;
  const assembled = assembleResult({
    runId,
    startedAt,
    command: options.command,
    optionalConcurrency: options.optionalConcurrency,
    execution: timeline,
    requests,
    protocol: {
      // The protocol definition (fixtures, scoring) is this toolkit's commit.
      gitCommit: prepared.provenance.software.runner_commit,
      gitCommitReason: prepared.provenance.missing["/software/runner_commit"] ?? null,
      corpusSha256: prepared.bundle.corpusSha256,
      modelCardRevision: null,
      modelCardRevisionReason: "the protocol is a draft: the model-card revision is not pinned until activation",
    },
    provenance: {
      hardware: prepared.provenance.hardware,
      software: prepared.provenance.software,
      model: prepared.provenance.model,
      configuration: prepared.provenance.configuration,
      missing: prepared.provenance.missing,
      nonconformingReasons: prepared.provenance.nonconformingReasons,
    },
    track: options.track,
    trackNotes: options.trackNotes,
    sampling: prepared.sampling,
    chatTemplateKwargs: prepared.chatTemplateKwargs,
    artifacts,
    nonconformingReasons: [...prepared.reasons, ...configReasons(configChecks), ...(engineLog?.reasons ?? [])],
    extensions: {
      ...resultExtensions(options, prepared),
      gpu_power: gpuPower,
      engine_log: engineLog?.check ??
        { reason: "no engine log: the runner did not start the engine and no --engine-log was given" },
      record_overrides: overridden,
      resolved_configuration: resolvedConfiguration(configChecks),
      round_queueing: queueing,
    },
  });
  const resultValue = sanitizeResult(assembled.result, deps.sanitizers);
  let text: string;
  try {
    text = await finishFolder(resultValue, folder, deps);
    await folder.writeResults(text);
  } catch (error) {
    throw writeError(folder.path, keptRequests, error, `writing ${RESULT_FILES.results}`);
  }
  const validationProblems = await selfCheck(text, prepared, folder, deps);
  return { folder: folder.path, result: resultValue, validationProblems, unexplainedNulls: assembled.unexplainedNulls };
}

/**
 * The folder's last files, in dependency order: the pictures (drawn from the sanitized result, listed as
 * provenance artifacts), the README (which shows them), then the README's hash and the measured digest of the
 * result and its outputs as written, both in extensions. Returns the final results.json text. A picture that
 * cannot be drawn is a defect, but it must not lose the run: the result then says why it has no pictures.
 */
async function finishFolder(result: Result, folder: ResultFolder, deps: RunDeps): Promise<string> {
  const extensions = result.extensions ??= {};
  try {
    for (const picture of await deps.renderPictures(result)) {
      result.artifacts.push(await folder.writeDerivedArtifact("provenance", picture.file, picture.svg));
      // `report` draws the pictures again from results.json and compares bytes under the same renderer.
      extensions[PICTURES_RENDERER_KEY] = picture.renderer;
    }
  } catch (error) {
    extensions["pictures_problem"] = `the pictures could not be drawn: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
  extensions[DIGEST_KEYS.readme] = await folder.writeFile(RESULT_FILES.readme, deps.renderReadme(result));
  const outputs = await deps.readArtifact(folder.path, RESULT_FILES.outputs);
  const outputsText = outputs === null ? "" : new TextDecoder().decode(outputs);
  extensions[DIGEST_KEYS.digest] = measuredDigest(
    result as unknown as Record<string, unknown>,
    RESULT_FILES.outputs,
    outputsText,
  );
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** Bundle, URL, /health, server identity, provenance, plan and bodies: all before anything is sent. */
async function prepareRun(options: RunOptions, deps: RunDeps): Promise<PreparedRun> {
  options.onStage?.("checking");
  let bundle: { fixtures: Fixture[]; corpusSha256: string };
  try {
    bundle = await deps.loadBundle();
  } catch (error) {
    throw new RunRefusedError("bundle", error instanceof Error ? error.message : String(error), error);
  }
  let where: LoopbackVerdict;
  try {
    where = classifyServerUrl(options.baseUrl);
  } catch (error) {
    throw new RunRefusedError("url", error instanceof Error ? error.message : String(error), error);
  }
  // Checked before the probe and the model hashing, which can take minutes: a folder that cannot take the result
  // (read-only, full, or a link out of the permitted area) refuses the run before anything is measured.
  const root = await chooseResultsRoot(deps.files, options.outRoot);
  const rootCheck = await deps.files.checkRoot(root);
  if (!rootCheck.ok) {
    throw new RunRefusedError("folder", `Cannot write results: ${rootCheck.reason}`);
  }
  const health = await deps.checkHealth(options.baseUrl, 10_000);
  if (!health.ok) {
    // Deno's refusal reads 'Requires net access to "HOST:PORT", run again with the --allow-net flag'.
    const refusedHost = /Requires net access to "([^"]+)"/.exec(health.message)?.[1];
    if (refusedHost !== undefined) {
      throw new RunRefusedError(
        "unreachable",
        `Cannot run the protocol: permission to connect to ${refusedHost} refused (missing flag ` +
          `--allow-net=${refusedHost}); "deno task run" (and strata-bench run) allow loopback servers only`,
      );
    }
    throw new RunRefusedError(
      "unreachable",
      `Cannot run the protocol: the server at ${options.baseUrl} did not answer /health (${health.message}); ` +
        "start it first or pass --url with the right address",
    );
  }
  options.onStage?.("provenance");
  const server = await deps.probeServer(options.baseUrl);
  const provenance = await deps.collectProvenance(server, options);

  const plan = planRun(bundle.fixtures, { optionalConcurrency: options.optionalConcurrency });
  const bodies = new Map(plan.fixtures.map((f) => [f.id, deps.buildChatBody(f, server.dialect)]));
  // Read back before anything is sent: a body without the profile settings is a defect, not a run.
  const { sampling, chatTemplateKwargs } = profileSettingsOf(bodies.get(plan.fixtures[0]?.id ?? "")?.body ?? {});

  const reasons: string[] = [];
  if (!where.loopback) reasons.push(where.reason);
  // A server that had already answered requests is reported (extensions.server_prior_requests; README Status and
  // Limitations), not made nonconforming by itself: the protocol runs against an already-serving profile and asks
  // only that the report say how many requests it had answered. Reuse of a user payload left in its cache is what
  // breaks a measurement, and the unexpected-reuse rule catches that per request.
  if (server.dialect === "unknown") {
    reasons.push(
      `the settings dialect of the server is unknown (${server.dialectEvidence}); the reasoning-budget ` +
        "spelling could not be chosen",
    );
  }
  // The scripted engine announces itself in /props; a run against it is a simulation whether or not the
  // operator said so.
  const simulated = options.simulated || server.props?.[SCRIPTED_ENGINE_PROP] === true;
  if (simulated) reasons.push("the server is the scripted engine (a simulation); nothing real was measured");
  return { bundle, where, server, provenance, plan, bodies, sampling, chatTemplateKwargs, reasons, simulated };
}

/** Opens `<root>/<UTC-date>-standard-<gpu>-<run-id>`. @throws {RunRefusedError} when it cannot be created. */
async function openFolder(
  options: RunOptions,
  deps: RunDeps,
  prepared: PreparedRun,
  startedAt: string,
  runId: string,
): Promise<ResultFolder> {
  const gpus = prepared.provenance.hardware.gpus;
  const root = await chooseResultsRoot(deps.files, options.outRoot);
  try {
    return await openResultFolder(
      deps.files,
      root,
      resultFolderName(startedAt, gpuSlug(gpus === null ? null : gpus.map((g) => g.name)), runId),
      deps.sanitizers,
    );
  } catch (error) {
    throw new RunRefusedError("folder", error instanceof Error ? error.message : String(error), error);
  }
}

/** What the runner sent for the dialect-dependent setting, as results.json's extensions and config.json say it. */
function sentSettings(prepared: PreparedRun) {
  const first = prepared.bodies.get(prepared.plan.fixtures[0]?.id ?? "")?.settings ?? null;
  return {
    dialect: prepared.server.dialect,
    dialect_evidence: prepared.server.dialectEvidence,
    reasoning_budget_tokens_sent: first?.reasoning_budget_tokens ?? null,
    reasoning_budget_why: first?.why ?? null,
  };
}

/**
 * The artifacts after the run: outputs.jsonl (appended during it), the engine log (a started engine's or --engine-log's), the
 * sanitized configuration, and the chat template the server uses. configuration.template then points to the
 * attached copy (hash of the bytes written); without a template the probe already gave the reason.
 */
async function writeArtifacts(
  options: RunOptions,
  prepared: PreparedRun,
  folder: ResultFolder,
  engineLog: string | null,
): Promise<Artifact[]> {
  const artifacts: Artifact[] = [folder.outputsArtifact()];
  if (engineLog !== null) artifacts.push(await folder.writeArtifact("engine_log", RESULT_FILES.engineLog, engineLog));
  const config = runConfig(options, prepared);
  artifacts.push(await folder.writeArtifact("config", RESULT_FILES.config, `${JSON.stringify(config, null, 2)}\n`));
  const { provenance } = prepared;
  if (provenance.templateText !== null) {
    const template = await folder.writeArtifact("provenance", RESULT_FILES.template, provenance.templateText);
    artifacts.push(template);
    provenance.configuration.template = { path: template.path, sha256: template.sha256 };
    delete provenance.missing["/configuration/template"];
  }
  return artifacts;
}

/** config.json: the run's options as given, the operator's declarations, and the settings sent. */
function runConfig(options: RunOptions, prepared: PreparedRun): Record<string, unknown> {
  const firstId = prepared.plan.fixtures[0]?.id;
  const firstBody = firstId === undefined ? undefined : prepared.bodies.get(firstId);
  const d = options.declared;
  return {
    command: options.command,
    base_url: options.baseUrl,
    optional_concurrency: options.optionalConcurrency,
    track: options.track,
    track_notes: options.trackNotes,
    declared: {
      model_id: d.modelId,
      model_revision: d.modelRevision,
      source_revision: d.sourceRevision,
      tokenizer_revision: d.tokenizerRevision,
      quantization: d.quantization,
      custom_pack: d.customPack,
      background: d.background,
      build_options: d.buildOptions,
      engine_commit: d.engineCommit,
    },
    simulated: prepared.simulated,
    ...sentSettings(prepared),
    sampling: prepared.sampling,
    chat_template_kwargs: prepared.chatTemplateKwargs,
    request_settings_example: firstBody === undefined ? null : withoutMessages(firstBody.body),
  };
}

/** Why the engine's resolved configuration is not read at all, or null when /slots is read after each batch. */
function slotsUnavailable(server: ServerFacts): string | null {
  if (server.dialect === "llama.cpp") return null;
  return `the server's dialect is ${server.dialect} (${server.dialectEvidence}): only llama.cpp's GET /slots ` +
    "reports the parameters each task ran with, so the resolved configuration is not read";
}

/** A nonconforming reason per request the engine ran with other settings than it was sent. */
function configReasons(checks: Readonly<Record<string, ConfigCheck>>): string[] {
  return Object.entries(checks).filter(([, check]) => check.verified === false).map(([id, check]) =>
    `${id}: ${check.reason ?? "the engine ran it with other settings than were sent"}`
  );
}

/** extensions.resolved_configuration: every sent request's check, and how many were verified. */
function resolvedConfiguration(checks: Readonly<Record<string, ConfigCheck>>): Record<string, unknown> {
  const all = Object.values(checks);
  return {
    source: "GET /slots after each batch: the params of each slot's last task, matched to the batch's requests",
    verified: all.filter((c) => c.verified === true).length,
    differing: all.filter((c) => c.verified === false).length,
    not_verified: all.filter((c) => c.verified === null).length,
    requests: checks,
  };
}

/**
 * What the server would have used without the request's settings (/props default_generation_settings.params),
 * and which of them each request overrode, so a reader sees what the request changed.
 */
function serverDefaults(prepared: PreparedRun): Record<string, unknown> {
  const params = prepared.server.defaultGenerationParams;
  const body = prepared.bodies.get(prepared.plan.fixtures[0]?.id ?? "")?.body ?? {};
  if (params === null) {
    return {
      source: "GET /props default_generation_settings.params",
      params: null,
      reason: prepared.server.endpointProblems["/props"] ?? "/props reports no default_generation_settings.params",
      overridden: null,
    };
  }
  const overridden: Record<string, { server: unknown; sent: unknown }> = {};
  const names: [string, string][] = [
    ["temperature", "temperature"],
    ["top_p", "top_p"],
    ["top_k", "top_k"],
    ["min_p", "min_p"],
    ["presence_penalty", "presence_penalty"],
    ["repeat_penalty", "repeat_penalty"],
    ["seed", "seed"],
    ["n_predict", "max_tokens"],
  ];
  for (const [engine, sent] of names) {
    if (Object.hasOwn(params, engine) && body[sent] !== undefined && params[engine] !== body[sent]) {
      overridden[engine] = { server: params[engine], sent: body[sent] };
    }
  }
  return { source: "GET /props default_generation_settings.params", params, reason: null, overridden };
}

/** results.json's extensions: facts beyond the contract that a reviewer needs. */
function resultExtensions(options: RunOptions, prepared: PreparedRun): Record<string, unknown> {
  const { server, provenance } = prepared;
  const prior = server.priorRequests;
  return {
    ...sentSettings(prepared),
    simulated_engine: prepared.simulated,
    server_loopback: prepared.where.loopback,
    server_prior_requests: {
      served: prior.served,
      at_least: prior.atLeast,
      freshly_loaded: prior.freshlyLoaded,
      evidence: prior.evidence,
      reason: prior.reason,
    },
    server_endpoint_problems: server.endpointProblems,
    server_defaults: serverDefaults(prepared),
    kernel: provenance.kernel,
    gpu_selection: provenance.deviceSelection,
    other_engine_options: provenance.otherEngineOptions,
    model_hashing: {
      hashed_bytes: provenance.modelFiles.hashedBytes,
      hash_seconds: provenance.modelFiles.hashSeconds,
      cache_problem: provenance.modelFiles.cacheProblem,
    },
    // The protocol excludes model loading from the run and asks for its duration apart.
    engine_load: typeof options.engineLoadSeconds === "number"
      ? { started_by_runner: true, load_seconds: options.engineLoadSeconds, reason: null }
      : {
        started_by_runner: false,
        load_seconds: null,
        reason: "the server was already running when the run began; its model load was not watched",
      },
  };
}

/** The same check `report` runs on the written text: records rebuilt from the evidence, corpus pinned. */
function selfCheck(
  text: string,
  prepared: PreparedRun,
  folder: ResultFolder,
  deps: RunDeps,
): Promise<{ pointer: string; message: string }[]> {
  const { fixtures, corpusSha256 } = prepared.bundle;
  return deps.validateResultText(text, {
    maxSharedPrefixTokens: Object.fromEntries(fixtures.map((f) => [f.id, f.max_shared_prefix_tokens])),
    fixtures,
    corpusSha256,
    readArtifact: (relativePath) => deps.readArtifact(folder.path, relativePath),
  });
}

function withoutMessages(body: Record<string, unknown>): Record<string, unknown> {
  const { messages: _messages, tools: _tools, ...settings } = body;
  return settings;
}

/**
 * The contract's sampling and chat_template_kwargs objects, read from a body that was actually sent, so the result
 * records exactly what the server was asked for.
 * @throws {TypeError} when the body lacks a profile setting (a defect in the request-body builder).
 */
export function profileSettingsOf(
  body: Record<string, unknown>,
): { sampling: Sampling; chatTemplateKwargs: ChatTemplateKwargs } {
  const num = (key: string): number => {
    const value = body[key];
    if (typeof value !== "number") throw new TypeError(`Cannot record the settings: the body has no number ${key}`);
    return value;
  };
  const effort = body["reasoning_effort"];
  const kwargs = body["chat_template_kwargs"] as Record<string, unknown> | undefined;
  if (
    typeof effort !== "string" || typeof kwargs?.["enable_thinking"] !== "boolean" ||
    typeof kwargs["preserve_thinking"] !== "boolean"
  ) {
    throw new TypeError("Cannot record the settings: the body lacks reasoning_effort or the thinking flags");
  }
  return {
    sampling: {
      temperature: num("temperature"),
      top_p: num("top_p"),
      top_k: num("top_k"),
      min_p: num("min_p"),
      presence_penalty: num("presence_penalty"),
      repetition_penalty: num("repetition_penalty"),
      reasoning_effort: effort,
    },
    chatTemplateKwargs: {
      enable_thinking: kwargs["enable_thinking"] as boolean,
      preserve_thinking: kwargs["preserve_thinking"] as boolean,
    },
  };
}
