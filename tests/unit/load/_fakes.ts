/** Test helpers: stream outcomes with exact offsets, and a virtual clock that advances only when asked to. */
import type { LoadRunFacts, LoadSample, StreamOutcome } from "../../../contract/mod.ts";
import { runLoad } from "../../../load/generator.ts";
import type { LoadDeps, LoadPlan, RunLoadOptions } from "../../../load/load_plan_bounds.ts";

export interface OutcomeSpec {
  endS: number;
  headersS?: number | null;
  firstDeltaS?: number | null;
  firstDeltaKind?: "reasoning" | "answer" | "tool_call" | null;
  firstAnswerS?: number | null;
  answer?: string;
  reasoning?: string;
  finishReason?: string | null;
  end?: StreamOutcome["end"];
  completionTokens?: number | null;
  promptTokens?: number | null;
  timings?: unknown;
  chunkOffsetsS?: number[];
}

/** A measured load sample around `o`, with the fields a test does not care about at their plainest. */
export function sample(o: StreamOutcome | null, extra: Partial<LoadSample> = {}): LoadSample {
  return {
    phase: "measure",
    index: 0,
    endpoint: "http://127.0.0.1:1",
    endpoint_index: 0,
    prompt_index: 0,
    scheduled_offset_s: null,
    send_offset_s: 2,
    in_flight_at_send: 0,
    dropped: false,
    drop_reason: null,
    cancelled_at_drain: false,
    outcome: o,
    ...extra,
  };
}

/** A StreamOutcome with exactly the given facts. */
export function outcome(spec: OutcomeSpec): StreamOutcome {
  const usage = spec.completionTokens === null || spec.completionTokens === undefined
    ? null
    : { completion_tokens: spec.completionTokens, prompt_tokens: spec.promptTokens ?? 10 };
  const out: StreamOutcome = {
    dispatched_at_epoch_ms: 0,
    dispatch_clock_ms: 0,
    end: spec.end ?? "finished",
    http_status: 200,
    finish_reason: spec.finishReason === undefined ? "stop" : spec.finishReason,
    error_message: spec.end && spec.end !== "finished" ? "boom" : null,
    first_delta_kind: spec.firstDeltaKind === undefined ? "answer" : spec.firstDeltaKind,
    reasoning_text: spec.reasoning ?? "",
    answer_text: spec.answer ?? "hello",
    tool_calls: [],
    usage,
    timings: spec.timings ?? null,
    offsets: {
      headers_s: spec.headersS === undefined ? 0.001 : spec.headersS,
      first_byte_s: spec.headersS === undefined ? 0.001 : spec.headersS,
      first_delta_s: spec.firstDeltaS === undefined ? 0.01 : spec.firstDeltaS,
      first_answer_s: spec.firstAnswerS === undefined ? (spec.firstDeltaS ?? 0.01) : spec.firstAnswerS,
      end_s: spec.endS,
    },
    events: 3,
    keepalives: 0,
  };
  if (spec.chunkOffsetsS) out.chunk_offsets_s = spec.chunkOffsetsS;
  return out;
}

/**
 * Discrete-event clock: `sleepUntilS` registers a timer; `drive` lets every pending microtask and macrotask run,
 * then jumps to the earliest timer, until the driven promise settles. No real time passes.
 */
export class VirtualClock {
  nowValue = 0;
  #timers: { t: number; seq: number; wake: () => void }[] = [];
  #seq = 0;
  nowS = (): number => this.nowValue;
  sleepUntilS = (targetS: number, cancel?: AbortSignal): Promise<void> => {
    if (targetS <= this.nowValue || cancel?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = { t: targetS, seq: this.#seq++, wake: resolve };
      this.#timers.push(timer);
      cancel?.addEventListener("abort", () => {
        this.#timers = this.#timers.filter((x) => x !== timer);
        resolve();
      }, { once: true });
    });
  };
  async drive<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(() => settled = true, () => settled = true);
    for (let steps = 0; steps < 1_000_000; steps++) {
      await new Promise((r) => setTimeout(r, 0));
      if (settled) return await work;
      if (this.#timers.length === 0) {
        throw new Error("Cannot drive the clock: nothing pending and the work has not settled");
      }
      this.#timers.sort((a, b) => a.t - b.t || a.seq - b.seq);
      const next = this.#timers.shift()!;
      this.nowValue = next.t;
      next.wake();
    }
    throw new Error("Cannot drive the clock: too many steps");
  }
}

/**
 * runLoad with its samples collected (the generator keeps none): warm-up first, then measured, each phase in index
 * order, as the facts of the old generator listed them.
 */
export async function runCollected(
  plan: LoadPlan,
  deps: LoadDeps,
  options: RunLoadOptions = {},
): Promise<LoadRunFacts & { samples: LoadSample[] }> {
  const samples: LoadSample[] = [];
  const facts = await runLoad(plan, deps, {
    ...options,
    onSample: (s) => {
      samples.push(s);
      options.onSample?.(s);
    },
  });
  samples.sort((a, b) => (a.phase === b.phase ? a.index - b.index : a.phase === "warmup" ? -1 : 1));
  return { ...facts, samples };
}
