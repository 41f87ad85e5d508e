/**
 * The conductor of `run`: one run of the standard protocol as a library call. It verifies the bundle, asks the
 * server who it is, collects provenance, runs the stages (building each request's record once, as it ends, and
 * appending its evidence line), attaches the artifacts, assembles and writes the result, and validates what it
 * wrote. Every effect comes in through `RunDeps`, so tests and the demo drive it against the scripted engine;
 * `cli/run.ts` binds the real parts and prints.
 */
import { classifyServerUrl } from "../client/mod.ts";
import { type Artifact, type ExecutedRequest, type Result, SCRIPTED_ENGINE_PROP } from "../contract/mod.ts";
import type { ServerFacts } from "../probe/mod.ts";
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
  type ScoredRequest,
  validationOptions,
} from "../report/mod.ts";
import { type BuiltRecord, type ConfigCheck, recordOf, roundQueueing } from "../score/mod.ts";
import { executeRun } from "./executor.ts";
import { planRun } from "./plan.ts";
import { configReasons, profileSettingsOf, resolvedConfiguration, resultExtensions, runConfig } from "./_run_record.ts";
import { assemblyError, RunRefusedError, RunWriteError, writeError } from "./run_errors.ts";
import type { PreparedRun, RunDeps, RunOptions, RunReport } from "./run_options.ts";
import { runTemplateCheck, templateCheckArtifact, templateCheckSummary } from "./_run_template_check.ts";
import { readEngineLog, startedEngineLog } from "./engine_log.ts";
import { recordGpuPower } from "./gpu_power.ts";
import { errorLine, errorMessage } from "../runtime/mod.ts";

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
  const run = await runRequests(options, deps, prepared, folder);

  let artifacts: Artifact[];
  options.onStage?.("writing");
  const logSource = options.engineLogSource ?? (options.engineLog ? startedEngineLog(options.engineLog) : null);
  const engineLog = logSource === null ? null : await readEngineLog(logSource, run.execution.requests);
  try {
    artifacts = await writeArtifacts(options, prepared, folder, engineLog?.text ?? null);
  } catch (error) {
    throw writeError(folder.path, run.keptRequests, error, "writing the artifacts");
  }
  let assembled: ReturnType<typeof assembleResult>, resultValue: Result;
  try {
    assembled = assembleResult(resultInput(options, prepared, run, artifacts, engineLog, { runId, startedAt }));
    resultValue = sanitizeResult(assembled.result, deps.sanitizers);
  } catch (error) {
    throw assemblyError(folder.path, run.keptRequests, error);
  }
  let text: string;
  try {
    text = await finishFolder(resultValue, folder, deps);
    await folder.writeResults(text);
  } catch (error) {
    throw writeError(folder.path, run.keptRequests, error, `writing ${RESULT_FILES.results}`);
  }
  const validationProblems = await selfCheck(text, prepared, folder, deps);
  return { folder: folder.path, result: resultValue, validationProblems, unexplainedNulls: assembled.unexplainedNulls };
}

/**
 * Sends the plan, GPU power sampled around it. Each request's record is built once, when it ends, from the text as
 * the engine sent it; what is published (its evidence line and the record in results.json) is redacted and kept
 * consistent by report/'s publishRequest. @throws {RunWriteError} when an evidence line could not be appended.
 */
async function runRequests(options: RunOptions, deps: RunDeps, prepared: PreparedRun, folder: ResultFolder) {
  // A write failure stops the run as Ctrl-C does (the request in flight is cancelled, the rest skipped); the
  // evidence already flushed stays, and no further line is appended, so outputs.jsonl holds only whole lines.
  const stop = new AbortController();
  const forwardAbort = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) forwardAbort();
  else options.signal?.addEventListener("abort", forwardAbort, { once: true });
  let writeFailure: RunWriteError | null = null;
  let keptRequests = 0;
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
  return { execution, requests, overridden, configChecks, gpuPower, keptRequests };
}

