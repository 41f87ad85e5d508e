/**
 * Provenance probes: hardware (nvidia-smi, rocm-smi / amd-smi, Apple silicon, /proc, sysfs, os-release), server
 * facts (/props, /v1/status, /slots, /metrics), model files with streaming SHA-256 and a hash cache, the
 * toolkit's commit, and engine configuration objects. Every probe takes its effects as parameters
 * (`ProbeDeps`); `defaultProbeDeps()` wires the real runtime. No probe throws for an unavailable fact: it
 * returns null plus a reason.
 *
 * The run engineer's entry point is `collectProvenance`:
 *
 * ```ts
 * const facts = await collectProvenance({ deps: defaultProbeDeps(), baseUrl, engineArgs, toolkitDir });
 * // facts.hardware, facts.software, facts.model, facts.configuration (contract shapes),
 * // facts.missing (JSON Pointer -> reason), facts.nonconformingReasons, facts.templateText (attach it).
 * ```
 */
import {
  openReaderOutcome,
  readDirOutcome,
  readTextOutcome,
  realPathOutcome,
  runCommand,
  statOutcome,
  sys,
  writeTextOutcome,
} from "../runtime/mod.ts";
import type { ProbeDeps } from "./_deps.ts";
import { startModuleHashWorker } from "./_hash_pool.ts";

export type { CommandOutput, FileFacts, FileReader, MissingMap, Outcome, ProbeDeps } from "./_deps.ts";
export { type DeviceSelection, type HardwareFacts, probeHardware, type ProbeHardwareOptions } from "./hardware.ts";
export {
  engineCommitFromBuildInfo,
  type PriorRequests,
  priorRequestsFrom,
  probeDialect,
  probeServer,
  type ProbeServerDeps,
  readSlots,
  type ServerFacts,
  sha256Text,
  type SlotsAnswer,
} from "./server.ts";
export {
  buildConfigurationObjects,
  CONFIGURATION_OBJECTS,
  type ConfigurationObjectName,
  type ConfigurationObjects,
  type EngineArgsReading,
  readEngineArgs,
} from "./configuration.ts";
export {
  declaredEngineArgs,
  type EngineCommandLineReading,
  observeEngineCommandLine,
  splitCommandLine,
} from "./engine_command_line.ts";
export {
  GGML_TYPE_NAMES,
  GGUF_VALUE_TYPES,
  type GgufFile,
  type GgufScalarType,
  type GgufTensorInfo,
  type GgufValue,
  readGguf,
  type ReadGgufOptions,
} from "./gguf_reader.ts";
export {
  renderAndCount,
  type ServerTokens,
  TEMPLATE_PROBE_SOURCE,
  type TemplateProbe,
  tokensOfAnswer,
} from "./template_probe.ts";
export { idsInPackIndex, resolveEngineCommit, shortEngineCommit } from "./engine_source.ts";
export {
  GGUF_FILE_TYPES,
  HEADER_MAX_BYTES,
  type ModelFileFactsOptions,
  type ModelFileFactsReading,
  readModelFileFacts,
} from "./model_file_facts.ts";
export {
  expandShards,
  findAndHashModelFiles,
  type ModelFileDetail,
  type ModelFileOptions,
  type ModelFilesResult,
  type ModelHashProgress,
  packRelativeName,
} from "./model_files.ts";
export { hashFile, type HashFileDeps, type HashFileOptions, type HashProgress } from "./hash_file.ts";
export type { HashWorkerPort, StartHashWorker } from "./_hash_pool.ts";
export { type HashCache, hashCacheKey, openHashCache } from "./hash_cache.ts";
export {
  bakeRunnerCommit,
  bakeToolkitVersion,
  readGitHead,
  readRunnerCommit,
  readToolkitVersion,
  type RunnerCommit,
  type RunnerCommitOptions,
} from "./commit.ts";
export {
  type GpuPowerSampler,
  type PowerTrace,
  startGpuPowerSampler,
  type WindowPower,
  windowPower,
} from "./gpu_power.ts";
export { collectProvenance, type CollectProvenanceOptions, type OperatorFacts, type Provenance } from "./provenance.ts";

/** The real effects: runtime adapters that return refusals instead of throwing, and the global fetch. */
export function defaultProbeDeps(): ProbeDeps {
  return {
    runCommand,
    readText: readTextOutcome,
    readDir: readDirOutcome,
    stat: statOutcome,
    realPath: realPathOutcome,
    openReader: openReaderOutcome,
    writeText: writeTextOutcome,
    fetch: (input, init) => fetch(input, init),
    platform: sys.platform(),
    arch: sys.arch(),
    osRelease: sys.osRelease,
    totalMemBytes: sys.totalMemBytes,
    cpuModel: sys.cpuModel,
    cpuCount: sys.cpuCount,
    env: sys.env,
    homeDir: sys.homeDir,
    execPath: sys.execPath,
    nowMs: () => performance.now(),
    startHashWorker: startModuleHashWorker,
  };
}

/** The toolkit's root folder, defined in runtime/ (named here too for the parts that read it with the probe). */
export { toolkitDirFromModule } from "../runtime/mod.ts";
