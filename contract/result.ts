/**
 * The result contract of the standard benchmark protocol (`strata-standard-benchmark`, schema version 1), written
 * once as a JSON Schema (TypeBox builds it) from which the TypeScript types are derived. The same schema is what
 * `report/` checks a results.json against and what `result.schema.json` publishes (`deno task schema` writes it
 * from here). Every key is required unless marked optional; every object refuses unknown keys except the engine
 * option objects and `extensions`.
 *
 * Nulls: a field that may be null must have a JSON Pointer entry in `missing` that says why it is null.
 */
import Type, { type TSchema } from "typebox";
import { PHASES, PROFILE_ID, PROTOCOL_ID, SANITY_CATEGORIES } from "./protocol.ts";

export const RESULT_FORMAT = "strata-standard-benchmark" as const;
export const SCHEMA_VERSION = 1 as const;

const RUN_STATUSES = ["complete", "partial", "nonconforming"] as const;
export type RunStatus = typeof RUN_STATUSES[number];

export const REQUEST_STATUSES = ["completed", "truncated", "failed", "skipped"] as const;
export type RequestStatus = typeof REQUEST_STATUSES[number];

export const DELTA_KINDS = ["reasoning", "answer", "tool_call"] as const;
export type DeltaKind = typeof DELTA_KINDS[number];

export const METRICS = ["prompt_tps", "decode_tps", "ttft_s", "first_answer_s", "total_s"] as const;
export type Metric = typeof METRICS[number];
/** Unit of each summary metric: tokens/s for rates, seconds for latencies. */
export const METRIC_UNITS: Readonly<Record<Metric, "tokens/s" | "s">> = {
  prompt_tps: "tokens/s",
  decode_tps: "tokens/s",
  ttft_s: "s",
  first_answer_s: "s",
  total_s: "s",
};

const ARTIFACT_KINDS = ["config", "engine_log", "outputs", "provenance"] as const;
export type ArtifactKind = typeof ARTIFACT_KINDS[number];

/** Named string formats; each is a `pattern` in the schema, and report/ adds the checks a pattern cannot do. */
export type StringFormat = "sha256" | "commit" | "utc-time" | "relative-path";

/** Regular expression of each format, exactly as the schema's `pattern` writes it. */
export const FORMAT_PATTERNS: Readonly<Record<StringFormat, string>> = {
  sha256: "^[0-9a-f]{64}$",
  commit: "^(?:[0-9a-f]{40}|[0-9a-f]{64})$",
  "utc-time": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,9})?Z$",
  "relative-path": "^(?![A-Za-z]:)(?![/~])(?!.*\\\\)(?!(?:.*/)?\\.\\.(?:/|$))[^\\u0000-\\u001f]+$",
};

/** The pattern of a nonempty text: at least one character that is not whitespace. */
export const NONEMPTY_PATTERN = "\\S";

// The building blocks of the contract.
const string = Type.String();
const text = Type.String({ pattern: NONEMPTY_PATTERN });
const count = Type.Integer({ minimum: 0 });
const positive = Type.Integer({ minimum: 1 });
const seconds = Type.Number({ minimum: 0 });
const rate = Type.Number({ minimum: 0 });
const number = Type.Number();
const boolean = Type.Boolean();
const formatted = (format: StringFormat) => Type.String({ pattern: FORMAT_PATTERNS[format], format });
const sha256 = formatted("sha256");
const commit = formatted("commit");
const path = formatted("relative-path");
/** An engine option object: the engine's own option names and JSON values. */
const options = Type.Record(Type.String(), Type.Unknown());
const nullable = <T extends TSchema>(inner: T) => Type.Union([inner, Type.Null()]);
/** A closed object: every key required unless wrapped in Type.Optional, no unknown keys. */
const closed = <P extends Type.TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });

const nameVersion = closed({ name: string, version: string });

const protocol = closed({
  id: Type.Literal(PROTOCOL_ID),
  /** Full commit of the protocol definition (this toolkit's commit, which carries the fixtures). */
  git_commit: nullable(commit),
  profile: Type.Literal(PROFILE_ID),
  corpus_sha256: sha256,
  model_card_revision: nullable(string),
});

