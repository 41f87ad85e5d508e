/**
 * Workloads for load tests: prompt sets (JSONL, one request a line; ShareGPT-format JSON), the named synthetic
 * profiles (seeded, deterministic), seeded selection, SHA-256 of what was loaded and of what was selected, and
 * the refusal of one literal prompt repeated as a "workload". The achieved ISL/OSL come from the server's token
 * counts later; nothing here estimates tokens for a result.
 */
import { parseStrictInput } from "./_strict_input.ts";
import { createPrng, type Prng, sha256Hex } from "../contract/mod.ts";

export interface ChatTurn {
  role: "system" | "user" | "assistant";
  content: string;
}

/** One request of a prompt set. */
export interface PromptEntry {
  messages: ChatTurn[];
  /** Per-request output cap from the set, if it gives one. */
  max_tokens: number | null;
}

export interface PromptSet {
  /** "jsonl:<name>", "sharegpt:<name>", "profile:<name>" (real text) or "synthetic:<name>" (generated). */
  source: string;
  /** Where the prompts come from: a file, a pinned real-text corpus, or the synthetic generator (labelled so). */
  provenance: Record<string, unknown>;
  /** SHA-256 of the file bytes, or of the canonical JSONL of a generated profile. */
  sha256: string;
  entries: PromptEntry[];
  /** Entries skipped while loading, with why (ShareGPT conversations without a human turn). */
  skipped: number;
  profile: { name: ProfileName; version: string; isl_target: number; osl_target: number } | null;
}

export const PROFILES = {
  "chat-short": { isl: 256, osl: 64 },
  "chat-medium": { isl: 512, osl: 128 },
  "code-medium": { isl: 1024, osl: 512 },
  "rag-medium": { isl: 2048, osl: 256 },
  "summarize-long": { isl: 4096, osl: 512 },
} as const;
export type ProfileName = keyof typeof PROFILES;
/** The named profiles' version: 2 (from 1) builds code-medium from real source code (corpus code-v1), not prose. */
export const PROFILE_VERSION = "2";

function isTurn(value: unknown): value is ChatTurn {
  const v = value as Record<string, unknown> | null;
  return v !== null && typeof v === "object" && typeof v.content === "string" &&
    (v.role === "system" || v.role === "user" || v.role === "assistant");
}

/**
 * Parses a JSONL prompt set: each nonblank line an object with `messages` (chat turns) or `prompt` / `text`
 * (one user turn), and optionally `max_tokens`.
 * @throws SyntaxError naming the first bad line.
 */
export function parsePromptJsonl(text: string, name: string): PromptSet {
  const entries: PromptEntry[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const value = parseStrictInput(line, `prompt set "${name}"`, `line ${i + 1}`);
    const v = value as Record<string, unknown> | null;
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new SyntaxError(`Cannot read prompt set "${name}": line ${i + 1} is not an object`);
    }
    let messages: ChatTurn[];
    if (Array.isArray(v.messages) && v.messages.length > 0 && v.messages.every(isTurn)) {
      messages = (v.messages as ChatTurn[]).map((m) => ({ role: m.role, content: m.content }));
    } else if (typeof v.prompt === "string" || typeof v.text === "string") {
      messages = [{ role: "user", content: (v.prompt ?? v.text) as string }];
    } else {
      throw new SyntaxError(
        `Cannot read prompt set "${name}": line ${i + 1} has neither "messages" (chat turns) nor "prompt"`,
      );
    }
    const cap = v.max_tokens;
    if (cap !== undefined && !(typeof cap === "number" && Number.isInteger(cap) && cap > 0)) {
      throw new SyntaxError(`Cannot read prompt set "${name}": line ${i + 1} max_tokens must be a positive integer`);
    }
    entries.push({ messages, max_tokens: (cap as number | undefined) ?? null });
  });
  if (entries.length === 0) throw new SyntaxError(`Cannot read prompt set "${name}": it holds no request`);
  return {
    source: `jsonl:${name}`,
    provenance: { kind: "file", format: "jsonl", name },
    sha256: sha256Hex(text),
    entries,
    skipped: 0,
    profile: null,
  };
}

/**
 * Parses ShareGPT-format JSON (an array of `{conversations: [{from, value}, ...]}`); each conversation's first
 * human turn becomes one request. Conversations without one are skipped and counted.
 * @throws SyntaxError when the text is not such an array or yields no request.
 */
