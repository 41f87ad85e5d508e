/**
 * The live progress of `load` and `compare`: the phase (preflight, headroom, warm-up, measurement, drain), elapsed
 * time of the planned duration or requests, requests sent / ok / failed / in flight, request and token rates so far,
 * and the TTFT p50 of the latest successes (Hyndman-Fan type 7 through score/, the summary's own percentile). The
 * hooks only count; the status is computed on the display's timer, at most 10 times a second.
 */
import { percentileType7 } from "../score/mod.ts";
import type { CompareHooks, CompareMeasurement, LoadRequestRow, LoadTestHooks } from "../load/mod.ts";
import type { StyledText } from "../runtime/mod.ts";
import { formatDuration, type Progress } from "./_progress.ts";

/** How many of the latest TTFTs the running p50 reads (a bounded window: its cost does not grow with the run). */
export const TTFT_WINDOW = 1024;

/** What the status says while a stage before the load runs. */
const STAGE_WORDS = {
  preflight: "checking that the server streams chat completions",
  headroom: "measuring the client's own ceiling",
} as const;

/** What one measurement plans. */
export interface LoadProgressPlan {
  requests: number | null;
  durationS: number | null;
  warmupRequests: number;
  warmupS: number | null;
}

/** Counters of one measurement (a load run, or one side's turn at one point of a comparison). */
export class LoadCounters {
  plan: LoadProgressPlan;
  phase: "preflight" | "headroom" | "warmup" | "measure" = "warmup";
  startedMs: number;
  epochMs: number | null = null;
  warmupSent = 0;
  warmupEnded = 0;
  sent = 0;
  ok = 0;
  failed = 0;
  dropped = 0;
  cancelled = 0;
  outputTokens = 0;
  #ttft = new Float64Array(TTFT_WINDOW);
  #ttftCount = 0;

  constructor(plan: LoadProgressPlan, nowMs: number) {
    this.plan = plan;
    this.startedMs = nowMs;
  }

  onSend(phase: "warmup" | "measure"): void {
    if (phase === "warmup") this.warmupSent++;
    else this.sent++;
  }

  onRow(row: LoadRequestRow): void {
    if (row.phase === "warmup") {
      this.warmupEnded++;
      return;
    }
    if (row.status === "success") {
      this.ok++;
      if (row.output_tokens !== null) this.outputTokens += row.output_tokens;
      if (row.ttft_s !== null) this.#ttft[this.#ttftCount++ % TTFT_WINDOW] = row.ttft_s;
    } else if (row.status === "failed") this.failed++;
    else if (row.status === "dropped") this.dropped++;
    else this.cancelled++;
  }

