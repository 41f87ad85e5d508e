/**
 * The model file's own facts, read from the GGUF header of the file the server loaded (every shard of a split
 * model): architecture, file type (the quantization name), tensor-type counts, context length, parameter count
 * and the SHA-256 of its chat template. Only the header is read (at most HEADER_MAX_BYTES per shard). A file that
 * cannot be read, or whose header is truncated or hostile, gives null facts with a reason; nothing here throws.
 */
import { type ModelFileFacts, sha256Hex } from "../contract/mod.ts";
import { type ProbeDeps, readPrefix } from "./_deps.ts";
import { type GgufFile, readGguf } from "./gguf_reader.ts";
import { packRelativeName } from "./model_files.ts";
import { errorMessage } from "../runtime/mod.ts";

/** The most header bytes read per file: a large vocabulary (250k tokens with merges) takes some tens of MiB. */
export const HEADER_MAX_BYTES = 256 * 1024 * 1024;
const FIRST_READ_BYTES = 16 * 1024 * 1024;

/**
 * llama.cpp's file types (`general.file_type`, its `llama_ftype` numbering) by the names quantizations are
 * published under; retired numbers are absent.
 */
export const GGUF_FILE_TYPES: Readonly<Record<number, string>> = {
  0: "F32",
  1: "F16",
  2: "Q4_0",
  3: "Q4_1",
  7: "Q8_0",
  8: "Q5_0",
  9: "Q5_1",
  10: "Q2_K",
  11: "Q3_K_S",
  12: "Q3_K_M",
  13: "Q3_K_L",
  14: "Q4_K_S",
  15: "Q4_K_M",
  16: "Q5_K_S",
  17: "Q5_K_M",
  18: "Q6_K",
  19: "IQ2_XXS",
  20: "IQ2_XS",
  21: "Q2_K_S",
  22: "IQ3_XS",
  23: "IQ3_XXS",
  24: "IQ1_S",
  25: "IQ4_NL",
  26: "IQ3_S",
  27: "IQ3_M",
  28: "IQ2_S",
  29: "IQ2_M",
  30: "IQ4_XS",
  31: "IQ1_M",
  32: "BF16",
  36: "TQ1_0",
  37: "TQ2_0",
  38: "MXFP4_MOE",
};

/** What the operator declared and the server reported, to compare with the file. */
export interface ModelFileFactsOptions {
  /** Absolute paths of the model's files (every shard), first shard first. */
  paths: readonly string[];
  packDir?: string | null;
  declaredQuantization?: string | null;
  declaredModelId?: string | null;
  /** SHA-256 of the server's effective chat template (/props), when known. */
  effectiveTemplateSha256?: string | null;
}

/** The facts (null with a reason when the header cannot be read) and the template text the file carries. */
export interface ModelFileFactsReading {
  facts: ModelFileFacts | null;
  reason: string | null;
  /** Pointers below /model/file_facts -> why that fact is null. */
  missing: Record<string, string>;
  templateText: string | null;
}

/** Decodes a file's header, reading more when the first 16 MiB do not hold it. */
async function readHeader(deps: ProbeDeps, path: string): Promise<GgufFile | string> {
  for (const size of [FIRST_READ_BYTES, HEADER_MAX_BYTES]) {
    const bytes = await readPrefix(deps, path, size);
    if (typeof bytes === "string") return bytes;
    try {
      return readGguf(bytes, { wholeFile: false, keepArrays: false });
    } catch (error) {
      const message = errorMessage(error);
      if (!/truncated/.test(message) || bytes.length < size) return message;
    }
  }
  return `the GGUF header is larger than ${HEADER_MAX_BYTES} bytes`;
}

function scalarOf(file: GgufFile, key: string): string | number | null {
  const value = file.metadata.get(key);
  if (value === undefined || value.type === "array" || value.type === "bool") return null;
  if (typeof value.value === "bigint") {
    return value.value <= BigInt(Number.MAX_SAFE_INTEGER) && value.value >= 0n ? Number(value.value) : null;
  }
  return value.value;
}

const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * Reads the model's GGUF header(s) into ModelFileFacts. A split model's shards each hold some tensors: their
 * counts and parameters are summed; metadata comes from the first shard.
 */
