/**
 * Per-request metrics of a load test, from the raw sample the load generator recorded. Definitions
 * (performance methodology, LLM chat): E2E is completion minus actual send; coordinated-omission latency adds the
 * delay between scheduled arrival and actual send; TTFT is the first nonempty reasoning or visible delta (role,
 * usage and finish frames do not count); first byte is response headers; ITL is every gap between successive
 * visible-output chunks; TPOT is (e2e - ttft) / (completion_tokens - 1) for at least two server-counted tokens.
 * Every null carries a reason in `missing`.
 */
import {
  type AnswerState,
  LOAD_LINE_FORMATS,
  LOAD_LINE_VERSIONS,
  type LoadRequestRow,
  type LoadSample,
  SENT_ONLY,
  type StreamOutcome,
} from "../contract/mod.ts";
import { chunkGaps, reasoningCadence } from "../score/mod.ts";

export const LOAD_REQUEST_FORMAT = LOAD_LINE_FORMATS.request;
/**
 * Version 3 (from 2): a request still in flight when a signal interrupted the load has status "cancelled" (error kind
 * "cancelled", INTERRUPTED_MESSAGE), not "failed"; summaries count such requests apart (counts.cancelled, left out
 * of failed and of the error rate) and carry `interrupted`; the config line carries the preflight check of each URL;
 * an interrupted load or compare ends its JSONL with a line of kind "interrupted".
 * Version 2 (from 1): itl_s gaps are rounded to the microsecond; first_reasoning_s is the first reasoning delta whatever came first; only choice index 0 is
 * measured; ttft_source says where a TTFT came from (the stream, or the HTTP first byte when explicitly asked);
 * requests cancelled by the drain limit are failed with error kind "cancelled" and a message that says so; summaries
 * may have a null effective_max_concurrency (uncapped open loop) and carry the audits, the prompt mix and the
 * client headroom; aggregates flag unreliable tail percentiles.
 */
export const LOAD_FORMAT_VERSION = LOAD_LINE_VERSIONS[LOAD_REQUEST_FORMAT];

/** How the error message of a request cancelled by the drain limit begins. */
export const DRAIN_MESSAGE_PREFIX = "cancelled by the drain limit";

/** The error message of a request a signal cancelled in flight. */
export const INTERRUPTED_MESSAGE =
  "still in flight when a signal interrupted the load; cancelled, not counted as a failure";

/** The row, its status and answer state: the load line contract's (contract/load_lines.ts). */
export type { AnswerState, LoadRequestRow, LoadRowStatus } from "../contract/mod.ts";

export interface LoadRowOptions {
  /** Lateness above this counts a request late, seconds (default 0.002). */
  lateAfterS?: number;
  /** The request was sent with stream: false (default: streamed). */
  nonStreaming?: boolean;
  /** Non-streaming only: take TTFT from the response headers, labelled ttft_source "http_first_byte". */
  inferTtftFromFirstByte?: boolean;
  /** The drain limit in seconds, for the message of a request it cancelled. */
  drainLimitS?: number | null;
}

/** Why connect_s is null when the client's outcome carries no connect time. */
export const CONNECT_UNAVAILABLE =
  "the stream client did not report connect time (its offsets count from dispatch, after any connection setup)";

function nonNegativeInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}

