import assert from "node:assert/strict";
import { highestTask, matchSlots } from "../../../runner/_slot_match.ts";

const slot = (id: number, task: number | undefined, seed?: number) => ({
  id,
  ...(task === undefined ? {} : { id_task: task, params: { seed } }),
});

Deno.test("one request: the only task newer than the previous reading is its task", () => {
  const readings = matchSlots([slot(0, 7, 1)], [{ id: "warmup", seed: 1, dispatchOffsetS: 0 }], 4, 1);
  const r = readings.get("warmup")!;
  assert.equal(r.kind, "slot");
  assert.match(r.kind === "slot" ? r.matched_by : "", /the only task after id_task 4 \(slot 0, id_task 7\)/);
});

Deno.test("a task no newer than the previous reading is not the request's: it did not reach a slot", () => {
  const r = matchSlots([slot(0, 7, 1)], [{ id: "x", seed: 2, dispatchOffsetS: 0 }], 7, 1).get("x")!;
  assert.equal(r.kind, "none");
  assert.match(r.kind === "none" ? r.reason : "", /no slot of GET \/slots shows a task after id_task 7/);
});

Deno.test("a round on four slots is matched by seed", () => {
  const batch = [1, 2, 3, 4].map((j) => ({ id: `c${j}`, seed: 4 + j, dispatchOffsetS: j }));
  const readings = matchSlots([slot(0, 12, 7), slot(1, 10, 5), slot(2, 13, 8), slot(3, 11, 6)], batch, 9, 4);
  assert.deepEqual(
    batch.map((b) => {
      const r = readings.get(b.id)!;
      return r.kind === "slot" ? r.id_task : null;
    }),
    [10, 11, 12, 13],
  );
});

Deno.test("a round on one slot: the last request is read, the three before it say their slot was reused", () => {
  const batch = [1, 2, 3, 4].map((j) => ({ id: `c${j}`, seed: j, dispatchOffsetS: j }));
  const readings = matchSlots([slot(0, 20, 4)], batch, 16, 1);
  assert.equal(readings.get("c4")!.kind, "slot");
  for (const id of ["c1", "c2", "c3"]) {
    const r = readings.get(id)!;
    assert.equal(r.kind, "none");
    assert.match(
      r.kind === "none" ? r.reason : "",
      /ran a later request of the same round .* 4 requests shared 1 slot/,
    );
  }
});

Deno.test("an engine that ran other seeds: tasks are matched in dispatch order", () => {
  const batch = [{ id: "b", seed: 2, dispatchOffsetS: 2 }, { id: "a", seed: 1, dispatchOffsetS: 1 }];
  const readings = matchSlots([slot(0, 31, 99), slot(1, 30, 98)], batch, 29, 2);
  const a = readings.get("a")!;
  assert.equal(a.kind === "slot" ? a.id_task : null, 30);
  assert.match(a.kind === "slot" ? a.matched_by : "", /task order: dispatched 1 of 2/);
});

Deno.test("highestTask ignores slots without a task and keeps the floor", () => {
  assert.equal(highestTask([slot(0, undefined), slot(1, 3), "junk"], -1), 3);
  assert.equal(highestTask([], 5), 5);
});
