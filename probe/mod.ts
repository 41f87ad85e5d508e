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
  MAX_COMMAND_OUTPUT_BYTES,
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

export type { ProbeDeps } from "./_deps.ts";
export { probeDialect, probeServer, readSlots, type ServerFacts } from "./server.ts";
export { declaredEngineArgs } from "./engine_command_line.ts";
export { GGUF_VALUE_TYPES, type GgufScalarType, type GgufValue } from "./gguf_reader.ts";
export { renderAndCount, TEMPLATE_PROBE_SOURCE, type TemplateProbe } from "./template_probe.ts";
export { shortEngineCommit } from "./engine_source.ts";
export { findAndHashModelFiles, type ModelHashProgress } from "./model_files.ts";
export { hashFile } from "./hash_file.ts";
export { bakeRunnerCommit, bakeToolkitVersion, readGitHead, readRunnerCommit, readToolkitVersion } from "./commit.ts";
export {
  type GpuPowerSampler,
  type PowerTrace,
  startGpuPowerSampler,
  type WindowPower,
  windowPower,
} from "./gpu_power.ts";
export { collectProvenance, type Provenance } from "./provenance.ts";

/**
 * A system tool's output, or why it was not used: a tool that printed past the runtime's per-stream cap (a flood,
 * a hostile stand-in first on PATH) is refused with how much was cut, never parsed from a cut text.
 */
const runTool: ProbeDeps["runCommand"] = async (command, args, options) => {
  const ran = await runCommand(command, args, options);
  if (!ran.ok || ran.value.cutBytes === undefined) return ran;
  return {
    ok: false,
    kind: "failed",
    reason: `${command} printed ${ran.value.cutBytes} bytes past the ${MAX_COMMAND_OUTPUT_BYTES}-byte cap of a ` +
      "stream; its output was not used",
  };
};

/** The real effects: runtime adapters that return refusals instead of throwing, and the global fetch. */
export function defaultProbeDeps(): ProbeDeps {
  return {
    runCommand: runTool,
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
