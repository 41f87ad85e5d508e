/** The real parts `run` joins: fixtures, streaming client, probes, sanitizer, validator, renderers, files. */
import { dirname } from "node:path";
import { checkHealth, streamChat } from "../client/mod.ts";
import { loadBundle } from "../fixtures/mod.ts";
import {
  collectProvenance,
  defaultProbeDeps,
  type ModelHashProgress,
  probeServer,
  readSlots,
  renderAndCount,
  startGpuPowerSampler,
  toolkitDirFromModule,
} from "../probe/mod.ts";
import {
  artifactReaderOf,
  renderReadme,
  renderResultPictures,
  RESULT_FILES,
  validateResultText,
} from "../report/mod.ts";
import { machineSanitizer } from "../sanitize/mod.ts";
import { openSafeFolder, resultFiles } from "../runtime/mod.ts";
import { buildChatBody } from "./request_body.ts";
import type { RunDeps, RunOptions } from "./run_options.ts";

/** Settings of the real parts that tests and the demo change. */
export interface RealRunSettings {
  /** Model-hash cache folder; undefined: the probe's default ($XDG_CACHE_HOME/strata-bench), null: no cache. */
  hashCacheDir?: string | null;
  /** Hears the model-file hashing progress (the CLI prints it). */
  onHashProgress?(progress: ModelHashProgress): void;
}

/** Binds the real implementations; `overrides` replaces single parts (tests, the demo). */
export function realRunDeps(overrides: Partial<RunDeps> = {}, settings: RealRunSettings = {}): RunDeps {
  const probeDeps = defaultProbeDeps();
  const sanitizers = machineSanitizer();
  return {
    loadBundle: () => loadBundle(),
    streamChat: (options) => streamChat(options),
    checkHealth: (baseUrl, timeoutMs) => checkHealth(baseUrl, timeoutMs),
    nowMs: () => performance.now(),
    now: () => new Date(),
    buildChatBody: (fixture, dialect) => buildChatBody(fixture, dialect),
    probeServer: (baseUrl) => probeServer(baseUrl, { fetch: probeDeps.fetch }),
    readSlots: (baseUrl) => readSlots(baseUrl, { fetch: probeDeps.fetch, timeoutMs: 5000 }),
    renderAndCount: (baseUrl, requests, signal) =>
      renderAndCount(baseUrl, requests, {
        fetch: probeDeps.fetch,
        timeoutMs: 30_000,
        ...(signal === undefined ? {} : { signal }),
      }),
    collectProvenance: (server, options: RunOptions) =>
      collectProvenance({
        deps: probeDeps,
        server,
        engineArgs: options.engineArgs ?? null,
        // A server the runner did not start: its command line is read from the process on the port, else declared.
        observeEngineAt: options.engineArgs ? null : options.baseUrl,
        declaredEngineArgs: options.declared.engineCommandLine ?? null,
        packDir: options.packDir ?? null,
        ...(options.engineModelFiles === undefined ? {} : { extraModelFiles: options.engineModelFiles }),
        toolkitDir: toolkitDirFromModule(),
        executableDir: executableDir(probeDeps.execPath()),
        backgroundWorkloads: options.declared.background,
        ...(options.engineEnv === undefined ? {} : { engineEnv: options.engineEnv }),
        operator: operatorFacts(options),
        templateArtifactPath: RESULT_FILES.template,
        ...(settings.hashCacheDir === undefined ? {} : { cacheDir: settings.hashCacheDir }),
        ...(settings.onHashProgress === undefined ? {} : { onHashProgress: settings.onHashProgress }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    files: resultFiles,
    sanitizers,
    validateResultText,
    // The same reader and caps as `report`: a file the run wrote that report would refuse fails the self-check.
    readArtifact: async (folder, relativePath) => artifactReaderOf(await openSafeFolder(folder))(relativePath),
    renderReadme,
    renderPictures: renderResultPictures,
    startGpuPower: (nowMs) => startGpuPowerSampler({ runCommand: probeDeps.runCommand, nowMs }),
    ...overrides,
  };
}

function executableDir(path: { ok: true; value: string } | { ok: false }): string | null {
  return path.ok ? dirname(path.value) : null;
}

function operatorFacts(options: RunOptions) {
  const d = options.declared;
  const out: Record<string, string | readonly string[]> = {};
  if (d.engineCommit !== null) out.engineCommit = d.engineCommit;
  if (d.engineSource) out.engineSource = d.engineSource;
  if (d.buildOptions !== null) out.buildOptions = d.buildOptions;
  if (d.modelId !== null) out.modelId = d.modelId;
  if (d.modelRevision !== null) out.modelRevision = d.modelRevision;
  if (d.sourceRevision !== null) out.sourceRevision = d.sourceRevision;
  if (d.quantization !== null) out.quantization = d.quantization;
  if (d.tokenizerRevision !== null) out.tokenizerRevision = d.tokenizerRevision;
  if (d.customPack !== null) out.customPack = d.customPack;
  return out;
}