const run = closed({
  id: text,
  /** UTC ISO 8601, e.g. 2026-11-29T14:03:07.123Z. */
  started_at: formatted("utc-time"),
  status: Type.Enum(RUN_STATUSES),
  /** Warm-up dispatch to the end of the last sanity request, seconds. */
  required_duration_s: nullable(seconds),
  /** First dispatch to last termination of the optional stage, seconds; null when not selected. */
  optional_duration_s: nullable(seconds),
  optional_concurrency: boolean,
  /** Sanitized command line. */
  command: string,
});

const gpu = closed({
  device_index: count,
  name: string,
  memory_bytes: nullable(count),
  memory_kind: nullable(Type.Enum(["dedicated", "shared"] as const)),
  power_limit_w: nullable(rate),
});

const storage = closed({ kind: nullable(string), model: nullable(string), bus: nullable(string) });

const hardware = closed({
  gpus: nullable(Type.Array(gpu)),
  cpu: nullable(string),
  ram_bytes: nullable(count),
  storage: nullable(Type.Array(storage)),
  background_workloads: Type.Array(string),
});

const software = closed({
  os: nullable(nameVersion),
  drivers: nullable(Type.Array(nameVersion)),
  runtime: nullable(Type.Array(nameVersion)),
  strata_commit: nullable(commit),
  engine_version: nullable(string),
  build_kind: nullable(Type.Enum(["release", "source"] as const)),
  runner_commit: nullable(commit),
  build_options: nullable(Type.Array(string)),
});

/** A model file by its pack-relative name, never a machine path. */
const modelFile = closed({ path, sha256: nullable(sha256) });

/**
 * The model file's own facts, read from its GGUF header (all shards of a split model): observed, never declared.
 * `warnings` names each declaration (--quantization, --model-id) the file contradicts, and a server template that
 * differs from the file's.
 */
const modelFileFacts = closed({
  source: text,
  files: Type.Array(path),
  architecture: nullable(string),
  file_type: nullable(string),
  tensor_types: Type.Record(Type.String(), count),
  context_length: nullable(count),
  parameter_count: nullable(count),
  chat_template_sha256: nullable(sha256),
  effective_template_matches: nullable(boolean),
  warnings: Type.Array(text),
});

/** Where the engine command line behind the configuration objects came from. */
export const COMMAND_LINE_PROVENANCE = ["profile", "observed", "declared"] as const;
const engineCommandLine = closed({
  /** profile: the runner started it; observed: read from the listening process; declared: --engine-args. */
  provenance: Type.Enum(COMMAND_LINE_PROVENANCE),
  source: text,
});

const model = closed({
  id: nullable(string),
  revision: nullable(string),
  source_revision: nullable(string),
  quantization: nullable(string),
  files: nullable(Type.Array(modelFile)),
  tokenizer_revision: nullable(string),
  custom_pack: nullable(string),
});

const sampling = closed({
  temperature: number,
  top_p: number,
  top_k: count,
  min_p: number,
  presence_penalty: number,
  repetition_penalty: number,
  reasoning_effort: string,
});

const chatTemplateKwargs = closed({ enable_thinking: boolean, preserve_thinking: boolean });

const configuration = closed({
  track: Type.Enum(["default", "custom"] as const),
  track_notes: nullable(string),
  context_tokens: nullable(count),
  server_capacity: nullable(count),
  kv_cache: nullable(options),
  expert_cache: nullable(options),
  offloading: nullable(options),
  prefill: nullable(options),
  mtp: nullable(options),
  calibration: nullable(options),
  experimental_options: nullable(options),
  template: nullable(closed({ path, sha256 })),
  sampling,
  chat_template_kwargs: chatTemplateKwargs,
});

const phaseCounts = closed({
  planned: count,
  attempted: count,
  completed: count,
  truncated: count,
  failed: count,
  skipped: count,
});

const requestCounts = closed({
  warmup: phaseCounts,
  performance: phaseCounts,
  sanity: phaseCounts,
  concurrency: phaseCounts,
});

const tokens = closed({
  input_tokens: nullable(count),
  cached_tokens: nullable(count),
  read_tokens: nullable(count),
  output_tokens: nullable(count),
  decode_tokens: nullable(count),
});

const timings = closed({
  prompt_s: nullable(seconds),
  decode_s: nullable(seconds),
  ttft_s: nullable(seconds),
  first_answer_s: nullable(seconds),
  total_s: nullable(seconds),
});

