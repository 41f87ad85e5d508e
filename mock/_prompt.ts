/**
 * Prompt facts of one request: its id marker, a ChatML-style rendering (the text the prompt cache compares),
 * its token count, and the cache reuse a slot gives it.
 */

/** How prompt_tokens was obtained. */
export type PromptTokenSource = "token_counts" | "chars_div_4";

/** The `[case <id>]` marker at the start of the last user message, or null. */
export function requestIdOf(body: Record<string, unknown>): string | null {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { role?: unknown; content?: unknown } | null;
    if (message?.role !== "user") continue;
    const match = /^\[case ([^\]\s]+)\]/.exec(contentText(message.content));
    return match?.[1] ?? null;
  }
  return null;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
}

/**
 * Renders messages and tools the way a Qwen-style ChatML template lays them out, ending with the generation
 * prompt. Only its shape matters: requests share the template prefix and differ from their marker on.
 */
export function renderPrompt(body: Record<string, unknown>): string {
  const parts: string[] = [];
  const tools = Array.isArray(body.tools) && body.tools.length > 0 ? body.tools : null;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const first = messages[0] as { role?: unknown; content?: unknown } | undefined;
  const system = first?.role === "system" ? contentText(first.content) : null;
  if (tools !== null) {
    const listed = tools.map((tool) => JSON.stringify(tool)).join("\n");
    parts.push(`<|im_start|>system\n${system ?? ""}\n\n# Tools\n\n<tools>\n${listed}\n</tools><|im_end|>\n`);
  } else if (system !== null) {
    parts.push(`<|im_start|>system\n${system}<|im_end|>\n`);
  }
  messages.forEach((message, index) => {
    const m = message as { role?: unknown; content?: unknown } | null;
    if (index === 0 && system !== null) return;
    parts.push(`<|im_start|>${String(m?.role)}\n${contentText(m?.content)}<|im_end|>\n`);
  });
  parts.push("<|im_start|>assistant\n<think>\n");
  return parts.join("");
}

/** Prompt token count: the caller's count for a known request id, else ceil(characters / 4) of the rendering. */
export function promptTokensOf(
  requestId: string | null,
  rendered: string,
  tokenCounts: Readonly<Record<string, number>>,
): { tokens: number; source: PromptTokenSource } {
  const known = requestId === null ? undefined : tokenCounts[requestId];
  if (known !== undefined) return { tokens: known, source: "token_counts" };
  return { tokens: Math.max(1, Math.ceil(rendered.length / 4)), source: "chars_div_4" };
}

/** Length of the longest common prefix of two strings, in UTF-16 code units. */
export function commonPrefixChars(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** What a slot holds from its previous request. */
export interface SlotCache {
  prompt: string;
  tokens: number;
}

/**
 * Tokens reused from a slot's cache: the common character prefix scaled to tokens by the new prompt's
 * tokens-per-character. A prompt the cache fully covers re-evaluates one token (cache_n = tokens - 1).
 */
export function cachedTokensOf(cache: SlotCache | null, prompt: string, tokens: number): number {
  if (cache === null || tokens <= 1) return 0;
  const shared = commonPrefixChars(cache.prompt, prompt);
  if (shared === prompt.length) return tokens - 1;
  return Math.min(tokens - 1, Math.floor((shared / prompt.length) * tokens));
}

/** Token counts by request id from fixtures (the bundle's input_tokens), for MockEngineOptions.tokenCounts. */
export function tokenCountsFrom(
  fixtures: ReadonlyArray<{ id: string; input_tokens: number }>,
): Record<string, number> {
  return Object.fromEntries(fixtures.map((fixture) => [fixture.id, fixture.input_tokens]));
}
