/**
 * The workload of a load test, made ready once: the prompt set read (a named profile's real text, the synthetic
 * generator, a JSONL prompt file or ShareGPT conversations), checked against its pinned SHA-256, the seeded
 * selection, every request body built, the targets checked for feasibility, and the facts stamped into the JSONL.
 * `load` and `compare` send the same bytes from it. Everything here happens before any traffic.
 */
import type { LoadPlan } from "./load_plan_bounds.ts";
import { CHARS_PER_TOKEN_ESTIMATE, FRAMING_TOKENS, realTextProfile } from "./real_text.ts";
import type { LengthTarget } from "./summary.ts";
import {
  buildLoadBody,
  checkedProfile,
  checkPromptVariety,
  parsePromptJsonl,
  parseShareGpt,
  PROFILE_VERSION,
  PROFILES,
  type PromptSet,
  selectionSha256,
  selectPrompts,
  syntheticProfile,
} from "./workloads.ts";

/** What is sent: the prompt set source and how requests are built from it. */
export interface WorkloadOptions {
  source:
    | { kind: "profile"; name: string }
    | { kind: "synthetic"; name: string }
    | { kind: "jsonl"; path: string }
    | { kind: "sharegpt"; path: string };
  sample: number | undefined;
  seed: number;
  maxTokens: number | null;
  ignoreEos: boolean;
  model: string | undefined;
  allowRepeatedPrompt: boolean;
  requestTimeoutS: number;
  /** Sampling temperature sent with every request (default 0). */
  temperature?: number;
  /** Sampling seed sent as `seed` with every request; absent: none is sent. */
  requestSeed?: number;
  /** Engine extension min_tokens. */
  minTokens?: number;
  /** false: non-streaming requests. Default true. */
  stream?: boolean;
  /**
   * Ask llama.cpp servers for running timings on every chunk (`timings_per_token`), so that reasoning and answer
   * TPOT count the engine's tokens per chunk. Default false: every chunk would grow by about 250 bytes.
   */
  timingsPerToken?: boolean;
  /** The prompt set's SHA-256 must equal this (a pinned workload); checked before any traffic. */
  pinSha256?: string;
  /** --publishable: refuse what the methodology forbids in a published result (see publishableProblems). */
  publishable?: boolean;
}

/**
 * What keeps a workload out of a published result (methodology: a pinned workload of real text, the full set,
 * no single repeated prompt); empty when nothing does.
 */
export function publishableProblems(options: WorkloadOptions, coverage: "full" | "sample"): string[] {
  const problems: string[] = [];
  if (options.pinSha256 === undefined) problems.push("the workload is not pinned: pass --workload-sha256 HEX");
  if (options.source.kind === "synthetic") problems.push("a synthetic workload is not real text: use --workload");
  if (coverage === "sample") problems.push("--sample makes a smoke-test subset (sample), not the full set");
  if (options.allowRepeatedPrompt) problems.push("--allow-repeated-prompt admits a workload that is not one");
  return problems;
}

/** A loaded, selected workload ready to hand requests to the generator. */
export interface PreparedWorkload {
  set: PromptSet;
  selected: number[];
  requestFor: LoadPlan["requestFor"];
  /** Facts stamped into the JSONL config line and the summary config. */
  stamp: Record<string, unknown>;
}

/** A workload whose pin, targets or files refuse it before any traffic. */
export class WorkloadRefusal extends RangeError {
  override name = "WorkloadRefusal";
}

/** Reads the named set. */
async function loadSet(
  options: WorkloadOptions,
  readText: (path: string) => Promise<string>,
): Promise<PromptSet> {
  const src = options.source;
  const count = options.sample ?? 256;
  if (src.kind === "profile" || src.kind === "synthetic") {
    const name = checkedProfile(src.name, count);
    if (src.kind === "synthetic") return syntheticProfile(name, { seed: options.seed, count });
    const { isl, osl } = PROFILES[name];
    const built = await realTextProfile(name, { isl, osl }, { seed: options.seed, count }, readText);
    return {
      source: `profile:${name}`,
      provenance: { ...built.provenance },
      sha256: built.sha256,
      entries: built.entries,
      skipped: 0,
      profile: { name, version: PROFILE_VERSION, isl_target: isl, osl_target: osl },
    };
  }
  const text = await readText(src.path);
  return src.kind === "jsonl" ? parsePromptJsonl(text, basename(src.path)) : parseShareGpt(text, basename(src.path));
}

/**
 * Refuses targets the workload cannot meet, before any traffic: an OSL target beyond every output cap (or below
 * --min-tokens), and an ISL target that the prompts' estimated length (4 characters a token) misses by more than a
 * factor 1.5 beyond the tolerance. The achieved lengths are still measured from the server; this only catches a
 * target no run of this workload could meet.
 * @throws WorkloadRefusal naming the target and what to change.
 */
