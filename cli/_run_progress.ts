/**
 * The progress of `run` and `demo` as a person sees it: the stage, the model hashing (bytes, rate, ETA), the
 * request in flight (i/22 or i/34, its id, elapsed time, what its stream has delivered so far, its TTFT once known),
 * and one line per finished request above it. Skipped requests that share one reason are printed as one line.
 * Everything shown is read from the conductor's hooks and the client's live counters, on the display's timer.
 */
import type { Fixture, RequestRecord, StreamProgress } from "../contract/mod.ts";
import type { ModelHashProgress } from "../probe/mod.ts";
import type { RunOptions, RunStage, SchedulePosition } from "../runner/mod.ts";
import type { StyledText } from "../runtime/mod.ts";
import { errorLine, formatBytes, formatDuration, type Progress } from "./_progress.ts";

/** "performance-prompt-4k-r1 ... completed 512 tok, decode 41.2 tok/s" from a record's own values. */
export function progressLine(record: RequestRecord): string {
  const parts: string[] = [record.status];
  if (record.status === "skipped" || record.status === "failed") {
    if (record.error) parts.push(`(${errorLine(record.error.message)})`);
  } else {
    if (record.tokens.output_tokens !== null) parts.push(`${record.tokens.output_tokens} tok`);
    if (record.metrics.decode_tps !== null) parts.push(`decode ${record.metrics.decode_tps.toFixed(1)} tok/s`);
    if (record.evaluation) parts.push(record.evaluation.passed ? "pass" : `FAIL: ${record.evaluation.reason}`);
  }
  const [first, ...rest] = parts;
  return `${record.id} ... ${first}${rest.length > 0 ? ` ${rest.join(", ")}` : ""}`;
}

/** What a stream has delivered: the engine's own token count when a chunk carried one, else the deltas. */
export function deliveredText(live: StreamProgress): string {
  const predicted = (live.timings as { predicted_n?: unknown } | null)?.predicted_n;
  if (typeof predicted === "number" && Number.isSafeInteger(predicted) && predicted >= 0) {
    return `${predicted} tokens (engine count)`;
  }
  return `${live.deltas} deltas (not tokens)`;
}

interface InFlight {
  fixture: Fixture;
  position: SchedulePosition;
  live: StreamProgress;
  startedMs: number;
}

const STAGE_WORDS: Readonly<Record<RunStage, string>> = {
  checking: "checking the fixture bundle, the results folder and the server",
  provenance: "probing the machine, the server and the model files",
  requests: "sending the requests",
  writing: "writing and validating the result folder",
};

/** The hooks `run` and `demo` hand the conductor, and the status they draw. */
export interface RunProgressView {
  hooks: Required<Pick<RunOptions, "onRequestStart" | "onRequestEnd" | "onStage">>;
  onHashProgress(progress: ModelHashProgress): void;
  /** Prints what is still held back (a run of skipped requests) and erases the status line. */
  finish(): void;
}

