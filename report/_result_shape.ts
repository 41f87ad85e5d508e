/**
 * The result contract (`contract.ts`) as a checkable shape: required keys, types, nullability, enums, formats and
 * lower bounds. `objectShape<T>` makes the compiler reject a key list that differs from the TypeScript type.
 */
import {
  type Artifact,
  ARTIFACT_KINDS,
  type CategoryScore,
  type ChatTemplateKwargs,
  type ConcurrencyRound,
  type Configuration,
  DELTA_KINDS,
  type Evaluation,
  type Exclusion,
  type Gpu,
  type Hardware,
  METRICS,
  type Model,
  type ModelFile,
  type NameVersion,
  type PhaseCounts,
  PHASES,
  PROFILE_ID,
  type Protocol,
  PROTOCOL_ID,
  type Quality,
  REQUEST_STATUSES,
  type RequestCounts,
  type RequestError,
  type RequestMetrics,
  type RequestRecord,
  type RequestSources,
  type RequestTimings,
  type RequestTokens,
  type Result,
  RESULT_FORMAT,
  type Run,
  RUN_STATUSES,
  type Sampling,
  SANITY_CATEGORIES,
  SCHEMA_VERSION,
  type Software,
  type Storage,
  type Summary,
} from "../contract/mod.ts";
import { objectShape, type Shape } from "./_shape.ts";

const string: Shape = { kind: "string" };
const text: Shape = { kind: "string", nonEmpty: true };
const count: Shape = { kind: "integer", minimum: 0 };
const positive: Shape = { kind: "integer", minimum: 1 };
const seconds: Shape = { kind: "number", minimum: 0 };
const rate: Shape = { kind: "number", minimum: 0 };
const number: Shape = { kind: "number" };
const boolean: Shape = { kind: "boolean" };
const sha256: Shape = { kind: "string", format: "sha256" };
const commit: Shape = { kind: "string", format: "commit" };
const path: Shape = { kind: "string", format: "relative-path" };
const options: Shape = { kind: "open-object" };
const nullable = (inner: Shape): Shape => ({ kind: "nullable", inner });
const arrayOf = (items: Shape): Shape => ({ kind: "array", items });
const oneOf = (values: readonly string[]): Shape => ({ kind: "enum", values });

const nameVersion = objectShape<NameVersion>({ name: string, version: string });

const protocol = objectShape<Protocol>({
  id: { kind: "const", value: PROTOCOL_ID },
  git_commit: nullable(commit),
  profile: { kind: "const", value: PROFILE_ID },
  corpus_sha256: sha256,
  model_card_revision: nullable(string),
});

const run = objectShape<Run>({
  id: text,
  started_at: { kind: "string", format: "utc-time" },
  status: oneOf(RUN_STATUSES),
  required_duration_s: nullable(seconds),
  optional_duration_s: nullable(seconds),
  optional_concurrency: boolean,
  command: string,
});

const gpu = objectShape<Gpu>({
  device_index: count,
  name: string,
  memory_bytes: nullable(count),
  memory_kind: nullable(oneOf(["dedicated", "shared"])),
  power_limit_w: nullable(rate),
});

const storage = objectShape<Storage>({ kind: nullable(string), model: nullable(string), bus: nullable(string) });

const hardware = objectShape<Hardware>({
  gpus: nullable(arrayOf(gpu)),
  cpu: nullable(string),
  ram_bytes: nullable(count),
  storage: nullable(arrayOf(storage)),
  background_workloads: arrayOf(string),
});

const software = objectShape<Software>({
  os: nullable(nameVersion),
  drivers: nullable(arrayOf(nameVersion)),
  runtime: nullable(arrayOf(nameVersion)),
  strata_commit: nullable(commit),
  engine_version: nullable(string),
  build_kind: nullable(oneOf(["release", "source"])),
  runner_commit: nullable(commit),
  build_options: nullable(arrayOf(string)),
});

const modelFile = objectShape<ModelFile>({ path, sha256: nullable(sha256) });

const model = objectShape<Model>({
  id: nullable(string),
  revision: nullable(string),
  source_revision: nullable(string),
  quantization: nullable(string),
  files: nullable(arrayOf(modelFile)),
  tokenizer_revision: nullable(string),
  custom_pack: nullable(string),
});