export async function readModelFileFacts(
  options: ModelFileFactsOptions,
  deps: ProbeDeps,
): Promise<ModelFileFactsReading> {
  const missing: Record<string, string> = {};
  const none = (reason: string): ModelFileFactsReading => ({ facts: null, reason, missing, templateText: null });
  if (options.paths.length === 0) return none("no model file is known (the server reports no model_path)");
  const files = options.paths.map((path) => packRelativeName(path, options.packDir));
  const headers: GgufFile[] = [];
  for (const [index, path] of options.paths.entries()) {
    const header = await readHeader(deps, path);
    if (typeof header === "string") return none(`the GGUF header of ${files[index]} cannot be read: ${header}`);
    headers.push(header);
  }
  const first = headers[0]!;
  const architecture = scalarOf(first, "general.architecture");
  const fileTypeCode = scalarOf(first, "general.file_type");
  const contextLength = typeof architecture === "string" ? scalarOf(first, `${architecture}.context_length`) : null;
  const template = scalarOf(first, "tokenizer.chat_template");
  const tensorTypes: Record<string, number> = {};
  let parameters = 0n;
  for (const tensor of headers.flatMap((h) => h.tensors)) {
    tensorTypes[tensor.type] = (tensorTypes[tensor.type] ?? 0) + 1;
    parameters += tensor.dims.reduce((a, b) => a * BigInt(b), 1n);
  }
  const facts: ModelFileFacts = {
    source: `GGUF header of ${files.join(", ")}`,
    files,
    architecture: typeof architecture === "string" ? architecture : null,
    file_type: typeof fileTypeCode === "number" ? GGUF_FILE_TYPES[fileTypeCode] ?? `file type ${fileTypeCode}` : null,
    tensor_types: tensorTypes,
    context_length: typeof contextLength === "number" && Number.isSafeInteger(contextLength) ? contextLength : null,
    parameter_count: parameters <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(parameters) : null,
    chat_template_sha256: typeof template === "string" ? sha256Hex(template) : null,
    effective_template_matches: null,
    warnings: [],
  };
  if (facts.architecture === null) missing["/architecture"] = "the header has no general.architecture string";
  if (facts.file_type === null) missing["/file_type"] = "the header has no general.file_type";
  if (facts.context_length === null) missing["/context_length"] = "the header has no <architecture>.context_length";
  if (facts.parameter_count === null) missing["/parameter_count"] = "the tensor shapes sum past 2^53 parameters";
  if (facts.chat_template_sha256 === null) missing["/chat_template_sha256"] = "the file carries no chat template";
  compareDeclared(facts, first, options, missing);
  return { facts, reason: null, missing, templateText: typeof template === "string" ? template : null };
}

/** Warnings where the operator's declarations or the server's template disagree with the file. */
function compareDeclared(
  facts: ModelFileFacts,
  file: GgufFile,
  options: ModelFileFactsOptions,
  missing: Record<string, string>,
): void {
  const quantization = options.declaredQuantization ?? null;
  // The file type's name exactly, case and separators aside: BF16 is not F16, IQ4_K_M is not Q4_K_M.
  if (quantization !== null && facts.file_type !== null && squash(quantization) !== squash(facts.file_type)) {
    facts.warnings.push(
      `--quantization "${quantization}" contradicts the file, whose general.file_type is ${facts.file_type}`,
    );
  }
  const modelId = options.declaredModelId ?? null;
  const names = ["general.basename", "general.name"].map((key) => scalarOf(file, key))
    .filter((name): name is string => typeof name === "string" && squash(name) !== "");
  // The repository's last part and the file's name must overlap: one contains the other (Qwen3-8B-GGUF, "Qwen3").
  const repo = squash(modelId?.split("/").at(-1) ?? "");
  if (
    modelId !== null && names.length > 0 && !names.some((n) => repo.includes(squash(n)) || squash(n).includes(repo))
  ) {
    facts.warnings.push(`--model-id "${modelId}" does not name the file's model (general.name "${names.at(-1)}")`);
  }
  const effective = options.effectiveTemplateSha256 ?? null;
  if (effective === null) {
    missing["/effective_template_matches"] = "the server reported no effective chat template to compare";
  } else if (facts.chat_template_sha256 === null) {
    missing["/effective_template_matches"] = "the file carries no chat template to compare with the server's";
  } else {
    facts.effective_template_matches = effective === facts.chat_template_sha256;
    if (!facts.effective_template_matches) {
      facts.warnings.push(
        "the server's effective chat template (/props) differs from the one in the model file " +
          "(an override such as --chat-template-file, or another file)",
      );
    }
  }
}
