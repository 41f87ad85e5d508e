/** The real parts `run` joins: fixtures, streaming client, probes, sanitizer, validator, renderers, files. */
import { dirname, join } from "node:path";
import { loadBundle } from "../fixtures/mod.ts";
import { buildChatBody } from "../runner/mod.ts";
import { checkHealth, streamChat } from "../client/mod.ts";
import { collectProvenance, defaultProbeDeps, probeServer, toolkitDirFromModule } from "../probe/mod.ts";
import { createSanitizer, renderReadme, validateResultText } from "../report/mod.ts";
import { readFile, resultFiles, sys, writeStderr } from "../runtime/mod.ts";
import type { RunDeps, RunOptions } from "./_run_protocol.ts";

/** Name of the chat template artifact inside the result folder. */
const TEMPLATE_ARTIFACT = "template.jinja";

/** Settings of the real parts that tests and the demo change. */
export interface RealRunSettings {
  /** Model-hash cache folder; undefined: the probe's default ($XDG_CACHE_HOME/strata-bench), null: no cache. */
  hashCacheDir?: string | null;
}

/** Binds the real implementations; `overrides` replaces single parts (tests, the demo). */
export function realRunDeps(overrides: Partial<RunDeps> = {}, settings: RealRunSettings = {}): RunDeps {
  const probeDeps = defaultProbeDeps();
  const home = probeDeps.homeDir();
  const user = sys.username();
  const host = sys.hostname();
  const sanitizers = createSanitizer({
    username: user.ok ? user.value : null,
    hostname: host.ok ? host.value : null,
    homeDir: home.ok ? home.value : null,
  });
  return {
    loadBundle: () => loadBundle(),
    streamChat: (options) => streamChat(options),
    checkHealth: (baseUrl, timeoutMs) => checkHealth(baseUrl, timeoutMs),
    nowMs: () => performance.now(),
    now: () => new Date(),
    buildChatBody: (fixture, dialect) => buildChatBody(fixture, dialect),
    probeServer: (baseUrl) => probeServer(baseUrl, { fetch: probeDeps.fetch }),
    collectProvenance: (server, options: RunOptions) =>
      collectProvenance({
        deps: probeDeps,
        server,
        engineArgs: options.engineArgs ?? null,
        ...(options.engineModelFiles === undefined ? {} : { extraModelFiles: options.engineModelFiles }),
        toolkitDir: toolkitDirFromModule(),
        executableDir: executableDir(probeDeps.execPath()),
        backgroundWorkloads: options.declared.background,
        operator: operatorFacts(options),
        templateArtifactPath: TEMPLATE_ARTIFACT,
        ...(settings.hashCacheDir === undefined ? {} : { cacheDir: settings.hashCacheDir }),
        onHashProgress: (p) => {
          if (p.done) writeStderr(`hashed model file ${p.fileIndex + 1}/${p.fileCount}\n`);
        },
      }),
    files: resultFiles,
    sanitizers,
    validateResultText,
    readArtifact: async (folder, relativePath) => {
      try {
        return await readFile(join(folder, relativePath));
      } catch {
        return null;
      }
    },
    renderReadme,
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
  if (d.buildOptions !== null) out.buildOptions = d.buildOptions;
  if (d.modelId !== null) out.modelId = d.modelId;
  if (d.modelRevision !== null) out.modelRevision = d.modelRevision;
  if (d.sourceRevision !== null) out.sourceRevision = d.sourceRevision;
  if (d.quantization !== null) out.quantization = d.quantization;
  if (d.tokenizerRevision !== null) out.tokenizerRevision = d.tokenizerRevision;
  if (d.customPack !== null) out.customPack = d.customPack;
  return out;
}