export function checkTargetsFeasible(
  prepared: PreparedWorkload,
  options: WorkloadOptions,
  targets: { isl?: LengthTarget | undefined; osl?: LengthTarget | undefined },
): void {
  const { set, selected } = prepared;
  const { osl, isl } = targets;
  if (osl !== undefined) {
    const low = osl.target * (1 - osl.tolerance);
    const caps = selected.map((i) => set.entries[i]!.max_tokens ?? options.maxTokens);
    const capped = caps.filter((c): c is number => c !== null);
    // A loop, not Math.max(...capped): a run of a million requests would overflow the call stack with its arguments.
    const highest = capped.reduce((a, b) => (b > a ? b : a), -Infinity);
    if (capped.length === caps.length && capped.length > 0 && highest < low) {
      throw new WorkloadRefusal(
        `Cannot meet the OSL target ${osl.target} +-${osl.tolerance * 100}%: every request's max_tokens is at most ` +
          `${highest}; raise --max-tokens or lower --osl-target`,
      );
    }
    if (options.minTokens !== undefined && options.minTokens > osl.target * (1 + osl.tolerance)) {
      throw new WorkloadRefusal(
        `Cannot meet the OSL target ${osl.target} +-${osl.tolerance * 100}%: --min-tokens ${options.minTokens} ` +
          "forces longer outputs; lower --min-tokens or raise --osl-target",
      );
    }
  }
  if (isl !== undefined && selected.length > 0) {
    const est = selected.map((i) =>
      set.entries[i]!.messages.reduce((n, m) => n + m.content.length, 0) / CHARS_PER_TOKEN_ESTIMATE + FRAMING_TOKENS
    );
    const sorted = [...est].sort((a, b) => a - b);
    const achieved = isl.stat === "mean"
      ? est.reduce((a, b) => a + b, 0) / est.length
      : sorted[Math.floor((sorted.length - 1) / 2)]!;
    const lowest = isl.target * (1 - isl.tolerance) / 1.5, highest = isl.target * (1 + isl.tolerance) * 1.5;
    if (achieved < lowest || achieved > highest) {
      throw new WorkloadRefusal(
        `Cannot meet the ISL target ${isl.target} +-${isl.tolerance * 100}% with ${set.source}: its prompts are ` +
          `about ${Math.round(achieved)} tokens (${isl.stat}, estimated at 4 characters a token); choose a prompt ` +
          "set of that length, or change --isl-target",
      );
    }
  }
}

/**
 * Loads and selects the workload; `requestCount` is how many requests will use it (for the repeat check).
 * @throws {WorkloadRefusal} for a set whose SHA-256 differs from its pin, or a --max-tokens that no request of the set
 * would use; RangeError for a set whose requests would
 * all send one prompt (unless allowed); SyntaxError/RangeError for a malformed set; whatever `readText` throws for
 * an unreadable file.
 */
export async function prepareWorkload(
  options: WorkloadOptions,
  requestCount: number,
  readText: (path: string) => Promise<string>,
): Promise<PreparedWorkload> {
  const set = await loadSet(options, readText);
  if (options.maxTokens !== null && set.entries.every((e) => e.max_tokens !== null)) {
    throw new WorkloadRefusal(
      `Cannot use --max-tokens ${options.maxTokens} with ${set.source}: it has no effect, every request of the set ` +
        "carries its own max_tokens; leave --max-tokens out (or remove max_tokens from the file)",
    );
  }
  if (options.pinSha256 !== undefined && options.pinSha256.toLowerCase() !== set.sha256) {
    throw new WorkloadRefusal(
      `Cannot use ${set.source}: its SHA-256 is ${set.sha256}, not the pinned ${options.pinSha256}; the workload ` +
        "has drifted (use the pinned bytes, or pin the new hash on purpose)",
    );
  }
  // Full: the whole prompt set (a named workload's standard 256, a file's every entry); sample: a subset.
  const named = options.source.kind === "profile" || options.source.kind === "synthetic";
  const coverage = options.sample === undefined || (!named && options.sample >= set.entries.length) ? "full" : "sample";
  if (options.publishable === true) {
    const problems = publishableProblems(options, coverage);
    if (problems.length > 0) throw new WorkloadRefusal(`Cannot publish ${set.source}: ${problems.join("; ")}`);
  }
  const selected = selectPrompts(set, { seed: options.seed, count: options.sample ?? set.entries.length });
  checkPromptVariety(set, selected, requestCount, options.allowRepeatedPrompt);
  const bodies = selected.map((i) => {
    const body: Parameters<typeof buildLoadBody>[1] = { maxTokens: options.maxTokens, ignoreEos: options.ignoreEos };
    if (options.model !== undefined) body.model = options.model;
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.requestSeed !== undefined) body.seed = options.requestSeed;
    if (options.minTokens !== undefined) body.minTokens = options.minTokens;
    if (options.stream === false) body.stream = false;
    if (options.timingsPerToken === true) body.timingsPerToken = true;
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
      provenance: set.provenance,
      prompt_set_sha256: set.sha256,
      pinned_sha256: options.pinSha256 ?? null,
      selection_sha256: selectionSha256(set, selected),
      selected_prompts: selected.length,
      coverage,
      publishable: options.publishable === true,
      skipped_entries: set.skipped,
      seed: options.seed,
      profile: set.profile,
      max_tokens: options.maxTokens,
      min_tokens: options.minTokens ?? null,
      ignore_eos: options.ignoreEos,
      temperature: options.temperature ?? 0,
      request_seed: options.requestSeed ?? null,
      stream: options.stream !== false,
      timings_per_token: options.timingsPerToken === true,
      allow_repeated_prompt: options.allowRepeatedPrompt,
    },
  };
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