const metrics = closed({ prompt_tps: nullable(rate), decode_tps: nullable(rate) });

/** Where each number came from: a raw API field path, an engine field, a derivation, or the client clock. */
const sources = closed({
  input_tokens: nullable(string),
  cached_tokens: nullable(string),
  read_tokens: nullable(string),
  output_tokens: nullable(string),
  decode_tokens: nullable(string),
  engine_timings: nullable(string),
  client_timings: nullable(string),
});

/**
 * The reasoning cadence of a request that streamed reasoning (load's definitions, score/cadence.ts), from the
 * client's stamps of every reasoning and answer chunk: first reasoning delta to first answer delta (thinking time)
 * and the mean gap per chunk, first to last (TPOT: one token an event, as llama.cpp streams), for the reasoning and
 * for the answer (text or tool calls). The gaps themselves (ITL) are in the evidence's stamps; results.json keeps
 * them pooled per case (`reasoningItl`), which is all a readout of them uses.
 */
const reasoningCadence = closed({
  thinking_s: nullable(seconds),
  reasoning_tpot_s: nullable(seconds),
  answer_tpot_s: nullable(seconds),
});

/** Median, extremes and count of a pooled sample of gaps (nulls when it is empty). */
const gapRange = closed({ median: nullable(seconds), min: nullable(seconds), max: nullable(seconds), n: count });

/**
 * One case's ITL (the cases a readout shows: performance and the optional stage): every gap between successive reasoning chunks, and between successive answer chunks (each rounded
 * to the microsecond), of its measured requests (completed or capped) that streamed reasoning, pooled.
 */
const reasoningItl = closed({
  phase: Type.Enum(["performance", "concurrency"] as const),
  case_id: text,
  reasoning_itl_s: gapRange,
  answer_itl_s: gapRange,
});

const requestError = closed({ kind: text, message: string });

const evaluation = closed({ category: Type.Enum(SANITY_CATEGORIES), passed: boolean, reason: text });

const request = closed({
  id: text,
  phase: Type.Enum(PHASES),
  case_id: text,
  repetition: positive,
  seed: count,
  max_output_tokens: positive,
  concurrency: positive,
  round: nullable(positive),
  status: Type.Enum(REQUEST_STATUSES),
  finish_reason: nullable(string),
  error: nullable(requestError),
  tokens,
  timings,
  metrics,
  sources,
  first_delta_kind: nullable(Type.Enum(DELTA_KINDS)),
  token_accounting_note: nullable(string),
  evaluation: nullable(evaluation),
});

const exclusion = closed({ request_id: text, reason: text });

const summary = closed({
  phase: Type.Enum(["performance", "concurrency"] as const),
  case_id: text,
  concurrency: positive,
  metric: Type.Enum(METRICS),
  unit: Type.Enum(["tokens/s", "s"] as const),
  median: nullable(rate),
  min: nullable(rate),
  max: nullable(rate),
  n: count,
  included_request_ids: Type.Array(text),
  excluded: Type.Array(exclusion),
});

const concurrencyRound = closed({
  round: positive,
  request_ids: Type.Array(text),
  wall_s: nullable(seconds),
  output_tokens: nullable(count),
  aggregate_tps: nullable(rate),
  failed: count,
});

const categoryScore = closed({ passed: count, total: count });

const quality = closed({
  passed: count,
  total: count,
  categories: closed({ instruction: categoryScore, retrieval: categoryScore, tool_call: categoryScore }),
});

/** An artifact: its path relative to the result folder (no absolute path, no `..`) and the SHA-256 of its bytes. */
const artifact = closed({ kind: Type.Enum(ARTIFACT_KINDS), path, sha256 });

/**
 * `extensions`: data beyond the protocol's contract (the protocol puts every field it does not define here). Most
 * keys are checked by report's rules; three below are typed here because they were once outside `extensions`, and
 * the machine token because the review compares it.
 * Their nulls may carry reasons in `missing` (optional: /missing requires reasons only outside /extensions).
 */
