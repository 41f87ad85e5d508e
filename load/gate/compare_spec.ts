/**
 * The compare spec file (JSONC): the release gate as a versioned harness (performance methodology, release
 * validation). It pins the workloads (W1, W2, ... each a prompt file, a named profile or a ShareGPT file, with its
 * SHA-256), the concurrency points (default 1, 8, 32), the request parameters, the durations (30 s warm-up and 180 s
 * measured issuance per point by default, with a drain limit), the rounds, the gate settings and the serving stack's
 * identity (recorded, not checked: the toolkit cannot see an image tag). Unknown keys anywhere are refused, every
 * problem at once, by JSON Pointer, before any traffic.
 */
import Type, { type Static } from "typebox";
import { parseStrictJsonc } from "../../score/mod.ts";
import { MAX_INPUT_DEPTH, schemaProblems } from "../_strict_input.ts";
import { sha256Hex } from "../../contract/mod.ts";
import type { CompareRunOptions } from "./_compare_types.ts";
import type { WorkloadOptions } from "../prepare.ts";
import { DEFAULT_GATE_TOLERANCE, DEFAULT_MAX_ERROR_RATE_INCREASE } from "./gate.ts";
import { DEFAULT_DRAIN_S } from "../load_plan_bounds.ts";
import { PROFILES } from "../workloads.ts";

export const COMPARE_SPEC_FORMAT = "strata-compare-spec" as const;

/** One pinned workload of a spec. */
export interface SpecWorkload {
  label: string;
  source: WorkloadOptions["source"];
  sha256: string;
  sample: number | undefined;
}

/** A checked spec, paths resolved against the spec's folder. */
export interface CompareSpec {
  name: string;
  servingStack: Record<string, string>;
  workloads: SpecWorkload[];
  points: number[];
  rounds: number;
  seed: number;
  request: {
    maxTokens: number | null;
    minTokens: number | undefined;
    temperature: number;
    requestSeed: number | undefined;
    ignoreEos: boolean;
    model: string | undefined;
    stream: boolean;
    requestTimeoutS: number;
  };
  durations: { warmupS: number; measureS: number; drainS: number };
  gate: { tolerance: number; maxErrorRateIncrease: number; noiseFloor: Record<string, number> };
  /** SHA-256 of the spec file's bytes. */
  sha256: string;
}

/** Defaults the methodology gives (30 s warm-up, 180 s measured issuance, points 1, 8, 32). */
export const SPEC_DEFAULTS = {
  points: [1, 8, 32],
  rounds: 3,
  warmupS: 30,
  measureS: 180,
  drainS: DEFAULT_DRAIN_S,
  tolerance: DEFAULT_GATE_TOLERANCE,
  maxErrorRateIncrease: DEFAULT_MAX_ERROR_RATE_INCREASE,
  requestTimeoutS: 600,
};

const text = Type.String({ minLength: 1 });
const number = (minimum: number, maximum = Infinity) => Type.Number({ minimum, maximum });
const integer = (minimum: number, maximum = Infinity) => Type.Integer({ minimum, maximum });
const closed = { additionalProperties: false } as const;
const SOURCES = ["prompts", "sharegpt", "profile", "synthetic"] as const;

/** The spec file's schema: every key it may hold, its type and its range (unknown keys refused everywhere). */
const SPEC_SCHEMA = Type.Object({
  $schema: Type.Optional(Type.String()),
  format: Type.Literal(COMPARE_SPEC_FORMAT),
  version: Type.Literal(1),
  name: text,
  serving_stack: Type.Record(Type.String(), Type.String()),
  workloads: Type.Record(
    Type.String(),
    Type.Object({
      prompts: Type.Optional(text),
      sharegpt: Type.Optional(text),
      profile: Type.Optional(Type.Enum(Object.keys(PROFILES))),
      synthetic: Type.Optional(Type.Enum(Object.keys(PROFILES))),
      sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
      sample: Type.Optional(integer(1)),
    }, closed),
    { minProperties: 1 },
  ),
  points: Type.Optional(Type.Array(integer(1, 4096), { minItems: 1, uniqueItems: true })),
  rounds: Type.Optional(integer(1, 50)),
  seed: Type.Optional(integer(0, 0xffffffff)),
  request: Type.Optional(Type.Object({
    max_tokens: Type.Optional(Type.Union([integer(1), Type.Null()])),
    min_tokens: Type.Optional(integer(1)),
    temperature: Type.Optional(number(0, 10)),
    seed: Type.Optional(integer(0)),
    ignore_eos: Type.Optional(Type.Boolean()),
    model: Type.Optional(text),
    stream: Type.Optional(Type.Boolean()),
    request_timeout_s: Type.Optional(number(1, 3600)),
  }, closed)),
  durations: Type.Optional(Type.Object({
    warmup_s: Type.Optional(number(0, 3600)),
    measure_s: Type.Optional(number(0.1, 3600)),
    drain_s: Type.Optional(number(0, 3600)),
  }, closed)),
  gate: Type.Optional(Type.Object({
    tolerance: Type.Optional(number(0, 1)),
    max_error_rate_increase: Type.Optional(number(0, 1)),
    noise_floor: Type.Optional(Type.Record(Type.String(), number(0, 10))),
  }, closed)),
}, closed);

