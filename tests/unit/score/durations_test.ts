import assert from "node:assert/strict";
import { spanEndS, stageDurationS, wallS } from "../../../score/durations.ts";

Deno.test("a span ends at its dispatch offset plus the client's end offset", () => {
  assert.equal(spanEndS({ dispatchOffsetS: 1.25, endOffsetS: 0.5 }), 1.75);
});

Deno.test("a wall runs from the first dispatch to the last termination, whatever the order", () => {
  const spans = [
    { dispatchOffsetS: 10.002, endOffsetS: 3 },
    { dispatchOffsetS: 10, endOffsetS: 1 },
    { dispatchOffsetS: 10.001, endOffsetS: 7.5 },
  ];
  assert.equal(wallS(spans), 10.001 + 7.5 - 10);
  assert.equal(wallS([...spans].reverse()), wallS(spans));
});

Deno.test("a wall of no request is a RangeError, never 0", () => {
  assert.throws(() => wallS([]), RangeError);
});

Deno.test("the required stages run from the first span's dispatch to the last span's termination", () => {
  const warmup = { dispatchOffsetS: 0.004, endOffsetS: 2 };
  const last = { dispatchOffsetS: 180.5, endOffsetS: 9.25 };
  assert.equal(stageDurationS(warmup, last), 180.5 + 9.25 - 0.004);
});

Deno.test("the same numbers after a JSON round trip give the same duration bit for bit", () => {
  const spans = [
    { dispatchOffsetS: 0.1 + 0.2, endOffsetS: 1 / 3 },
    { dispatchOffsetS: 123.456789012345, endOffsetS: 9.87654321 },
  ];
  const copied = JSON.parse(JSON.stringify(spans)) as typeof spans;
  assert.ok(Object.is(wallS(copied), wallS(spans)));
  assert.ok(Object.is(stageDurationS(copied[0]!, copied[1]!), stageDurationS(spans[0]!, spans[1]!)));
});