const sampling = objectShape<Sampling>({
  temperature: number,
  top_p: number,
  top_k: { kind: "integer", minimum: 0 },
  min_p: number,
  presence_penalty: number,
  repetition_penalty: number,
  reasoning_effort: string,
});

const chatTemplateKwargs = objectShape<ChatTemplateKwargs>({ enable_thinking: boolean, preserve_thinking: boolean });

const configuration = objectShape<Configuration>({
  track: oneOf(["default", "custom"]),
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
  template: nullable(objectShape<{ path: string; sha256: string }>({ path, sha256 })),
  sampling,
  chat_template_kwargs: chatTemplateKwargs,
});

const phaseCounts = objectShape<PhaseCounts>({
  planned: count,
  attempted: count,
  completed: count,
  truncated: count,
  failed: count,
  skipped: count,
});

const requestCounts = objectShape<RequestCounts>({
  warmup: phaseCounts,
  performance: phaseCounts,
  sanity: phaseCounts,
  concurrency: phaseCounts,
});

const tokens = objectShape<RequestTokens>({
  input_tokens: nullable(count),
  cached_tokens: nullable(count),
  read_tokens: nullable(count),
  output_tokens: nullable(count),
  decode_tokens: nullable(count),
});

const timings = objectShape<RequestTimings>({
  prompt_s: nullable(seconds),
  decode_s: nullable(seconds),
  ttft_s: nullable(seconds),
  first_answer_s: nullable(seconds),
  total_s: nullable(seconds),
});

const metrics = objectShape<RequestMetrics>({ prompt_tps: nullable(rate), decode_tps: nullable(rate) });

const sources = objectShape<RequestSources>({
  input_tokens: nullable(string),
  cached_tokens: nullable(string),
  read_tokens: nullable(string),
  output_tokens: nullable(string),
  decode_tokens: nullable(string),
  engine_timings: nullable(string),
  client_timings: nullable(string),
});

const requestError = objectShape<RequestError>({ kind: text, message: string });

const evaluation = objectShape<Evaluation>({ category: oneOf(SANITY_CATEGORIES), passed: boolean, reason: text });

const request = objectShape<RequestRecord>({
  id: text,
  phase: oneOf(PHASES),
  case_id: text,
  repetition: positive,
  seed: count,
  max_output_tokens: positive,
  concurrency: positive,
  round: nullable(positive),
  status: oneOf(REQUEST_STATUSES),
  finish_reason: nullable(string),
  error: nullable(requestError),
  tokens,
  timings,
  metrics,
  sources,
  first_delta_kind: nullable(oneOf(DELTA_KINDS)),
  token_accounting_note: nullable(string),
  evaluation: nullable(evaluation),
});

const exclusion = objectShape<Exclusion>({ request_id: text, reason: text });

const summary = objectShape<Summary>({
  phase: oneOf(["performance", "concurrency"]),
  case_id: text,
  concurrency: positive,
  metric: oneOf(METRICS),
  unit: oneOf(["tokens/s", "s"]),
  median: nullable(rate),
  min: nullable(rate),
  max: nullable(rate),
  n: count,
  included_request_ids: arrayOf(text),
  excluded: arrayOf(exclusion),
});

const concurrencyRound = objectShape<ConcurrencyRound>({
  round: positive,
  request_ids: arrayOf(text),
  wall_s: nullable(seconds),
  output_tokens: nullable(count),
  aggregate_tps: nullable(rate),
  failed: count,
});

const categoryScore = objectShape<CategoryScore>({ passed: count, total: count });

const quality = objectShape<Quality>({
  passed: count,
  total: count,
  categories: objectShape<Quality["categories"]>({
    instruction: categoryScore,
    retrieval: categoryScore,
    tool_call: categoryScore,
  }),
});

const artifact = objectShape<Artifact>({ kind: oneOf(ARTIFACT_KINDS), path, sha256 });

/** Shape of a whole results.json. */
export const RESULT_SHAPE = objectShape<Result>({
  format: { kind: "const", value: RESULT_FORMAT },
  schema_version: { kind: "const", value: SCHEMA_VERSION },
  protocol,
  run,
  hardware,
  software,
  model,
  configuration,
  request_counts: requestCounts,
  requests: arrayOf(request),
  summaries: arrayOf(summary),
  concurrency_rounds: arrayOf(concurrencyRound),
  quality,
  artifacts: arrayOf(artifact),
  missing: { kind: "record", values: text },
  extensions: options,
}, ["extensions"]);