/** What assembleResult is given: the run's timeline and records, the protocol, provenance and extensions. */
function resultInput(
  options: RunOptions,
  prepared: PreparedRun,
  { execution, requests, overridden, configChecks, gpuPower }: Awaited<ReturnType<typeof runRequests>>,
  artifacts: Artifact[],
  engineLog: Awaited<ReturnType<typeof readEngineLog>> | null,
  { runId, startedAt }: { runId: string; startedAt: string },
): Parameters<typeof assembleResult>[0] {
  const headersS = Object.fromEntries(
    execution.requests.map((r) => [r.fixture.id, r.kind === "outcome" ? r.outcome.offsets.headers_s : null]),
  );
  const { requests: _executed, ...timeline } = execution;
  const { hardware, software, model, configuration, missing, nonconformingReasons } = prepared.provenance;
  return {
    runId,
    startedAt,
    command: options.command,
    optionalConcurrency: options.optionalConcurrency,
    execution: timeline,
    requests,
    protocol: {
      // The protocol definition (fixtures, scoring) is this toolkit's commit.
      gitCommit: software.runner_commit,
      gitCommitReason: missing["/software/runner_commit"] ?? null,
      corpusSha256: prepared.bundle.corpusSha256,
      modelCardRevision: null,
      modelCardRevisionReason: "the protocol is a draft: the model-card revision is not pinned until activation",
    },
    provenance: { hardware, software, model, configuration, missing, nonconformingReasons },
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
      round_queueing: options.optionalConcurrency
        ? roundQueueing(requests.map((r) => r.built.record), headersS, configuration.server_capacity)
        : [],
      template_check: templateCheckSummary(prepared.templateCheck, options),
    },
  };
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
    extensions["pictures_problem"] = `the pictures could not be drawn: ${errorMessage(error)}`;
  }
  extensions[DIGEST_KEYS.readme] = await writeReadme(result, folder, deps);
  const outputs = await deps.readArtifact(folder.path, RESULT_FILES.outputs);
  const outputsText = outputs === null ? "" : new TextDecoder().decode(outputs);
  extensions[DIGEST_KEYS.digest] = measuredDigest(
    result as unknown as Record<string, unknown>,
    RESULT_FILES.outputs,
    outputsText,
  );
  // Compact: a reader pretty-prints it (jq .); the bytes are what a results repository stores and serves.
  return `${JSON.stringify(result)}\n`;
}

/**
 * Writes README.md as drawn from the result; when drawing it, or sanitizing what was drawn, fails (a defect, not
 * the disk: a RangeError such as a stack overflow on a hostile tool's text, or a TypeError), a short README that
 * says so (the reason kept in extensions.readme_problem), so a README defect never costs the measured result. A
 * failed write of the disk is thrown as it is. Resolves with the SHA-256 of what was written.
 */
async function writeReadme(result: Result, folder: ResultFolder, deps: RunDeps): Promise<string> {
  const short = (error: unknown, what: string) => {
    const why = errorLine(error);
    (result.extensions ??= {})["readme_problem"] = `README.md could not be ${what}: ${why}`;
    return `# Result ${result.run.id}\n\nREADME.md could not be ${what} (${why}). results.json holds the whole ` +
      "result: `strata-bench report <this folder>` validates it and prints the same audit.\n";
  };
  let text: string;
  try {
    text = deps.renderReadme(result);
  } catch (error) {
    text = short(error, "drawn");
  }
  try {
    return await folder.writeFile(RESULT_FILES.readme, text);
  } catch (error) {
    if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
    return await folder.writeFile(RESULT_FILES.readme, short(error, "sanitized"));
  }
}

