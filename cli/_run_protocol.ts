/**
 * One run of the standard protocol as a library call: verify the bundle, ask the server who it is, collect
 * provenance, run the stages, and write the result folder. Every effect comes in through `RunDeps`, so tests drive
 * it against the scripted engine with a short deadline; `cli/run.ts` binds the real parts and prints.
 */
import {
  type Artifact,
  type ChatTemplateKwargs,
  type Dialect,
  type Fixture,
  type RequestRecord,
  type Result,
  type Sampling,
  SCRIPTED_ENGINE_PROP,
} from "../contract/mod.ts";
import { type ExecutedRequest, executeRun, type ExecutorDeps, type SchedulePosition } from "../runner/executor.ts";
import { planRun } from "../runner/plan.ts";
import { classifyServerUrl } from "../client/mod.ts";
import {
  assembleResult,
  chooseResultsRoot,
  gpuSlug,
  newRunId,
  openResultFolder,
  outputLine,
  recordOf,
  RESULT_FILES,
  type ResultFolder,
  resultFolderName,
  type Sanitizers,
} from "../report/mod.ts";
import type { ResultFiles } from "../runtime/mod.ts";
import type { Provenance, ServerFacts } from "../probe/mod.ts";

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
  /** More model files a profile names besides the -m files of `engineArgs`. */
  engineModelFiles?: readonly string[];
  /** The started engine's log so far; attached as the engine_log artifact. */
  engineLog?: () => string;
  onRequestStart?(fixture: Fixture, position: SchedulePosition): void;
  onRequestEnd?(record: RequestRecord, position: SchedulePosition): void;
}

