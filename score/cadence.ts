/**
 * The reasoning cadence of one streamed request, defined once for load's rows and run's records: thinking time
 * (first reasoning delta to first answer delta), reasoning ITL (the gaps between successive reasoning chunks) and
 * TPOT (the mean gap per reasoning chunk, first to last: one token an event, as llama.cpp streams), and the same
 * two for the answer's chunks (answer text or tool-call deltas).
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

/** A cadence with the reason of each of its nulls, or none at all and why. */
export type CadenceReading =
  | { cadence: ReasoningCadence; missing: Partial<Record<keyof ReasoningCadence, string>> }
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

/** Mean gap per chunk from the first to the last of `offsets` (null below two). */
function perChunk(offsets: readonly number[]): number | null {
  if (offsets.length < 2) return null;
  return ((offsets[offsets.length - 1] as number) - (offsets[0] as number)) / (offsets.length - 1);
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
  const cadence: ReasoningCadence = {
    thinking_s: firstReasoningS !== null && firstAnswerS !== null && firstAnswerS >= firstReasoningS
      ? firstAnswerS - firstReasoningS
      : null,
    reasoning_itl_s: chunkGaps(reasoning),
    reasoning_tpot_s: perChunk(reasoning),
    answer_itl_s: chunkGaps(answer),
    answer_tpot_s: perChunk(answer),
  };
  const missing: Partial<Record<keyof ReasoningCadence, string>> = {};
  if (cadence.thinking_s === null) missing.thinking_s = "no answer followed the reasoning";
  if (cadence.reasoning_tpot_s === null) missing.reasoning_tpot_s = "fewer than two reasoning chunks";
  if (cadence.answer_tpot_s === null) missing.answer_tpot_s = "fewer than two answer chunks";
  return { cadence, missing };
}