const knownExtensions = Type.Object({
  /** Request id -> the reasoning cadence of that request; null when it streamed no reasoning, failed or was skipped. */
  reasoning_cadence: Type.Optional(Type.Record(Type.String(), nullable(reasoningCadence))),
  /** Per case with a request that reasoned (in plan order): its ITL gaps pooled. */
  reasoning_itl: Type.Optional(Type.Array(reasoningItl)),
  /** What the runner read from the model file's own header (GGUF metadata). */
  model_file_facts: Type.Optional(nullable(modelFileFacts)),
  /** Where the engine command line behind the configuration objects came from. */
  engine_command_line: Type.Optional(engineCommandLine),
  /** An anonymous token of the measured machine (probe/machine_token.ts); null where no machine id was read. */
  machine_token: Type.Optional(nullable(sha256)),
});
/** Every other key is open (the schema admits it; report's rules check the ones the toolkit writes). */
type ExtensionsType = Type.Static<typeof knownExtensions> & Record<string, unknown>;
const extensions = Type.Unsafe<ExtensionsType>(knownExtensions);

/** The whole results.json. */
export const RESULT_SCHEMA = closed({
  format: Type.Literal(RESULT_FORMAT),
  schema_version: Type.Literal(SCHEMA_VERSION),
  protocol,
  run,
  hardware,
  software,
  model,
  configuration,
  request_counts: requestCounts,
  requests: Type.Array(request),
  summaries: Type.Array(summary),
  concurrency_rounds: Type.Array(concurrencyRound),
  quality,
  artifacts: Type.Array(artifact),
  /** JSON Pointer (RFC 6901) of each null value -> why it is null. */
  missing: Type.Record(Type.String(), text),
  extensions: Type.Optional(extensions),
});

/** The published JSON Schema document (draft 2020-12) of results.json: RESULT_SCHEMA with its identity. */
export function resultJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://strata-bench.invalid/schemas/strata-standard-benchmark/1/result.schema.json",
    title: "strata-standard-benchmark results.json, schema version 1",
    description: `Shape of one result of protocol ${PROTOCOL_ID}. The schema covers keys, types, enums, formats and ` +
      "bounds. What a schema cannot say (every null explained in /missing, count identities, request ID order, " +
      "summaries rebuilt from the request records, artifact hashes) is checked by `strata-bench report DIR`.",
    ...JSON.parse(JSON.stringify(RESULT_SCHEMA)),
  };
}

export type NameVersion = Type.Static<typeof nameVersion>;
export type Gpu = Type.Static<typeof gpu>;
export type Storage = Type.Static<typeof storage>;
export type Hardware = Type.Static<typeof hardware>;
export type Software = Type.Static<typeof software>;
export type ModelFile = Type.Static<typeof modelFile>;
export type Model = Type.Static<typeof model>;
export type ModelFileFacts = Type.Static<typeof modelFileFacts>;
export type ReasoningCadence = Type.Static<typeof reasoningCadence>;
export type ReasoningItl = Type.Static<typeof reasoningItl>;
export type EngineCommandLine = Type.Static<typeof engineCommandLine>;
export type Sampling = Type.Static<typeof sampling>;
export type ChatTemplateKwargs = Type.Static<typeof chatTemplateKwargs>;
/** Engine option objects keep the engine's own option names and JSON values. */
export type OptionObject = Type.Static<typeof options>;
export type Configuration = Type.Static<typeof configuration>;
/** The configuration fields a probe can know; track, sampling and template kwargs belong to the runner. */
export type ProbedConfiguration = Pick<
  Configuration,
  | "context_tokens"
  | "server_capacity"
  | "kv_cache"
  | "expert_cache"
  | "offloading"
  | "prefill"
  | "mtp"
  | "calibration"
  | "experimental_options"
  | "template"
>;
export type PhaseCounts = Type.Static<typeof phaseCounts>;
export type RequestCounts = Type.Static<typeof requestCounts>;
export type RequestError = Type.Static<typeof requestError>;
export type Evaluation = Type.Static<typeof evaluation>;
export type RequestRecord = Type.Static<typeof request>;
export type Exclusion = Type.Static<typeof exclusion>;
export type Summary = Type.Static<typeof summary>;
export type ConcurrencyRound = Type.Static<typeof concurrencyRound>;
export type Quality = Type.Static<typeof quality>;
export type Artifact = Type.Static<typeof artifact>;
export type Result = Type.Static<typeof RESULT_SCHEMA>;
