/**
 * The result contract of the standard benchmark protocol (`strata-standard-benchmark`, schema version 1), as
 * TypeScript types. The validator (`validate.ts`) and the published JSON Schema (`result.schema.json`) enforce
 * what these types describe; every key named here is required unless marked optional.
 *
 * Nulls: any field typed `| null` must have a JSON Pointer entry in `missing` that says why it is null.
 */
import type { Phase, SanityCategory } from "./protocol.ts";

export const RESULT_FORMAT = "strata-standard-benchmark" as const;
export const SCHEMA_VERSION = 1 as const;

export const RUN_STATUSES = ["complete", "partial", "nonconforming"] as const;
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

export const ARTIFACT_KINDS = ["config", "engine_log", "outputs", "provenance"] as const;
export type ArtifactKind = typeof ARTIFACT_KINDS[number];

export interface NameVersion {
  name: string;
  version: string;
}

export interface Protocol {
  id: string;
  /** Full commit of the protocol definition (this toolkit's commit, which carries the fixtures). */
  git_commit: string | null;
  profile: string;
  corpus_sha256: string;
  model_card_revision: string | null;
}

export interface Run {
  id: string;
  /** UTC ISO 8601, e.g. 2026-11-29T14:03:07.123Z. */
  started_at: string;
  status: RunStatus;
  /** Warm-up dispatch to the end of the last sanity request, seconds. */
  required_duration_s: number | null;
  /** First dispatch to last termination of the optional stage, seconds; null when not selected. */
  optional_duration_s: number | null;
  optional_concurrency: boolean;
  /** Sanitized command line. */
  command: string;
}

export interface Gpu {
  device_index: number;
  name: string;
  memory_bytes: number | null;
  memory_kind: "dedicated" | "shared" | null;
  power_limit_w: number | null;
}

export interface Storage {
  kind: string | null;
  model: string | null;
  bus: string | null;
}

export interface Hardware {
  gpus: Gpu[] | null;
  cpu: string | null;
  ram_bytes: number | null;
  storage: Storage[] | null;
  background_workloads: string[];
}

export interface Software {
  os: NameVersion | null;
  drivers: NameVersion[] | null;
  runtime: NameVersion[] | null;
  strata_commit: string | null;
  engine_version: string | null;
  build_kind: "release" | "source" | null;
  runner_commit: string | null;
  build_options: string[] | null;
}

export interface ModelFile {
  /** Pack-relative file name, never a machine path. */
  path: string;
  sha256: string | null;
}

export interface Model {
  id: string | null;
  revision: string | null;
  source_revision: string | null;
  quantization: string | null;
  files: ModelFile[] | null;
  tokenizer_revision: string | null;
  custom_pack: string | null;
}

export interface Sampling {
  temperature: number;
  top_p: number;
  top_k: number;
  min_p: number;
  presence_penalty: number;
  repetition_penalty: number;
  reasoning_effort: string;
}

export interface ChatTemplateKwargs {
  enable_thinking: boolean;
  preserve_thinking: boolean;
}

/** Engine option objects keep the engine's own option names and JSON values. */
export type OptionObject = Record<string, unknown>;

export interface Configuration {
  track: "default" | "custom";
  track_notes: string | null;
  context_tokens: number | null;
  server_capacity: number | null;
  kv_cache: OptionObject | null;
  expert_cache: OptionObject | null;
  offloading: OptionObject | null;
  prefill: OptionObject | null;
  mtp: OptionObject | null;
  calibration: OptionObject | null;
  experimental_options: OptionObject | null;
  template: { path: string; sha256: string } | null;
  sampling: Sampling;
  chat_template_kwargs: ChatTemplateKwargs;
}

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

export interface PhaseCounts {
  planned: number;
  attempted: number;
  completed: number;
  truncated: number;
  failed: number;
  skipped: number;
}

export interface RequestCounts {
  warmup: PhaseCounts;
  performance: PhaseCounts;
  sanity: PhaseCounts;
  concurrency: PhaseCounts;
}

export interface RequestTokens {
  input_tokens: number | null;
  cached_tokens: number | null;
  read_tokens: number | null;
  output_tokens: number | null;
  decode_tokens: number | null;
}

export interface RequestTimings {
  prompt_s: number | null;
  decode_s: number | null;
  ttft_s: number | null;
  first_answer_s: number | null;
  total_s: number | null;
}

export interface RequestMetrics {
  prompt_tps: number | null;
  decode_tps: number | null;
}

/** Where each number came from: a raw API field path, an engine field, a derivation, or the client clock. */
export interface RequestSources {
  input_tokens: string | null;
  cached_tokens: string | null;
  read_tokens: string | null;
  output_tokens: string | null;
  decode_tokens: string | null;
  engine_timings: string | null;
  client_timings: string | null;
}

export interface RequestError {
  kind: string;
  message: string;
}

export interface Evaluation {
  category: SanityCategory;
  passed: boolean;
  reason: string;
}

export interface RequestRecord {
  id: string;
  phase: Phase;
  case_id: string;
  repetition: number;
  seed: number;
  max_output_tokens: number;
  concurrency: number;
  round: number | null;
  status: RequestStatus;
  finish_reason: string | null;
  error: RequestError | null;
  tokens: RequestTokens;
  timings: RequestTimings;
  metrics: RequestMetrics;
  sources: RequestSources;
  first_delta_kind: DeltaKind | null;
  token_accounting_note: string | null;
  evaluation: Evaluation | null;
}

export interface Exclusion {
  request_id: string;
  reason: string;
}

export interface Summary {
  phase: "performance" | "concurrency";
  case_id: string;
  concurrency: number;
  metric: Metric;
  unit: "tokens/s" | "s";
  median: number | null;
  min: number | null;
  max: number | null;
  n: number;
  included_request_ids: string[];
  excluded: Exclusion[];
}

export interface ConcurrencyRound {
  round: number;
  request_ids: string[];
  wall_s: number | null;
  output_tokens: number | null;
  aggregate_tps: number | null;
  failed: number;
}

export interface CategoryScore {
  passed: number;
  total: number;
}

export interface Quality {
  passed: number;
  total: number;
  categories: {
    instruction: CategoryScore;
    retrieval: CategoryScore;
    tool_call: CategoryScore;
  };
}

export interface Artifact {
  kind: ArtifactKind;
  /** Relative to the result folder; no absolute paths, no `..`. */
  path: string;
  sha256: string;
}

export interface Result {
  format: typeof RESULT_FORMAT;
  schema_version: typeof SCHEMA_VERSION;
  protocol: Protocol;
  run: Run;
  hardware: Hardware;
  software: Software;
  model: Model;
  configuration: Configuration;
  request_counts: RequestCounts;
  requests: RequestRecord[];
  summaries: Summary[];
  concurrency_rounds: ConcurrencyRound[];
  quality: Quality;
  artifacts: Artifact[];
  /** JSON Pointer (RFC 6901) of each null value -> why it is null. */
  missing: Record<string, string>;
  extensions?: Record<string, unknown>;
}
