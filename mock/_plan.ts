/**
 * Turns a behaviour into the exact sequence of generated tokens of one request, and the finish reason.
 * One planned token = one generated token = at most one SSE event (a token may produce no event, as on a real
 * server where a token's parse diff is empty), unless the behaviour joins several into one (`tokensPerEvent`).
 * The EOS token is counted but never shown.
 */
import type { Answer, Behaviour, ScriptedToolCall } from "./_behaviour.ts";

/** One generated token and the event it produces. */
export type PlannedToken =
  | { kind: "reasoning" | "content"; text: string }
  | { kind: "silent" }
  | { kind: "tool"; index: number; id: string | null; name: string | null; arguments: string };

export interface TokenPlan {
  /** Generated tokens in order (EOS excluded). */
  tokens: PlannedToken[];
  /** Generated tokens including EOS: usage.completion_tokens and timings.predicted_n. */
  completionTokens: number;
  finishReason: "stop" | "length" | "tool_calls";
}

/** Correct answers of the twelve sanity cases, keyed by case id. */
export const KNOWN_ANSWERS: Readonly<Record<string, { text: string } | { call: ScriptedToolCall }>> = {
  I1: { text: '{"ok":true,"count":3}' },
  I2: { text: "[-4,1,2,9]" },
  I3: { text: '{"project":"Orion","build":17}' },
  I4: { text: "READY" },
  R1: { text: "ORBIT-731" },
  R2: { text: "CEDAR-284" },
  R3: { text: "DELTA-906" },
  R4: { text: '{"north":"N-124","south":"S-875"}' },
  T1: { call: { name: "lookup_record", arguments: { id: "A-17" } } },
  T2: { call: { name: "get_weather", arguments: { city: "Zagreb", unit: "celsius" } } },
  T3: { call: { name: "convert_units", arguments: { value: 3, from_unit: "km", to_unit: "m" } } },
  T4: { call: { name: "get_build_status", arguments: { project: "Orion", build: 17 } } },
};

/** Sanity case id of a request id ("sanity-I1" or "I1" -> "I1"), else null. */
export function sanityCaseOf(requestId: string | null): string | null {
  const match = requestId === null ? null : /^(?:sanity-)?([IRT][1-4])$/.exec(requestId);
  return match?.[1] ?? null;
}

const REASONING_WORDS =
  "Let me think about what is asked here and check each part of the request step by step before I answer".split(" ");

/** The text pieces a string is generated in: words, numbers of up to 3 digits, single symbols, with leading spaces. */
export function textPieces(text: string): string[] {
  return text.match(/\s*[\p{L}]+|\s*\d{1,3}|\s*[^\s\p{L}\d]|\s+/gu) ?? [];
}

export interface PlanInput {
  requestId: string | null;
  behaviour: Behaviour;
  /** The generation limit: the request's cap, else what is left of the context. */
  limitTokens: number;
  /** Produces the 32-character id of a tool call. */
  newToolCallId: () => string;
  /**
   * Most reasoning tokens the request allows: 0 when thinking is off, the request's reasoning budget when it set
   * one (llama-server: 0 ends thinking at once), null for no limit. Tokens cut from reasoning become answer text.
   */
  reasoningBudget?: number | null;
}

/** Builds the token plan of one request. */
export function planTokens(input: PlanInput): TokenPlan {
  const limit = Math.max(0, input.limitTokens);
  const budget = input.reasoningBudget ?? Infinity;
  const answer = resolveAnswer(input.behaviour.answer ?? { kind: "right" }, sanityCaseOf(input.requestId));
  if (answer.kind === "cap") {
    return { tokens: reasoningThenFiller(limit, budget), completionTokens: limit, finishReason: "length" };
  }
  if (answer.kind === "early_eos") {
    return finish(reasoningThenFiller(answer.tokens - 1, budget), false, limit);
  }
  const tokens = reasoning(Math.min(input.behaviour.reasoningTokens ?? 24, budget));
  if (answer.kind === "text") {
    for (const piece of textPieces(answer.text)) tokens.push({ kind: "content", text: piece });
    return finish(tokens, false, limit);
  }
  const calls = [answer.call, ...answer.extraCalls];
  calls.forEach((call, index) => tokens.push(...toolTokens(call, index, answer.fragments, input.newToolCallId())));
  return finish(tokens, true, limit);
}

type ResolvedAnswer =
  | { kind: "cap" }
  | { kind: "early_eos"; tokens: number }
  | { kind: "text"; text: string }
  | { kind: "tool"; call: ScriptedToolCall; extraCalls: ScriptedToolCall[]; fragments: number };

