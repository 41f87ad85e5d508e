/**
 * The engine log of a run: the output of an engine the runner started (`--profile`) or a server's log file the
 * operator names (`run --engine-log FILE`). It is attached as the engine_log artifact (sanitized and hashed by the
 * result folder), and its per-request timing lines are checked against the timings each response carried: a
 * request whose numbers the log contradicts makes the run nonconforming, named. A file that is not llama-server's
 * log is not attached and says why.
 *
 * llama-server prints, for every finished task (tools/server, print_timings, one log line each):
 *   slot print_timing: id  0 | task 12 | prompt eval time =      39.37 ms /    13 tokens (...)
 *   slot print_timing: id  0 | task 12 |        eval time =     230.53 ms /    16 tokens (...)
 *   slot print_timing: id  0 | task 12 |       total time =     269.90 ms /    29 tokens
 * The prompt line's tokens and milliseconds are the response's timings.prompt_n and prompt_ms, the eval line's are
 * predicted_n and predicted_ms, printed with two decimals (so they agree within 0.005 ms).
 */
import { basename, dirname } from "node:path";
import type { ExecutedRequest } from "../contract/mod.ts";
import { errorLine, openSafeFolder } from "../runtime/mod.ts";

/** The most bytes of a log file read (the cap `report` applies to an engine log). */
export const MAX_ENGINE_LOG_BYTES = 64 * 1024 * 1024;

/** Where a run's engine log comes from, and how to read it once the requests are done. */
export interface EngineLogSource {
  /** In words, for the result: "--engine-log server.log" or "the output of the engine the runner started". */
  source: string;
  /** Attach the text whatever it is (the output of an engine the runner started); else only llama-server's log. */
  attachAnyText: boolean;
  read(): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
}

/** One task's timing lines. */
export interface LogTiming {
  slot: number;
  task: number;
  promptTokens: number;
  promptMs: number;
  evalTokens: number | null;
  evalMs: number | null;
}

/** A log read as llama-server's (its timing lines), or why it is not one. */
export type ParsedEngineLog =
  | { format: "llama-server"; timings: LogTiming[]; truncated: boolean }
  | { format: null; reason: string };

const TIMING_LINE =
  /slot\s+print_timing: id\s+(\d+) \| task (\d+) \|\s+(prompt eval|eval) time =\s*([0-9.]+) ms \/\s*(\d+) tokens/;
