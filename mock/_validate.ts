/**
 * Reads a chat-completions request body the way llama-server does: invalid JSON is a 500, wrong types are a 400,
 * unknown fields are ignored, and null counts as absent.
 */
import { errorMessage } from "../runtime/mod.ts";

/** The request fields the engine acts on. */
export interface ChatRequest {
  body: Record<string, unknown>;
  stream: boolean;
  includeUsage: boolean;
  /** n_predict, else max_completion_tokens, else max_tokens (first present wins); null = no cap (-1). */
  maxTokens: number | null;
  /** Requested slot (llama-server takes it modulo the slot count), or null. */
  idSlot: number | null;
  cachePrompt: boolean;
  /** timings_per_token: true asks for running `timings` on every token's chunk. */
  timingsPerToken: boolean;
  /**
   * Reasoning tokens allowed: 0 when enable_thinking is false or reasoning_effort is "none", else
   * reasoning_budget_tokens / thinking_budget_tokens when >= 0 (llama-server: 0 ends thinking at once), else null.
   */
  reasoningBudget: number | null;
}

export type ReadChatResult =
  | { ok: true; body: unknown; value: ChatRequest }
  | { ok: false; body: unknown; status: number; message: string };

/** Parses and checks a request body. */
export function readChatRequest(text: string): ReadChatResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    const detail = errorMessage(error);
    return { ok: false, body: null, status: 500, message: `Cannot parse the request body as JSON: ${detail}` };
  }
  const fail = (message: string) => ({ ok: false as const, body, status: 400, message });
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return fail("The request body must be an object");
  }
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.messages) || b.messages.length === 0) return fail("'messages' must be a non-empty array");
  for (const message of b.messages) {
    if (typeof message !== "object" || message === null || typeof (message as { role?: unknown }).role !== "string") {
      return fail("Each message must be an object with a string 'role'");
    }
  }
  const kwargs = b.chat_template_kwargs;
  if (kwargs !== undefined && kwargs !== null) {
    if (typeof kwargs !== "object" || Array.isArray(kwargs)) return fail("'chat_template_kwargs' must be an object");
    const thinking = (kwargs as Record<string, unknown>).enable_thinking;
    if (thinking !== undefined && typeof thinking !== "boolean") {
      return fail("'enable_thinking' must be a boolean (true or false)");
    }
  }
  if (b.tools !== undefined && b.tools !== null && !Array.isArray(b.tools)) return fail("'tools' must be an array");
  let maxTokens: number | null = null;
  for (const name of ["n_predict", "max_completion_tokens", "max_tokens"]) {
    const value = b[name];
    if (value === undefined || value === null) continue;
    if (!Number.isInteger(value) || (value as number) < -1) return fail(`'${name}' must be an integer >= -1`);
    maxTokens = value === -1 ? null : value as number;
    break;
  }
  for (const name of ["temperature", "top_p", "min_p", "top_k", "seed", "presence_penalty", "repeat_penalty"]) {
    const value = b[name];
    if (value !== undefined && value !== null && typeof value !== "number") return fail(`'${name}' must be a number`);
  }
  const idSlot = b.id_slot;
  if (idSlot !== undefined && idSlot !== null && !Number.isInteger(idSlot)) return fail("'id_slot' must be an integer");
  let reasoningBudget: number | null = null;
  for (const name of ["reasoning_budget_tokens", "thinking_budget_tokens"]) {
    const value = b[name];
    if (value === undefined || value === null) continue;
    if (!Number.isInteger(value) || (value as number) < -1) return fail(`'${name}' must be an integer >= -1`);
    if ((value as number) >= 0) reasoningBudget = value as number;
    break;
  }
  const thinkingOff = (kwargs as { enable_thinking?: unknown } | null | undefined)?.enable_thinking === false ||
    b.reasoning_effort === "none";
  if (thinkingOff) reasoningBudget = 0;
  const streamOptions = b.stream_options as { include_usage?: unknown } | null | undefined;
  return {
    ok: true,
    body,
    value: {
      body: b,
      stream: b.stream === true,
      includeUsage: typeof streamOptions === "object" && streamOptions !== null && streamOptions.include_usage === true,
      maxTokens,
      idSlot: typeof idSlot === "number" && idSlot >= 0 ? idSlot : null,
      cachePrompt: b.cache_prompt !== false,
      timingsPerToken: b.timings_per_token === true,
      reasoningBudget,
    },
  };
}
