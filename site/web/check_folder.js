// @ts-check
/**
 * What a result folder may hold: exactly the files results.json lists as artifacts, results.json itself and
 * README.md ("Never add model weights or generated packs"). Any other file is refused by name, and a model weight
 * file, known by its name or by its first bytes (the GGUF magic, a safetensors header), above all, wherever it is.
 */

/** Name endings of model weight and checkpoint files. */
const WEIGHT_SUFFIXES = /** @type {readonly string[]} */ ([
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
]);

/** The files every result folder has besides its artifacts. */
const FOLDER_OWN_FILES = /** @type {readonly string[]} */ (["results.json", "README.md"]);

/**
 * Which weight format the first bytes of a file show: "GGUF" (the four bytes GGUF) or "safetensors" (an 8-byte
 * little-endian header length that fits the file, then a JSON object), else null.
 * @param {Uint8Array} bytes @returns {string | null}
 */
function weightMagic(bytes) {
  if (bytes.length >= 4 && bytes[0] === 0x47 && bytes[1] === 0x47 && bytes[2] === 0x55 && bytes[3] === 0x46) {
    return "GGUF";
  }
  if (bytes.length >= 10 && bytes[8] === 0x7b) {
    let length = 0;
    for (let i = 7; i >= 0; i--) length = length * 256 + /** @type {number} */ (bytes[i]);
    if (length >= 2 && length <= bytes.length - 8 && (bytes[9] === 0x22 || bytes[9] === 0x7d)) return "safetensors";
  }
  return null;
}

/** @param {string} path */
function weightName(path) {
  const lower = path.toLowerCase();
  return WEIGHT_SUFFIXES.find((suffix) => lower.endsWith(suffix)) ?? null;
}

/**
 * The reason a file is a model weight file (by name or by magic bytes), or null.
 * @param {string} path @param {Uint8Array | null} bytes
 */
export function weightReason(path, bytes) {
  const magic = bytes === null ? null : weightMagic(bytes);
  if (magic !== null) return `${JSON.stringify(path)} is a model weight file (${magic} bytes): never add model weights`;
  const suffix = weightName(path);
  if (suffix !== null) return `${JSON.stringify(path)} is a model weight file (${suffix}): never add model weights`;
  return null;
}

/**
 * Every file of the folder that results.json does not list, each named; a weight file says so.
 * @param {readonly string[]} files the folder's files, relative, "/"-separated
 * @param {readonly string[]} listed the artifact paths results.json lists
 * @param {(path: string) => Promise<Uint8Array | null>} read
 * @returns {Promise<string[]>}
 */
export async function folderProblems(files, listed, read) {
  const allowed = new Set([...FOLDER_OWN_FILES, ...listed]);
  /** @type {string[]} */
  const problems = [];
  for (const path of files) {
    if (allowed.has(path)) continue;
    const head = weightName(path) === null ? await read(path) : null;
    problems.push(
      weightReason(path, head) ??
        `the folder holds ${JSON.stringify(path)}, which results.json does not list: a result folder holds only ` +
          "its listed artifacts, results.json and README.md",
    );
  }
  return problems;
}

/**
 * The reason an SVG artifact holds active content (a script element, an event handler attribute, a javascript:
 * link, a foreignObject), or null: the runner's drawings are static pictures, so one that can run code was not
 * drawn by it, whatever its hash says.
 * @param {string} path @param {Uint8Array} bytes
 */
export function activePicture(path, bytes) {
  if (!path.toLowerCase().endsWith(".svg")) return null;
  const text = new TextDecoder().decode(bytes).toLowerCase();
  const found = /<script|<foreignobject|\son[a-z]+\s*=|javascript:/.exec(text);
  return found === null
    ? null
    : `artifact ${JSON.stringify(path)} holds active content (${JSON.stringify(found[0].trim())}): the runner's ` +
      "pictures are static drawings";
}
