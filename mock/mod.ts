/**
 * The scripted engine: a llama.cpp-compatible (llama-server) HTTP server for tests and demos, whose answers,
 * speeds, token counts and faults are set by a script instead of a model.
 *
 * ```ts
 * const engine = await startMockEngine({ timeScale: 0, script: { "sanity-I2": { answer: { kind: "text", text: "[1]" } } } });
 * try {
 *   // POST `${engine.url}/v1/chat/completions` ...; inspect engine.requests
 * } finally {
 *   await engine.close();
 * }
 * ```
 */
export { type MockEngine, startMockEngine } from "./_engine.ts";
export type { MockEngineOptions, MockRequestLog } from "./_types.ts";
export { type MockScript, parseMockScript } from "./_behaviour.ts";
export { tokenCountsFrom } from "./_prompt.ts";
