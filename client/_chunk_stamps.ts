/**
 * The stamps of one stream's answer and reasoning chunks (ITL, the reasoning cadence): each chunk's offset from
 * dispatch, and beside it, when asked, the engine's running predicted_n that chunk carried. Both lists together keep
 * at most `maxStamps` stamps; the chunks past the bound are counted, unstamped. A stamp is kept to the whole
 * microsecond below it (never past the stream's end), the form an evidence line writes exactly (contract/evidence_form.ts).
 */
import type { StreamOutcome } from "../contract/mod.ts";
import type { ChunkReader } from "./_chunk_reader.ts";

/** The chunk stamps of one stream. */
export class ChunkStamps {
  #answer: number[] = [];
  #reasoning: number[] = [];
  /** The engine's count beside each stamp, parallel to the two lists; null until a stamped chunk carried one. */
  #counts: { answer: (number | null)[]; reasoning: (number | null)[] } | null = null;
  #recordCounts: boolean;
  /** Stamps the bound still allows, and the chunks counted past it. */
  #left: number;
  #unstamped = 0;

  constructor(maxStamps: number, recordCounts: boolean) {
    this.#left = maxStamps;
    this.#recordCounts = recordCounts;
  }

  /** Stamps the event `reader` just read, at `offsetS` seconds from dispatch, into the lists of its delta kinds. */
  add(reader: ChunkReader, offsetS: number): void {
    if (!reader.visibleInEvent && !reader.reasoningInEvent) return;
    const n = reader.predictedNInEvent;
    if (this.#counts === null && n !== null && this.#recordCounts) {
      this.#counts = { answer: this.#answer.map(() => null), reasoning: this.#reasoning.map(() => null) };
    }
    if (reader.visibleInEvent) this.#stamp(this.#answer, this.#counts?.answer, offsetS, n);
    if (reader.reasoningInEvent) this.#stamp(this.#reasoning, this.#counts?.reasoning, offsetS, n);
  }

  #stamp(list: number[], counts: (number | null)[] | undefined, offsetS: number, n: number | null): void {
    if (this.#left <= 0) {
      this.#unstamped++;
      return;
    }
    this.#left--;
    list.push(Math.floor(offsetS * 1e6) / 1e6);
    counts?.push(n);
  }

  /** Puts the lists (and the counts and unstamped chunks, where there are any) on the outcome. */
  writeTo(outcome: StreamOutcome): void {
    outcome.chunk_offsets_s = this.#answer;
    outcome.reasoning_chunk_offsets_s = this.#reasoning;
    if (this.#counts !== null) {
      outcome.chunk_predicted_n = this.#counts.answer;
      outcome.reasoning_chunk_predicted_n = this.#counts.reasoning;
    }
    if (this.#unstamped > 0) outcome.unstamped_chunks = this.#unstamped;
  }
}