/** Bundle, URL, /health, server identity, provenance, plan and bodies: all before anything is sent. */
async function prepareRun(options: RunOptions, deps: RunDeps): Promise<PreparedRun> {
  options.onStage?.("checking");
  const bundle = await refusing("bundle", () => deps.loadBundle());
  const where = await refusing("url", () => classifyServerUrl(options.baseUrl));
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
          `--allow-net=${refusedHost}); strata-bench run measures loopback servers only (127.0.0.1, localhost, ::1)`,
      );
    }
    // A server that answered is there: "start it" would mislead (it may still be loading its model).
    throw new RunRefusedError(
      "unreachable",
      health.status === null && health.connected === true
        ? `Cannot run the protocol: a process at ${options.baseUrl} took the connection but gave /health no HTTP ` +
          `answer (${health.message}); check that --url is the server's address (not a proxy or another ` +
          "program) and read the server's log"
        : health.status === null
        ? `Cannot run the protocol: the server at ${options.baseUrl} did not answer /health (${health.message}); ` +
          "start it first or pass --url with the right address"
        : `Cannot run the protocol: the server at ${options.baseUrl} answered /health with HTTP ${health.status} ` +
          `(${health.message}), not 200; wait until it has loaded the model, or check that --url is its address`,
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
  const templateCheck = await runTemplateCheck(options, deps, plan.fixtures, bodies);
  return {
    bundle,
    where,
    server,
    provenance,
    plan,
    bodies,
    sampling,
    chatTemplateKwargs,
    reasons,
    simulated,
    templateCheck,
  };
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
  const name = resultFolderName(startedAt, gpuSlug(gpus === null ? null : gpus.map((g) => g.name)), runId);
  return await refusing("folder", () => openResultFolder(deps.files, root, name, deps.sanitizers));
}

/** What `work` gives, or a RunRefusedError of `code` carrying the error it threw (nothing was sent). */
async function refusing<T>(code: RunRefusedError["code"], work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new RunRefusedError(code, errorMessage(error), error);
  }
}

/**
 * The artifacts after the run: outputs.jsonl (appended during it), the engine log (a started engine's or
 * --engine-log's), the sanitized configuration, and the chat template the server uses. configuration.template then
 * points to the attached copy (hash of the bytes written); without a template the probe already gave the reason.
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
  artifacts.push(await folder.writeJsonArtifact("config", RESULT_FILES.config, config));
  if (prepared.templateCheck?.supported) {
    artifacts.push(
      await folder.writeArtifact("provenance", TEMPLATE_CHECK_FILE, templateCheckArtifact(prepared.templateCheck)),
    );
  }
  const { provenance } = prepared;
  if (provenance.templateText !== null) {
    const template = await folder.writeArtifact("provenance", RESULT_FILES.template, provenance.templateText);
    artifacts.push(template);
    provenance.configuration.template = { path: template.path, sha256: template.sha256 };
    delete provenance.missing["/configuration/template"];
  }
  return artifacts;
}

/** The template check's table in the result folder. */
export const TEMPLATE_CHECK_FILE = "template_check.json";

/** Why the engine's resolved configuration is not read at all, or null when /slots is read after each batch. */
function slotsUnavailable(server: ServerFacts): string | null {
  if (server.dialect === "llama.cpp") return null;
  return `the server's dialect is ${server.dialect} (${server.dialectEvidence}): only llama.cpp's GET /slots ` +
    "reports the parameters each task ran with, so the resolved configuration is not read";
}

/**
 * The same check `report` runs on the written text: results.json read back through report's reader and its size
 * cap (a file `report` would not read is a problem here too, never a valid result), then records rebuilt from the
 * evidence, corpus pinned.
 */
async function selfCheck(
  text: string,
  prepared: PreparedRun,
  folder: ResultFolder,
  deps: RunDeps,
): Promise<{ pointer: string; message: string }[]> {
  try {
    await deps.readArtifact(folder.path, RESULT_FILES.results);
  } catch (error) {
    return [{ pointer: "", message: errorMessage(error) }];
  }
  const readArtifact = (relativePath: string) => deps.readArtifact(folder.path, relativePath);
  return await deps.validateResultText(text, validationOptions(prepared.bundle, readArtifact));
}
