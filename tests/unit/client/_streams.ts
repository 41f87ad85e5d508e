/** Realistic llama.cpp-shaped streams and helpers shared by the runner tests. */

const ENV = `"created":1760000000,"id":"chatcmpl-AbCdEfGhIjKlMnOpQrStUvWxYz012345","model":"qwen",` +
  `"system_fingerprint":"b6000-abcdef0","object":"chat.completion.chunk"`;

/** One `data:` event of a chunk with the given choices JSON and extra top-level fields. */
export function chunkEvent(choices: string, extra = ""): string {
  return `data: {"choices":${choices},${ENV}${extra}}\n\n`;
}

/** A delta chunk event. */
export function deltaEvent(delta: string, finish: string | null = null): string {
  const reason = finish === null ? "null" : JSON.stringify(finish);
  return chunkEvent(`[{"finish_reason":${reason},"index":0,"delta":${delta}}]`);
}

export const USAGE_EXTRA = `,"usage":{"completion_tokens":35,"prompt_tokens":237,"total_tokens":272,` +
  `"prompt_tokens_details":{"cached_tokens":236}},"timings":{"cache_n":236,"prompt_n":1,"prompt_ms":30.9,` +
  `"prompt_per_token_ms":30.9,"prompt_per_second":32.4,"predicted_n":35,"predicted_ms":661.0,` +
  `"predicted_per_token_ms":19.44,"predicted_per_second":51.4}`;

/** Reasoning with multibyte text, an answer, a tool call in fragments, finish, usage, [DONE]. */
export const LLAMA_STREAM = [
  deltaEvent(`{"role":"assistant","content":null}`),
  deltaEvent(`{"reasoning_content":"Let me think: caf\u00e9 \u65e5\u672c "}`),
  deltaEvent(`{"reasoning_content":"\u{1F642} done."}`),
  deltaEvent(`{"content":"Hello \u00fcber"}`),
  deltaEvent(
    `{"tool_calls":[{"index":0,"id":"call0","type":"function","function":{"name":"get_weather","arguments":"{\\"ci"}}]}`,
  ),
  deltaEvent(`{"tool_calls":[{"index":0,"function":{"arguments":"ty\\":\\"Paris\\"}"}}]}`),
  deltaEvent(`{}`, "tool_calls"),
  chunkEvent("[]", USAGE_EXTRA),
  "data: [DONE]\n\n",
].join("");

/** Data of each event of LLAMA_STREAM, in order. */
export function eventsOf(stream: string): string[] {
  return stream.split("\n\n").filter((e) => e !== "").map((e) => e.slice("data: ".length));
}

/** Deterministic PRNG (mulberry32) for reproducible random splits. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits bytes at the given sorted cut points. */
export function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts) {
    parts.push(bytes.slice(from, cut));
    from = cut;
  }
  parts.push(bytes.slice(from));
  return parts;
}

/** `count` random cut points in (0, length). */
export function randomCuts(random: () => number, length: number, count: number): number[] {
  const cuts = new Set<number>();
  while (cuts.size < Math.min(count, length - 1)) cuts.add(1 + Math.floor(random() * (length - 1)));
  return [...cuts].sort((a, b) => a - b);
}

/** Wraps a body in chunked transfer coding, one HTTP chunk per piece. */
export function chunked(pieces: string[]): string {
  const encoder = new TextEncoder();
  return pieces.map((p) => `${encoder.encode(p).length.toString(16)}\r\n${p}\r\n`).join("") + "0\r\n\r\n";
}