function field(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === "object" ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Server token counts: usage first, llama.cpp timings second; never a local estimate. */
export function serverTokenCounts(outcome: StreamOutcome): {
  input: number | null;
  output: number | null;
  source: string | null;
} {
  const usageOut = nonNegativeInteger(field(outcome.usage, "completion_tokens"));
  const usageIn = nonNegativeInteger(field(outcome.usage, "prompt_tokens"));
  if (usageOut !== null) return { input: usageIn, output: usageOut, source: "usage" };
  const predicted = nonNegativeInteger(field(outcome.timings, "predicted_n"));
  const promptN = nonNegativeInteger(field(outcome.timings, "prompt_n"));
  const cacheN = nonNegativeInteger(field(outcome.timings, "cache_n"));
  if (predicted !== null) {
    return {
      input: usageIn ?? (promptN !== null && cacheN !== null ? promptN + cacheN : null),
      output: predicted,
      source: "timings",
    };
  }
  return { input: usageIn, output: null, source: null };
}

function answerState(outcome: StreamOutcome): AnswerState {
  const visible = outcome.answer_text.length > 0 || outcome.tool_calls.length > 0 ||
    outcome.offsets.first_answer_s !== null;
  if (visible) return "answered";
  if (outcome.reasoning_text.length > 0 && outcome.finish_reason === "length") return "reasoning_truncated";
  return "no_output_token";
}

/** The columns every row has, whatever became of the request. */
type RowBase = Pick<
  LoadRequestRow,
  | "format"
  | "version"
  | "phase"
  | "index"
  | "endpoint"
  | "endpoint_index"
  | "prompt_index"
  | "scheduled_offset_s"
  | "send_offset_s"
  | "lateness_s"
  | "late"
  | "in_flight_at_send"
>;

/** The request row of one recorded sample. */
export function buildLoadRow(sample: LoadSample, options: LoadRowOptions = {}): LoadRequestRow {
  const lateAfterS = options.lateAfterS ?? 0.002;
  const lateness = sample.scheduled_offset_s !== null && sample.send_offset_s !== null
    ? sample.send_offset_s - sample.scheduled_offset_s
    : null;
  const base: RowBase = {
    format: LOAD_REQUEST_FORMAT,
    version: LOAD_FORMAT_VERSION,
    phase: sample.phase,
    index: sample.index,
    endpoint: sample.endpoint,
    endpoint_index: sample.endpoint_index,
    prompt_index: sample.prompt_index,
    scheduled_offset_s: sample.scheduled_offset_s,
    send_offset_s: sample.send_offset_s,
    lateness_s: lateness,
    late: lateness !== null && lateness > lateAfterS,
    in_flight_at_send: sample.in_flight_at_send,
  };
  const outcome = sample.outcome;
  if (sample.dropped || outcome === null || sample.send_offset_s === null) return droppedRow(base, sample.drop_reason);
  const row = sentRow(base, outcome, sample.send_offset_s, options);
  if (sample.cancelled_at_drain && row.error !== null) {
    row.error = {
      kind: "cancelled",
      message: row.phase === "warmup"
        ? `${DRAIN_MESSAGE_PREFIX}: still in flight when the warm-up's drain or --warmup-limit-s passed`
        : `${DRAIN_MESSAGE_PREFIX}: still in flight ${options.drainLimitS ?? "?"} s after the measured window`,
    };
  } else if (outcome.end === "cancelled") {
    row.status = "cancelled";
    row.error = { kind: "cancelled", message: INTERRUPTED_MESSAGE };
  }
  return row;
}

function droppedRow(base: RowBase, dropReason: string | null): LoadRequestRow {
  const reason = `dropped: ${dropReason ?? "not sent"}`;
  const missing: Record<string, string> = {};
  for (const k of SENT_ONLY) missing[k] = reason;
  if (base.lateness_s === null) missing.lateness_s = reason;
  // The columns after the error, null in the row's column order (send_offset_s is the base's).
  type After = Exclude<typeof SENT_ONLY[number], "answer" | "finish_reason" | "send_offset_s">;
  const after = SENT_ONLY.filter((k): k is After => k !== "answer" && k !== "finish_reason" && k !== "send_offset_s");
  const nulls = Object.fromEntries(after.map((k) => [k, null])) as Record<After, null>;
  return {
    ...base,
    status: "dropped",
    answer: null,
    finish_reason: null,
    error: { kind: "dropped", message: dropReason ?? "not sent" },
    ...nulls,
    missing,
  };
}

function sentRow(base: RowBase, outcome: StreamOutcome, sendOffsetS: number, options: LoadRowOptions): LoadRequestRow {
  const missing: Record<string, string> = {};
  const lateness = base.lateness_s;
  const ok = outcome.end === "finished";
  // Offsets from the client count from dispatch; the methodology counts from the send, connection setup included.
  const connect = outcome.connect_s ?? null;
  const shift = connect ?? 0;
  const at = (x: number | null): number | null => (x === null ? null : x + shift);
  const o = {
    headers_s: at(outcome.offsets.headers_s),
    first_delta_s: at(outcome.offsets.first_delta_s),
    first_answer_s: at(outcome.offsets.first_answer_s),
    end_s: outcome.offsets.end_s + shift,
  };
  const tokens = serverTokenCounts(outcome);
  if (tokens.output === null) missing.output_tokens = "the server reported neither usage nor timings token counts";
  if (tokens.input === null) missing.input_tokens = "the server reported no prompt token count";
  if (tokens.source === null) missing.token_source = "no server token count arrived";
  if (lateness === null) missing.lateness_s = "closed loop: no schedule";
  if (o.headers_s === null) missing.first_byte_s = "no response headers arrived";
  if (connect === null) {
    missing.connect_s = CONNECT_UNAVAILABLE;
    missing.prefill_s = "needs connect_s, which is unavailable";
  }

  const { latency, coLatency } = latenciesOf(ok ? o.end_s : null, outcome.end, lateness, missing);

  const answer = ok ? answerState(outcome) : null;
  if (answer === null) missing.answer = "failed request";
  const { ttft, ttftSource } = ttftOf(ok, options, o, missing);
  // The client stamps the first reasoning delta on its own; an older outcome only tells the first delta's kind.
  const firstReasoning = outcome.first_reasoning_s !== undefined
    ? at(outcome.first_reasoning_s)
    : outcome.first_delta_kind === "reasoning"
    ? o.first_delta_s
    : null;
  if (firstReasoning === null) {
    missing.first_reasoning_s = options.nonStreaming
      ? "non-streaming request: no deltas"
      : "no reasoning delta arrived";
  }
  if (o.first_answer_s === null) {
    missing.first_answer_s = options.nonStreaming ? "non-streaming request: no deltas" : "no visible output arrived";
  }
  const prefill = connect !== null && ttft !== null ? ttft - connect : null;
  if (connect !== null && prefill === null) missing.prefill_s = "no TTFT";

  const { tpot, itl } = decodeColumns(outcome, latency, ttft, tokens.output, missing);
  if (options.nonStreaming && itl === null && ok) missing.itl_s = "non-streaming request: no chunks";

  if (outcome.finish_reason === null) missing.finish_reason = "no finish_reason arrived";
  const cadence = cadenceColumns(outcome, firstReasoning, o.first_answer_s, missing);
  return {
    ...base,
    status: ok ? "success" : "failed",
    answer,
    finish_reason: outcome.finish_reason,
    error: ok ? null : { kind: outcome.end, message: outcome.error_message ?? outcome.end },
    end_offset_s: sendOffsetS + o.end_s,
    latency_s: latency,
    co_latency_s: coLatency,
    ttft_s: ttft,
    ttft_source: ttftSource,
    first_byte_s: o.headers_s,
    connect_s: connect,
    prefill_s: prefill,
    first_reasoning_s: firstReasoning,
    first_answer_s: o.first_answer_s,
    tpot_s: tpot,
    itl_s: itl,
    ...cadence,
    input_tokens: tokens.input,
    output_tokens: tokens.output,
    token_source: tokens.source,
    missing,
  };
}

/** E2E latency (successes only) and the coordinated-omission latency (plus the lateness), or why each is null. */
function latenciesOf(
  latency: number | null,
  end: StreamOutcome["end"],
  lateness: number | null,
  missing: Record<string, string>,
) {
  if (latency === null) missing.latency_s = `failed request (${end}): E2E counts successes only`;
  const coLatency = latency !== null && lateness !== null ? latency + lateness : null;
  if (coLatency === null) {
    missing.co_latency_s = latency === null ? missing.latency_s as string : "closed loop: no schedule";
  }
  return { latency, coLatency };
}

/**
 * TTFT and where it came from: the first nonempty delta of a stream; for a non-streaming request only the headers
 * when asked to infer it; none for a failed request (each null's reason written to `missing`).
 */
function ttftOf(
  ok: boolean,
  options: LoadRowOptions,
  o: { headers_s: number | null; first_delta_s: number | null },
  missing: Record<string, string>,
): { ttft: number | null; ttftSource: LoadRequestRow["ttft_source"] } {
  let ttft: number | null = null;
  let ttftSource: LoadRequestRow["ttft_source"] = null;
  if (!ok) missing.ttft_s = "failed request";
  else if (options.nonStreaming) {
    if (options.inferTtftFromFirstByte && o.headers_s !== null) {
      ttft = o.headers_s;
      ttftSource = "http_first_byte";
    } else {
      missing.ttft_s = options.inferTtftFromFirstByte
        ? "no response headers arrived"
        : "non-streaming request: TTFT is absent (--infer-ttft-from-first-byte approximates it by the headers)";
    }
  } else if (o.first_delta_s !== null) {
    ttft = o.first_delta_s;
    ttftSource = "stream";
  } else missing.ttft_s = "no nonempty reasoning or visible delta arrived";
  if (ttftSource === null) missing.ttft_source = missing.ttft_s ?? "no TTFT";
  return { ttft, ttftSource };
}

/** The reasoning cadence columns of a sent request (see LoadRequestRow, score/'s reasoningCadence). */
function cadenceColumns(
  outcome: StreamOutcome,
  firstReasoningS: number | null,
  firstAnswerS: number | null,
  missing: Record<string, string>,
): Pick<LoadRequestRow, "thinking_s" | "reasoning_itl_s" | "reasoning_tpot_s" | "answer_tpot_s" | "tokens_from"> {
  const reading = reasoningCadence(outcome, firstReasoningS, firstAnswerS);
  if (reading.cadence === null) {
    for (const k of ["thinking_s", "reasoning_itl_s", "reasoning_tpot_s", "answer_tpot_s", "tokens_from"]) {
      missing[k] = reading.why;
    }
    return { thinking_s: null, reasoning_itl_s: null, reasoning_tpot_s: null, answer_tpot_s: null, tokens_from: null };
  }
  Object.assign(missing, reading.missing);
  const c = reading.cadence;
  return {
    thinking_s: c.thinking_s,
    reasoning_itl_s: c.reasoning_itl_s,
    reasoning_tpot_s: c.reasoning_tpot_s,
    answer_tpot_s: c.answer_tpot_s,
    tokens_from: reading.tokens_from,
  };
}

/** TPOT ((e2e - ttft) / (completion_tokens - 1), >= 2 tokens) and ITL (gaps of visible chunks) of a sent request. */
function decodeColumns(
  outcome: StreamOutcome,
  latency: number | null,
  ttft: number | null,
  outputTokens: number | null,
  missing: Record<string, string>,
): { tpot: number | null; itl: number[] | null } {
  const ok = outcome.end === "finished";
  let tpot: number | null = null;
  if (!ok) missing.tpot_s = "failed request";
  else if (ttft === null) missing.tpot_s = "no TTFT";
  else if (outputTokens === null) missing.tpot_s = "no server completion token count";
  else if (outputTokens < 2) missing.tpot_s = `defined only for >= 2 completion tokens (got ${outputTokens})`;
  else tpot = ((latency as number) - ttft) / (outputTokens - 1);

  let itl: number[] | null = null;
  if (!ok) missing.itl_s = "failed request";
  else if (outcome.chunk_offsets_s === undefined) missing.itl_s = "the stream client did not record chunk offsets";
  else itl = chunkGaps(outcome.chunk_offsets_s);
  return { tpot, itl };
}
