/**
 * The workload of a load test, made ready once: the prompt set read (a named synthetic profile, a JSONL prompt
 * file or ShareGPT conversations), the seeded selection, every request body built, and the facts stamped into the
 * JSONL. `load` and `compare` send the same bytes from it.
 */
import type { LoadPlan } from "./generator.ts";
import {
  buildLoadBody,
  checkPromptVariety,
  parsePromptJsonl,
  parseShareGpt,
  type PromptSet,
  selectionSha256,
  selectPrompts,
  syntheticProfile,
} from "./workloads.ts";

/** What is sent: the prompt set source and how requests are built from it. */
export interface WorkloadOptions {
  source: { kind: "profile"; name: string } | { kind: "jsonl"; path: string } | { kind: "sharegpt"; path: string };
  sample: number | undefined;
  seed: number;
  maxTokens: number | null;
  ignoreEos: boolean;
  model: string | undefined;
  allowRepeatedPrompt: boolean;
  requestTimeoutS: number;
}

/** A loaded, selected workload ready to hand requests to the generator. */
export interface PreparedWorkload {
  set: PromptSet;
  selected: number[];
  requestFor: LoadPlan["requestFor"];
  /** Facts stamped into the JSONL config line and the summary config. */
  stamp: Record<string, unknown>;
}

/**
 * Loads and selects the workload; `requestCount` is how many requests will use it (for the repeat check).
 * @throws {RangeError} for a set whose requests would all send one prompt (unless allowed); SyntaxError/RangeError
 * for a malformed set; whatever `readText` throws for an unreadable file.
 */
export async function prepareWorkload(
  options: WorkloadOptions,
  requestCount: number,
  readText: (path: string) => Promise<string>,
): Promise<PreparedWorkload> {
  const src = options.source;
  const set = src.kind === "profile"
    ? syntheticProfile(src.name, { seed: options.seed, count: options.sample ?? 256 })
    : src.kind === "jsonl"
    ? parsePromptJsonl(await readText(src.path), basename(src.path))
    : parseShareGpt(await readText(src.path), basename(src.path));
  const selected = selectPrompts(set, { seed: options.seed, count: options.sample ?? set.entries.length });
  checkPromptVariety(set, selected, requestCount, options.allowRepeatedPrompt);
  const bodies = selected.map((i) => {
    const body: Parameters<typeof buildLoadBody>[1] = { maxTokens: options.maxTokens, ignoreEos: options.ignoreEos };
    if (options.model !== undefined) body.model = options.model;
    return buildLoadBody(set.entries[i]!, body);
  });
  return {
    set,
    selected,
    requestFor: (_phase, index) => ({
      body: bodies[index % bodies.length]!,
      promptIndex: selected[index % selected.length]!,
    }),
    stamp: {
      source: set.source,
      prompt_set_sha256: set.sha256,
      selection_sha256: selectionSha256(set, selected),
      selected_prompts: selected.length,
      skipped_entries: set.skipped,
      seed: options.seed,
      profile: set.profile,
      max_tokens: options.maxTokens,
      ignore_eos: options.ignoreEos,
      allow_repeated_prompt: options.allowRepeatedPrompt,
    },
  };
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