function resolveAnswer(answer: Answer, caseId: string | null): ResolvedAnswer {
  const known = caseId === null ? undefined : KNOWN_ANSWERS[caseId];
  const knownText = known && "text" in known ? known.text : null;
  const knownCall = known && "call" in known ? known.call : null;
  switch (answer.kind) {
    case "cap":
    case "early_eos":
    case "text":
      return answer;
    case "right":
      if (knownText !== null) return { kind: "text", text: knownText };
      if (knownCall !== null) return { kind: "tool", call: knownCall, extraCalls: [], fragments: 3 };
      return { kind: "cap" };
    case "malformed_json":
      return {
        kind: "text",
        text: knownText?.startsWith("{") || knownText?.startsWith("[") ? knownText.slice(0, -1) : '{"ok": true,',
      };
    case "duplicate_keys": {
      const first = knownText === null ? null : /^\{("[^"]*":[^,}]*)/.exec(knownText);
      return { kind: "text", text: first?.[1] ? `{${first[1]},${knownText!.slice(1)}` : '{"a":1,"a":1}' };
    }
    case "prose_tool_call": {
      const call = knownCall ?? { name: "lookup_record", arguments: { id: "A-17" } };
      return { kind: "text", text: `I would call ${call.name} with ${JSON.stringify(call.arguments)} to answer this.` };
    }
    case "tool_call":
      return {
        kind: "tool",
        call: { name: answer.name, arguments: answer.arguments },
        extraCalls: answer.extraCalls ?? [],
        fragments: answer.fragments ?? 3,
      };
  }
}

const FILLER_WORDS = "A hash table maps each key to a bucket and compares keys within that bucket".split(" ");

/** `count` tokens: reasoning up to the budget, then answer text (a long answer that runs into the cap). */
function reasoningThenFiller(count: number, budget: number): PlannedToken[] {
  const tokens = reasoning(Math.min(count, budget));
  for (let i = 0; tokens.length < count; i++) {
    const word = FILLER_WORDS[i % FILLER_WORDS.length]!;
    tokens.push({ kind: "content", text: i === 0 ? word : ` ${word}` });
  }
  return tokens;
}

function reasoning(count: number): PlannedToken[] {
  const tokens: PlannedToken[] = [];
  for (let i = 0; i < count; i++) {
    const word = REASONING_WORDS[i % REASONING_WORDS.length]!;
    tokens.push({ kind: "reasoning", text: i === 0 ? word : ` ${word}` });
  }
  return tokens;
}

/**
 * Tokens of one tool call: the call's wrapper and name generate silently; the argument text is generated in pieces
 * and shown in `fragments` events, the first carrying id, type and name like llama-server.
 */
function toolTokens(call: ScriptedToolCall, index: number, fragments: number, id: string): PlannedToken[] {
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  const silent: PlannedToken[] = [
    { kind: "silent" },
    ...textPieces(call.name).map(() => ({ kind: "silent" as const })),
  ];
  const pieces = textPieces(args);
  if (pieces.length === 0) pieces.push("");
  const groups = Math.min(fragments, pieces.length);
  const tokens: PlannedToken[] = [...silent];
  for (let g = 0; g < groups; g++) {
    const from = Math.floor((g * pieces.length) / groups);
    const to = Math.floor(((g + 1) * pieces.length) / groups);
    for (let p = from; p < to - 1; p++) tokens.push({ kind: "silent" });
    const text = pieces.slice(from, to).join("");
    tokens.push({ kind: "tool", index, id: g === 0 ? id : null, name: g === 0 ? call.name : null, arguments: text });
  }
  tokens.push({ kind: "silent" });
  return tokens;
}

/**
 * The event each generated token ends, where runs of reasoning or content tokens join: the k-th such event carries
 * `sizes[k % sizes.length]` tokens, never across a change of kind or the token at `breakAt` (a fault's position).
 * Entry i is the (joined) token whose event goes out after token i, or null while its text is held for a later one.
 */
export function eventTokens(
  tokens: readonly PlannedToken[],
  sizes: readonly number[],
  breakAt: number,
): (PlannedToken | null)[] {
  const out: (PlannedToken | null)[] = [];
  let held: string[] = [];
  let events = 0;
  tokens.forEach((token, i) => {
    if (token.kind !== "reasoning" && token.kind !== "content") return void out.push(token);
    held.push(token.text);
    const next = tokens[i + 1];
    if (held.length < (sizes[events % sizes.length] ?? 1) && next?.kind === token.kind && i + 1 !== breakAt) {
      return void out.push(null);
    }
    out.push({ kind: token.kind, text: held.join("") });
    held = [];
    events++;
  });
  return out;
}

/** Applies the limit: a plan that does not fit with its EOS is cut at the limit and finishes "length". */
function finish(tokens: PlannedToken[], toolCalls: boolean, limit: number): TokenPlan {
  if (tokens.length + 1 > limit) {
    return { tokens: tokens.slice(0, limit), completionTokens: limit, finishReason: "length" };
  }
  return { tokens, completionTokens: tokens.length + 1, finishReason: toolCalls ? "tool_calls" : "stop" };
}
