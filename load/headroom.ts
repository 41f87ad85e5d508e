/**
 * Automatic client headroom (performance methodology, load generator): before a run, the client's own ceiling for
 * the run's shape (concurrent streams, output tokens a request) is measured against the in-process scripted engine
 * with zero service time, or taken from a cache keyed by machine, runtime, toolkit commit and shape. After the run
 * the achieved rate is stamped as a fraction of that ceiling, with a warning when the client, not the server, may
 * have been the limit. The ceiling is conservative: the scripted engine shares this process and its cores.
 *
 * A busy moment can only lower a ceiling, so one measured then must not mislead later runs: every ceiling records
 * when it was measured and the machine's load per CPU at the time; a cached one is used only while it is younger
 * than HEADROOM_MAX_AGE_S and was measured on a quiet machine (load per CPU at most HEADROOM_QUIET_LOAD); a ceiling
 * measured on a busy one serves its own run only and is never cached.
 */
import type { MockEngine, MockEngineOptions } from "../mock/mod.ts";
import { runLoad } from "./generator.ts";
import type { LoadDeps } from "./load_plan_bounds.ts";
import { buildLoadBody } from "./workloads.ts";
import { parseStrictJsonPlain } from "../score/mod.ts";

/** The shape a ceiling is measured for. */
export interface HeadroomShape {
  /** Concurrent streams (capped at 256 for the check itself; beyond that the check's engine is the limit). */
  concurrency: number;
  /** Visible output tokens a request (the run's OSL target or cap; 64 when the run has neither). */
  outputTokens: number;
}

/** The client's measured ceiling for one shape. */
export interface HeadroomCeiling {
  shape: HeadroomShape;
  requests_per_s: number;
  /** SSE data events per second the client ingested. */
  events_per_s: number;
  measured_s: number;
  requests: number;
  /** Where it came from: measured now, or the cache (with when it was measured). */
  source: "measured" | "cache";
  measured_at: string;
  /** The 1-minute load average over the logical CPUs when it was measured; null where unknown. */
  load_per_cpu: number | null;
  /** Seconds since it was measured (a cached one); 0 when measured now. */
  age_s: number;
  key: string;
}

/** Longest a cached ceiling is used, seconds (then it is measured again). */
export const HEADROOM_MAX_AGE_S = 24 * 3600;
/** Most load per CPU under which a measured ceiling is cached and a cached one is used. */
export const HEADROOM_QUIET_LOAD = 0.5;

/** What the headroom stamp of a run says. */
export interface HeadroomStamp {
  ceiling: HeadroomCeiling | null;
  achieved_events_per_s: number | null;
  achieved_requests_per_s: number | null;
  /** achieved events/s over the ceiling's events/s. */
  fraction_of_ceiling: number | null;
  /** Above this fraction the run warns (0.5). */
  warn_above: number;
  warning: string | null;
  missing: string | null;
}

export const HEADROOM_WARN_FRACTION = 0.5;

/** What measuring or caching a ceiling needs. */
export interface HeadroomDeps extends LoadDeps {
  startMockEngine(options: MockEngineOptions): Promise<MockEngine>;
  /** The cache key's machine and toolkit part (host, CPU, runtime, commit); null: no cache. */
  cacheIdentity?: () => Promise<string | null>;
  readCache?: () => Promise<string | null>;
  writeCache?: (text: string) => Promise<void>;
  /** Wall clock, epoch milliseconds, for the measured_at stamp and a cached ceiling's age. */
  wallMs?: () => number;
  /** The machine's 1-minute load average over its logical CPUs; null where unknown. */
  loadPerCpu?: () => number | null;
}

/** The scripted engine of a check: zero service time, enough slots, `tokens` visible tokens a request. */
export function headroomEngine(tokens: number, slots: number): MockEngineOptions {
  return {
    timeScale: 0,
    slots,
    script: {
      "*": {
        answer: { kind: "text", text: Array.from({ length: Math.max(1, tokens - 1) }, () => "tok").join(" ") },
        reasoningTokens: 0,
      },
    },
  };
}

/** Measures the ceiling of one shape: a closed loop against the scripted engine for `durationS` seconds. */
export async function measureCeiling(
  shape: HeadroomShape,
  durationS: number,
  deps: HeadroomDeps,
  signal?: AbortSignal,
): Promise<Omit<HeadroomCeiling, "source" | "measured_at" | "key" | "load_per_cpu" | "age_s">> {
  const concurrency = Math.min(256, Math.max(1, shape.concurrency));
  const engine = await deps.startMockEngine(headroomEngine(shape.outputTokens, concurrency + 8));
  try {
    const bodies = Array.from(
      { length: 64 },
      (_, i) =>
        buildLoadBody(
          { messages: [{ role: "user", content: `headroom check ${i}` }], max_tokens: shape.outputTokens },
          {
            maxTokens: shape.outputTokens,
          },
        ),
    );
    let events = 0, ok = 0, first = Infinity, last = -Infinity;
    await runLoad(
      {
        endpoints: [engine.url],
        mode: "closed",
        concurrency,
        seed: 1,
        warmupRequests: concurrency,
        durationS,
        drainLimitS: 5,
        requestFor: (_phase, i) => ({ body: bodies[i % bodies.length]!, promptIndex: i % bodies.length }),
      },
      deps,
      {
        ...(signal ? { signal } : {}),
        onSample: (s) => {
          if (s.phase !== "measure" || s.outcome === null || s.send_offset_s === null) return;
          first = Math.min(first, s.send_offset_s);
          last = Math.max(last, s.send_offset_s + s.outcome.offsets.end_s);
          if (s.outcome.end === "finished") ok++;
          events += s.outcome.events;
        },
      },
    );
    const window = last - first;
    return {
      shape: { concurrency, outputTokens: shape.outputTokens },
      requests_per_s: window > 0 ? ok / window : 0,
      events_per_s: window > 0 ? events / window : 0,
      measured_s: window > 0 ? window : 0,
      requests: ok,
    };
  } finally {
    await engine.close();
    engine.requests.length = 0;
  }
}

