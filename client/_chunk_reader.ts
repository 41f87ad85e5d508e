/**
 * Reads the data of each SSE event of a chat-completions stream: `[DONE]`, an `error` object, or a chunk whose
 * deltas are accumulated (reasoning text, answer text, tool calls by index) while the first nonempty delta and the
 * first answer delta are noted. Every event is parsed as JSON, so a malformed chunk anywhere fails the stream.
 */
import {
  type DeltaKind,
  type InvalidUtf8Record,
  isJsonObject,
  MAX_USAGE_CHUNK_CHARS,
  type ToolCallRecord,
} from "../contract/mod.ts";

/** What one event meant to the stream. */
export type ChunkVerdict =
  | "continue"
  | "done"
  | "error_event"
  | "malformed";

export type Json = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not null, not an array). */
export const isObject: (value: unknown) => value is Json = isJsonObject;

function preview(text: string): string {
  return text.length > 160 ? `${text.slice(0, 160)}...` : text;
}

/**
 * Text built from many small deltas. Appending with `+=` leaves one rope node per delta, alive for the whole
 * stream: at 64 busy streams of 2,000 deltas that is over a hundred thousand objects that every young-generation
 * collection copies (measured on Deno 2.9: scavenges of 8-10 ms, each a stall in reading the sockets). Pieces are
 * joined into one flat string every JOIN_EVERY appends instead.
 */
class TextBuilder {
  #parts: string[] = [];

  append(text: string): void {
    const parts = this.#parts;
    parts.push(text);
    if (parts.length >= JOIN_EVERY) this.#parts = [parts.join("")];
  }

  toString(): string {
    const parts = this.#parts;
    if (parts.length === 0) return "";
    if (parts.length > 1) this.#parts = [parts.join("")];
    return this.#parts[0]!;
  }
}

const JOIN_EVERY = 64;

/**
 * The first `maxChars` characters of `text`, never half of a surrogate pair (event data is decoded UTF-8, so its
 * pairs are whole; a lone half would make the evidence line refused as JSON).
 */
