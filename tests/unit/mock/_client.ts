/** A deliberately simple SSE client for the mock engine's tests: read the whole body, split events, parse JSON. */

/** Everything one streamed chat request showed the client. */
export interface SseResult {
  status: number;
  contentType: string | null;
  /** Parsed `data:` payloads in order, [DONE] excluded. */
  events: Record<string, unknown>[];
  /** Whether `data: [DONE]` arrived. */
  done: boolean;
  /** `:` comment lines seen. */
  comments: number;
  /** Text after the last complete event (a stream cut mid-event leaves it here). */
  partial: string;
  /** Body read error (connection dropped), else null. */
  readError: string | null;
  /** Raw body text read before the end or the error. */
  text: string;
}

/** A chat body for request id `id` (marker at the start of the user message), streaming with usage by default. */
export function chatBody(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    messages: [{ role: "user", content: `[case ${id}]\nSay something useful about hash tables.` }],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 64,
    ...extra,
  };
}

/** POSTs a chat completion and reads the whole answer (HTTP errors included, as text). */
export async function postChat(url: string, body: unknown, signal?: AbortSignal): Promise<SseResult> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return await readSse(response);
}

/** Reads a response body as SSE until it ends or fails. */
export async function readSse(response: Response): Promise<SseResult> {
  let text = "";
  let readError: string | null = null;
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    readError = String(error);
  }
  const blocks = text.split("\n\n");
  const partial = blocks.pop() ?? "";
  const result: SseResult = {
    status: response.status,
    contentType: response.headers.get("content-type"),
    events: [],
    done: false,
    comments: 0,
    partial,
    readError,
    text,
  };
  for (const block of blocks) {
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) result.comments++;
      else if (line === "data: [DONE]") result.done = true;
      else if (line.startsWith("data: ")) result.events.push(JSON.parse(line.slice(6)));
    }
  }
  return result;
}

/** The `delta` of an event's first choice, or null. */
export function deltaOf(event: Record<string, unknown>): Record<string, unknown> | null {
  const choices = event.choices as Array<{ delta?: Record<string, unknown> }> | undefined;
  return choices?.[0]?.delta ?? null;
}

/** Concatenated text of one delta field over all events. */
export function joined(events: Record<string, unknown>[], field: "content" | "reasoning_content"): string {
  return events.map((event) => deltaOf(event)?.[field]).filter((text) => typeof text === "string").join("");
}

/** The finish_reason that arrived, or null. */
export function finishReasonOf(events: Record<string, unknown>[]): string | null {
  for (const event of events) {
    const choice = (event.choices as Array<{ finish_reason?: string | null }> | undefined)?.[0];
    if (choice?.finish_reason) return choice.finish_reason;
  }
  return null;
}

/** Tool calls assembled from their deltas (first delta per index names the call; later ones append arguments). */
export function toolCallsOf(
  events: Record<string, unknown>[],
): Array<{ id: string; type: string; name: string; arguments: string; fragments: number }> {
  const calls: Array<{ id: string; type: string; name: string; arguments: string; fragments: number }> = [];
  for (const event of events) {
    const deltas = deltaOf(event)?.tool_calls as
      | Array<{ index: number; id?: string; type?: string; function: { name?: string; arguments: string } }>
      | undefined;
    for (const delta of deltas ?? []) {
      const call = calls[delta.index] ??= { id: "", type: "", name: "", arguments: "", fragments: 0 };
      if (delta.id !== undefined) call.id = delta.id;
      if (delta.type !== undefined) call.type = delta.type;
      if (delta.function.name !== undefined) call.name = delta.function.name;
      call.arguments += delta.function.arguments;
      call.fragments++;
    }
  }
  return calls;
}
