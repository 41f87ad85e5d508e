/**
 * What a person sees while a long command works: one status line redrawn in place on an interactive terminal
 * (at most 10 times a second), or plain lines when stderr is a file or a pipe (the lines the command prints as
 * things end, plus a heartbeat when nothing was printed for a while), or nothing with --quiet. The status line is
 * rendered from plain data the conductors' hooks left behind, on this module's own timer: nothing here runs on the
 * client's read path. Colour only on a terminal, and never with NO_COLOR (runtime decides).
 */
import {
  clearStatusLine,
  everyMs,
  rewriteStderrLine,
  stderrRedraws,
  type StyledText,
  writeStderr,
} from "../runtime/mod.ts";

/** live: a status line redrawn in place; lines: plain lines and heartbeats; quiet: nothing. */
export type ProgressMode = "live" | "lines" | "quiet";

/** The mode for this process: quiet when asked, live on a terminal that redraws, else lines. */
export function progressMode(quiet: boolean): ProgressMode {
  if (quiet) return "quiet";
  return stderrRedraws() ? "live" : "lines";
}

/** Renders the current status, or null when there is nothing to show. */
export type StatusRender = () => readonly StyledText[] | null;

/** A command's progress display. */
export interface Progress {
  readonly mode: ProgressMode;
  /** Sets what the status line shows (redrawn on the timer); null hides it. */
  status(render: StatusRender | null): void;
  /** A line that stays: above the status line (live) or as is (lines); nothing when quiet. */
  line(text: string): void;
  /** Draws the status now instead of at the next tick (a stage changed). */
  refresh(): void;
  /** Erases the status line and stops the timer; call before the final output. */
  stop(): void;
}

/** When a plain heartbeat is due (live mode redraws 10 times a second). */
export interface ProgressTiming {
  /** Lines mode: print the status as a line when nothing was printed for this long, seconds (default 30). */
  heartbeatS?: number;
}

/** Plain text of styled segments (lines mode and tests). */
export function plainText(parts: readonly StyledText[]): string {
  return parts.map((p) => p.text).join("");
}

/** Opens the display; in live and lines mode a timer runs (unref'd) until stop(). */
export function openProgress(mode: ProgressMode, timing: ProgressTiming = {}): Progress {
  const nowMs = () => performance.now();
  const heartbeatMs = (timing.heartbeatS ?? 30) * 1000;
  let render: StatusRender | null = null;
  let lastLineMs = nowMs();
  let shown = "";
  let stopTimer: (() => void) | null = null;
  const draw = () => {
    const parts = render?.() ?? null;
    if (mode === "live") {
      const text = parts === null ? "" : plainText(parts);
      if (text === shown) return;
      shown = text;
      if (parts === null || text === "") clearStatusLine();
      else rewriteStderrLine(parts, false);
    } else if (mode === "lines" && parts !== null && nowMs() - lastLineMs >= heartbeatMs) {
      lastLineMs = nowMs();
      writeStderr(`${plainText(parts)}\n`);
    }
  };
  if (mode !== "quiet") stopTimer = everyMs(mode === "live" ? 100 : 1000, draw);
  return {
    mode,
    status(next) {
      render = next;
    },
    line(text) {
      if (mode === "quiet") return;
      lastLineMs = nowMs();
      writeStderr(`${text}\n`);
    },
    refresh() {
      if (mode === "live") draw();
    },
    stop() {
      stopTimer?.();
      stopTimer = null;
      render = null;
      if (mode === "live") clearStatusLine();
      shown = "";
    },
  };
}

/** "12.3 s" below a minute, "4 min 05 s" below an hour, "1 h 02 min" above. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "-";
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.floor(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
  return `${Math.floor(whole / 3600)} h ${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")} min`;
}

/** "812 MB", "44.01 GB". */
export function formatBytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

/**
 * One line of an error message as a person reads it: its first line, and of a long one the first sentence (or
 * the first 160 characters), so an engine's page of text never floods the screen. The record keeps the whole text.
 */
export function errorLine(message: string): string {
  const first = message.split(/\r?\n/, 1)[0]!.trim();
  if (first.length <= 160) return first;
  const sentence = /^.{20,160}?[.!?](?=\s)/.exec(first)?.[0];
  return sentence ?? `${first.slice(0, 159)}…`;
}
