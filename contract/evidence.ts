/**
 * The evidence contract: one outputs.jsonl line per request, written once as a JSON Schema (TypeBox builds it) from
 * which the line's type derives. The run writes lines of this type (report/'s `outputLine`), `report` checks every
 * line it reads against the same schema, and `evidence.schema.json` publishes it (`deno task schema`). Beside it:
 * the evidence version and the names of a result folder's files.
 *
 * What a schema cannot say is checked by `report`: which of `usage`/`usage_chunk` is present, an error that matches
 * the stream's end, record_overrides keys that are JSON Pointers, and every record rebuilt from its line.
 */
import Type, { type TSchema } from "typebox";
import { DELTA_KINDS, REQUEST_STATUSES } from "./result.ts";
import { STREAM_END_KINDS, type StreamOutcome } from "./stream.ts";

/**
 * Version of the outputs.jsonl line format, written into every line. Version 2 placed each request on the run's
 * monotonic clock (`dispatch_offset_s`), so the validator rebuilds durations exactly; version 3 adds
 * `resent_on_fresh_connection` (the protocol allows no invisible retry); version 4 adds the offset of every answer
 * and reasoning chunk, from which each record's reasoning cadence is rebuilt (at most MAX_CHUNK_STAMPS of them; the
 * optional `unstamped_chunks` counts the rest). Version 5 writes light (contract/evidence_form.ts): a request of the
 * frozen bundle by reference (`request_ref`: the bundle, the fixture file's SHA-256, the sent body's SHA-256) instead
 * of a copy of its messages, and the chunk stamps as whole microseconds, each after the first as a difference
 * (`chunk_offsets_us`, `reasoning_chunk_offsets_us`). Lines of other versions are refused with the reason; version
 * 1 lines have no `evidence_version`.
 */
export const EVIDENCE_VERSION = 5 as const;

/** File names inside a result folder. */
export const RESULT_FILES = {
  results: "results.json",
  outputs: "outputs.jsonl",
  config: "config.json",
  template: "template.jinja",
  engineLog: "engine.log",
  readme: "README.md",
} as const;

/**
 * The stream outcome's fields that a line writes under another name (outcome name -> line name); every other
 * field a line shares with the outcome keeps its name. Writer and reader both map through this table.
 */
export const LINE_NAMES = {
  answer_text: "final_answer",
  offsets: "client_offsets_s",
  events: "sse_events",
} as const satisfies Partial<Record<keyof StreamOutcome, string>>;

const string = Type.String();
const count = Type.Integer({ minimum: 0 });
const nullable = <T extends TSchema>(inner: T) => Type.Union([inner, Type.Null()]);
const closed = <P extends Type.TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });
const offset = nullable(Type.Number());

/** The fields every line has; `record_overrides` (JSON Pointer into the record -> value) is added on publishing. */
const common = {
  evidence_version: Type.Literal(EVIDENCE_VERSION),
  request_id: string,
  /** Record values the line states because redaction changed the text they were computed from. */
  record_overrides: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  record_overrides_why: Type.Optional(string),
};

/** A request that was never sent: its id and why. */
export const SKIPPED_LINE_SCHEMA = closed({
  ...common,
  status: Type.Literal("skipped"),
  skip_reason: string,
});

const toolCall = closed({
  index: count,
  id: nullable(string),
  type: nullable(string),
  name: string,
  arguments: string,
});
const invalidUtf8 = closed({
  event: count,
  byte_offsets: Type.Array(count),
  delta_kinds: Type.Array(Type.Enum(DELTA_KINDS)),
});
const slotReading = Type.Union([
  closed({
    kind: Type.Literal("slot"),
    source: string,
    matched_by: string,
    slot_id: Type.Optional(Type.Unknown()),
    id_task: Type.Optional(Type.Unknown()),
    params: Type.Optional(Type.Unknown()),
  }),
  closed({ kind: Type.Literal("none"), reason: string }),
]);

/**
 * A request that was sent: the exact body, the final answer, reasoning text, structured tool calls, finish reason,
 * the raw usage and timings as the exact text of the chunk that carried each (`usage_chunk`, `timings_chunk`:
 * numbers as written, repeated keys intact; a client that kept none leaves the parsed objects instead), events whose
 * bytes were not UTF-8, the error, the /slots reading, the dispatch on the run's monotonic clock and the client
 * event and chunk offsets (dispatch = 0 s), and whether the client sent it once more on a fresh connection.
 */
