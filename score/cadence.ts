/**
 * The reasoning cadence of one streamed request, defined once for load's rows and run's records: thinking time
 * (first reasoning delta to first answer delta), reasoning ITL (the gaps between successive reasoning chunks) and
 * TPOT (first to last reasoning chunk, divided by the tokens generated after the first: the engine's running
 * `predicted_n` difference where every stamped chunk carried one, else one token an event, as llama.cpp streams by
 * default), and the same two for the answer's chunks (answer text or tool-call deltas).
 */
import type { StreamOutcome } from "../contract/mod.ts";

/** The cadence of a request that streamed reasoning. */
export interface ReasoningCadence {
  thinking_s: number | null;
  reasoning_itl_s: number[];
  reasoning_tpot_s: number | null;
  answer_itl_s: number[];
  answer_tpot_s: number | null;
}

/**
 * What a TPOT divided by: "engine", the engine's `predicted_n` differences (every stamped chunk carried a count and
 * the counts increase within each list); "events", one token per chunk.
 */
export type TokensFrom = "engine" | "events";

/** A cadence with the reason of each of its nulls and what its TPOTs counted, or none at all and why. */
export type CadenceReading =
  | { cadence: ReasoningCadence; missing: Partial<Record<keyof ReasoningCadence, string>>; tokens_from: TokensFrom }
  | { cadence: null; why: string };

/**
 * Gaps between successive offsets, rounded to the microsecond (well below the stamps' own noise), so that a run's
 * ITL distribution can be kept as a histogram of exact values whatever its length.
 */
export function chunkGaps(offsets: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < offsets.length; i++) {
    out.push(Math.round(((offsets[i] as number) - (offsets[i - 1] as number)) * 1e6) / 1e6);
  }
  return out;
}

/** The engine's counts at each of `length` stamps when every stamp has one and they increase; else null. */
function engineCounts(counts: readonly (number | null)[] | undefined, length: number): readonly number[] | null {
  if (counts === undefined || counts.length !== length) return null;
  for (let i = 0; i < length; i++) {
    const n = counts[i];
    if (n === null || n === undefined || (i > 0 && n <= (counts[i - 1] as number))) return null;
  }
  return counts as readonly number[];
}

/**
 * Mean time per token from the first to the last of `offsets` (null below two): over the engine's count difference
 * when `counts` are given, else over one token per chunk after the first.
 */
function perToken(offsets: readonly number[], counts: readonly number[] | null): number | null {
  const last = offsets.length - 1;
  if (last < 1) return null;
  const tokens = counts === null ? last : (counts[last] as number) - (counts[0] as number);
  return ((offsets[last] as number) - (offsets[0] as number)) / tokens;
}

/**
 * The cadence of a stream that finished and carried reasoning; the first reasoning and first answer offsets are
 * the caller's (on its own clock: both from the same zero).
 */
export function reasoningCadence(
  outcome: StreamOutcome,
  firstReasoningS: number | null,
  firstAnswerS: number | null,
): CadenceReading {
  const reasoning = outcome.reasoning_chunk_offsets_s;
  const answer = outcome.chunk_offsets_s;
  if (outcome.end !== "finished") return { cadence: null, why: "failed request" };
  if (reasoning === undefined || answer === undefined) {
    return { cadence: null, why: "the stream client did not record chunk offsets" };
  }
  if (reasoning.length === 0) return { cadence: null, why: "no reasoning streamed" };
  const unstamped = outcome.unstamped_chunks ?? 0;
  if (unstamped > 0) {
    const kept = reasoning.length + answer.length;
    return {
      cadence: null,
      why: `the stream carried ${kept + unstamped} answer and reasoning chunks; the client stamped only the first ` +
        `${kept} (a request's bound on kept stamps)`,
    };
  }
  const reasoningN = engineCounts(outcome.reasoning_chunk_predicted_n, reasoning.length);
  const answerN = engineCounts(outcome.chunk_predicted_n, answer.length);
  const fromEngine = reasoningN !== null && answerN !== null;
  const cadence: ReasoningCadence = {
    thinking_s: firstReasoningS !== null && firstAnswerS !== null && firstAnswerS >= firstReasoningS
      ? firstAnswerS - firstReasoningS
      : null,
    reasoning_itl_s: chunkGaps(reasoning),
    reasoning_tpot_s: perToken(reasoning, fromEngine ? reasoningN : null),
    answer_itl_s: chunkGaps(answer),
    answer_tpot_s: perToken(answer, fromEngine ? answerN : null),
  };
  const missing: Partial<Record<keyof ReasoningCadence, string>> = {};
  if (cadence.thinking_s === null) missing.thinking_s = "no answer followed the reasoning";
  if (cadence.reasoning_tpot_s === null) missing.reasoning_tpot_s = "fewer than two reasoning chunks";
  if (cadence.answer_tpot_s === null) missing.answer_tpot_s = "fewer than two answer chunks";
  return { cadence, missing, tokens_from: fromEngine ? "engine" : "events" };
}