  /** The TTFT p50 (type 7) of the latest TTFT_WINDOW successes with a TTFT, and how many it read. */
  ttftP50(): { p50S: number; n: number; all: boolean } | null {
    const n = Math.min(this.#ttftCount, TTFT_WINDOW);
    if (n === 0) return null;
    const sorted = this.#ttft.slice(0, n).sort();
    return { p50S: percentileType7(sorted, 0.5), n, all: this.#ttftCount <= TTFT_WINDOW };
  }

  /** The status segments at `nowMs`. */
  segments(nowMs: number): StyledText[] {
    if (this.phase === "preflight" || this.phase === "headroom") {
      return [{ text: STAGE_WORDS[this.phase], style: "bold" }, {
        text: ` … ${formatDuration((nowMs - this.startedMs) / 1000)}`,
      }];
    }
    if (this.epochMs === null) {
      const w = this.plan;
      const of = w.warmupS !== null && w.warmupS > 0
        ? `${formatDuration((nowMs - this.startedMs) / 1000)} of ${formatDuration(w.warmupS)}`
        : `${this.warmupEnded}/${w.warmupRequests} done`;
      return [
        { text: "warm-up", style: "bold" },
        { text: ` ${of} · ${this.warmupSent - this.warmupEnded} in flight` },
      ];
    }
    const elapsedS = (nowMs - this.epochMs) / 1000;
    const inFlight = this.sent - this.ok - this.failed - this.cancelled - this.dropped;
    const draining = this.plan.durationS !== null && elapsedS > this.plan.durationS;
    const of = this.plan.durationS !== null
      ? `${formatDuration(Math.min(elapsedS, this.plan.durationS))} of ${formatDuration(this.plan.durationS)}`
      : `${this.sent}/${this.plan.requests ?? "?"} sent, ${formatDuration(elapsedS)}`;
    const counts = `${this.plan.durationS !== null ? `${this.sent} sent, ` : ""}${this.ok} ok, ` +
      `${this.failed} failed${this.dropped > 0 ? `, ${this.dropped} dropped` : ""}, ${Math.max(0, inFlight)} in flight`;
    const rate = elapsedS > 0
      ? ` · ${(this.ok / elapsedS).toFixed(1)} req/s, ${Math.round(this.outputTokens / elapsedS)} tok/s`
      : "";
    const ttft = this.ttftP50();
    return [
      { text: draining ? "drain" : "measure", style: "bold" },
      { text: ` ${draining ? `${formatDuration(elapsedS - (this.plan.durationS as number))} after ` : ""}${of}` },
      { text: ` · ${counts}`, style: this.failed > 0 ? "yellow" : undefined },
      { text: rate },
      {
        text: ttft === null
          ? " · TTFT p50 -"
          : ` · TTFT p50 ${(ttft.p50S * 1000).toFixed(0)} ms (${ttft.all ? "all" : "last"} ${ttft.n})`,
        style: "dim",
      },
    ].filter((s) => s.text !== "").map((s) => s.style === undefined ? { text: s.text } : s) as StyledText[];
  }
}

/** The hooks `load` hands its conductor, drawing into `progress`; `finish` erases the status line. */
export function loadProgressView(
  progress: Progress,
  plan: LoadProgressPlan,
  nowMs: () => number = () => performance.now(),
): { hooks: LoadTestHooks; finish(): void } {
  let counters = new LoadCounters(plan, nowMs());
  counters.phase = "preflight";
  let runs = 1;
  let run = 0;
  progress.status(() => {
    const head: StyledText[] = runs > 1 ? [{ text: `run ${run + 1}/${runs} ` }] : [];
    const parts = [...head, ...counters.segments(nowMs())];
    return progress.mode === "lines" ? [{ text: "load: " }, ...parts] : parts;
  });
  return {
    hooks: {
      onStage(stage) {
        counters = new LoadCounters(plan, nowMs());
        counters.phase = stage;
        progress.refresh();
      },
      onRunStart(index, total) {
        run = index;
        runs = total;
        counters = new LoadCounters(plan, nowMs());
        progress.refresh();
      },
      onEpoch() {
        counters.epochMs = nowMs();
        counters.phase = "measure";
      },
      onSend: (phase) => counters.onSend(phase),
      onRow: (row) => counters.onRow(row),
    },
    finish: () => progress.stop(),
  };
}

/** The hooks `compare` hands its conductor: which measurement of how many, point, round and side, then load's. */
export function compareProgressView(
  progress: Progress,
  nowMs: () => number = () => performance.now(),
): { hooks: CompareHooks; finish(): void } {
  let current: CompareMeasurement | null = null;
  let counters: LoadCounters | null = null;
  let checking: string | null = null;
  progress.status(() => {
    const lead: StyledText[] = progress.mode === "lines" ? [{ text: "compare: " }] : [];
    if (checking !== null) {
      return [...lead, { text: `checking that ${checking} streams chat completions`, style: "bold" }];
    }
    if (current === null || counters === null) return null;
    return [
      ...lead,
      { text: `[${current.index}/${current.total}] ` },
      { text: `${current.point} round ${current.round}/${current.rounds} `, style: "cyan" },
      { text: current.side, style: "bold" },
      { text: " · " },
      ...counters.segments(nowMs()),
    ];
  });
  return {
    hooks: {
      onOutput: (path) => progress.line(`compare: writing ${path}`),
      onPreflight(url) {
        checking = url;
        progress.refresh();
      },
      onMeasure(m) {
        checking = null;
        current = m;
        counters = new LoadCounters(m, nowMs());
        progress.refresh();
      },
      onEpoch() {
        if (counters !== null) {
          counters.epochMs = nowMs();
          counters.phase = "measure";
        }
      },
      onSend: (phase) => counters?.onSend(phase),
      onRow: (row) => counters?.onRow(row),
    },
    finish: () => progress.stop(),
  };
}
