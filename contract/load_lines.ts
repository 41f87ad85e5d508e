/**
 * The load line contract: every line `load` and `compare` write (and the plan, prompt-mix and merge documents
 * beside them), written once as TypeBox schemas from which their types derive. load/ writes lines of these types,
 * every reader checks each line against its format's schema (load/load_lines.ts), and `load-lines.schema.json`
 * publishes them (`deno task schema`, from load_lines_schema.ts). The request row and the run summary are given field by field; the other
 * lines by the fields their readers rely on, the rest open (each is read back only for what is named here).
 *
 * What a schema cannot say (a time before its start, an end before its send, a count that is not a count, a row that
 * disagrees with its summary) is checked by the readers.
 */
import Type, { type TSchema } from "typebox";

/** The formats and the version of each that this toolkit writes and reads. */
export const LOAD_LINE_FORMATS = {
  run: "strata-load-run",
  request: "strata-load-request",
  summary: "strata-load-summary",
  aggregate: "strata-load-aggregate",
  compareRun: "strata-load-compare-run",
  compare: "strata-load-compare",
  plan: "strata-load-plan",
  promptMix: "strata-load-prompt-mix",
  merge: "strata-load-merge",
} as const;

/**
 * Version of each format. The run, request, summary, aggregate, compare-run and compare lines share one (3: a request
 * in flight when a signal interrupted the load is "cancelled", summaries count it apart and carry `interrupted`, the
 * config line carries the preflight check, an interrupted file ends with a line of kind "interrupted"; 2: ITL gaps to
 * the microsecond, only choice 0 measured, ttft_source, drain-limit cancellations, audits, prompt mix and headroom).
 */
export const LOAD_LINE_VERSIONS = {
  [LOAD_LINE_FORMATS.run]: 3,
  [LOAD_LINE_FORMATS.request]: 3,
  [LOAD_LINE_FORMATS.summary]: 3,
  [LOAD_LINE_FORMATS.aggregate]: 3,
  [LOAD_LINE_FORMATS.compareRun]: 3,
  [LOAD_LINE_FORMATS.compare]: 3,
  [LOAD_LINE_FORMATS.plan]: 1,
  [LOAD_LINE_FORMATS.promptMix]: 1,
  [LOAD_LINE_FORMATS.merge]: 1,
} as const;

type Format = typeof LOAD_LINE_FORMATS[keyof typeof LOAD_LINE_FORMATS];

const nullable = <T extends TSchema>(inner: T) => Type.Union([inner, Type.Null()]);
const number = Type.Number();
const maybe = nullable(number);
const count = Type.Integer({ minimum: 0 });
const text = Type.String();
const reasons = Type.Record(Type.String(), text);
const open = Type.Record(Type.String(), Type.Unknown());
/** The format and version a line of `format` opens with. */
const head = <F extends Format>(format: F) => ({
  format: Type.Literal(format),
  version: Type.Literal(LOAD_LINE_VERSIONS[format]),
});
/** The run a line of a repeated load or a sweep belongs to (from 0), written first on rows and summaries. */
const run = Type.Optional(count);

const L = Type.Literal;
const STATUS = Type.Union([L("success"), L("failed"), L("dropped"), L("cancelled")]);
const ANSWER = Type.Union([L("answered"), L("reasoning_truncated"), L("no_output_token")]);
const MODE = Type.Union([L("closed"), L("open")]);

/**
 * One request of a load run (performance methodology, LLM chat): E2E is completion minus actual send;
 * coordinated-omission latency adds the delay between scheduled arrival and actual send; TTFT is the first nonempty
 * reasoning or visible delta; first byte is response headers; ITL is every gap between successive visible-output
 * chunks; TPOT is (e2e - ttft) / (completion_tokens - 1). Every null carries a reason in `missing`.
 */