const sentProperties = {
  ...common,
  status: Type.Enum(REQUEST_STATUSES.filter((s) => s !== "skipped") as ["completed", "truncated", "failed"]),
  concurrency: Type.Integer({ minimum: 1 }),
  request: Type.Record(Type.String(), Type.Unknown()),
  dispatch_offset_s: Type.Number({ minimum: 0 }),
  dispatched_at_epoch_ms: Type.Number(),
  end: Type.Enum(STREAM_END_KINDS as readonly string[] as [StreamOutcome["end"], ...StreamOutcome["end"][]]),
  http_status: nullable(count),
  finish_reason: nullable(string),
  first_delta_kind: nullable(Type.Enum(DELTA_KINDS)),
  final_answer: string,
  reasoning_text: string,
  tool_calls: Type.Array(toolCall),
  usage_chunk: Type.Optional(nullable(string)),
  usage: Type.Optional(Type.Unknown()),
  timings_chunk: Type.Optional(nullable(string)),
  timings: Type.Optional(Type.Unknown()),
  invalid_utf8: Type.Array(invalidUtf8),
  /** What the engine reported it ran the request with (GET /slots after the request), or why nothing was read. */
  slot_reading: slotReading,
  error: nullable(closed({ kind: Type.Enum(STREAM_END_KINDS as readonly string[]), message: string })),
  client_offsets_s: closed({
    headers_s: offset,
    first_byte_s: offset,
    first_delta_s: offset,
    first_answer_s: offset,
    end_s: Type.Number(),
  }),
  sse_events: count,
  keepalives: count,
  /**
   * The offset of every event that carried answer text or a tool-call delta, and of every event that carried
   * reasoning (seconds from dispatch, arrival order); absent when the client recorded none.
   */
  chunk_offsets_s: Type.Optional(Type.Array(Type.Number())),
  reasoning_chunk_offsets_s: Type.Optional(Type.Array(Type.Number())),
  /**
   * The chunks past the run's bound on kept stamps (MAX_CHUNK_STAMPS, both lists together): counted, not stamped;
   * the record's reasoning cadence is then null. Absent when every chunk was stamped (every conforming engine).
   */
  unstamped_chunks: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * Characters of the server's finish_reason past the client's bound (MAX_FINISH_REASON_CHARS): counted, not kept;
   * `finish_reason` holds the first ones. Absent when the whole finish_reason was kept (every conforming engine).
   */
  finish_reason_cut_chars: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * Characters of the chunk that carried usage (timings) past the client's bound (MAX_USAGE_CHUNK_CHARS): counted,
   * not kept; `usage_chunk` (`timings_chunk`) holds the first ones, whose counts are then not read (they do not parse). Absent when the
   * whole chunk was kept (every conforming engine).
   */
  usage_chunk_cut_chars: Type.Optional(Type.Integer({ minimum: 1 })),
  timings_chunk_cut_chars: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * The client found its pooled connection closed before any byte of the answer and sent the request once more
   * on a fresh connection (the only resend it makes).
   */
  resent_on_fresh_connection: Type.Boolean(),
};

/** A sent request's line as the checks read it (contract/evidence_form.ts reads the written form into it). */
export const SENT_LINE_SCHEMA = closed(sentProperties);

const { chunk_offsets_s: _a, reasoning_chunk_offsets_s: _r, ...writtenProperties } = sentProperties;
const stampsUs = Type.Optional(Type.Array(Type.Integer()));
const hex = Type.String({ pattern: "^[0-9a-f]{64}$" });

/**
 * A sent request's line as written (version 5): `request` without `messages` where `request_ref` names the frozen
 * fixture and the exact body sent; the chunk stamps in whole microseconds, each after the first a difference; a
 * timings chunk that is the usage chunk written once (`timings_in_usage_chunk`).
 */
const WRITTEN_SENT_LINE_SCHEMA = closed({
  ...writtenProperties,
  request_ref: Type.Optional(closed({ bundle: string, fixture_sha256: hex, body_sha256: hex })),
  timings_in_usage_chunk: Type.Optional(Type.Literal(true)),
  chunk_offsets_us: stampsUs,
  reasoning_chunk_offsets_us: stampsUs,
});

type SkippedLine = Type.Static<typeof SKIPPED_LINE_SCHEMA>;
export type SentLine = Type.Static<typeof SENT_LINE_SCHEMA>;
/** One outputs.jsonl line. */
export type EvidenceLine = SkippedLine | SentLine;

/** The published JSON Schema document (draft 2020-12) of one outputs.jsonl line. */
export function evidenceJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: `https://strata-bench.invalid/schemas/strata-evidence-line/${EVIDENCE_VERSION}/evidence.schema.json`,
    title: `strata-bench outputs.jsonl line, evidence version ${EVIDENCE_VERSION}`,
    description: "Shape of one line of a result folder's outputs.jsonl: a skipped request, or a sent one. What a " +
      "schema cannot say (usage or usage_chunk present, the error matching the stream's end, the request_ref's " +
      "hashes against the frozen bundle, every record rebuilt from its line) is checked by `strata-bench report DIR`.",
    anyOf: [JSON.parse(JSON.stringify(SKIPPED_LINE_SCHEMA)), JSON.parse(JSON.stringify(WRITTEN_SENT_LINE_SCHEMA))],
  };
}
