/** load/_load_stages.ts: the warm-up limit's reason says what was kept (earlier runs of a repeat or sweep). */
import assert from "node:assert/strict";
import { warmupLimitReason } from "../../../load/_load_stages.ts";
import type { LoadRunResult } from "../../../load/execute.ts";

const overran = {
  summary: { phases: { warmup: { limit_s: 0.5 } } },
  facts: { counts: { warmup: 3 } },
} as unknown as LoadRunResult;

Deno.test("a warm-up past its limit: nothing measured in the first run, the earlier runs kept in a later one", () => {
  assert.match(
    warmupLimitReason(overran, 0, 1),
    /^the warm-up did not end within its limit of 0\.5 s \(3 warm-up .*\): nothing was measured;/,
  );
  const later = warmupLimitReason(overran, 2, 3);
  assert.match(later, /^run 3: the warm-up .*: this run measured nothing \(the 2 before it are kept\);/);
  assert.doesNotMatch(later, /nothing was measured/);
});
