/** Finds a profile by name or path, reads it and resolves its placeholders against this machine's cache. */
import { dirname, isAbsolute, join, resolve as resolvePath } from "node:path";
import { env, readTextOutcome, toolkitCacheDir } from "../runtime/mod.ts";
import { enginePaths, LLAMA_CPP_COMMIT } from "./paths.ts";
import { type EngineProfile, parseProfile } from "./profile.ts";
import { defaultTinyQwen3Path } from "./tiny_model_file.ts";

/** Most bytes a profile file may hold (a profile is a few hundred; a larger file is refused, not read). */
const MAX_PROFILE_BYTES = 1024 * 1024;

/** Where to look for a profile given by name. */
export interface LoadProfileOptions {
  /** The toolkit's root: `NAME` means `<toolkitDir>/profiles/NAME.jsonc`. */
  toolkitDir: string | null;
  /** Folder a relative path is resolved against; also searched as `<cwd>/profiles/NAME.jsonc`. */
  cwd: string;
}

/** Whether `ref` names a file (has a folder separator or a .json/.jsonc ending) rather than a profile name. */
function isPath(ref: string): boolean {
  return ref.includes("/") || ref.includes("\\") || /\.jsonc?$/i.test(ref);
}

/**
 * Loads `ref`: a profile name (`tiny-qwen3`) looked up under profiles/, or a path to a JSONC file.
 * @throws {Error} when the file cannot be found or read (the message lists where it looked).
 * @throws {SyntaxError} when the profile is malformed or a placeholder cannot be resolved.
 */
export async function loadProfile(ref: string, options: LoadProfileOptions): Promise<EngineProfile> {
  // A Set: run from the toolkit's own folder, both places are one file, and the error names it once.
  const candidates = isPath(ref) ? [isAbsolute(ref) ? ref : resolvePath(options.cwd, ref)] : [
    ...new Set([
      ...(options.toolkitDir === null ? [] : [join(options.toolkitDir, "profiles", `${ref}.jsonc`)]),
      join(options.cwd, "profiles", `${ref}.jsonc`),
    ]),
  ];
  const reasons: string[] = [];
  for (const path of candidates) {
    const text = await readTextOutcome(path, { maxBytes: MAX_PROFILE_BYTES });
    if (!text.ok) {
      reasons.push(text.reason);
      continue;
    }
    const cache = toolkitCacheDir();
    const vars: Record<string, string | undefined> = {
      cache: cache.ok ? cache.value : undefined,
      llama_server: cache.ok ? enginePaths(cache.value).llamaServer : undefined,
      tiny_qwen3: undefined,
      profile_dir: dirname(path),
      llama_cpp_commit: LLAMA_CPP_COMMIT,
    };
    if (cache.ok && text.value.includes("${tiny_qwen3}")) vars.tiny_qwen3 = await defaultTinyQwen3Path(cache.value);
    return parseProfile(text.value, ref, { vars, env });
  }
  throw new Error(
    `Cannot find profile "${ref}": ${reasons.join("; ")}. Give a profile name from profiles/ or a path to a ` +
      ".jsonc file",
  );
}