/** Builds the view over `progress`. */
export function runProgressView(progress: Progress, nowMs: () => number = () => performance.now()): RunProgressView {
  let stage: RunStage | null = null;
  let stageStartMs = nowMs();
  let hashing: ModelHashProgress | null = null;
  const hashStarted = new Set<number>();
  const inFlight = new Map<string, InFlight>();
  let skipped: SkippedRun | null = null;
  const flushSkipped = () => {
    if (skipped === null) return;
    progress.line(skippedLine(skipped));
    skipped = null;
  };
  const render = (): StyledText[] | null => {
    const now = nowMs();
    if (hashing !== null && !(hashing.done && hashing.overall.filesDone === hashing.overall.filesTotal)) {
      return hashStatus(hashing);
    }
    if (stage === null) return null;
    if (stage !== "requests" || inFlight.size === 0) {
      return [{ text: STAGE_WORDS[stage], style: "bold" }, {
        text: ` … ${formatDuration((now - stageStartMs) / 1000)}`,
      }];
    }
    return inFlightStatus([...inFlight.values()], now);
  };
  progress.status(() => {
    const parts = render();
    if (parts === null || progress.mode === "live") return parts;
    return [{ text: "still running: " }, ...parts];
  });
  return {
    hooks: {
      onStage(next) {
        flushSkipped();
        stage = next;
        stageStartMs = nowMs();
        progress.refresh();
      },
      onRequestStart(fixture, position, live) {
        flushSkipped();
        inFlight.set(fixture.id, { fixture, position, live, startedMs: nowMs() });
        progress.refresh();
      },
      onRequestEnd(record, position) {
        inFlight.delete(record.id);
        if (record.status === "skipped") {
          const reason = record.error?.message ?? "skipped";
          if (skipped !== null && skipped.reason === reason && skipped.last + 1 === position.index) {
            skipped.last = position.index;
          } else {
            flushSkipped();
            skipped = { first: position.index, last: position.index, total: position.total, reason };
          }
          return;
        }
        flushSkipped();
        progress.line(`[${position.index}/${position.total}] ${progressLine(record)}`);
      },
    },
    onHashProgress(p) {
      hashing = p;
      if (!p.done && !hashStarted.has(p.fileIndex)) {
        hashStarted.add(p.fileIndex);
        // Kept as plain lines in every mode: a log then says which file took the time.
        const gib = (p.bytesTotal / 2 ** 30).toFixed(1);
        progress.line(`hashing model file ${p.fileIndex + 1}/${p.fileCount} (${gib} GiB; Ctrl-C stops it)`);
      }
      if (p.done) progress.line(`hashed model file ${p.fileIndex + 1}/${p.fileCount}`);
      progress.refresh();
    },
    finish() {
      flushSkipped();
      progress.stop();
    },
  };
}

/** Consecutive requests skipped for one reason, said on one line (skippedLine). */
interface SkippedRun {
  first: number;
  last: number;
  total: number;
  reason: string;
}

function skippedLine({ first, last, total, reason }: SkippedRun): string {
  const range = first === last ? `${first}` : `${first}-${last}`;
  return `[${range}/${total}] ${last - first + 1 === 1 ? "1 request" : `${last - first + 1} requests`} ` +
    `skipped (${errorLine(reason)})`;
}

/** The status of the requests in flight: one request's clock, TTFT and deltas, or a round's counts. */
function inFlightStatus(requests: readonly InFlight[], now: number): StyledText[] {
  const first = requests[0]!;
  if (requests.length === 1) {
    const ttft = first.live.firstDeltaS;
    return [
      { text: `[${first.position.index}/${first.position.total}] ` },
      { text: first.fixture.id, style: "cyan" },
      { text: ` · ${formatDuration((now - first.startedMs) / 1000)}` },
      { text: ` · TTFT ${ttft === null ? "waiting" : `${ttft.toFixed(2)} s`}` },
      { text: ` · ${deliveredText(first.live)}`, style: "dim" },
    ];
  }
  const indices = requests.map((r) => r.position.index);
  const firstTokens = requests.filter((r) => r.live.firstDeltaS !== null).length;
  return [
    { text: `[${Math.min(...indices)}-${Math.max(...indices)}/${first.position.total}] ` },
    { text: `${first.fixture.phase} round ${first.fixture.round ?? "?"}`, style: "cyan" },
    { text: `: ${requests.length} in flight · ${formatDuration((now - first.startedMs) / 1000)}` },
    { text: ` · TTFT ${firstTokens}/${requests.length}` },
    { text: ` · deltas ${requests.map((r) => r.live.deltas).join(" ")} (not tokens)`, style: "dim" },
  ];
}

/** The hashing status: file i/n and its name, bytes of all files, rate and ETA. */
export function hashStatus(p: ModelHashProgress): StyledText[] {
  const name = p.path.slice(Math.max(p.path.lastIndexOf("/"), p.path.lastIndexOf("\\")) + 1);
  const all = p.overall;
  const files = all.filesTotal > 1 ? ` (${all.filesDone}/${all.filesTotal} files done)` : "";
  return [
    { text: "hashing ", style: "bold" },
    { text: `${p.fileIndex + 1}/${p.fileCount} ${name}${files}`, style: "cyan" },
    { text: ` · ${formatBytes(all.bytesDone)}/${formatBytes(all.bytesTotal)}` },
    { text: all.rateBytesPerS === null ? "" : ` · ${formatBytes(all.rateBytesPerS)}/s` },
    { text: all.etaS === null ? "" : ` · ETA ${formatDuration(Math.ceil(all.etaS))}` },
    { text: " · Ctrl-C stops it", style: "dim" },
  ];
}