/** The parts the run joins. */
export interface RunDeps extends ExecutorDeps {
  loadBundle(): Promise<{ fixtures: Fixture[]; corpusSha256: string }>;
  buildChatBody(
    fixture: Fixture,
    dialect: Dialect,
  ): { body: Record<string, unknown>; settings: { reasoning_budget_tokens: number; why: string } };
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
  /** Wall clock (started_at and the run id). */
  now(): Date;
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

export interface RunReport {
  folder: string;
  result: Result;
  /** Problems the strict validator found in the written results.json (expected: none). */
  validationProblems: { pointer: string; message: string }[];
  /** Nulls that got only a generic reason (a defect; expected: none). */
  unexplainedNulls: string[];
}

/**
 * Runs the protocol once and writes the result folder.
 * @throws {RunRefusedError} before anything is sent: bundle mismatch, bad URL, server unreachable, folder refused.
 */
export async function runProtocol(options: RunOptions, deps: RunDeps): Promise<RunReport> {
  let bundle: { fixtures: Fixture[]; corpusSha256: string };
  try {
    bundle = await deps.loadBundle();
  } catch (error) {
    throw new RunRefusedError("bundle", error instanceof Error ? error.message : String(error), error);
  }
  let where;
  try {
    where = classifyServerUrl(options.baseUrl);
  } catch (error) {
    throw new RunRefusedError("url", error instanceof Error ? error.message : String(error), error);
  }
  const health = await deps.checkHealth(options.baseUrl, 10_000);
  if (!health.ok) {
    // Deno's refusal reads 'Requires net access to "HOST:PORT", run again with the --allow-net flag'.
    const refusedHost = /Requires net access to "([^"]+)"/.exec(health.message)?.[1];
    if (refusedHost !== undefined) {
      throw new RunRefusedError(
        "unreachable",
        `Cannot run the protocol: permission to connect to ${refusedHost} refused (missing flag ` +
          `--allow-net=${refusedHost}); "deno task bench" allows loopback servers only`,
      );
    }
    throw new RunRefusedError(
      "unreachable",
      `Cannot run the protocol: the server at ${options.baseUrl} did not answer /health (${health.message}); ` +
        "start it first or pass --url with the right address",
    );
  }
  const server = await deps.probeServer(options.baseUrl);
  const provenance = await deps.collectProvenance(server, options);

  const plan = planRun(bundle.fixtures, { optionalConcurrency: options.optionalConcurrency });
  const bodies = new Map(plan.fixtures.map((f) => [f.id, deps.buildChatBody(f, server.dialect)]));
  // Read back before anything is sent: a body without the profile settings is a defect, not a run.
  const { sampling, chatTemplateKwargs } = profileSettingsOf(bodies.get(plan.fixtures[0]?.id ?? "")?.body ?? {});
  const startedAtDate = deps.now();
  const startedAt = startedAtDate.toISOString();
  const runId = newRunId(startedAtDate);
  const gpuNames = provenance.hardware.gpus === null ? null : provenance.hardware.gpus.map((g) => g.name);
  const root = await chooseResultsRoot(deps.files, options.outRoot);
  let folder: ResultFolder;
  try {
    folder = await openResultFolder(
      deps.files,
      root,
      resultFolderName(startedAt, gpuSlug(gpuNames), runId),
      deps.sanitizers,
    );
  } catch (error) {
    throw new RunRefusedError("folder", error instanceof Error ? error.message : String(error), error);
  }

  const reasons: string[] = [];
  if (!where.loopback) reasons.push(where.reason);
  // A server that had already answered requests is reported (extensions.server_prior_requests; README Status and
  // Limitations), not made nonconforming by itself: the protocol runs against an already-serving profile and asks
  // only that the report say how many requests it had answered. Reuse of a user payload left in its cache is what
  // breaks a measurement, and the unexpected-reuse rule catches that per request.
  const prior = server.priorRequests;
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

  const execution = await executeRun({
    baseUrl: options.baseUrl,
    plan,
    bodyOf: (fixture) => bodies.get(fixture.id)?.body ?? {},
    isFailure: (fixture, outcome) =>
      recordOf({ kind: "outcome", fixture, concurrency: 1, body: {}, outcome, startedS: 0, endedS: 0 }).record
        .status === "failed",
    ...(options.deadlineS === undefined ? {} : { deadlineS: options.deadlineS }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onRequestStart: (fixture, position) => options.onRequestStart?.(fixture, position),
    onRequestEnd: async (request: ExecutedRequest, position) => {
      const { record } = recordOf(request);
      await folder.appendOutput(outputLine(request, record.status));
      options.onRequestEnd?.(record, position);
    },
  }, deps);

  const artifacts: Artifact[] = [folder.outputsArtifact()];
  if (options.engineLog) {
    artifacts.push(await folder.writeArtifact("engine_log", RESULT_FILES.engineLog, options.engineLog()));
  }
  const firstSettings = bodies.get(plan.fixtures[0]?.id ?? "")?.settings ?? null;
  const sentSettings = {
    dialect: server.dialect,
    dialect_evidence: server.dialectEvidence,
    reasoning_budget_tokens_sent: firstSettings?.reasoning_budget_tokens ?? null,
    reasoning_budget_why: firstSettings?.why ?? null,
  };
  const config = {
    command: options.command,
    base_url: options.baseUrl,
    optional_concurrency: options.optionalConcurrency,
    track: options.track,
    track_notes: options.trackNotes,
    declared: {
      model_id: options.declared.modelId,
      model_revision: options.declared.modelRevision,
      source_revision: options.declared.sourceRevision,
      tokenizer_revision: options.declared.tokenizerRevision,
      quantization: options.declared.quantization,
      custom_pack: options.declared.customPack,
      background: options.declared.background,
      build_options: options.declared.buildOptions,
      engine_commit: options.declared.engineCommit,
    },
    simulated,
    ...sentSettings,
    sampling,
    chat_template_kwargs: chatTemplateKwargs,
    request_settings_example: firstSettings === null ? null : withoutMessages(bodies.get(plan.fixtures[0]!.id)!.body),
  };
  artifacts.push(await folder.writeArtifact("config", RESULT_FILES.config, `${JSON.stringify(config, null, 2)}\n`));
  let templateArtifact: Artifact | null = null;
  if (provenance.templateText !== null) {
    templateArtifact = await folder.writeArtifact("provenance", RESULT_FILES.template, provenance.templateText);
    artifacts.push(templateArtifact);
  }
  // configuration.template points to the attached copy of the template the server actually uses (hash of the
  // bytes written); without a template the probe already gave the reason and the nonconforming reason.
  if (templateArtifact !== null) {
    provenance.configuration.template = { path: templateArtifact.path, sha256: templateArtifact.sha256 };
    delete provenance.missing["/configuration/template"];
  }

  const assembled = assembleResult({
    runId,
    startedAt,
    command: options.command,
    optionalConcurrency: options.optionalConcurrency,
    execution,
    protocol: {
      // The protocol definition (fixtures, scoring) is this toolkit's commit.
      gitCommit: provenance.software.runner_commit,
      gitCommitReason: provenance.missing["/software/runner_commit"] ?? null,
      corpusSha256: bundle.corpusSha256,
      modelCardRevision: null,
      modelCardRevisionReason: "the protocol is a draft: the model-card revision is not pinned until activation",
    },
    provenance: {
      hardware: provenance.hardware,
      software: provenance.software,
      model: provenance.model,
      configuration: provenance.configuration,
      missing: provenance.missing,
      nonconformingReasons: provenance.nonconformingReasons,
    },
    track: options.track,
    trackNotes: options.trackNotes,
    sampling,
    chatTemplateKwargs,
    artifacts,
    nonconformingReasons: reasons,
    extensions: {
      ...sentSettings,
      simulated_engine: simulated,
      server_loopback: where.loopback,
      server_prior_requests: {
        served: prior.served,
        at_least: prior.atLeast,
        freshly_loaded: prior.freshlyLoaded,
        evidence: prior.evidence,
        reason: prior.reason,
      },
      server_endpoint_problems: server.endpointProblems,
      kernel: provenance.kernel,
      other_engine_options: provenance.otherEngineOptions,
      model_hashing: {
        hashed_bytes: provenance.modelFiles.hashedBytes,
        hash_seconds: provenance.modelFiles.hashSeconds,
        cache_problem: provenance.modelFiles.cacheProblem,
      },
    },
  });
  const resultValue = deps.sanitizers.json(assembled.result) as Result;
  const text = `${JSON.stringify(resultValue, null, 2)}\n`;
  await folder.writeFile(RESULT_FILES.readme, deps.renderReadme(resultValue));
  await folder.writeResults(text);
  const maxSharedPrefixTokens = Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens]));
  const validationProblems = await deps.validateResultText(text, {
    maxSharedPrefixTokens,
    // The self-check is the same check `report` runs: records rebuilt from the evidence, corpus pinned.
    fixtures: bundle.fixtures,
    corpusSha256: bundle.corpusSha256,
    readArtifact: (relativePath) => deps.readArtifact(folder.path, relativePath),
  });
  return { folder: folder.path, result: resultValue, validationProblems, unexplainedNulls: assembled.unexplainedNulls };
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
