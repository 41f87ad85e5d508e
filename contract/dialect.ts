/**
 * The engine dialect: which family of server reads the request. It decides how a setting is spelled (for example
 * "no reasoning budget"), and the probe identifies it from what the server exposes.
 */

const ENGINE_DIALECTS = ["llama.cpp", "strata", "unknown"] as const;
/** Engine family, as the probe identifies it; "unknown" when the server exposes nothing that tells. */
export type Dialect = typeof ENGINE_DIALECTS[number];

/** The /props key with which the project's scripted engine announces itself: a run against it is a simulation. */
export const SCRIPTED_ENGINE_PROP = "strata_bench_scripted_engine";
