/**
 * What the bound on kept chunk stamps (MAX_CHUNK_STAMPS) lets results.json grow to: every one of a full run's 34
 * records holding the most ITL gaps the bound allows, each as wide as a gap can be on average within the request
 * timeout, written as the run writes results.json, stays under report's cap. The hostile engine's flood
 * (tests/hostile/result_size_test.ts) shows that a real stream past the bound keeps exactly the bound.
 */
import assert from "node:assert/strict";
import { MAX_CHUNK_STAMPS, REQUEST_TIMEOUT_S } from "../../../contract/mod.ts";
import { RESULT_FILE_CAPS } from "../../../report/result_reader.ts";
import { buildRealisticResult } from "./_realistic_result.ts";

Deno.test("34 records at the stamp bound, every gap at its widest average, stay under report's results.json cap", async () => {
  const built = await buildRealisticResult({ optionalConcurrency: true });
  try {
    const { result } = built;
    assert.equal(result.requests.length, 34);
    // Two lists of stamps, MAX_CHUNK_STAMPS together, give MAX_CHUNK_STAMPS - 2 gaps; their sum is at most the
    // request's duration, so on average a gap is at most REQUEST_TIMEOUT_S / gaps (0.21978 s): eight characters.
    const gaps = MAX_CHUNK_STAMPS - 2;
    const widest = 0.219779;
    assert.ok(widest * gaps <= REQUEST_TIMEOUT_S);
    const half = gaps / 2;
    for (const record of result.requests) {
      result.extensions!.reasoning_cadence![record.id] = {
        thinking_s: 1799.123456,
        reasoning_itl_s: new Array(half).fill(widest),
        reasoning_tpot_s: 0.2197791234567891,
        answer_itl_s: new Array(gaps - half).fill(widest),
        answer_tpot_s: 0.2197791234567891,
      };
    }
    const bytes = new TextEncoder().encode(`${JSON.stringify(result, null, 2)}\n`).length;
    assert.ok(bytes < RESULT_FILE_CAPS.results / 2, `results.json ${bytes} bytes, cap ${RESULT_FILE_CAPS.results}`);
    assert.ok(bytes > 34 * gaps * 20, `every gap is written on its own indented line (${bytes} bytes)`);
  } finally {
    await built.cleanup();
  }
});