export function keptPrefix(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

/** The part of a usage or timings chunk an evidence line keeps (MAX_USAGE_CHUNK_CHARS characters at most). */
export const keptChunk = (data: string): string => keptPrefix(data, MAX_USAGE_CHUNK_CHARS);

/** An event's `"predicted_n"` key and its lexeme, when that is an unsigned integer without fraction or exponent. */
const PREDICTED_N_LEXEME = /"predicted_n"\s*:\s*(0|[1-9][0-9]*)(?![0-9.eE])/y;

/**
 * The engine's running `timings.predicted_n` as it wrote it: only when the event's text has exactly one
 * `"predicted_n"` key, its number is an exact safe integer written as one (no fraction, exponent or sign), and it is
 * the value `timings` parsed to; else null. A count is a lexeme first: 12.0 or 1e1 is refused, not read as 12 or 10.
 */
export function predictedNOf(data: string, timings: unknown): number | null {
  const parsed = isObject(timings) ? timings.predicted_n : undefined;
  if (typeof parsed !== "number") return null;
  const at = data.indexOf('"predicted_n"');
  if (at < 0 || data.indexOf('"predicted_n"', at + 1) >= 0) return null;
  PREDICTED_N_LEXEME.lastIndex = at;
  const lexeme = PREDICTED_N_LEXEME.exec(data)?.[1];
  if (lexeme === undefined) return null;
  const n = Number(lexeme);
  return Number.isSafeInteger(n) && n === parsed ? n : null;
}

/** Bits of the delta kinds one event carried. */
const KIND_BITS: readonly (readonly [DeltaKind, number])[] = [["reasoning", 1], ["answer", 2], ["tool_call", 4]];

/** Accumulated facts of one stream. */
export class ChunkReader {
  #reasoning = new TextBuilder();
  #answer = new TextBuilder();

  get reasoningText(): string {
    return this.#reasoning.toString();
  }

  get answerText(): string {
    return this.#answer.toString();
  }

  finishReason: string | null = null;
  usage: unknown = null;
  timings: unknown = null;
  /**
   * The exact data of the last event that carried a non-null `usage` / `timings` (its numbers as sent): its first
   * MAX_USAGE_CHUNK_CHARS characters, the rest counted in usageChunkCutChars / timingsChunkCutChars.
   */
  usageChunk: string | null = null;
  timingsChunk: string | null = null;
  usageChunkCutChars = 0;
  timingsChunkCutChars = 0;
  /** Events whose data was not valid UTF-8, with where; null while there are none. */
  invalidUtf8: InvalidUtf8Record[] | null = null;
  firstDeltaKind: DeltaKind | null = null;
  /** Set by the event that carried the first counted delta / first answer delta; the caller stamps it. */
  sawFirstDelta = false;
  sawFirstAnswer = false;
  /** Set by the event that carried the first nonempty reasoning delta; the caller stamps it. */
  sawFirstReasoning = false;
  /** Whether the event just read carried nonempty visible output (answer text or tool-call bytes). */
  visibleInEvent = false;
  /** Whether the event just read carried nonempty reasoning text. */
  reasoningInEvent = false;
  /** The engine's running predicted_n the event just read carried (see predictedNOf), or null. */
  predictedNInEvent: number | null = null;
  /** Whether the event just read carried any nonempty delta of choice 0 (reasoning, answer or tool call). */
  deltaInEvent = false;
  /** Choices other than index 0 seen in events (not measured, not accumulated). */
  otherChoiceEvents = 0;
  events = 0;
  errorMessage: string | null = null;
  #tools = new Map<number, ToolCallRecord>();

  /** Tool calls in index order. */
  toolCalls(): ToolCallRecord[] {
    return [...this.#tools.values()].sort((a, b) => a.index - b.index);
  }

  /** Reads one event's data; `invalidUtf8` are the byte offsets where its bytes were not UTF-8 (see SseParser). */
  read(data: string, invalidUtf8?: readonly number[]): ChunkVerdict {
    this.events++;
    this.visibleInEvent = false;
    this.reasoningInEvent = false;
    const verdict = this.#read(data);
    if (invalidUtf8 !== undefined && invalidUtf8.length > 0) {
      const mask = this.#eventKinds;
      (this.invalidUtf8 ??= []).push({
        event: this.events,
        byte_offsets: [...invalidUtf8],
        delta_kinds: KIND_BITS.filter(([, bit]) => (mask & bit) !== 0).map(([kind]) => kind),
      });
    }
    return verdict;
  }

  /** Delta kinds of the event just read, as KIND_BITS (a number, so the hot path allocates nothing for it). */
  #eventKinds = 0;

  #read(data: string): ChunkVerdict {
    this.#eventKinds = 0;
    this.deltaInEvent = false;
    this.predictedNInEvent = null;
    if (data === "[DONE]") return "done";
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      this.errorMessage = `Cannot parse a stream chunk as JSON: ${preview(data)}`;
      return "malformed";
    }
    if (!isObject(chunk)) {
      this.errorMessage = `Cannot read a stream chunk: not a JSON object: ${preview(data)}`;
      return "malformed";
    }
    const error = chunk.error;
    if (error !== undefined && error !== null) {
      this.errorMessage = isObject(error) && typeof error.message === "string"
        ? error.message
        : typeof error === "string"
        ? error
        : JSON.stringify(error);
      return "error_event";
    }
    if (chunk.usage !== undefined && chunk.usage !== null) {
      this.usage = chunk.usage;
      this.usageChunk = keptChunk(data);
      this.usageChunkCutChars = data.length - this.usageChunk.length;
    }
    if (chunk.timings !== undefined && chunk.timings !== null) {
      this.timings = chunk.timings;
      this.timingsChunk = keptChunk(data);
      this.timingsChunkCutChars = data.length - this.timingsChunk.length;
      this.predictedNInEvent = predictedNOf(data, chunk.timings);
    }
    const choices = chunk.choices;
    if (choices === undefined || choices === null) {
      if (chunk.usage != null || chunk.timings != null) return "continue";
      this.errorMessage = `Cannot read a stream chunk: no choices array: ${preview(data)}`;
      return "malformed";
    }
    if (!Array.isArray(choices)) {
      this.errorMessage = `Cannot read a stream chunk: choices is not an array: ${preview(data)}`;
      return "malformed";
    }
    for (const choice of choices) {
      if (!isObject(choice)) {
        this.errorMessage = `Cannot read a stream chunk: a choice is not an object: ${preview(data)}`;
        return "malformed";
      }
      // Choice index 0 is what is measured (performance methodology); other choices (n > 1) are counted only.
      if (choice.index !== undefined && choice.index !== null && choice.index !== 0) {
        this.otherChoiceEvents++;
        continue;
      }
      const delta = choice.delta;
      if (isObject(delta)) {
        if (!this.#readDelta(delta)) {
          this.errorMessage = `Cannot read a stream chunk: bad tool_calls delta: ${preview(data)}`;
          return "malformed";
        }
      } else if (delta !== undefined && delta !== null) {
        this.errorMessage = `Cannot read a stream chunk: delta is not an object: ${preview(data)}`;
        return "malformed";
      }
      const finish = choice.finish_reason;
      if (typeof finish === "string" && finish !== "") this.finishReason = finish;
    }
    return "continue";
  }

  /** Returns false when the delta is malformed. */
  #readDelta(delta: Json): boolean {
    let kind: DeltaKind | null = null;
    let reasoning = delta.reasoning_content;
    if (reasoning === undefined || reasoning === null) reasoning = delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") {
      this.#reasoning.append(reasoning);
      kind = "reasoning";
      this.#eventKinds |= 1;
      this.sawFirstReasoning = true;
      this.reasoningInEvent = true;
    }
    const content = delta.content;
    if (typeof content === "string" && content !== "") {
      this.#answer.append(content);
      kind ??= "answer";
      this.#eventKinds |= 2;
      this.sawFirstAnswer = true;
      this.visibleInEvent = true;
    }
    const calls = delta.tool_calls;
    if (calls !== undefined && calls !== null) {
      if (!Array.isArray(calls)) return false;
      for (let i = 0; i < calls.length; i++) {
        const call = calls[i];
        if (!isObject(call)) return false;
        if (this.#readToolCall(call, i)) {
          kind ??= "tool_call";
          this.#eventKinds |= 4;
          this.sawFirstAnswer = true;
          this.visibleInEvent = true;
        }
      }
    }
    if (kind !== null) this.deltaInEvent = true;
    if (kind !== null && this.firstDeltaKind === null) {
      this.firstDeltaKind = kind;
      this.sawFirstDelta = true;
    }
    return true;
  }

  /** Returns whether the fragment carried a name or argument bytes. */
  #readToolCall(call: Json, position: number): boolean {
    const index = typeof call.index === "number" ? call.index : position;
    const fn = isObject(call.function) ? call.function : {};
    const name = typeof fn.name === "string" ? fn.name : "";
    const args = typeof fn.arguments === "string" ? fn.arguments : "";
    const id = typeof call.id === "string" ? call.id : null;
    const type = typeof call.type === "string" ? call.type : null;
    let record = this.#tools.get(index);
    if (record === undefined) {
      record = { index, id, type, name, arguments: "" };
      this.#tools.set(index, record);
    } else if (name !== "") {
      // A grown name is sent whole again, with its id: replace, never append.
      record.name = name;
      if (id !== null) record.id = id;
      if (type !== null) record.type = type;
    }
    record.arguments += args;
    return name !== "" || args !== "";
  }
}
