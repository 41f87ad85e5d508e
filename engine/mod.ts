/**
 * The real engine: llama-server provisioning (`engine:build`), the tiny qwen3 model (`engine:model`), JSONC
 * engine profiles, and the process control `run --profile` uses (start on loopback, wait for ready, capture the
 * log, stop).
 */
import { resultFiles, toolkitDirFromModule } from "../runtime/mod.ts";
import { type EngineHandle, startEngine, type StartEngineOptions } from "./engine_process.ts";
import { loadProfile } from "./load_profile.ts";

export { ensureTinyQwen3 } from "./tiny_model_file.ts";
export { enginePaths, LLAMA_CPP_COMMIT } from "./paths.ts";
export { type EngineHandle, startEngine } from "./engine_process.ts";

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
