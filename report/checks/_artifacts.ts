/**
 * Artifacts: unique paths, an outputs file present, the template attached, and every file's SHA-256 equal to the
 * hash the result records (a file that cannot be found is a problem).
 */
import { type Artifact, type Configuration, sha256Hex } from "../../contract/mod.ts";
import { childPointer, type ProblemSink } from "../_pointer.ts";
import { errorMessage } from "../../runtime/mod.ts";

/** Reads one file of the result folder by its relative path; null when it does not exist. */
export type ArtifactReader = (relativePath: string) => Promise<Uint8Array | null>;

/** Listing rules that need no file access. `valid[i]` says whether artifact i passed the shape check. */
export function checkArtifactList(
  artifacts: readonly Artifact[],
  template: Configuration["template"] | undefined,
  problems: ProblemSink,
): void {
  const firstIndex = new Map<string, number>();
  artifacts.forEach((artifact, index) => {
    const first = firstIndex.get(artifact.path);
    if (first !== undefined) {
      problems.push({
        pointer: childPointer(childPointer("/artifacts", index), "path"),
        message: `"${artifact.path}" is listed twice (first at /artifacts/${first})`,
      });
    } else {
      firstIndex.set(artifact.path, index);
    }
  });
  if (!artifacts.some((artifact) => artifact.kind === "outputs")) {
    problems.push({ pointer: "/artifacts", message: 'no "outputs" artifact: the request/output evidence is required' });
  }
  if (template) {
    const attached = artifacts.find((artifact) => artifact.path === template.path);
    if (!attached) {
      problems.push({
        pointer: "/configuration/template/path",
        message: `the effective template "${template.path}" must be attached as an artifact`,
      });
    } else if (attached.sha256 !== template.sha256) {
      problems.push({
        pointer: "/configuration/template/sha256",
        message: `differs from the attached artifact's sha256 (${attached.sha256})`,
      });
    }
  }
}

/** Hashes each listed file through `read` and compares with its recorded sha256. */
export async function checkArtifactBytes(
  artifacts: readonly { index: number; artifact: Artifact }[],
  read: ArtifactReader,
  problems: ProblemSink,
): Promise<void> {
  for (const { index, artifact } of artifacts) {
    const base = childPointer("/artifacts", index);
    let bytes: Uint8Array | null;
    try {
      bytes = await read(artifact.path);
    } catch (error) {
      const detail = errorMessage(error);
      problems.push({ pointer: childPointer(base, "path"), message: `cannot read "${artifact.path}": ${detail}` });
      continue;
    }
    if (bytes === null) {
      problems.push({
        pointer: childPointer(base, "path"),
        message: `"${artifact.path}" is not in the result folder`,
      });
      continue;
    }
    const actual = sha256Hex(bytes);
    if (actual !== artifact.sha256) {
      problems.push({
        pointer: childPointer(base, "sha256"),
        message:
          `does not match the bytes of "${artifact.path}" (they hash to ${actual}); the file changed after hashing`,
      });
    }
  }
}

/** Name endings of model weight and checkpoint files ("never add model weights or generated packs"). */
const WEIGHT_ENDINGS = [
  ".gguf",
  ".ggml",
  ".safetensors",
  ".bin",
  ".pt",
  ".pth",
  ".ckpt",
  ".onnx",
  ".h5",
  ".pb",
  ".tflite",
  ".npz",
  ".pkl",
  ".mlmodel",
  ".nemo",
] as const;

/** "GGUF" or "safetensors" when the first bytes are that format's header, else null. */
function weightFormat(bytes: Uint8Array): string | null {
  if (new TextDecoder().decode(bytes.subarray(0, 4)) === "GGUF") return "GGUF";
  if (bytes.length < 10 || bytes[8] !== 0x7b) return null;
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  return headerLength >= 2n && headerLength <= BigInt(bytes.length - 8) ? "safetensors" : null;
}

/** Why `path` is a model weight file (its name or its bytes), or null. */
export function weightFileReason(path: string, bytes: Uint8Array | null): string | null {
  const format = bytes === null ? null : weightFormat(bytes);
  const ending = WEIGHT_ENDINGS.find((e) => path.toLowerCase().endsWith(e));
  if (format === null && ending === undefined) return null;
  return `"${path}" is a model weight file (${format ?? ending}); never add model weights to a result folder`;
}

