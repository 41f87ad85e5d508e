/**
 * The protocol's shape, written once: its ids, the phases and cases, the request ids in send order with their
 * repetitions, rounds, seeds and output caps, the planned count of each phase, the per-request timeout and the
 * profile settings every request carries. Nothing here depends on a tokenizer or on the machine.
 */

export const PROTOCOL_ID = "strata-qwen38-thinking-v1-draft.1" as const;
export const PROFILE_ID = "qwen3.8-flash-next-thinking" as const;

export const PHASES = ["warmup", "performance", "sanity", "concurrency"] as const;
export type Phase = typeof PHASES[number];

export const SANITY_CATEGORIES = ["instruction", "retrieval", "tool_call"] as const;
export type SanityCategory = typeof SANITY_CATEGORIES[number];

export const SANITY_IDS = ["I1", "I2", "I3", "I4", "R1", "R2", "R3", "R4", "T1", "T2", "T3", "T4"] as const;
export type SanityId = typeof SANITY_IDS[number];

export const PERFORMANCE_CASES = ["short", "prompt-4k", "prompt-16k"] as const;

/** Case id of the optional concurrency stage in summaries and request records. */
export const CONCURRENCY_CASE = "short-burst" as const;

/** Repetitions of each performance case (seeds 1..3). */
const REPETITIONS = 3 as const;
/** Rounds of the optional concurrency stage. */
const ROUNDS = 3 as const;
/** Clients released together in one optional concurrency round; also the concurrency of its summaries. */
export const CLIENTS_PER_ROUND = 4 as const;

/** Output caps of the stages (reasoning and answer together). */
export const OUTPUT_CAPS = { warmup: 128, performance: 512, sanity: 2048, concurrency: 512 } as const;

/** The fixed wall-clock timeout of every request, queueing included, seconds from dispatch. */
export const REQUEST_TIMEOUT_S = 1800 as const;

/**
 * Most response body bytes one protocol request may stream before the client ends it as malformed. A real
 * llama-server stream of 2,048 tokens is 0.5-1 MiB of SSE (one ~250-byte chunk per token); a server that ignores
 * max_tokens, or floods the connection, is stopped here instead of filling the memory and the evidence. The
 * result folder's caps (report/result_reader.ts) are sized from this.
 */
export const MAX_STREAM_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Most answer and reasoning chunk stamps one protocol request keeps (both lists together, in arrival order); the
 * chunks past it are counted (`unstamped_chunks`), and the request's reasoning cadence is null with that reason. A
 * conforming engine streams at most one chunk per token and no stage asks for more than 2,048 tokens, so a genuine
 * request keeps every stamp; a hostile one fitting MAX_STREAM_BODY_BYTES with one-character chunks that carry both
 * reasoning and answer (about 75,000 chunks, 150,000 stamps) would otherwise grow results.json's ITL gaps past
 * report's 16 MiB cap. At this bound the gaps of 34 requests stay under 7 MiB of results.json.
 */
export const MAX_CHUNK_STAMPS = 8192;

/**
 * Most characters of a stream's finish_reason a client keeps; the rest are counted (`finish_reason_cut_chars`).
 * The reasons engines send ("stop", "length", "tool_calls", "content_filter") are a few characters, and a cut one
 * is longer than every normal ending, so it still fails the request. Unbounded, a hostile engine's finish_reason
 * as long as MAX_STREAM_BODY_BYTES went into a record three times (finish_reason, the error's message, a sanity
 * verdict): two such requests took results.json past report's 16 MiB cap.
 */
export const MAX_FINISH_REASON_CHARS = 256;

/**
 * Most characters of the chunk that carried `usage`, and of the one that carried `timings`, a client keeps as text
 * (`usage_chunk`, `timings_chunk`); the rest are counted (`usage_chunk_cut_chars`, `timings_chunk_cut_chars`) and
 * the counts of a cut chunk are not read (a cut JSON text does not parse, unless all that was cut is trailing
 * white space). llama-server's final chunk, usage and
 * timings together, is under 1 KiB, and even an engine that sent a stage's whole answer (2,048 tokens) in that
 * chunk stays within it. Unbounded, a hostile chunk as long as MAX_STREAM_BODY_BYTES went into its evidence line
 * twice (usage_chunk and timings_chunk when one chunk carried both), each backslash escaped once more: one line of
 * 20.9 MB, and 13 such requests passed report's 256 MiB cap on outputs.jsonl; at this bound the two texts cost a
 * line at most about 1 MiB.
 */
export const MAX_USAGE_CHUNK_CHARS = 256 * 1024;