/** Every problem of a parsed spec, by JSON Pointer: the schema's, then what a schema cannot say. */
function specProblems(value: unknown): string[] {
  const problems = schemaProblems(SPEC_SCHEMA, value, {
    uniqueItems: "a point repeats",
    pattern: "expected 64 lowercase hex digits (the pin)",
    enum: `unknown profile (${Object.keys(PROFILES).join(", ")})`,
  });
  // What a schema cannot say, read as far as the value's shape allows (its type errors are listed above).
  const spec = value as Partial<Record<"workloads" | "request", Record<string, unknown> | null>>;
  const workloads = typeof spec.workloads === "object" && spec.workloads !== null ? spec.workloads : {};
  for (const [label, w] of Object.entries(workloads)) {
    const at = `/workloads/${label}`;
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(label)) problems.push(`${at}: a label is letters, digits, _ or -`);
    const given = typeof w === "object" && w !== null ? SOURCES.filter((k) => k in w) : [];
    if (given.length !== 1) problems.push(`${at}: give exactly one of ${SOURCES.join(", ")}`);
  }
  const { max_tokens: max, min_tokens: min } = spec.request ?? {};
  if (typeof min === "number" && typeof max === "number" && min > max) {
    problems.push("/request/min_tokens: must not exceed max_tokens");
  }
  return problems;
}

/**
 * Parses and checks a spec. `dir` resolves relative workload paths; `sha256` is the spec text's own hash.
 * @throws SyntaxError listing every problem (JSONC errors, unknown keys, wrong types, bad values) by JSON Pointer.
 */
export function parseCompareSpec(text: string, dir: string, sha256: string): CompareSpec {
  const { value, problems } = parseStrictJsonc(text, MAX_INPUT_DEPTH);
  if (problems.length > 0 || typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SyntaxError(
      `Cannot read the compare spec:\n  ${problems.length ? problems.join("\n  ") : "not an object"}`,
    );
  }
  problems.push(...specProblems(value));
  if (problems.length > 0) throw new SyntaxError(`Cannot use the compare spec:\n  ${problems.join("\n  ")}`);
  const spec = value as Static<typeof SPEC_SCHEMA>;
  const request = spec.request ?? {}, durations = spec.durations ?? {}, gate = spec.gate ?? {};
  const path = (p: string) => (p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p) ? p : `${dir}/${p}`);
  const workloads = Object.entries(spec.workloads).map(([label, w]): SpecWorkload => {
    const source: WorkloadOptions["source"] = w.prompts !== undefined
      ? { kind: "jsonl", path: path(w.prompts) }
      : w.sharegpt !== undefined
      ? { kind: "sharegpt", path: path(w.sharegpt) }
      : w.profile !== undefined
      ? { kind: "profile", name: w.profile }
      : { kind: "synthetic", name: w.synthetic! };
    return { label, source, sha256: w.sha256, sample: w.sample };
  });
  return {
    name: spec.name,
    servingStack: spec.serving_stack,
    workloads,
    points: spec.points ?? SPEC_DEFAULTS.points,
    rounds: spec.rounds ?? SPEC_DEFAULTS.rounds,
    seed: spec.seed ?? 1,
    request: {
      maxTokens: request.max_tokens ?? null,
      minTokens: request.min_tokens,
      temperature: request.temperature ?? 0,
      requestSeed: request.seed,
      ignoreEos: request.ignore_eos ?? false,
      model: request.model,
      stream: request.stream ?? true,
      requestTimeoutS: request.request_timeout_s ?? SPEC_DEFAULTS.requestTimeoutS,
    },
    durations: {
      warmupS: durations.warmup_s ?? SPEC_DEFAULTS.warmupS,
      measureS: durations.measure_s ?? SPEC_DEFAULTS.measureS,
      drainS: durations.drain_s ?? SPEC_DEFAULTS.drainS,
    },
    gate: {
      tolerance: gate.tolerance ?? SPEC_DEFAULTS.tolerance,
      maxErrorRateIncrease: gate.max_error_rate_increase ?? SPEC_DEFAULTS.maxErrorRateIncrease,
      noiseFloor: gate.noise_floor ?? {},
    },
    sha256,
  };
}

/** The workload options of one spec workload (same request parameters for every workload). */
function specWorkloadOptions(spec: CompareSpec, w: SpecWorkload): WorkloadOptions {
  const o: WorkloadOptions = {
    source: w.source,
    sample: w.sample,
    seed: spec.seed,
    maxTokens: spec.request.maxTokens,
    ignoreEos: spec.request.ignoreEos,
    model: spec.request.model,
    allowRepeatedPrompt: false,
    requestTimeoutS: spec.request.requestTimeoutS,
    temperature: spec.request.temperature,
    stream: spec.request.stream,
    pinSha256: w.sha256,
  };
  if (spec.request.minTokens !== undefined) o.minTokens = spec.request.minTokens;
  if (spec.request.requestSeed !== undefined) o.requestSeed = spec.request.requestSeed;
  return o;
}

/**
 * The run options with a spec file's text (read from `path`) filling what the spec pins; a noise floor given on the
 * command line wins over the spec's.
 * @throws SyntaxError for a bad spec (every problem listed).
 */
export function applyCompareSpec<T extends CompareRunOptions>(options: T, text: string, path: string): T {
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const spec = parseCompareSpec(text, dir, sha256Hex(text));
  return {
    ...options,
    workloads: spec.workloads.map((w) => ({ label: w.label, options: specWorkloadOptions(spec, w) })),
    points: spec.points,
    rounds: spec.rounds,
    requests: undefined,
    durationS: spec.durations.measureS,
    warmupRequests: undefined,
    warmupS: spec.durations.warmupS,
    drainS: spec.durations.drainS,
    tolerance: spec.gate.tolerance,
    maxErrorRateIncrease: spec.gate.maxErrorRateIncrease,
    noiseFloor: { ...spec.gate.noiseFloor, ...options.noiseFloor },
    spec: { name: spec.name, sha256: spec.sha256, servingStack: spec.servingStack, path: path.split(/[\\/]/).pop()! },
  };
}
