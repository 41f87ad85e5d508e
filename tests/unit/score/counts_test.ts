import assert from "node:assert/strict";
import { countRequests } from "../../../score/mod.ts";
import type { PhaseCounts, RequestRecord } from "../../../contract/mod.ts";
import { rec } from "./_helpers.ts";

const SANITY = ["I1", "I2", "I3", "I4", "R1", "R2", "R3", "R4", "T1", "T2", "T3", "T4"];

/** 22 required records: a warm-up, 9 performance (2 capped, 1 failed), 12 sanity (the last 3 skipped). */
function required(): RequestRecord[] {
  const records = [rec("warmup", "warmup", "short", "completed")];
  for (let r = 1; r <= 3; r++) {
    for (const caseId of ["short", "prompt-4k", "prompt-16k"]) {
      const status = caseId === "prompt-16k" && r === 2
        ? "failed"
        : caseId !== "short" && r !== 2
        ? "truncated"
        : "completed";
      records.push(rec(`performance-${caseId}-r${r}`, "performance", caseId, status));
    }
  }
  SANITY.forEach((id, i) => records.push(rec(`sanity-${id}`, "sanity", id, i >= 9 ? "skipped" : "completed")));
  return records;
}

function assertIdentities(counts: PhaseCounts): void {
  assert.equal(counts.attempted, counts.completed + counts.truncated + counts.failed);
  assert.equal(counts.planned, counts.attempted + counts.skipped);
}

Deno.test("request counts per phase satisfy attempted = completed + truncated + failed and planned = attempted + skipped", () => {
  const counts = countRequests(required(), false);
  assert.deepEqual(counts.warmup, { planned: 1, attempted: 1, completed: 1, truncated: 0, failed: 0, skipped: 0 });
  assert.deepEqual(counts.performance, { planned: 9, attempted: 9, completed: 4, truncated: 4, failed: 1, skipped: 0 });
  assert.deepEqual(counts.sanity, { planned: 12, attempted: 9, completed: 9, truncated: 0, failed: 0, skipped: 3 });
  assert.deepEqual(counts.concurrency, { planned: 0, attempted: 0, completed: 0, truncated: 0, failed: 0, skipped: 0 });
  Object.values(counts).forEach(assertIdentities);
});

Deno.test("the optional stage plans 12 concurrency requests", () => {
  const burst: RequestRecord[] = [];
  for (let r = 1; r <= 3; r++) {
    for (let c = 1; c <= 4; c++) {
      burst.push(
        rec(`concurrency-r${r}-c${c}`, "concurrency", "short-burst", r === 3 ? "skipped" : "completed", { round: r }),
      );
    }
  }
  const counts = countRequests([...required(), ...burst], true);
  assert.deepEqual(counts.concurrency, {
    planned: 12,
    attempted: 8,
    completed: 8,
    truncated: 0,
    failed: 0,
    skipped: 4,
  });
  assertIdentities(counts.concurrency);
});

Deno.test("counting refuses a phase whose records do not match its plan", () => {
  assert.throws(() => countRequests(required().slice(1), false), /phase warmup has 0 records, expected 1/);
  assert.throws(() => countRequests(required(), true), /phase concurrency has 0 records, expected 12/);
});