/**
 * The folder holds exactly the listed artifacts, results.json and README.md: every other file is named, a weight
 * file (by name or by its GGUF/safetensors header) above all; a listed artifact that is a weight file too.
 */
export async function checkFolderFiles(
  artifacts: readonly Artifact[],
  folderFiles: readonly string[],
  read: ArtifactReader,
  problems: ProblemSink,
): Promise<void> {
  const listed = new Set(["results.json", "README.md", ...artifacts.map((a) => a.path)]);
  for (const name of folderFiles) {
    const bytes = await read(name).catch(() => null);
    const weight = weightFileReason(name, bytes);
    if (weight !== null) problems.push({ pointer: "/artifacts", message: weight });
    else if (!listed.has(name)) {
      problems.push({
        pointer: "/artifacts",
        message: `the folder holds "${name}", which results.json does not list; a result folder holds only its ` +
          "listed artifacts, results.json and README.md (remove the file, or run again)",
      });
    }
  }
}

const SEAL_KEYS = ["sealed_at", "rehashed", "rederived"];
const REHASH_KEYS = ["path", "kind", "sha256_before", "sha256_after"];
const SEALABLE = new Set(["outputs", "engine_log", "config"]);
const UTC_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,3})?Z$/;
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * /extensions/sealed, the record `report --seal` writes, must be one the seal could have written: each seal a UTC
 * time after the run began, re-hashing only listed evidence-text artifacts (outputs, engine log, config) with their
 * kinds, each from one hash to another, and the last hash of each path the one the artifact list records now.
 */
export function checkSeals(value: Record<string, unknown>, artifacts: readonly Artifact[], problems: ProblemSink) {
  const extensions = value["extensions"];
  if (typeof extensions !== "object" || extensions === null) return;
  const sealed = (extensions as Record<string, unknown>)["sealed"];
  if (sealed === undefined) return;
  const pointer = "/extensions/sealed";
  const say = (message: string) => problems.push({ pointer, message });
  if (!Array.isArray(sealed)) return say(`must be the list of seals report --seal writes, found ${typeof sealed}`);
  const startedAt = (value["run"] as { started_at?: unknown } | undefined)?.started_at;
  const last = new Map<string, string>();
  sealed.forEach((seal: unknown, i: number) => {
    const s = seal as Record<string, unknown>;
    const keys = typeof seal === "object" && seal !== null ? Object.keys(seal).sort().join() : "";
    if (keys !== [...SEAL_KEYS].sort().join()) return say(`seal ${i} is not one report --seal writes (${keys})`);
    const at = s["sealed_at"];
    if (typeof at !== "string" || !UTC_TIME.test(at) || (typeof startedAt === "string" && at < startedAt)) {
      say(`seal ${i}: sealed_at ${JSON.stringify(at)} is not a UTC time after the run began`);
    }
    if (!Array.isArray(s["rederived"]) || !s["rederived"].every((p) => typeof p === "string" && p.startsWith("/"))) {
      say(`seal ${i}: rederived is not a list of results.json pointers`);
    }
    if (!Array.isArray(s["rehashed"])) return say(`seal ${i}: rehashed is not a list`);
    for (const r of s["rehashed"] as Record<string, unknown>[]) {
      const rk = typeof r === "object" && r !== null ? Object.keys(r).sort().join() : "";
      const listed = artifacts.find((a) => a.path === r?.["path"]);
      const ok = rk === [...REHASH_KEYS].sort().join() && listed !== undefined && listed.kind === r["kind"] &&
        SEALABLE.has(listed.kind) && HEX64.test(String(r["sha256_before"])) && HEX64.test(String(r["sha256_after"])) &&
        r["sha256_before"] !== r["sha256_after"];
      if (!ok) {
        say(
          `seal ${i} re-hashed ${JSON.stringify(r?.["path"] ?? null)}, which is no listed outputs, engine log or ` +
            "config artifact re-hashed from one SHA-256 to another",
        );
      } else last.set(listed.path, String(r["sha256_after"]));
    }
  });
  for (const [path, sha] of last) {
    const listed = artifacts.find((a) => a.path === path);
    if (listed !== undefined && listed.sha256 !== sha) {
      say(`the last seal of "${path}" re-hashed it to ${sha}, but /artifacts records ${listed.sha256}`);
    }
  }
}
