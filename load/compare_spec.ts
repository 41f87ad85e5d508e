/**
 * The compare spec file (JSONC): the release gate as a versioned harness (performance methodology, release
 * validation). It pins the workloads (W1, W2, ... each a prompt file, a named profile or a ShareGPT file, with its
 * SHA-256), the concurrency points (default 1, 8, 32), the request parameters, the durations (30 s warm-up and 180 s
 * measured issuance per point by default, with a drain limit), the rounds, the gate settings and the serving stack's
 * identity (recorded, not checked: the toolkit cannot see an image tag). Unknown keys anywhere are refused, every
 * problem at once, by JSON Pointer, before any traffic.
 */
import { parseStrictJsonc } from "../score/mod.ts";
import { MAX_INPUT_DEPTH } from "./_strict_input.ts";
import type { WorkloadOptions } from "./prepare.ts";
import { PROFILES } from "./workloads.ts";

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
  drainS: 30,
  tolerance: 0.05,
  maxErrorRateIncrease: 0.01,
  requestTimeoutS: 600,
};

const TOP = new Set([
  "$schema",
  "format",
  "version",
  "name",
  "serving_stack",
  "workloads",
  "points",
  "rounds",
  "seed",
  "request",
  "durations",
  "gate",
]);
const WORKLOAD_KEYS = new Set(["prompts", "sharegpt", "profile", "synthetic", "sha256", "sample"]);
const REQUEST_KEYS = new Set([
  "max_tokens",
  "min_tokens",
  "temperature",
  "seed",
  "ignore_eos",
  "model",
  "stream",
  "request_timeout_s",
]);
const DURATION_KEYS = new Set(["warmup_s", "measure_s", "drain_s"]);
const GATE_KEYS = new Set(["tolerance", "max_error_rate_increase", "noise_floor"]);

type Json = Record<string, unknown>;
function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Parses and checks a spec. `dir` resolves relative workload paths; `sha256` is the spec text's own hash.
 * @throws SyntaxError listing every problem (JSONC errors, unknown keys, wrong types, bad values) by JSON Pointer.
 */
