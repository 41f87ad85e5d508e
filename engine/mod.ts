/**
 * The real engine: llama-server provisioning (`engine:build`), the tiny qwen3 model (`engine:model`), JSONC
 * engine profiles, and the process control `run --profile` uses (start on loopback, wait for ready, capture the
 * log, stop).
 */
import { resultFiles } from "../runtime/mod.ts";
import { toolkitDirFromModule } from "../probe/mod.ts";
import { type EngineHandle, startEngine, type StartEngineOptions } from "./engine_process.ts";
import { loadProfile } from "./load_profile.ts";

export { encodeGguf, GGML_TYPES, type GgufContent, type GgufTensor, type GgufValue } from "./gguf_writer.ts";
export {
  buildTinyQwen3,
  float16Bits,
  TINY_QWEN3_DEFAULTS,
  tinyQwen3FileName,
  type TinyQwen3Options,
  type TokenizerSource,
} from "./tiny_qwen3.ts";
export { ensureTinyQwen3, loadTokenizerSource, type TinyModelFile, tinyQwen3Bytes } from "./tiny_model_file.ts";
export { cacheDir, type EnginePaths, enginePaths, LLAMA_CPP_COMMIT, NODE_LLAMA_CPP } from "./paths.ts";
export { buildLogState, ProvisionError, provisionLlamaServer, type ProvisionResult } from "./provision.ts";
export { engineArgv, type EngineProfile, parseProfile, profileBaseUrl, type ProfileContext } from "./profile.ts";
export { loadProfile, type LoadProfileOptions } from "./load_profile.ts";
export {
  type EngineHandle,
  EngineStartError,
  logTail,
  startEngine,
  type StartEngineOptions,
} from "./engine_process.ts";

/**
 * Loads profile `ref` (a name under profiles/ or a .jsonc path) and returns a ready server for it: one already
 * listening on its port, or its engine started now (stop it with `handle.stop()`).
 * @throws {SyntaxError} for a malformed profile; {Error} when it cannot be found; {EngineStartError} when the
 * engine cannot be used.
 */
export async function startProfileEngine(ref: string, options: StartEngineOptions = {}): Promise<EngineHandle> {
  const profile = await loadProfile(ref, { toolkitDir: toolkitDirFromModule(), cwd: resultFiles.cwd() });
  return await startEngine(profile, options);
}