export const LOAD_REQUEST_ROW = Type.Object({
  run,
  ...head(LOAD_LINE_FORMATS.request),
  phase: Type.Union([Type.Literal("warmup"), Type.Literal("measure")]),
  /** Position in its phase, from 0. */
  index: count,
  endpoint: text,
  endpoint_index: count,
  prompt_index: count,
  /** success: the stream finished; failed: it did not; dropped: never sent; cancelled: in flight at a signal. */
  status: STATUS,
  /** Of a success: visible output arrived, only reasoning until the length cap, or nothing at all. */
  answer: nullable(ANSWER),
  finish_reason: nullable(text),
  error: nullable(Type.Object({ kind: text, message: text })),
  scheduled_offset_s: maybe,
  send_offset_s: maybe,
  /** Actual send minus scheduled send (open loop), seconds. */
  lateness_s: maybe,
  /** Lateness above the configured threshold. */
  late: Type.Boolean(),
  /** Terminal time (completion, error or cancel) from the epoch: send_offset_s + end. */
  end_offset_s: maybe,
  latency_s: maybe,
  co_latency_s: maybe,
  ttft_s: maybe,
  /** "stream": the first nonempty delta; "http_first_byte": response headers (--infer-ttft-from-first-byte). */
  ttft_source: nullable(Type.Union([Type.Literal("stream"), Type.Literal("http_first_byte")])),
  first_byte_s: maybe,
  connect_s: maybe,
  prefill_s: maybe,
  first_reasoning_s: maybe,
  first_answer_s: maybe,
  tpot_s: maybe,
  /** Gaps between successive visible-output chunks (the answer's ITL), seconds, rounded to the microsecond. */
  itl_s: nullable(Type.Array(number)),
  /**
   * The reasoning cadence of a request that streamed reasoning: thinking time (first reasoning delta to first answer
   * delta), reasoning ITL, reasoning TPOT (mean gap per reasoning chunk) and answer TPOT. Absent from rows written
   * before the cadence was recorded (read as null).
   */
  thinking_s: Type.Optional(maybe),
  reasoning_itl_s: Type.Optional(nullable(Type.Array(number))),
  reasoning_tpot_s: Type.Optional(maybe),
  answer_tpot_s: Type.Optional(maybe),
  /** What the cadence's TPOTs divided by: the engine's predicted_n differences, or one token an event. */
  tokens_from: Type.Optional(nullable(Type.Union([Type.Literal("engine"), Type.Literal("events")]))),
  /** Server-reported prompt and completion tokens (completion includes reasoning). */
  input_tokens: maybe,
  output_tokens: maybe,
  token_source: nullable(text),
  /** Requests in flight just before this one was sent (this one excluded). */
  in_flight_at_send: count,
  /** Field name -> why it is null. */
  missing: reasons,
}, { additionalProperties: false });

/** The numeric row columns a summary reads (null is stored as NaN in the row store). */
export const NUMERIC_COLUMNS = [
  "scheduled_offset_s",
  "send_offset_s",
  "end_offset_s",
  "lateness_s",
  "latency_s",
  "co_latency_s",
  "ttft_s",
  "first_byte_s",
  "first_reasoning_s",
  "first_answer_s",
  "tpot_s",
  "input_tokens",
  "output_tokens",
] as const satisfies readonly (keyof LoadRequestRow)[];

/** The columns a dropped request has too; every other column of the row is SENT_ONLY. */
const ROW_BASE = [
  "run",
  "format",
  "version",
  "phase",
  "index",
  "endpoint",
  "endpoint_index",
  "prompt_index",
  "status",
  "error",
  "scheduled_offset_s",
  "lateness_s",
  "late",
  "in_flight_at_send",
  "missing",
] as const satisfies readonly (keyof LoadRequestRow)[];
/** Columns a dropped request cannot have (null, with the drop as their reason), in the contract's order. */
export const SENT_ONLY = Object.keys(LOAD_REQUEST_ROW.properties)
  .filter((k) => !(ROW_BASE as readonly string[]).includes(k)) as Exclude<
    keyof LoadRequestRow,
    typeof ROW_BASE[number]
  >[];

/** A distribution (Hyndman-Fan type 7 percentiles; a tail percentile is unreliable while n < 1 / (1 - p)). */
export const LOAD_DISTRIBUTION = Type.Object({
  n: count,
  min: maybe,
  max: maybe,
  mean: maybe,
  sd: maybe,
  mad: maybe,
  p50: maybe,
  p90: maybe,
  p95: maybe,
  p99: maybe,
  percentile_method: Type.Literal("hyndman-fan-7"),
  unreliable: Type.Object({ p90: Type.Boolean(), p95: Type.Boolean(), p99: Type.Boolean() }),
});

/** Completions in one fixed-width bin of the window, divided by its actual width. */
export const THROUGHPUT_BIN = Type.Object({
  start_s: number,
  width_s: number,
  completed: count,
  output_tokens: maybe,
  requests_per_s: maybe,
  output_tokens_per_s: maybe,
});

/** In-flight requests over the window: time-weighted mean and median, the most, the share of time at the cap. */
export const OBSERVED_CONCURRENCY = Type.Object({
  mean: maybe,
  p50: maybe,
  max: number,
  cap_engaged_fraction: maybe,
});

