/**
 * The script language of the mock engine: what one request's "model" says and which fault the "server" shows.
 * Plain JSON-compatible data, so a script can come from a file (`mock --script FILE.json`).
 */
import { isJsonObject } from "../contract/mod.ts";

/** One function call the model makes. `arguments`: an object is serialized; a string is sent byte for byte. */
export interface ScriptedToolCall {
  name: string;
  arguments: unknown;
}

/** What the model generates after its reasoning. */
export type Answer =
  /** The case's correct answer (sanity I1-T4, by request id); any other request reasons until the cap. */
  | { kind: "right" }
  /** Reason until the output cap (max_tokens, else the context end): finish "length". */
  | { kind: "cap" }
  /** Final answer text exactly as given (wrong answers, prose instead of a tool call, fenced JSON, ...). */
  | { kind: "text"; text: string }
  /** The right answer of a JSON case cut before its last character (or `{"ok": true,` elsewhere). */
  | { kind: "malformed_json" }
  /** The right answer of a JSON-object case with its first key repeated (or `{"a":1,"a":1}` elsewhere). */
  | { kind: "duplicate_keys" }
  /** A sentence describing the right tool call instead of making it (finish "stop"). */
  | { kind: "prose_tool_call" }
  /** A structured tool call; its arguments go out in `fragments` pieces (default 3). */
  | { kind: "tool_call"; name: string; arguments: unknown; fragments?: number; extraCalls?: ScriptedToolCall[] }
  /** Early end of sequence: exactly `tokens` generated tokens counting the EOS token, all reasoning, no answer. */
  | { kind: "early_eos"; tokens: number };

/** A server-side fault; at most one per request. `afterTokens` counts generated tokens already sent. */
export type Fault =
  /** Answer with this HTTP status and a llama.cpp error body before any stream (no slot is used). */
  | { kind: "http_error"; status: number; message?: string; type?: string }
  /** Stop sending after `afterTokens` (default 0: headers only) for `ms` real milliseconds, or until the client leaves. */
  | { kind: "stall"; afterTokens?: number; ms?: number }
  /** Close the socket in the middle of a `data:` line after `afterTokens` (default 1). */
  | { kind: "cut"; afterTokens?: number }
  /** Send an `error` event after `afterTokens` (default 1), then end the stream without [DONE]. */
  | { kind: "error_event"; afterTokens?: number; message?: string }
  /** Kill the whole engine: on arrival (no `afterTokens`) or after that many tokens. */
  | { kind: "die"; afterTokens?: number };

/** Everything one request can be told to do. Every field is optional; `{}` is the default behaviour. */
export interface Behaviour {
  /** Default `{ kind: "right" }`. */
  answer?: Answer;
  /** Reasoning tokens before the answer (one `reasoning_content` delta each). Default 24; ignored by cap/early_eos. */
  reasoningTokens?: number;
  /** Send no role chunk (a real server may skip it). */
  omitRoleChunk?: boolean;
  /** Send no usage chunk even when stream_options.include_usage is true; timings then ride on the finish chunk. */
  omitUsage?: boolean;
  /** Send no `timings` object (not even on every chunk when the request asks `timings_per_token`). */
  omitTimings?: boolean;
  /**
   * Generated tokens per event, as a cycle (default [1]: one each): runs of reasoning or content tokens join, the
   * k-th event carrying entry k % length, as a server sends tokens it held back (an incomplete UTF-8 sequence, a
   * parse diff that waited) in one chunk.
   */
  tokensPerEvent?: number[];
  /** Report timings.predicted_n off by this many tokens from the count the duration and rate were computed from. */
  predictedNOffset?: number;
  /** Send a `:` keep-alive comment after every N-th generated token. */
  keepAliveEvery?: number;
  /** Send an event with an empty delta (alternately `{}` and `{"content":""}`) after every N-th generated token. */
  emptyDeltaEvery?: number;
  /**
   * Exact JSON text sent as the `usage` member of the usage chunk instead of the computed object (for example
   * `{"completion_tokens":1e308,"prompt_tokens":10}`): bad counts, repeated keys, numbers as a server may write them.
   */
  usageJson?: string;
  /** Exact JSON text sent as the `timings` member instead of the computed object. */
  timingsJson?: string;
  /** Put one byte that is not UTF-8 (0xFF) at the start of the first answer delta's text. */
  invalidUtf8InAnswer?: boolean;
  /**
   * Sampling values the engine reports in /slots for this request instead of the ones the request sent (an
   * engine whose configuration overrides the request), e.g. `{"temperature": 0.3}`.
   */
  resolvedParams?: Record<string, unknown>;
  fault?: Fault;
}

/**
 * A script: request id (from the `[case <id>]` marker), id prefix ending in `*` ("performance-*"), or "*" for
 * every other request, mapped to a Behaviour. Exact ids win over prefixes, longer prefixes over shorter ones.
 */
export type MockScript = Record<string, Behaviour>;

/** Picks the behaviour of a request id from a script; `{}` when nothing matches. */
export function behaviourFor(script: MockScript, requestId: string | null): Behaviour {
  if (requestId !== null && Object.hasOwn(script, requestId)) return script[requestId] ?? {};
  let best: { length: number; behaviour: Behaviour } | null = null;
  for (const [key, behaviour] of Object.entries(script)) {
    if (!key.endsWith("*")) continue;
    const prefix = key.slice(0, -1);
    const matches = prefix === "" || (requestId !== null && requestId.startsWith(prefix));
    if (matches && (best === null || prefix.length > best.length)) best = { length: prefix.length, behaviour };
  }
  return best?.behaviour ?? {};
}