export function parseShareGpt(text: string, name: string): PromptSet {
  const value = parseStrictInput(text, `ShareGPT set "${name}"`);
  if (!Array.isArray(value)) throw new SyntaxError(`Cannot read ShareGPT set "${name}": the top level is not an array`);
  const entries: PromptEntry[] = [];
  let skipped = 0;
  for (const item of value) {
    const turns = (item as { conversations?: unknown } | null)?.conversations;
    const human = Array.isArray(turns)
      ? turns.find((t) => (t?.from === "human" || t?.from === "user") && typeof t?.value === "string" && t.value !== "")
      : undefined;
    if (human === undefined) {
      skipped++;
      continue;
    }
    entries.push({ messages: [{ role: "user", content: human.value as string }], max_tokens: null });
  }
  if (entries.length === 0) {
    throw new SyntaxError(`Cannot read ShareGPT set "${name}": no conversation has a human turn`);
  }
  return {
    source: `sharegpt:${name}`,
    provenance: { kind: "file", format: "sharegpt", name },
    sha256: sha256Hex(text),
    entries,
    skipped,
    profile: null,
  };
}

const WORDS = (
  "system memory request server latency model token window cache budget schedule river market garden engine " +
  "signal history planet village teacher winter summer harbor bridge library journal pattern measure balance " +
  "network capacity report decision evidence method sample figure detail reason problem answer question course " +
  "country family student council energy climate travel weather medicine science project vector matrix kernel " +
  "quickly carefully rarely often always never slowly clearly gently simply nearly widely deeply " +
  "builds moves holds finds keeps shows gives takes makes turns reads writes opens closes counts checks " +
  "bright quiet heavy narrow ancient modern simple careful early late local remote careful honest steady"
).split(" ");

const INSTRUCTIONS: Record<ProfileName, string> = {
  "chat-short": "Reply to the message below in a few friendly sentences.",
  "chat-medium": "Read the message below and write a thoughtful reply that addresses each point.",
  "code-medium": "Review the code below, explain what it does, and rewrite it to be clearer.",
  "rag-medium": "Answer the question at the end using only the passages below; cite the passage numbers.",
  "summarize-long": "Summarize the document below in a structured list of its main points.",
};

function sentence(random: Prng): string {
  const n = 6 + random.nextInt(10);
  const words = Array.from({ length: n }, () => WORDS[random.nextInt(WORDS.length)] as string);
  const first = words[0] as string;
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(" ") + ".";
}

function codeLine(random: Prng, depth: number): string {
  const a = WORDS[random.nextInt(WORDS.length)], b = WORDS[random.nextInt(WORDS.length)];
  const pad = "  ".repeat(depth);
  switch (random.nextInt(4)) {
    case 0:
      return `${pad}const ${a}_${b} = ${a}.${b}(${random.nextInt(1000)});`;
    case 1:
      return `${pad}if (${a}_count > ${random.nextInt(100)}) { total += ${b}; }`;
    case 2:
      return `${pad}for (const ${a} of ${b}_list) { ${a}.update(${random.nextInt(50)}); }`;
    default:
      return `${pad}// ${sentence(random)}`;
  }
}

/** Body text of about `chars` characters in the profile's genre. */
function fillText(profile: ProfileName, random: Prng, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  let unit = 0;
  while (length < chars) {
    let piece: string;
    if (profile === "code-medium") {
      piece = unit % 8 === 0 ? `function ${WORDS[random.nextInt(WORDS.length)]}_${unit}(input) {` : codeLine(random, 1);
    } else if (profile === "rag-medium" && unit % 6 === 0) {
      piece = `\n[${unit / 6 + 1}] ${sentence(random)}`;
    } else {
      piece = sentence(random);
    }
    parts.push(piece);
    length += piece.length + 1;
    unit++;
  }
  return parts.join(profile === "code-medium" ? "\n" : " ");
}

/**
 * `name` as a profile, refused unless it names one and `count` (its prompts) lies in [1, 100000].
 * @throws RangeError naming the profiles, or the count's bounds.
 */
export function checkedProfile(name: string, count: number): ProfileName {
  if (!Object.hasOwn(PROFILES, name)) {
    throw new RangeError(`Cannot build profile "${name}": unknown; choose one of ${Object.keys(PROFILES).join(", ")}`);
  }
  if (!Number.isInteger(count) || count < 1 || count > 100_000) {
    throw new RangeError(`Cannot build profile "${name}": count "${count}" must be in [1, 100000]`);
  }
  return name as ProfileName;
}

/**
 * Synthetic prompt set of a named profile: `count` distinct prompts of seeded word salad (not real text, and
 * labelled "synthetic"), each about the profile's ISL in tokens (drawn within +-5%, at about 4 characters a token)
 * with max_tokens set to its OSL.
 * @throws RangeError on an unknown profile or a count outside [1, 100000].
 */