/** An achieved sequence length against its target: within tolerance, and how many requests were not. */
export const LENGTH_CHECK = Type.Object({
  target: number,
  tolerance: number,
  stat: Type.Union([Type.Literal("mean"), Type.Literal("median")]),
  achieved: maybe,
  within: nullable(Type.Boolean()),
  mismatches: count,
  checked: count,
});

/** One endpoint's (or all endpoints') measured requests, summarised. */
export const ENDPOINT_LOAD_SUMMARY = Type.Object({
  label: text,
  counts: Type.Object({
    attempted: count,
    succeeded: count,
    failed: count,
    dropped: count,
    late: count,
    answered: count,
    reasoning_truncated: count,
    no_output_token: count,
    /** Cancelled (failed) by the drain limit; cancelled by a signal (neither succeeded nor failed); no TTFT. */
    cancelled_at_drain: count,
    cancelled: count,
    without_ttft: count,
  }),
  window_s: maybe,
  error_rate: maybe,
  drop_rate: maybe,
  requests_per_s: maybe,
  output_tokens_per_s: maybe,
  input_tokens_per_s: maybe,
  goodput_requests_per_s: maybe,
  /** Open loop: measured sends over their span. */
  achieved_send_rate_per_s: maybe,
  /** --bin-s, doubled until the window fits 65,536 bins: the width `bins` used. */
  bin_width_s: number,
  bins: Type.Array(THROUGHPUT_BIN),
  distributions: Type.Object({
    latency_s: LOAD_DISTRIBUTION,
    co_latency_s: LOAD_DISTRIBUTION,
    ttft_s: LOAD_DISTRIBUTION,
    first_byte_s: LOAD_DISTRIBUTION,
    first_reasoning_s: LOAD_DISTRIBUTION,
    first_answer_s: LOAD_DISTRIBUTION,
    tpot_s: LOAD_DISTRIBUTION,
    itl_s: LOAD_DISTRIBUTION,
    /** The reasoning cadence (see the row); absent from summaries written before it was recorded. */
    thinking_s: Type.Optional(LOAD_DISTRIBUTION),
    reasoning_itl_s: Type.Optional(LOAD_DISTRIBUTION),
    reasoning_tpot_s: Type.Optional(LOAD_DISTRIBUTION),
    answer_tpot_s: Type.Optional(LOAD_DISTRIBUTION),
    lateness_s: LOAD_DISTRIBUTION,
    input_tokens: LOAD_DISTRIBUTION,
    output_tokens: LOAD_DISTRIBUTION,
  }),
  concurrency: OBSERVED_CONCURRENCY,
  isl: nullable(LENGTH_CHECK),
  osl: nullable(LENGTH_CHECK),
  /** Field -> why it is null. */
  missing: reasons,
});

/** Service-level objectives for goodput, in seconds; an unset one is not checked. */
export const SLO = Type.Object({
  ttftS: Type.Optional(number),
  tpotS: Type.Optional(number),
  e2eS: Type.Optional(number),
});

/** How each phase of one run ended. */
export const LOAD_PHASES = Type.Object({
  warmup: Type.Object({
    ended: Type.Union([L("completed"), L("limit"), L("none"), L("interrupted")]),
    seconds: number,
    limit_s: maybe,
  }),
  measure: Type.Object({
    ended: Type.Union([L("requests"), L("duration"), L("interrupted"), L("not-started")]),
    seconds: number,
  }),
  drain: Type.Object({ limit_s: maybe, cancelled: count }),
});

/** One run's summary: all endpoints together (`overall`) and each endpoint. */
export const LOAD_SUMMARY = Type.Object({
  run,
  ...head(LOAD_LINE_FORMATS.summary),
  mode: MODE,
  effective_max_concurrency: nullable(count),
  /** Why effective_max_concurrency is null. */
  effective_max_concurrency_missing: Type.Optional(text),
  slo: SLO,
  config: open,
  overall: ENDPOINT_LOAD_SUMMARY,
  endpoints: Type.Array(ENDPOINT_LOAD_SUMMARY),
  /** A signal stopped this run before its plan was done; the numbers cover only what ended before it. */
  interrupted: Type.Optional(Type.Object({ by: text, note: text })),
  audits: Type.Optional(open),
  prompt_mix: Type.Optional(open),
  client_headroom: Type.Optional(open),
  shard: Type.Optional(open),
  phases: Type.Optional(LOAD_PHASES),
});

/** A line of `kind` (config, phase, interrupted, noise-floor, ...) of a run or comparison; its other fields open. */
const kindLine = <F extends Format>(format: F) => Type.Object({ run, ...head(format), kind: text });

