/**
 * The state of one running scripted engine, shared by its chat handler and its other routes: the resolved
 * options, the request log, the slot pool, the loading and shutdown states, the counters /metrics prints, and the
 * listeners that `waitFor` re-checks on every change.
 */
import type { MockScript } from "./_behaviour.ts";
import type { EngineIdentity } from "./_endpoints.ts";
import { createSlotPool, type SlotPool } from "./_slots.ts";
import type { MockEngineCounters, MockEngineOptions, MockEngineStats, MockRequestLog } from "./_types.ts";

const DEFAULT_TEMPLATE =
  "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + " +
  "'<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n' }}{%- endif %}";

/** How the engine stopped: killed (like a dead process) or closed (a normal shutdown). */
export type ShutdownKind = "killed" | "closed";

/** Everything a handler reads or changes. */
export interface EngineState {
  readonly options: MockEngineOptions;
  readonly promptTps: number;
  readonly decodeTps: number;
  readonly nCtx: number;
  readonly timeScale: number;
  readonly script: MockScript;
  readonly tokenCounts: Readonly<Record<string, number>>;
  readonly identity: EngineIdentity;
  readonly requests: MockRequestLog[];
  readonly pool: SlotPool;
  readonly counters: MockEngineCounters;
  /** Aborted when the engine stops; in-flight answers end with it. */
  readonly shutdown: AbortController;
  shutdownKind: ShutdownKind | null;
  loading: boolean;
  readonly listeners: Set<() => void>;
  /** Re-checks every waitFor condition. */
  notify(): void;
  /** Stops the engine (see MockEngine.close and kill); set once the server listens. */
  stop(kind: ShutdownKind): Promise<void>;
  stats(): MockEngineStats;
}

function positive(name: string, value: number | undefined, fallback: number, integer: boolean): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new RangeError(`Cannot start mock engine: ${name} must be a positive ${integer ? "integer" : "number"}`);
  }
  return v;
}

/**
 * The state of a new engine from its options (defaults filled in); `stop` is a placeholder until the server runs.
 * @throws {RangeError} on a non-positive slots/speed/nCtx or negative timeScale/loadingMs.
 */
export function createEngineState(options: MockEngineOptions): EngineState {
  const slotCount = positive("slots", options.slots, 4, true);
  const promptTps = positive("promptTps", options.promptTps, 1500, false);
  const decodeTps = positive("decodeTps", options.decodeTps, 50, false);
  const nCtx = positive("nCtx", options.nCtx, 32768, true);
  const timeScale = options.timeScale ?? 1;
  const loadingMs = options.loadingMs ?? 0;
  if (!(timeScale >= 0) || !(loadingMs >= 0)) {
    throw new RangeError("Cannot start mock engine: timeScale and loadingMs must be >= 0");
  }
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const requests: MockRequestLog[] = [];
  const counters: MockEngineCounters = {
    requestsEnded: 0,
    promptTokensTotal: 0,
    promptSecondsTotal: 0,
    tokensPredictedTotal: 0,
    tokensPredictedSecondsTotal: 0,
    nDecodeTotal: 0,
  };
  const pool = createSlotPool(slotCount, notify);
  const state: EngineState = {
    options,
    promptTps,
    decodeTps,
    nCtx,
    timeScale,
    script: options.script ?? {},
    tokenCounts: options.tokenCounts ?? {},
    identity: {
      modelAlias: options.modelAlias ?? "qwen3-mock",
      modelPath: options.modelPath ?? "models/qwen3-mock-Q4_K_M.gguf",
      // /props build_info and the chunks' system_fingerprint, in llama.cpp's b<build>-<commit> form.
      buildInfo: "b7000-80fb11a",
      chatTemplate: options.chatTemplate ?? DEFAULT_TEMPLATE,
      nCtx,
      createdUnix: Math.floor(Date.now() / 1000),
      announceScripted: options.announceScripted ?? true,
    },
    requests,
    pool,
    counters,
    shutdown: new AbortController(),
    shutdownKind: null,
    loading: loadingMs > 0,
    listeners,
    notify,
    stop: () => Promise.resolve(),
    stats: () => ({
      loading: state.loading,
      killed: state.shutdownKind === "killed",
      processing: pool.processing(),
      deferred: pool.deferred(),
      requestsReceived: requests.length,
      ...counters,
    }),
  };
  return state;
}
