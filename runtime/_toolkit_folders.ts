/**
 * The toolkit's own folders: its root (where mod.ts and the parts live) and its cache folder outside the repository
 * (the hash cache, the provisioned engine and the tiny model live there; nothing in it is ever committed).
 */
import type { Outcome } from "./_refusal.ts";
import { sys } from "./_sys.ts";

/** Where the environment is read from (runtime's `sys` by default; tests pass their own). */
export type FolderEnv = Pick<typeof sys, "env" | "homeDir">;

/** $XDG_CACHE_HOME/strata-bench, else $HOME/.cache/strata-bench (LOCALAPPDATA on Windows), or why none. */
export function toolkitCacheDir(deps: FolderEnv = sys): Outcome<string> {
  const xdg = deps.env("XDG_CACHE_HOME");
  if (xdg.ok && xdg.value.startsWith("/")) return { ok: true, value: `${xdg.value}/strata-bench` };
  const local = deps.env("LOCALAPPDATA");
  if (local.ok) return { ok: true, value: `${local.value}\\strata-bench` };
  const home = deps.env("HOME");
  if (home.ok) return { ok: true, value: `${home.value}/.cache/strata-bench` };
  const dir = deps.homeDir();
  if (dir.ok) return { ok: true, value: `${dir.value}/.cache/strata-bench` };
  return { ok: false, kind: "not_found", reason: `no cache folder: ${home.reason}; ${dir.reason}` };
}

/** The toolkit's root folder (parent of runtime/), from this module's URL; null when not a file URL. */
export function toolkitDirFromModule(): string | null {
  const url = new URL("../", import.meta.url);
  if (url.protocol !== "file:") return null;
  const path = decodeURIComponent(url.pathname);
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1, -1) : path.replace(/\/$/, "");
}
