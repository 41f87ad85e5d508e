/**
 * llama-server's render-and-count endpoints: POST /apply-template answers {"prompt": TEXT} (the ChatML-style
 * rendering the prompt cache compares), POST /tokenize answers {"tokens": [ids]}. The count is the request's
 * tokenCounts entry (found by its `[case <id>]` marker in the text), else ceil(characters / 4); the ids are
 * distinct per request from the first one on, so two requests share no token prefix. `templateEndpoints`
 * "garbage" answers /tokenize with something that is not a token list, "absent" answers both with 404.
 */
import { isObject } from "./_behaviour.ts";
import { errorBody } from "./_chunks.ts";
import { promptTokensOf, renderPrompt } from "./_prompt.ts";

/** Which of the render-and-count answers the engine gives. */
export type TemplateEndpoints = "right" | "garbage" | "absent";

function parsedObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** A small stable number per request id, so each request's ids differ from every other's. */
function idSeed(id: string): number {
  let h = 17;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) % 1_000_003;
  return h;
}

/** The status and JSON text of an /apply-template or /tokenize answer; null for another path. */
export function templateEndpointAnswer(
  path: string,
  bodyText: string,
  tokenCounts: Readonly<Record<string, number>>,
  mode: TemplateEndpoints,
): { status: number; body: string } | null {
  if (path !== "/apply-template" && path !== "/tokenize") return null;
  if (mode === "absent") return { status: 404, body: errorBody(404, "File Not Found") };
  const body = parsedObject(bodyText);
  if (body === null) return { status: 400, body: errorBody(400, "Invalid JSON body") };
  if (path === "/apply-template") return { status: 200, body: JSON.stringify({ prompt: renderPrompt(body) }) };
  if (mode === "garbage") return { status: 200, body: '{"tokens":"many","note":[1,2,-3]}' };
  const content = typeof body.content === "string" ? body.content : "";
  const id = /\[case ([^\]\s]+)\]/.exec(content)?.[1] ?? null;
  const { tokens } = promptTokensOf(id, content, tokenCounts);
  const base = 1000 + idSeed(id ?? content.slice(0, 64)) * 64;
  return { status: 200, body: JSON.stringify({ tokens: Array.from({ length: tokens }, (_, i) => base + i) }) };
}