export function syntheticProfile(name: string, options: { seed: number; count: number }): PromptSet {
  const profile = checkedProfile(name, options.count);
  const { isl, osl } = PROFILES[profile];
  const random = createPrng(options.seed);
  const instruction = INSTRUCTIONS[profile];
  const entries: PromptEntry[] = [];
  for (let i = 0; i < options.count; i++) {
    const targetTokens = Math.round(isl * (0.95 + 0.1 * random.next()));
    // Chat-template framing and the instruction take some tokens; the body fills the rest.
    const bodyChars = Math.max(16, (targetTokens - 12) * 4 - instruction.length);
    let body = fillText(profile, random, bodyChars);
    if (profile === "rag-medium") body += `\n\nQuestion: ${sentence(random).replace(/\.$/, "?")}`;
    entries.push({ messages: [{ role: "user", content: `${instruction}\n\n${body}` }], max_tokens: osl });
  }
  const canonical = entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
  return {
    source: `synthetic:${profile}`,
    provenance: {
      kind: "synthetic",
      generator: "seeded word salad in the profile's genre (not real text)",
      version: PROFILE_VERSION,
    },
    sha256: sha256Hex(canonical),
    entries,
    skipped: 0,
    profile: { name: profile, version: PROFILE_VERSION, isl_target: isl, osl_target: osl },
  };
}

/**
 * Seeded selection: a Fisher-Yates shuffle of the set's indices from the seed, first `count` taken (all of
 * them, shuffled, when count exceeds the set). The same set, seed and count give the same selection.
 */
export function selectPrompts(set: PromptSet, options: { seed: number; count: number }): number[] {
  const indices = set.entries.map((_, i) => i);
  const random = createPrng(options.seed);
  for (let i = indices.length - 1; i > 0; i--) {
    const j = random.nextInt(i + 1);
    [indices[i], indices[j]] = [indices[j] as number, indices[i] as number];
  }
  return indices.slice(0, Math.min(options.count, indices.length));
}

/** SHA-256 of the selected requests' messages in order: what was actually sent, independent of the file. */
export function selectionSha256(set: PromptSet, selected: readonly number[]): string {
  return sha256Hex(selected.map((i) => JSON.stringify(set.entries[i]?.messages)).join("\n") + "\n");
}

/**
 * Refuses one literal prompt repeated across every request: it holds prefill cost and KV growth constant and
 * measures the harness, not the system.
 * @throws RangeError when several requests would all send the same messages and `allowRepeated` is false.
 */
export function checkPromptVariety(
  set: PromptSet,
  selected: readonly number[],
  requestCount: number,
  allowRepeated: boolean,
): void {
  if (allowRepeated || requestCount < 2) return;
  const distinct = new Set(selected.map((i) => JSON.stringify(set.entries[i]?.messages)));
  if (distinct.size <= 1) {
    throw new RangeError(
      `Cannot use prompt set "${set.source}" as a workload: every request would send the same prompt; ` +
        "use a real prompt set or a --profile, or pass --allow-repeated-prompt to measure it anyway",
    );
  }
}

export interface BodyOptions {
  /** Output cap when the entry has none; required when the entry has none. */
  maxTokens: number | null;
  model?: string;
  /** Sampling temperature (default 0). */
  temperature?: number;
  /** Sampling seed sent as `seed`; absent: none is sent. */
  seed?: number;
  /** Engine extension (llama.cpp, vLLM): generate until max_tokens. */
  ignoreEos?: boolean;
  /** Engine extension (vLLM's `min_tokens`; llama-server ignores unknown fields): the least output to generate. */
  minTokens?: number;
  /** false: a non-streaming request (stream: false, no stream_options). Default true. */
  stream?: boolean;
  /** llama.cpp extension: running `timings` (with predicted_n) on every streamed chunk. */
  timingsPerToken?: boolean;
}

/** The streamed chat-completion body of one prompt entry (usage requested so token counts come from the server). */
export function buildLoadBody(entry: PromptEntry, options: BodyOptions): Record<string, unknown> {
  const streamed = options.stream !== false;
  const body: Record<string, unknown> = {
    messages: entry.messages,
    stream: streamed,
    ...(streamed ? { stream_options: { include_usage: true } } : {}),
    temperature: options.temperature ?? 0,
  };
  const cap = entry.max_tokens ?? options.maxTokens;
  if (cap !== null) body.max_tokens = cap;
  if (options.model !== undefined) body.model = options.model;
  if (options.seed !== undefined) body.seed = options.seed;
  if (options.ignoreEos) body.ignore_eos = true;
  if (options.minTokens !== undefined) body.min_tokens = options.minTokens;
  if (options.timingsPerToken === true && streamed) body.timings_per_token = true;
  return body;
}
