/**
 * The engine dialect: which family of server reads the request. It decides how a setting is spelled (for example
 * "no reasoning budget"), and the probe identifies it from what the server exposes.
 */

const ENGINE_DIALECTS = ["llama.cpp", "strata", "unknown"] as const;
/** Engine family, as the probe identifies it; "unknown" when the server exposes nothing that tells. */
export type Dialect = typeof ENGINE_DIALECTS[number];

/**
 * Request fields an engine family accepts and silently ignores: sent to it, they change nothing, so a test that
 * sends one is warned. llama-server takes vLLM's `min_tokens` without error and does not honour it.
 */
export const IGNORED_FIELDS: Readonly<Record<Dialect, readonly string[]>> = {
  "llama.cpp": ["min_tokens"],
  strata: [],
  unknown: [],
};

/** The /props key with which the project's scripted engine announces itself: a run against it is a simulation. */
export const SCRIPTED_ENGINE_PROP = "strata_bench_scripted_engine";
