/** Builders of fixtures, stream outcomes and records for the score tests. */
import assert from "node:assert/strict";
import type { Fixture, RequestRecord, StreamOutcome } from "../../../contract/mod.ts";
import { buildRequestRecord, type BuiltRecord, type RecordInput } from "../../../score/mod.ts";

/** Expected results of the twelve sanity cases, as the protocol states them. */
export const SANITY_EXPECTED: Record<string, Fixture["expected"]> = {
  I1: { kind: "json", value: { ok: true, count: 3 } },
  I2: { kind: "json", value: [-4, 1, 2, 9] },
  I3: { kind: "json", value: { project: "Orion", build: 17 } },
  I4: { kind: "text", value: "READY" },
  R1: { kind: "text", value: "ORBIT-731" },
  R2: { kind: "text", value: "CEDAR-284" },
  R3: { kind: "text", value: "DELTA-906" },
  R4: { kind: "json", value: { north: "N-124", south: "S-875" } },
  T1: { kind: "tool_call", name: "lookup_record", arguments: { id: "A-17" } },
  T2: { kind: "tool_call", name: "get_weather", arguments: { city: "Zagreb", unit: "celsius" } },
  T3: { kind: "tool_call", name: "convert_units", arguments: { value: 3, from_unit: "km", to_unit: "m" } },
  T4: { kind: "tool_call", name: "get_build_status", arguments: { project: "Orion", build: 17 } },
};

/** A fixture with realistic defaults (performance short, repetition 1). */
export function fixture(overrides: Partial<Fixture> = {}): Fixture {
  return {
    id: "performance-short-r1",
    phase: "performance",
    case_id: "short",
    repetition: 1,
    round: null,
    seed: 1,
    max_output_tokens: 512,
    messages: [{ role: "user", content: "[case performance-short-r1]\nExplain how a hash table finds a value." }],
    tools: null,
    tool_choice: null,
    category: null,
    expected: null,
    input_tokens: 80,
    max_shared_prefix_tokens: 12,
    ...overrides,
  };
}

/** The sanity fixture of one case id (I1..T4). */
export function sanityFixture(caseId: string): Fixture {
  const letter = caseId.charAt(0);
  const category = letter === "I" ? "instruction" : letter === "R" ? "retrieval" : "tool_call";
  return fixture({
    id: `sanity-${caseId}`,
    phase: "sanity",
    case_id: caseId,
    max_output_tokens: 2048,
    category,
    expected: SANITY_EXPECTED[caseId] ?? null,
  });
}

/** The final usage and timings llama-server sent in the reference transcript (a 236-token cache hit). */
export const LLAMA_USAGE = {
  completion_tokens: 35,
  prompt_tokens: 237,
  total_tokens: 272,
  prompt_tokens_details: { cached_tokens: 236 },
};
export const LLAMA_TIMINGS = {
  cache_n: 236,
  prompt_n: 1,
  prompt_ms: 30.9,
  prompt_per_token_ms: 30.9,
  prompt_per_second: 32.4,
  predicted_n: 35,
  predicted_ms: 661.0,
  predicted_per_token_ms: 19.44,
  predicted_per_second: 51.4,
};

/** A completed (finish "stop") outcome with llama.cpp usage and timings, overridable field by field. */
export function outcome(overrides: Partial<StreamOutcome> = {}): StreamOutcome {
  return {
    dispatched_at_epoch_ms: 1_795_000_000_000,
    dispatch_clock_ms: 0,
    end: "finished",
    http_status: 200,
    finish_reason: "stop",
    error_message: null,
    first_delta_kind: "reasoning",
    reasoning_text: "Let me think.",
    answer_text: "",
    tool_calls: [],
    usage: LLAMA_USAGE,
    timings: LLAMA_TIMINGS,
    offsets: { headers_s: 0.01, first_byte_s: 0.02, first_delta_s: 0.05, first_answer_s: 0.4, end_s: 0.75 },
    events: 40,
    keepalives: 0,
    ...overrides,
  };
}

/** An answered outcome for a sanity case: completed with the given answer text. */
export function answered(answerText: string, overrides: Partial<StreamOutcome> = {}): StreamOutcome {
  return outcome({ answer_text: answerText, first_delta_kind: "reasoning", ...overrides });
}

/** An outcome with exactly one structured tool call. */
export function toolCalled(name: string, args: string, overrides: Partial<StreamOutcome> = {}): StreamOutcome {
  return outcome({
    finish_reason: "tool_calls",
    tool_calls: [{ index: 0, id: "call_1", type: "function", name, arguments: args }],
    ...overrides,
  });
}

/** Asserts that every null in the record has a specific reason (none from the generic fallback). */
export function assertEveryNullExplained(built: BuiltRecord): void {
  const nulls: string[] = [];
  const walk = (value: unknown, pointer: string) => {
    if (value === null) nulls.push(pointer);
    else if (typeof value === "object" && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) walk(child, `${pointer}/${key}`);
    }
  };
  walk(built.record, "");
  for (const pointer of nulls) {
    const reason = built.missing[pointer];
    assert.equal(typeof reason, "string", `no reason for null ${pointer}`);
    assert.notEqual(reason, "no value was recorded", `generic reason for ${pointer}`);
    assert.ok((reason as string).length > 10, `reason for ${pointer} is too vague: ${reason}`);
  }
  for (const pointer of Object.keys(built.missing)) {
    assert.ok(nulls.includes(pointer), `missing has ${pointer}, which is not null`);
  }
}

/** Options of `rec`: measured values to put into the record after it is built. */
export interface RecOptions {
  round?: number;
  decodeTps?: number | null;
  firstAnswerS?: number | null;
  cachedTokens?: number | null;
  outputTokens?: number | null;
  skipReason?: string;
  passed?: boolean;
}

/** A request record of the given identity and status, built by `buildRequestRecord`, then adjusted. */
export function rec(
  id: string,
  phase: Fixture["phase"],
  caseId: string,
  status: "completed" | "truncated" | "failed" | "skipped",
  options: RecOptions = {},
): RequestRecord {
  const isSanity = phase === "sanity";
  const fix = isSanity ? sanityFixture(caseId) : fixture({
    id,
    phase,
    case_id: caseId,
    round: options.round ?? null,
    max_shared_prefix_tokens: 236,
  });
  const input: RecordInput = status === "skipped"
    ? { kind: "skipped", reason: options.skipReason ?? "the engine died", concurrency: phase === "concurrency" ? 4 : 1 }
    : {
      kind: "outcome",
      concurrency: phase === "concurrency" ? 4 : 1,
      outcome: status === "completed" ? outcome({ answer_text: "x" }) : status === "truncated"
        ? outcome({
          finish_reason: "length",
          offsets: { headers_s: 0.01, first_byte_s: 0.02, first_delta_s: 0.05, first_answer_s: null, end_s: 0.75 },
        })
        : outcome({ end: "timeout", finish_reason: null, usage: null, timings: null }),
    };
  const record = { ...buildRequestRecord(fix, input).record, id };
  if (options.decodeTps !== undefined) record.metrics = { ...record.metrics, decode_tps: options.decodeTps };
  if (options.firstAnswerS !== undefined) record.timings = { ...record.timings, first_answer_s: options.firstAnswerS };
  if (options.cachedTokens !== undefined) record.tokens = { ...record.tokens, cached_tokens: options.cachedTokens };
  if (options.outputTokens !== undefined) record.tokens = { ...record.tokens, output_tokens: options.outputTokens };
  if (options.passed !== undefined && record.evaluation !== null) {
    record.evaluation = { ...record.evaluation, passed: options.passed };
  }
  return record;
}
