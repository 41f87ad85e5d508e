/**
 * Artifacts: unique paths, an outputs file present, the template attached, and every file's SHA-256 equal to the
 * hash the result records (a file that cannot be found is a problem).
 */
import { type Artifact, type Configuration, sha256Hex } from "../contract/mod.ts";
import { childPointer, type ProblemSink } from "./_pointer.ts";

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
      const detail = error instanceof Error ? error.message : String(error);
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
