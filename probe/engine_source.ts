/**
 * The engine's full commit from a local llama.cpp checkout (`--engine-source DIR`): llama-server reports only a
 * short one (build_info "b7000-80fb11a"), which is resolved here to the one object of the checkout whose id
 * starts with it. Read without a git process (no hook or configuration of the checkout runs): loose objects
 * (objects/XX/...) and pack indexes (objects/pack/*.idx, version 2: a fan-out table, then the sorted ids).
 */
import { type Outcome, type ProbeDeps, readPrefix } from "./_deps.ts";
import { gitFolders } from "./commit.ts";

/** The short commit in a llama.cpp build_info or version ("b7000-80fb11a" -> "80fb11a"), or null. */
export function shortEngineCommit(version: string | null): string | null {
  return /(?:^|-)g?([0-9a-f]{7,39})$/i.exec(version?.trim() ?? "")?.[1]?.toLowerCase() ?? null;
}

/** The most bytes of one pack index read (about 28 bytes per object: 38 million objects). */
const MAX_IDX_BYTES = 1024 * 1024 * 1024;

async function readBytes(deps: ProbeDeps, path: string): Promise<Uint8Array | null> {
  const facts = await deps.stat(path);
  if (!facts.ok || !facts.value.isFile || facts.value.sizeBytes > MAX_IDX_BYTES) return null;
  const bytes = await readPrefix(deps, path, MAX_IDX_BYTES);
  return typeof bytes === "string" ? null : bytes;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Object ids in a version-2 pack index that start with `prefix`; null when the bytes are not such an index. */
export function idsInPackIndex(bytes: Uint8Array, prefix: string): string[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 + 1024 || view.getUint32(0) !== 0xff744f63 || view.getUint32(4) !== 2) return null;
  const first = parseInt(prefix.slice(0, 2), 16);
  const count = view.getUint32(8 + 255 * 4);
  if (8 + 1024 + count * 20 > bytes.length) return null;
  const low = first === 0 ? 0 : view.getUint32(8 + (first - 1) * 4);
  const high = view.getUint32(8 + first * 4);
  if (low > high || high > count) return null;
  const found: string[] = [];
  for (let i = low; i < high; i++) {
    const id = hex(bytes.subarray(8 + 1024 + i * 20, 8 + 1024 + (i + 1) * 20));
    if (id.startsWith(prefix)) found.push(id);
  }
  return found;
}

/** The checkout's git folder holding objects/ (its .git's common folder; a folder without .git is taken as bare). */
async function objectsDir(dir: string, deps: ProbeDeps): Promise<string | null> {
  const folders = await gitFolders(dir, deps);
  const objects = `${folders.ok ? folders.value.commonDir : dir}/objects`;
  const facts = await deps.stat(objects);
  return facts.ok && facts.value.isDirectory ? objects : null;
}

/**
 * Resolves `shortCommit` to the full 40-character id in the llama.cpp checkout at `dir`.
 * Fails with a reason when the folder is not a git checkout, has no such object, or has several.
 */
export async function resolveEngineCommit(dir: string, shortCommit: string, deps: ProbeDeps): Promise<Outcome<string>> {
  const fail = (reason: string): Outcome<string> => ({ ok: false, kind: "failed", reason });
  const prefix = shortCommit.toLowerCase();
  if (!/^[0-9a-f]{4,40}$/.test(prefix)) return fail(`"${shortCommit}" is not a commit prefix`);
  const objects = await objectsDir(dir.replace(/\/+$/, ""), deps);
  if (objects === null) return fail(`--engine-source "${dir}" is not a git checkout (no .git/objects)`);
  const found = new Set<string>();
  const loose = await deps.readDir(`${objects}/${prefix.slice(0, 2)}`);
  if (loose.ok) {
    for (const name of loose.value) {
      const id = `${prefix.slice(0, 2)}${name}`;
      if (/^[0-9a-f]{40}$/.test(id) && id.startsWith(prefix)) found.add(id);
    }
  }
  const packs = await deps.readDir(`${objects}/pack`);
  for (const name of packs.ok ? packs.value.filter((n) => n.endsWith(".idx")) : []) {
    const bytes = await readBytes(deps, `${objects}/pack/${name}`);
    for (const id of bytes === null ? [] : idsInPackIndex(bytes, prefix) ?? []) found.add(id);
  }
  if (found.size === 0) {
    return fail(`the checkout "${dir}" has no commit ${prefix} (fetch it, or check out the server's source)`);
  }
  if (found.size > 1) return fail(`${prefix} names ${found.size} objects in "${dir}"; give --engine-commit instead`);
  return { ok: true, value: [...found][0]! };
}