/** Whether a cached entry may stand for the ceiling now: well-formed, recent, and measured on a quiet machine. */
function usable(entry: unknown, nowMs: number): entry is HeadroomCeiling {
  const e = entry as Partial<HeadroomCeiling> | null;
  if (e === null || typeof e !== "object" || typeof e.events_per_s !== "number" || !(e.events_per_s > 0)) return false;
  const at = typeof e.measured_at === "string" ? Date.parse(e.measured_at) : Number.NaN;
  const quiet = typeof e.load_per_cpu === "number" && e.load_per_cpu <= HEADROOM_QUIET_LOAD;
  return quiet && nowMs - at >= 0 && nowMs - at <= HEADROOM_MAX_AGE_S * 1000;
}

/**
 * The ceiling of this shape: a usable cached one (see `usable`), or a fresh measurement, cached only when the
 * machine was quiet while it ran.
 */
export async function clientCeiling(
  shape: HeadroomShape,
  options: { durationS: number; useCache: boolean },
  deps: HeadroomDeps,
  signal?: AbortSignal,
): Promise<HeadroomCeiling> {
  const nowMs = deps.wallMs?.() ?? Date.now();
  const identity = options.useCache ? await deps.cacheIdentity?.() ?? null : null;
  const key = `${identity ?? "uncached"}|c=${Math.min(256, shape.concurrency)}|tokens=${shape.outputTokens}`;
  let cache: Record<string, unknown> = {};
  if (identity !== null) {
    const parsed = parseStrictJsonPlain((await deps.readCache?.()) ?? "{}", { maxDepth: 8 });
    if (parsed.ok && typeof parsed.value === "object" && parsed.value !== null) {
      cache = parsed.value as Record<string, unknown>;
    }
    const hit = cache[key];
    if (usable(hit, nowMs)) return { ...hit, source: "cache", age_s: (nowMs - Date.parse(hit.measured_at)) / 1000 };
  }
  const loadBefore = deps.loadPerCpu?.() ?? null;
  const measured = await measureCeiling(shape, options.durationS, deps, signal);
  const loadAfter = deps.loadPerCpu?.() ?? null;
  const ceiling: HeadroomCeiling = {
    ...measured,
    source: "measured",
    measured_at: new Date(nowMs).toISOString(),
    load_per_cpu: loadBefore === null || loadAfter === null ? null : Math.max(loadBefore, loadAfter),
    age_s: 0,
    key,
  };
  const quiet = ceiling.load_per_cpu !== null && ceiling.load_per_cpu <= HEADROOM_QUIET_LOAD;
  if (identity !== null && measured.events_per_s > 0 && quiet) {
    cache[key] = ceiling;
    try {
      await deps.writeCache?.(JSON.stringify(cache, null, 1) + "\n");
    } catch {
      // An unwritable cache only means the next run measures again.
    }
  }
  return ceiling;
}

/**
 * Where a ceiling came from, in a person's words: measured now or cached, when, and under what load (a ceiling read
 * from a saved result of an older version may lack the load and age: said as unknown).
 */
export function ceilingOrigin(c: HeadroomCeiling): string {
  const load = typeof c.load_per_cpu === "number" ? `load ${c.load_per_cpu.toFixed(2)} per CPU` : "load unknown";
  const age = typeof c.age_s === "number" ? `, ${Math.round(c.age_s)} s ago` : "";
  return c.source === "cache"
    ? `cached, measured ${c.measured_at ?? "at an unknown time"} under ${load}${age}`
    : `measured at the start of this run, ${c.measured_at ?? "at an unknown time"}, under ${load}`;
}

/** The stamp of a run: the achieved rate against the ceiling, with a warning near it. */
export function headroomStamp(
  ceiling: HeadroomCeiling | null,
  achieved: { eventsPerS: number | null; requestsPerS: number | null },
  missing: string | null = null,
): HeadroomStamp {
  const fraction = ceiling !== null && achieved.eventsPerS !== null && ceiling.events_per_s > 0
    ? achieved.eventsPerS / ceiling.events_per_s
    : null;
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  return {
    ceiling,
    achieved_events_per_s: achieved.eventsPerS,
    achieved_requests_per_s: achieved.requestsPerS,
    fraction_of_ceiling: fraction,
    warn_above: HEADROOM_WARN_FRACTION,
    warning: fraction !== null && fraction > HEADROOM_WARN_FRACTION
      ? `the client may be the limit: this run ingested ${pct(fraction)} of the client's own ceiling ` +
        `(${Math.round(ceiling!.events_per_s)} events/s at ${ceiling!.shape.concurrency} streams, ${
          ceilingOrigin(ceiling!)
        }); ` +
        "its numbers may " +
        "describe the load generator, not the server (run fewer streams per generator, or shard the load)"
      : null,
    missing: ceiling === null ? missing ?? "not measured" : fraction === null ? "the run ingested no events" : null,
  };
}