export function parseCompareSpec(text: string, dir: string, sha256: string): CompareSpec {
  const { value, problems } = parseStrictJsonc(text, MAX_INPUT_DEPTH);
  if (problems.length > 0 || !isObject(value)) {
    throw new SyntaxError(
      `Cannot read the compare spec:\n  ${problems.length ? problems.join("\n  ") : "not an object"}`,
    );
  }
  const unknown = (obj: Json, allowed: Set<string>, at: string) => {
    for (const k of Object.keys(obj)) if (!allowed.has(k)) problems.push(`${at}/${k}: unknown key`);
  };
  unknown(value, TOP, "");
  if (value.format !== COMPARE_SPEC_FORMAT) problems.push(`/format: must be "${COMPARE_SPEC_FORMAT}"`);
  if (value.version !== 1) problems.push("/version: must be 1");
  const str = (v: unknown, at: string, optional = false): string | undefined => {
    if (v === undefined && optional) return undefined;
    if (typeof v !== "string" || v === "") problems.push(`${at}: expected a nonempty string`);
    return typeof v === "string" ? v : undefined;
  };
  const num = (
    v: unknown,
    at: string,
    check: { integer?: boolean; min?: number; max?: number },
    fallback: number,
  ): number => {
    if (v === undefined) return fallback;
    const bad = typeof v !== "number" || !Number.isFinite(v) || (check.integer && !Number.isInteger(v)) ||
      (check.min !== undefined && v < check.min) || (check.max !== undefined && v > check.max);
    if (bad) {
      problems.push(
        `${at}: expected ${check.integer ? "an integer" : "a number"}` +
          `${check.min !== undefined ? ` >= ${check.min}` : ""}${check.max !== undefined ? ` <= ${check.max}` : ""}`,
      );
      return fallback;
    }
    return v as number;
  };
  const name = str(value.name, "/name") ?? "";
  const servingStack: Record<string, string> = {};
  if (value.serving_stack === undefined) problems.push("/serving_stack: required (image, model, revision, ...)");
  else if (!isObject(value.serving_stack)) problems.push("/serving_stack: expected an object of strings");
  else {
    for (const [k, v] of Object.entries(value.serving_stack)) {
      if (typeof v !== "string") problems.push(`/serving_stack/${k}: expected a string`);
      else servingStack[k] = v;
    }
  }
  const workloads: SpecWorkload[] = [];
  if (!isObject(value.workloads) || Object.keys(value.workloads).length === 0) {
    problems.push("/workloads: expected an object of labelled workloads (W1, W2, ...)");
  } else {
    for (const [label, w] of Object.entries(value.workloads)) {
      const at = `/workloads/${label}`;
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(label)) problems.push(`${at}: a label is letters, digits, _ or -`);
      if (!isObject(w)) {
        problems.push(`${at}: expected an object`);
        continue;
      }
      unknown(w, WORKLOAD_KEYS, at);
      const kinds = ["prompts", "sharegpt", "profile", "synthetic"].filter((k) => w[k] !== undefined);
      if (kinds.length !== 1) {
        problems.push(`${at}: give exactly one of prompts, sharegpt, profile, synthetic`);
        continue;
      }
      const kind = kinds[0] as "prompts" | "sharegpt" | "profile" | "synthetic";
      const ref = str(w[kind], `${at}/${kind}`) ?? "";
      if ((kind === "profile" || kind === "synthetic") && !Object.hasOwn(PROFILES, ref)) {
        problems.push(`${at}/${kind}: unknown profile "${ref}" (${Object.keys(PROFILES).join(", ")})`);
      }
      const sha = str(w.sha256, `${at}/sha256`) ?? "";
      if (!/^[0-9a-f]{64}$/.test(sha)) problems.push(`${at}/sha256: expected 64 lowercase hex digits (the pin)`);
      const sample = w.sample === undefined ? undefined : num(w.sample, `${at}/sample`, { integer: true, min: 1 }, 1);
      const path = (p: string) => (p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p) ? p : `${dir}/${p}`);
      const source: WorkloadOptions["source"] = kind === "prompts"
        ? { kind: "jsonl", path: path(ref) }
        : kind === "sharegpt"
        ? { kind: "sharegpt", path: path(ref) }
        : { kind, name: ref };
      workloads.push({ label, source, sha256: sha, sample });
    }
  }
  let points = SPEC_DEFAULTS.points;
  if (value.points !== undefined) {
    if (!Array.isArray(value.points) || value.points.length === 0) problems.push("/points: expected an array");
    else {
      points = value.points.map((p, i) => num(p, `/points/${i}`, { integer: true, min: 1, max: 4096 }, 1));
      if (new Set(points).size !== points.length) problems.push("/points: a point repeats");
    }
  }
  const req = value.request === undefined ? {} : value.request;
  if (!isObject(req)) problems.push("/request: expected an object");
  const r = isObject(req) ? req : {};
  unknown(r, REQUEST_KEYS, "/request");
  const bool = (v: unknown, at: string, fallback: boolean) => {
    if (v === undefined) return fallback;
    if (typeof v !== "boolean") problems.push(`${at}: expected true or false`);
    return v === true;
  };
  const maxTokens = r.max_tokens === undefined || r.max_tokens === null
    ? null
    : num(r.max_tokens, "/request/max_tokens", { integer: true, min: 1 }, 1);
  const minTokens = r.min_tokens === undefined
    ? undefined
    : num(r.min_tokens, "/request/min_tokens", { integer: true, min: 1 }, 1);
  if (minTokens !== undefined && maxTokens !== null && minTokens > maxTokens) {
    problems.push("/request/min_tokens: must not exceed max_tokens");
  }
  const d = value.durations === undefined ? {} : value.durations;
  if (!isObject(d)) problems.push("/durations: expected an object");
  const dd = isObject(d) ? d : {};
  unknown(dd, DURATION_KEYS, "/durations");
  const g = value.gate === undefined ? {} : value.gate;
  if (!isObject(g)) problems.push("/gate: expected an object");
  const gg = isObject(g) ? g : {};
  unknown(gg, GATE_KEYS, "/gate");
  const noiseFloor: Record<string, number> = {};
  if (gg.noise_floor !== undefined) {
    if (!isObject(gg.noise_floor)) problems.push("/gate/noise_floor: expected an object of point -> fraction");
    else {
      for (const [k, v] of Object.entries(gg.noise_floor)) {
        noiseFloor[k] = num(v, `/gate/noise_floor/${k}`, { min: 0, max: 10 }, 0);
      }
    }
  }
  const spec: CompareSpec = {
    name,
    servingStack,
    workloads,
    points,
    rounds: num(value.rounds, "/rounds", { integer: true, min: 1, max: 50 }, SPEC_DEFAULTS.rounds),
    seed: num(value.seed, "/seed", { integer: true, min: 0, max: 0xffffffff }, 1),
    request: {
      maxTokens,
      minTokens,
      temperature: num(r.temperature, "/request/temperature", { min: 0, max: 10 }, 0),
      requestSeed: r.seed === undefined ? undefined : num(r.seed, "/request/seed", { integer: true, min: 0 }, 0),
      ignoreEos: bool(r.ignore_eos, "/request/ignore_eos", false),
      model: str(r.model, "/request/model", true),
      stream: bool(r.stream, "/request/stream", true),
      requestTimeoutS: num(
        r.request_timeout_s,
        "/request/request_timeout_s",
        { min: 1, max: 3600 },
        SPEC_DEFAULTS.requestTimeoutS,
      ),
    },
    durations: {
      warmupS: num(dd.warmup_s, "/durations/warmup_s", { min: 0, max: 3600 }, SPEC_DEFAULTS.warmupS),
      measureS: num(dd.measure_s, "/durations/measure_s", { min: 0.1, max: 3600 }, SPEC_DEFAULTS.measureS),
      drainS: num(dd.drain_s, "/durations/drain_s", { min: 0, max: 3600 }, SPEC_DEFAULTS.drainS),
    },
    gate: {
      tolerance: num(gg.tolerance, "/gate/tolerance", { min: 0, max: 1 }, SPEC_DEFAULTS.tolerance),
      maxErrorRateIncrease: num(
        gg.max_error_rate_increase,
        "/gate/max_error_rate_increase",
        { min: 0, max: 1 },
        SPEC_DEFAULTS.maxErrorRateIncrease,
      ),
      noiseFloor,
    },
    sha256,
  };
  if (problems.length > 0) throw new SyntaxError(`Cannot use the compare spec:\n  ${problems.join("\n  ")}`);
  return spec;
}

/** The workload options of one spec workload (same request parameters for every workload). */
export function specWorkloadOptions(spec: CompareSpec, w: SpecWorkload): WorkloadOptions {
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
