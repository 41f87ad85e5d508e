/**
 * How the server renders and counts a request without generating: POST /apply-template (the chat template applied
 * to the request body, llama-server answers {"prompt": TEXT}) then POST /tokenize of that text with the special
 * tokens the chat endpoint adds and parses ({"tokens": [ids]}). A server without these endpoints is "unsupported";
 * an answer that is not what llama-server says gives a null count with the reason, never a guessed one.
 */
import { asObject, fetchEndpoint, type ProbeServerDeps } from "./server.ts";

/** One request's rendering on the server: its token ids, or why there are none. */
export interface ServerTokens {
  id: string;
  tokens: number[] | null;
  reason: string | null;
}

/** The server's renderings of every request, or why the server cannot render them. */
export interface TemplateProbe {
  supported: boolean;
  reason: string | null;
  requests: ServerTokens[];
}

/** Where the counts come from, as results and the check's table say it. */
export const TEMPLATE_PROBE_SOURCE = "POST /apply-template, then POST /tokenize {add_special, parse_special}";

/** Largest answer read: a 16K-token prompt renders to some 100 KB and tokenizes to some 100 KB of ids. */
const ANSWER_MAX_BYTES = 8 * 1024 * 1024;

/** The token ids of a /tokenize answer (plain ids or {id, piece} objects), or null when it is anything else. */
export function tokensOfAnswer(text: string): number[] | null {
  const tokens = asObject(text)?.tokens;
  if (!Array.isArray(tokens)) return null;
  const ids: number[] = [];
  for (const token of tokens) {
    const id = typeof token === "object" && token !== null ? (token as { id?: unknown }).id : token;
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return null;
    ids.push(id);
  }
  return ids;
}

/** Renders and tokenizes each request body on the server, one after another. Never throws. */
export async function renderAndCount(
  baseUrl: string,
  requests: readonly { id: string; body: Record<string, unknown> }[],
  deps: ProbeServerDeps,
): Promise<TemplateProbe> {
  const out: ServerTokens[] = [];
  // A call that got no answer at all (its deadline passed, the connection failed, the run was cancelled) ends the
  // check: the rest are not asked, so a server that never answers holds the run for one deadline, not 44.
  let stopped: string | null = null;
  for (const [index, request] of requests.entries()) {
    if (stopped !== null) {
      out.push({ id: request.id, tokens: null, reason: `not asked: ${stopped}` });
      continue;
    }
    const rendered = await fetchEndpoint(deps, baseUrl, "/apply-template", {
      jsonBody: request.body,
      maxBytes: ANSWER_MAX_BYTES,
    });
    if (!rendered.ok) {
      if (index === 0 && (rendered.status === 404 || rendered.status === 405 || rendered.status === 501)) {
        return { supported: false, reason: `the server has no template endpoint (${rendered.reason})`, requests: [] };
      }
      out.push({ id: request.id, tokens: null, reason: rendered.reason });
      if (rendered.status === null) stopped = `${request.id}'s ${rendered.reason}`;
      continue;
    }
    const prompt = asObject(rendered.body)?.prompt;
    if (typeof prompt !== "string") {
      out.push({ id: request.id, tokens: null, reason: "POST /apply-template answered no prompt text" });
      continue;
    }
    const counted = await fetchEndpoint(deps, baseUrl, "/tokenize", {
      jsonBody: { content: prompt, add_special: true, parse_special: true },
      maxBytes: ANSWER_MAX_BYTES,
    });
    if (!counted.ok && counted.status === null) stopped = `${request.id}'s ${counted.reason}`;
    const tokens = counted.ok ? tokensOfAnswer(counted.body) : null;
    out.push({
      id: request.id,
      tokens,
      reason: tokens !== null ? null : counted.ok ? "POST /tokenize answered no list of token ids" : counted.reason,
    });
  }
  return { supported: true, reason: null, requests: out };
}