/**
 * Most byte sequences that are not UTF-8 one protocol request may stream; the event that passes it is not read and
 * the request ends as malformed. Each such byte costs outputs.jsonl a U+FFFD (3 bytes) and a byte offset (about 8),
 * so a hostile engine filling MAX_STREAM_BODY_BYTES with them wrote a 36 MB evidence line, and eight such requests
 * passed report's 256 MiB cap on outputs.jsonl; at this bound a request's invalid bytes cost at most about 180 KB.
 * llama-server replaces what is not UTF-8 before sending, and even an engine that sent four bad bytes for each of a
 * stage's 2,048 tokens, in reasoning and answer alike, would stay within it.
 */
export const MAX_INVALID_UTF8_SEQUENCES = 16_384;

/** Scheduled requests per phase; the optional concurrency stage's 12 count only when it is selected. */
export const PLANNED_REQUESTS: Readonly<Record<Phase, number>> = {
  warmup: 1,
  performance: REPETITIONS * PERFORMANCE_CASES.length,
  sanity: SANITY_IDS.length,
  concurrency: ROUNDS * CLIENTS_PER_ROUND,
};

/** The profile's sampling values (Qwen model-card defaults), sent explicitly on every request. */
export const PROFILE_SAMPLING = {
  temperature: 1.0,
  top_p: 0.95,
  top_k: 20,
  min_p: 0.0,
  presence_penalty: 0.0,
  /** The OpenAI-style name; llama.cpp ignores it. */
  repetition_penalty: 1.0,
  /** llama.cpp's own name for the same setting. */
  repeat_penalty: 1.0,
} as const;

/** Template switches the profile requires; both must be JSON booleans (llama.cpp answers 400 to strings). */
export const PROFILE_CHAT_TEMPLATE_KWARGS = { enable_thinking: true, preserve_thinking: true } as const;

/** The reasoning effort the profile requires. */
export const PROFILE_REASONING_EFFORT = "xhigh";

/** The tokenizer-independent facts of one scheduled request. */
export interface ScheduledRequest {
  /** Request id: warmup, performance-<case>-r<n>, sanity-<ID>, concurrency-r<r>-c<j>. */
  id: string;
  phase: Phase;
  /** short | prompt-4k | prompt-16k | I1..T4 | short-burst */
  case_id: string;
  /** Performance repetition 1..3, concurrency round 1..3, else 1. */
  repetition: number;
  /** Concurrency round 1..3, else null. */
  round: number | null;
  seed: number;
  max_output_tokens: number;
}

/**
 * Every scheduled request in send order: warm-up, performance r1 (short, 4k, 16k), r2, r3, sanity I1..T4, and,
 * when `optional` is true, concurrency r1c1..r3c4 (client j of round r has seed 4(r-1)+j).
 */
export function schedule(optional: boolean): ScheduledRequest[] {
  const out: ScheduledRequest[] = [{
    id: "warmup",
    phase: "warmup",
    case_id: "short",
    repetition: 1,
    round: null,
    seed: 1,
    max_output_tokens: OUTPUT_CAPS.warmup,
  }];
  for (let repetition = 1; repetition <= REPETITIONS; repetition++) {
    for (const caseId of PERFORMANCE_CASES) {
      out.push({
        id: `performance-${caseId}-r${repetition}`,
        phase: "performance",
        case_id: caseId,
        repetition,
        round: null,
        seed: repetition,
        max_output_tokens: OUTPUT_CAPS.performance,
      });
    }
  }
  for (const sanityId of SANITY_IDS) {
    out.push({
      id: `sanity-${sanityId}`,
      phase: "sanity",
      case_id: sanityId,
      repetition: 1,
      round: null,
      seed: 1,
      max_output_tokens: OUTPUT_CAPS.sanity,
    });
  }
  if (optional) {
    for (let round = 1; round <= ROUNDS; round++) {
      for (let client = 1; client <= CLIENTS_PER_ROUND; client++) {
        out.push({
          id: `concurrency-r${round}-c${client}`,
          phase: "concurrency",
          case_id: CONCURRENCY_CASE,
          repetition: round,
          round,
          seed: CLIENTS_PER_ROUND * (round - 1) + client,
          max_output_tokens: OUTPUT_CAPS.concurrency,
        });
      }
    }
  }
  return out;
}

/** Request ids in send order: the 22 required ones, plus the 12 optional concurrency ones when `optional`. */
export function scheduleIds(optional: boolean): string[] {
  return schedule(optional).map((request) => request.id);
}
