/**
 * What a run records besides its requests: config.json, results.json's extensions (settings sent, server defaults,
 * resolved configuration, the engine's load), and the contract's sampling objects read back from a sent body.
 */
import type { ChatTemplateKwargs, Sampling } from "../contract/mod.ts";
import { type ConfigCheck, SENT_AS_ENGINE_PARAMETER } from "../score/mod.ts";
import type { PreparedRun, RunOptions } from "./run_options.ts";

/** The body of the run's first request, whose settings the run's records quote. */
function firstBody(prepared: PreparedRun) {
  return prepared.bodies.get(prepared.plan.fixtures[0]?.id ?? "");
}

/** What the runner sent for the dialect-dependent setting, as results.json's extensions and config.json say it. */
export function sentSettings(prepared: PreparedRun) {
  const first = firstBody(prepared)?.settings ?? null;
  return {
    dialect: prepared.server.dialect,
    dialect_evidence: prepared.server.dialectEvidence,
    reasoning_budget_tokens_sent: first?.reasoning_budget_tokens ?? null,
    reasoning_budget_why: first?.why ?? null,
  };
}

/** config.json: the run's options as given, the operator's declarations, and the settings sent. */
export function runConfig(options: RunOptions, prepared: PreparedRun): Record<string, unknown> {
  const first = firstBody(prepared);
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
      engine_source: d.engineSource ?? null,
      engine_args: d.engineCommandLine ?? null,
    },
    pack_dir: options.packDir ?? null,
    check_template: options.checkTemplate !== false,
    simulated: prepared.simulated,
    ...sentSettings(prepared),
    sampling: prepared.sampling,
    chat_template_kwargs: prepared.chatTemplateKwargs,
    request_settings_example: first === undefined ? null : withoutMessages(first.body),
  };
}

/** A nonconforming reason per request the engine ran with other settings than it was sent. */
export function configReasons(checks: Readonly<Record<string, ConfigCheck>>): string[] {
  return Object.entries(checks).filter(([, check]) => check.verified === false).map(([id, check]) =>
    `${id}: ${check.reason ?? "the engine ran it with other settings than were sent"}`
  );
}

/** extensions.resolved_configuration: every sent request's check, and how many were verified. */
export function resolvedConfiguration(checks: Readonly<Record<string, ConfigCheck>>): Record<string, unknown> {
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
  const body = firstBody(prepared)?.body ?? {};
  if (params === null) {
    return {
      source: "GET /props default_generation_settings.params",
      params: null,
      reason: prepared.server.endpointProblems["/props"] ?? "/props reports no default_generation_settings.params",
      overridden: null,
    };
  }
  const overridden: Record<string, { server: unknown; sent: unknown }> = {};
  for (const { sent, resolved: engine } of SENT_AS_ENGINE_PARAMETER) {
    if (Object.hasOwn(params, engine) && body[sent] !== undefined && params[engine] !== body[sent]) {
      overridden[engine] = { server: params[engine], sent: body[sent] };
    }
  }
  return { source: "GET /props default_generation_settings.params", params, reason: null, overridden };
}

/** results.json's extensions: facts beyond the contract that a reviewer needs. */
export function resultExtensions(options: RunOptions, prepared: PreparedRun): Record<string, unknown> {
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
    machine_token: provenance.machineToken,
    gpu_selection: provenance.deviceSelection,
    other_engine_options: provenance.otherEngineOptions,
    model_file_facts: provenance.modelFileFacts,
    ...(provenance.engineCommandLine === null ? {} : { engine_command_line: provenance.engineCommandLine }),
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
