/** Test helpers: synthetic fixtures for every scheduled id, and StreamOutcome builders. */
import { type Fixture, scheduleIds, type StreamEnd, type StreamOutcome } from "../../../contract/mod.ts";

/** A fixture per scheduled id with plausible phase/case/round (messages are placeholders). */
export function fakeFixtures(optional = true): Fixture[] {
  return scheduleIds(optional).map((id) => {
    const phase = id === "warmup" ? "warmup" : id.split("-")[0] as Fixture["phase"];
    const round = phase === "concurrency" ? Number(id.match(/-r(\d)-/)?.[1]) : null;
    return {
      id,
      phase,
      case_id: phase === "sanity" ? id.slice(7) : phase === "concurrency" ? "short-burst" : "short",
      repetition: round ?? 1,
      round,
      seed: 1,
      max_output_tokens: 512,
      messages: [{ role: "user", content: `[case ${id}]\nhello` }],
      tools: null,
      tool_choice: null,
      category: null,
      expected: null,
      input_tokens: 80,
      max_shared_prefix_tokens: 10,
    };
  });
}

/** A finished (or otherwise ended) outcome with the given fields. */
export function outcome(end: StreamEnd = "finished", extra: Partial<StreamOutcome> = {}): StreamOutcome {
  return {
    dispatched_at_epoch_ms: 0,
    dispatch_clock_ms: 0,
    end,
    http_status: end === "connect_error" ? null : 200,
    finish_reason: end === "finished" ? "stop" : null,
    error_message: end === "finished" ? null : `ended: ${end}`,
    first_delta_kind: "answer",
    reasoning_text: "",
    answer_text: "ok",
    tool_calls: [],
    usage: null,
    timings: null,
    offsets: { headers_s: 0, first_byte_s: 0, first_delta_s: 0, first_answer_s: 0, end_s: 0 },
    events: 1,
    keepalives: 0,
    ...extra,
  };
}

/** Body carrying the request id, so a fake client knows which request it got. */
export function bodyOf(fixture: Fixture): Record<string, unknown> {
  return { id: fixture.id };
}
