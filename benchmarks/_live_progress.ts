/**
 * What the live progress adds to a measured client, for the before/after benchmarks: every request gets the
 * stream client's live counters (StreamProgress, as `run` passes them), and a 10 Hz timer renders a status line
 * from all of them the way cli/_run_progress.ts does (into a string nobody prints: the terminal write of ~100
 * bytes ten times a second is left out). Off: nothing is passed and no timer runs (the client as before).
 */
import { newStreamProgress, type StreamProgress } from "../contract/mod.ts";
import { deliveredText } from "../cli/_run_progress.ts";
import { everyMs } from "../runtime/mod.ts";

/** The counters of requests in flight and the redraw timer; `counters()` is undefined when progress is off. */
export function liveProgress(on: boolean): {
  counters(): StreamProgress | undefined;
  done(live: StreamProgress | undefined): void;
  stop(): { renders: number; lastLine: string };
} {
  if (!on) return { counters: () => undefined, done: () => {}, stop: () => ({ renders: 0, lastLine: "" }) };
  const open = new Set<StreamProgress>();
  let renders = 0;
  let last = "";
  const stop = everyMs(100, () => {
    renders++;
    let deltas = 0, first: StreamProgress | undefined;
    for (const live of open) {
      deltas += live.deltas;
      first ??= live;
    }
    last = `[${open.size} in flight] ${first === undefined ? "-" : deliveredText(first)} · ${deltas} deltas`;
  });
  return {
    counters: () => {
      const live = newStreamProgress();
      open.add(live);
      return live;
    },
    done: (live) => {
      if (live !== undefined) open.delete(live);
    },
    stop: () => {
      stop();
      return { renders, lastLine: last };
    },
  };
}
