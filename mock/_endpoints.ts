/** Bodies of the engine's informational routes: /props, /slots, /v1/models, /metrics. */
import { SCRIPTED_ENGINE_PROP } from "../contract/mod.ts";
import type { Slot } from "./_slots.ts";
import type { MockEngineStats } from "./_types.ts";

/** Model and server identity the routes report. */
export interface EngineIdentity {
  modelAlias: string;
  modelPath: string;
  buildInfo: string;
  chatTemplate: string;
  nCtx: number;
  createdUnix: number;
  announceScripted: boolean;
}

/** Server-side sampling defaults, as if read from the model's metadata (a client must override them). */
const DEFAULT_PARAMS = {
  n_predict: -1,
  seed: 4294967295,
  temperature: 0.8,
  dynatemp_range: 0,
  dynatemp_exponent: 1,
  top_k: 40,
  top_p: 0.95,
  min_p: 0.05,
  xtc_probability: 0,
  xtc_threshold: 0.1,
  typical_p: 1,
  repeat_last_n: 64,
  repeat_penalty: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
  dry_multiplier: 0,
  mirostat: 0,
  n_keep: 0,
  n_discard: 0,
  ignore_eos: false,
  stream: true,
  n_probs: 0,
  min_keep: 0,
  reasoning_format: "deepseek",
  reasoning_in_content: false,
  thinking_forced_open: false,
  samplers: ["penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"],
  timings_per_token: false,
  post_sampling_probs: false,
};

/** Parameters llama-server keeps as float32 (and prints as such: 0.95 reads 0.949999988079071). */
const FLOAT_PARAMS = new Set([
  "temperature",
  "dynatemp_range",
  "dynatemp_exponent",
  "top_p",
  "min_p",
  "xtc_probability",
  "xtc_threshold",
  "typical_p",
  "repeat_penalty",
  "presence_penalty",
  "frequency_penalty",
  "dry_multiplier",
]);

/** Parameters as llama-server prints them: its float32 values widened to double. */
function printed(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    out[key] = FLOAT_PARAMS.has(key) && typeof value === "number" ? Math.fround(value) : value;
  }
  return out;
}

/**
 * The parameters a request's task runs with, as llama-server resolves them: the server defaults, each overridden
 * by the request's own value (repeat_penalty by that name only; repetition_penalty is ignored), the cap from
 * n_predict, else max_completion_tokens, else max_tokens; `override` wins over both (a scripted engine whose
 * configuration replaces what the request asked for).
 */
export function resolvedParams(
  body: Record<string, unknown>,
  override?: Record<string, unknown>,
): Record<string, unknown> {
  const params: Record<string, unknown> = { ...DEFAULT_PARAMS };
  for (const key of [...FLOAT_PARAMS, "top_k", "seed", "mirostat"]) {
    if (typeof body[key] === "number") params[key] = body[key];
  }
  const cap = [body["n_predict"], body["max_completion_tokens"], body["max_tokens"]].find((v) => typeof v === "number");
  if (cap !== undefined) params["n_predict"] = cap;
  return { ...params, ...override };
}

function slotJson(slot: Slot, nCtx: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: slot.id,
    n_ctx: nCtx,
    speculative: false,
    is_processing: slot.busy,
  };
  // Like llama-server: task facts only once the slot has (or had) a task.
  if (slot.taskIndex >= 0) {
    out.id_task = slot.taskIndex;
    out.n_prompt_tokens = slot.cache?.tokens ?? 0;
    out.params = printed(slot.params ?? DEFAULT_PARAMS);
    out.next_token = [{ has_next_token: slot.busy, has_new_line: false, n_remain: -1, n_decoded: slot.decoded }];
  }
  return out;
}

/** GET /props. */
export function propsJson(identity: EngineIdentity, slots: Slot[]): Record<string, unknown> {
  return {
    default_generation_settings: { params: printed(DEFAULT_PARAMS), n_ctx: identity.nCtx },
    total_slots: slots.length,
    model_alias: identity.modelAlias,
    model_path: identity.modelPath,
    model_ftype: "Q4_K - Medium",
    modalities: { vision: false, audio: false },
    chat_template: identity.chatTemplate,
    chat_template_caps: { supports_tools: true, supports_tool_calls: true, supports_system_role: true },
    bos_token: "",
    eos_token: "<|im_end|>",
    build_info: identity.buildInfo,
    is_sleeping: false,
    // Not a llama.cpp field: it lets a run recognise the scripted engine and label its result simulated even
    // when nobody passed --simulated.
    ...(identity.announceScripted ? { [SCRIPTED_ENGINE_PROP]: true } : {}),
  };
}

/** GET /slots. */
export function slotsJson(identity: EngineIdentity, slots: Slot[]): unknown[] {
  return slots.map((slot) => slotJson(slot, identity.nCtx));
}

/** GET /v1/models. */
export function modelsJson(identity: EngineIdentity): Record<string, unknown> {
  const meta = {
    vocab_type: 2,
    n_vocab: 151936,
    n_ctx_train: 40960,
    n_embd: 4096,
    n_params: 8190735360,
    size: 5027783488,
  };
  return {
    models: [{ name: identity.modelAlias, model: identity.modelAlias, type: "model", capabilities: ["completion"] }],
    object: "list",
    data: [{ id: identity.modelAlias, object: "model", created: identity.createdUnix, owned_by: "llamacpp", meta }],
  };
}

/** GET /metrics: Prometheus text exposition with llama-server's metric names. */
export function metricsText(stats: MockEngineStats): string {
  const rows: Array<[string, "counter" | "gauge", string, number]> = [
    ["prompt_tokens_total", "counter", "Number of prompt tokens processed.", stats.promptTokensTotal],
    ["prompt_seconds_total", "counter", "Prompt process time", stats.promptSecondsTotal],
    ["tokens_predicted_total", "counter", "Number of generation tokens processed.", stats.tokensPredictedTotal],
    ["tokens_predicted_seconds_total", "counter", "Predict process time", stats.tokensPredictedSecondsTotal],
    ["n_decode_total", "counter", "Total number of decode calls", stats.nDecodeTotal],
    [
      "prompt_tokens_seconds",
      "gauge",
      "Average prompt throughput in tokens/s.",
      rate(stats.promptTokensTotal, stats.promptSecondsTotal),
    ],
    [
      "predicted_tokens_seconds",
      "gauge",
      "Average generation throughput in tokens/s.",
      rate(stats.tokensPredictedTotal, stats.tokensPredictedSecondsTotal),
    ],
    ["requests_processing", "gauge", "Number of requests processing.", stats.processing],
    ["requests_deferred", "gauge", "Number of requests deferred.", stats.deferred],
  ];
  return rows.map(([name, type, help, value]) =>
    `# HELP llamacpp:${name} ${help}\n# TYPE llamacpp:${name} ${type}\nllamacpp:${name} ${value}\n`
  ).join("");
}

function rate(tokens: number, seconds: number): number {
  return seconds > 0 ? tokens / seconds : 0;
}
