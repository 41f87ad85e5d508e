/**
 * Under Bun (as in browsers) `__proto__` is a live accessor, which Deno hides: a hostile evidence line's
 * record_overrides pointer through it must reach no prototype, in report's rebuild and in the site's check.
 */
import { describe, test } from "bun:test";
import assert from "node:assert/strict";
import { withValueAt } from "../../report/_evidence_line.ts";
import { withStated } from "../../site/web/stated.js";

const POINTERS = ["/__proto__/polluted", "/tokens/__proto__/polluted", "/constructor/prototype/polluted"];

describe("record_overrides pointers through __proto__", () => {
  test("report's withValueAt walks own members only and never sets __proto__", () => {
    assert.equal(Object.hasOwn(Object.prototype, "__proto__"), true, "this runtime has the accessor");
    const root = { tokens: { output_tokens: 1 } };
    for (const pointer of POINTERS) {
      assert.deepEqual(withValueAt(root, pointer, "yes"), root, pointer);
      assert.equal(({} as Record<string, unknown>)["polluted"], undefined, pointer);
    }
    const swapped = withValueAt(root, "/__proto__", { polluted: true }) as Record<string, unknown>;
    assert.equal(swapped["polluted"], undefined, "the copy's prototype is not replaced");
  });

  test("the site's withStated reaches no prototype of the page", () => {
    const rebuilt = {
      id: "sanity-I3",
      status: "completed" as const,
      finishReason: "stop",
      httpStatus: 200,
      errorKind: null,
      firstDeltaKind: "content",
      finalAnswer: "",
      toolCalls: [],
      tokens: { input_tokens: 1, cached_tokens: 0, read_tokens: 1, output_tokens: 1, decode_tokens: 1 },
      timings: { prompt_s: 0.1, decode_s: 0.1, ttft_s: 0.1, first_answer_s: 0.1, total_s: 0.2 },
      metrics: { prompt_tps: 10, decode_tps: 10 },
      cadence: null,
      dispatchedAtEpochMs: 1,
      dispatchOffsetS: 0,
      body: {},
      concurrency: 1,
      slotParams: null,
    };
    for (const pointer of POINTERS) {
      const out = withStated(rebuilt, null, { [pointer]: "yes" }, []);
      assert.deepEqual(out.rebuilt.tokens, rebuilt.tokens, pointer);
      assert.equal(({} as Record<string, unknown>)["polluted"], undefined, pointer);
    }
  });
});