const ANSWER_KINDS = new Set([
  "right",
  "cap",
  "text",
  "malformed_json",
  "duplicate_keys",
  "prose_tool_call",
  "tool_call",
  "early_eos",
]);
const FAULT_KINDS = new Set(["http_error", "stall", "cut", "error_event", "die"]);
const BEHAVIOUR_KEYS = new Set([
  "answer",
  "reasoningTokens",
  "omitRoleChunk",
  "omitUsage",
  "omitTimings",
  "tokensPerEvent",
  "predictedNOffset",
  "keepAliveEvery",
  "emptyDeltaEvery",
  "usageJson",
  "timingsJson",
  "invalidUtf8InAnswer",
  "resolvedParams",
  "fault",
]);

/**
 * Checks a parsed JSON value as a MockScript and returns it. Every problem is reported at once, by JSON Pointer.
 * @throws {TypeError} when the value is not a valid script.
 */
export function parseMockScript(value: unknown): MockScript {
  const problems: string[] = [];
  if (!isObject(value)) throw new TypeError("Cannot read mock script: expected a JSON object of id -> behaviour");
  for (const [id, behaviour] of Object.entries(value)) checkBehaviour(behaviour, `/${pointerEscape(id)}`, problems);
  if (problems.length > 0) throw new TypeError(`Cannot read mock script:\n  ${problems.join("\n  ")}`);
  return value as MockScript;
}

function checkBehaviour(value: unknown, at: string, problems: string[]): void {
  if (!isObject(value)) return void problems.push(`${at}: expected an object`);
  for (const key of Object.keys(value)) if (!BEHAVIOUR_KEYS.has(key)) problems.push(`${at}/${key}: unknown field`);
  for (const key of ["omitRoleChunk", "omitUsage", "omitTimings", "invalidUtf8InAnswer"]) {
    if (key in value && typeof value[key] !== "boolean") problems.push(`${at}/${key}: expected a boolean`);
  }
  for (const key of ["usageJson", "timingsJson"]) {
    if (key in value && typeof value[key] !== "string") problems.push(`${at}/${key}: expected a string of JSON`);
  }
  if ("resolvedParams" in value && !isObject(value.resolvedParams)) {
    problems.push(`${at}/resolvedParams: expected an object`);
  }
  if ("predictedNOffset" in value && !Number.isInteger(value.predictedNOffset)) {
    problems.push(`${at}/predictedNOffset: expected an integer`);
  }
  for (const key of ["reasoningTokens", "keepAliveEvery", "emptyDeltaEvery"]) {
    const min = key === "reasoningTokens" ? 0 : 1;
    if (key in value && !isIntAtLeast(value[key], min)) problems.push(`${at}/${key}: expected an integer >= ${min}`);
  }
  if ("tokensPerEvent" in value) {
    const sizes = value.tokensPerEvent;
    if (!Array.isArray(sizes) || sizes.length === 0 || !sizes.every((n) => isIntAtLeast(n, 1))) {
      problems.push(`${at}/tokensPerEvent: expected a nonempty array of integers >= 1`);
    }
  }
  if ("answer" in value) checkAnswer(value.answer, `${at}/answer`, problems);
  if ("fault" in value) checkFault(value.fault, `${at}/fault`, problems);
}

function checkAnswer(value: unknown, at: string, problems: string[]): void {
  if (!isObject(value) || typeof value.kind !== "string" || !ANSWER_KINDS.has(value.kind)) {
    return void problems.push(`${at}/kind: expected one of ${[...ANSWER_KINDS].join(", ")}`);
  }
  if (value.kind === "text" && typeof value.text !== "string") problems.push(`${at}/text: expected a string`);
  if (value.kind === "early_eos" && !isIntAtLeast(value.tokens, 1)) {
    problems.push(`${at}/tokens: expected an integer >= 1`);
  }
  if (value.kind === "tool_call") {
    if (typeof value.name !== "string") problems.push(`${at}/name: expected a string`);
    if (!("arguments" in value)) problems.push(`${at}/arguments: required`);
    if ("fragments" in value && !isIntAtLeast(value.fragments, 1)) {
      problems.push(`${at}/fragments: expected an integer >= 1`);
    }
    if ("extraCalls" in value) {
      if (!Array.isArray(value.extraCalls)) problems.push(`${at}/extraCalls: expected an array`);
      else {value.extraCalls.forEach((call, i) => {
          if (!isObject(call) || typeof call.name !== "string" || !("arguments" in call)) {
            problems.push(`${at}/extraCalls/${i}: expected {name, arguments}`);
          }
        });}
    }
  }
}

function checkFault(value: unknown, at: string, problems: string[]): void {
  if (!isObject(value) || typeof value.kind !== "string" || !FAULT_KINDS.has(value.kind)) {
    return void problems.push(`${at}/kind: expected one of ${[...FAULT_KINDS].join(", ")}`);
  }
  if (value.kind === "http_error" && !(isIntAtLeast(value.status, 400) && (value.status as number) <= 599)) {
    problems.push(`${at}/status: expected an HTTP error status 400-599`);
  }
  if ("afterTokens" in value && !isIntAtLeast(value.afterTokens, 0)) {
    problems.push(`${at}/afterTokens: expected an integer >= 0`);
  }
  if ("ms" in value && !(typeof value.ms === "number" && value.ms >= 0 && Number.isFinite(value.ms))) {
    problems.push(`${at}/ms: expected a finite number >= 0`);
  }
  for (const key of ["message", "type"]) {
    if (key in value && typeof value[key] !== "string") problems.push(`${at}/${key}: expected a string`);
  }
}

export const isObject = isJsonObject;

function isIntAtLeast(value: unknown, min: number): boolean {
  return Number.isInteger(value) && (value as number) >= min;
}

function pointerEscape(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