/** Lines only llama.cpp's server and loader print (prefixes of its log macros, with or without a timestamp). */
const LLAMA_SERVER_LINE =
  /^(?:[0-9.:]+ [IWED] )?(?:srv\s+\w+: |slot\s+\w+: id|main: |llama_model_loader: |llama_context: |load_tensors: |print_info: |build: \d+ \()/m;
/** What the runner's own capture of a started engine writes where it dropped the middle of a long log. */
const DROPPED_MARKER = /\[\.\.\. \d+ characters of engine log dropped \.\.\.\]/;

/** Reads llama-server's timing lines from a log text. */
export function parseEngineLog(text: string): ParsedEngineLog {
  if (text.includes("\u0000")) return { format: null, reason: "the file holds NUL bytes: it is not a text log" };
  if (!LLAMA_SERVER_LINE.test(text)) {
    return {
      format: null,
      reason: "the file is not a llama-server log: no line has llama-server's shape (srv, slot, main:, " +
        "llama_model_loader: ...); pass the server's own output (llama-server ... 2> server.log)",
    };
  }
  const byTask = new Map<string, LogTiming>();
  const timings: LogTiming[] = [];
  for (const line of text.split("\n")) {
    const m = TIMING_LINE.exec(line);
    if (m === null) continue;
    const [, slot, task, which, ms, tokens] = m as unknown as [string, string, string, string, string, string];
    const key = `${slot}/${task}`;
    if (which === "prompt eval") {
      const timing: LogTiming = {
        slot: Number(slot),
        task: Number(task),
        promptTokens: Number(tokens),
        promptMs: Number(ms),
        evalTokens: null,
        evalMs: null,
      };
      byTask.set(key, timing);
      timings.push(timing);
    } else {
      const timing = byTask.get(key);
      if (timing !== undefined && timing.evalMs === null) {
        timing.evalTokens = Number(tokens);
        timing.evalMs = Number(ms);
      }
    }
  }
  return { format: "llama-server", timings, truncated: DROPPED_MARKER.test(text) };
}

/** The response's own timing numbers (llama.cpp's names), or null when it carried none. */
function responseTimings(request: ExecutedRequest) {
  if (request.kind !== "outcome") return null;
  const t = request.outcome.timings as Record<string, unknown> | null;
  if (t === null || typeof t !== "object") return null;
  const num = (key: string) => (typeof t[key] === "number" && Number.isFinite(t[key]) ? t[key] as number : null);
  const promptTokens = num("prompt_n");
  const promptMs = num("prompt_ms");
  const evalTokens = num("predicted_n");
  const evalMs = num("predicted_ms");
  if (promptTokens === null || promptMs === null || evalTokens === null || evalMs === null) return null;
  const task = request.slot?.kind === "slot" && typeof request.slot.id_task === "number" ? request.slot.id_task : null;
  return { promptTokens, promptMs, evalTokens, evalMs, task };
}

/** Printed with two decimals: a log's milliseconds agree with the response's within half a hundredth. */
const agrees = (logMs: number | null, responseMs: number) => logMs !== null && Math.abs(logMs - responseMs) <= 0.0051;

function said(t: { promptTokens: number; promptMs: number; evalTokens: number | null; evalMs: number | null }) {
  return `prompt ${t.promptTokens} tokens in ${t.promptMs.toFixed(2)} ms, eval ${t.evalTokens ?? "?"} tokens in ${
    t.evalMs === null ? "?" : t.evalMs.toFixed(2)
  } ms`;
}

/** The cross-check of one run's requests against its engine log: results.json's extensions.engine_log. */
export interface EngineLogCheck {
  source: string;
  attached: boolean;
  format: "llama-server" | null;
  /** Why the log was not attached or not checked; null when it was checked. */
  reason: string | null;
  timing_lines: number;
  /** Requests whose response carried engine timings. */
  checked: number;
  agreed: number;
  disagreed: { request_id: string; reason: string }[];
  /** Requests the log has no timing line for (only where the log is cut: its middle was dropped). */
  not_in_log: string[];
}

/**
 * Checks every request with engine timings against the log, by task first: a request whose slot reading (GET
 * /slots' id_task) names a task with a timing line agrees only with that line's four numbers (token counts exact,
 * milliseconds to the printed hundredth); a request without one agrees with an unused line of the same numbers that
 * no other request's task claims, each line serving one request. Otherwise the request disagrees, quoting the line
 * of its task or else an unused line of the same token counts; a log whose middle was dropped lists such requests as
 * not in the log instead.
 */
export function checkEngineLog(
  source: EngineLogSource,
  parsed: ParsedEngineLog,
  requests: readonly ExecutedRequest[],
  readable = true,
): EngineLogCheck {
  const check: EngineLogCheck = {
    source: source.source,
    attached: readable && (parsed.format !== null || source.attachAnyText),
    format: parsed.format,
    reason: parsed.format === null ? parsed.reason : null,
    timing_lines: parsed.format === null ? 0 : parsed.timings.length,
    checked: 0,
    agreed: 0,
    disagreed: [],
    not_in_log: [],
  };
  if (parsed.format === null) return check;
  if (parsed.timings.length === 0) {
    check.reason = "the log has no per-request timing lines (slot print_timing); it was attached but not checked";
    return check;
  }
  const sameNumbers = (t: LogTiming, r: NonNullable<ReturnType<typeof responseTimings>>) =>
    t.promptTokens === r.promptTokens && t.evalTokens === r.evalTokens && agrees(t.promptMs, r.promptMs) &&
    agrees(t.evalMs, r.evalMs);
  const byTask = new Map<number, LogTiming>();
  for (const t of parsed.timings) if (!byTask.has(t.task)) byTask.set(t.task, t);
  const responses = requests.map(responseTimings);
  // A line whose task a request's slot reading names is that request's: no other request may take it by its
  // numbers, so two requests with identical timings cannot swap lines and blame the honest one.
  const claimed = new Set(responses.flatMap((r) => (r?.task !== null && r?.task !== undefined ? [r.task] : [])));
  const unused = new Set(parsed.timings.filter((t) => !claimed.has(t.task)));
  requests.forEach((request, i) => {
    const response = responses[i];
    if (response === null || response === undefined) return;
    check.checked++;
    const id = request.fixture.id;
    const ownLine = response.task === null ? undefined : byTask.get(response.task);
    const match = ownLine !== undefined
      ? (sameNumbers(ownLine, response) ? ownLine : undefined)
      : [...unused].find((t) => sameNumbers(t, response));
    if (match !== undefined) {
      unused.delete(match);
      check.agreed++;
      return;
    }
    const own = ownLine ??
      [...unused].find((t) => t.promptTokens === response.promptTokens && t.evalTokens === response.evalTokens);
    if (own === undefined && parsed.truncated) {
      check.not_in_log.push(id);
      return;
    }
    check.disagreed.push({
      request_id: id,
      reason: `the response's timings say ${said(response)}; ${
        own === undefined
          ? "no timing line of the engine log has these numbers"
          : `the engine log's timing line (task ${own.task}) says ${said(own)}`
      }`,
    });
  });
  return check;
}

/** The nonconforming reasons of a check: one per request the log contradicts. */
export function engineLogReasons(check: EngineLogCheck): string[] {
  return check.disagreed.map((d) => `${d.request_id}: the engine log disagrees with the response (${d.reason})`);
}

/** A log file the operator names: a regular file (no link), read whole up to MAX_ENGINE_LOG_BYTES, as UTF-8. */
export function engineLogFile(path: string): EngineLogSource {
  return {
    source: `--engine-log ${basename(path)}`,
    attachAnyText: false,
    read: async () => {
      try {
        const folder = await openSafeFolder(dirname(path));
        const bytes = await folder.read(basename(path), MAX_ENGINE_LOG_BYTES);
        return { ok: true, text: new TextDecoder().decode(bytes) };
      } catch (error) {
        return {
          ok: false,
          reason: `the engine log ${basename(path)} could not be read (${
            errorLine(error)
          }); pass a regular file of at most 64 MiB`,
        };
      }
    },
  };
}

/** The log of an engine the runner started, as its capture holds it. */
export function startedEngineLog(text: () => string): EngineLogSource {
  return {
    source: "the output of the engine the runner started",
    attachAnyText: true,
    read: () => Promise.resolve({ ok: true, text: text() }),
  };
}

/**
 * Reads and checks a run's engine log: the text to attach (null when none), the check, and its reasons. Never
 * throws: it runs after the requests, so a source or a parse that fails costs the run its log (the check says why,
 * nothing is attached), never its result.
 */
export async function readEngineLog(
  source: EngineLogSource,
  requests: readonly ExecutedRequest[],
): Promise<{ text: string | null; check: EngineLogCheck; reasons: string[] }> {
  try {
    const read = await source.read();
    const parsed: ParsedEngineLog = read.ok ? parseEngineLog(read.text) : { format: null, reason: read.reason };
    const check = checkEngineLog(source, parsed, requests, read.ok);
    return { text: read.ok && check.attached ? read.text : null, check, reasons: engineLogReasons(check) };
  } catch (error) {
    const why = `the engine log could not be read or checked: ${errorLine(error)}`;
    return { text: null, check: checkEngineLog(source, { format: null, reason: why }, requests, false), reasons: [] };
  }
}