export const LOAD_RUN_LINE = kindLine(LOAD_LINE_FORMATS.run);
export const COMPARE_RUN_LINE = kindLine(LOAD_LINE_FORMATS.compareRun);

/** Repeated runs' headline metrics: each run's value, their mean and a seeded bootstrap interval. */
export const LOAD_AGGREGATE = Type.Object({
  ...head(LOAD_LINE_FORMATS.aggregate),
  runs: count,
  seed: Type.Integer(),
  metrics: Type.Array(Type.Object({
    metric: text,
    values: Type.Array(maybe),
    n: count,
    mean: maybe,
    sd: maybe,
    interval: nullable(open),
    missing: nullable(text),
    unreliable: nullable(text),
  })),
});

/** The release gate's verdict: per point, the metrics baseline against candidate, and pass. */
export const LOAD_COMPARE = Type.Object({
  ...head(LOAD_LINE_FORMATS.compare),
  tolerance_fraction: number,
  max_error_rate_increase: number,
  seed: Type.Integer(),
  points: Type.Array(Type.Object({
    workload: text,
    concurrency: count,
    key: text,
    rounds: Type.Object({ baseline: count, candidate: count }),
    metrics: Type.Array(
      Type.Object({ metric: text, baseline: maybe, candidate: maybe, pass: nullable(Type.Boolean()) }),
    ),
    pass: Type.Boolean(),
  })),
  noise_floor: Type.Record(Type.String(), number),
  pass: Type.Boolean(),
});

/** `load --plan`'s document: what would be sent, with the schedule's identity. */
export const LOAD_PLAN = Type.Object({
  ...head(LOAD_LINE_FORMATS.plan),
  kind: Type.Literal("plan"),
  urls: Type.Array(text),
  mode: MODE,
  plan: open,
  schedule_sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
});

/** What was sent and how its achieved sequence lengths compare with the targets. */
export const LOAD_PROMPT_MIX = Type.Object({
  ...head(LOAD_LINE_FORMATS.promptMix),
  source: text,
  prompt_set_sha256: nullable(text),
  selected_prompts: count,
  achieved: Type.Object({ input_tokens: LOAD_DISTRIBUTION, output_tokens: LOAD_DISTRIBUTION, source: text }),
});

/** `load merge`'s result: shards of one seeded plan pooled, with the clock evidence. */
export const LOAD_MERGE = Type.Object({
  ...head(LOAD_LINE_FORMATS.merge),
  schedule_sha256: text,
  shards: count,
  workers: nullable(count),
  mode: MODE,
  window_uncertainty_s: maybe,
  clock: open,
  per_shard: Type.Array(ENDPOINT_LOAD_SUMMARY),
  per_host: Type.Array(ENDPOINT_LOAD_SUMMARY),
  pooled: ENDPOINT_LOAD_SUMMARY,
});

/** The schema of each format. */
export const LOAD_LINE_SCHEMAS = {
  [LOAD_LINE_FORMATS.run]: LOAD_RUN_LINE,
  [LOAD_LINE_FORMATS.request]: LOAD_REQUEST_ROW,
  [LOAD_LINE_FORMATS.summary]: LOAD_SUMMARY,
  [LOAD_LINE_FORMATS.aggregate]: LOAD_AGGREGATE,
  [LOAD_LINE_FORMATS.compareRun]: COMPARE_RUN_LINE,
  [LOAD_LINE_FORMATS.compare]: LOAD_COMPARE,
  [LOAD_LINE_FORMATS.plan]: LOAD_PLAN,
  [LOAD_LINE_FORMATS.promptMix]: LOAD_PROMPT_MIX,
  [LOAD_LINE_FORMATS.merge]: LOAD_MERGE,
} as const satisfies Record<Format, TSchema>;

export type LoadRequestRow = Type.Static<typeof LOAD_REQUEST_ROW>;
export type LoadRowStatus = Type.Static<typeof STATUS>;
export type AnswerState = Type.Static<typeof ANSWER>;
export type LoadDist = Type.Static<typeof LOAD_DISTRIBUTION>;
export type ThroughputBin = Type.Static<typeof THROUGHPUT_BIN>;
export type ObservedConcurrency = Type.Static<typeof OBSERVED_CONCURRENCY>;
export type LengthCheck = Type.Static<typeof LENGTH_CHECK>;
export type EndpointLoadSummary = Type.Static<typeof ENDPOINT_LOAD_SUMMARY>;
export type LoadDistributions = EndpointLoadSummary["distributions"];
export type Slo = Type.Static<typeof SLO>;
export type LoadPhases = Type.Static<typeof LOAD_PHASES>;
