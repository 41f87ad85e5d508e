import assert from "node:assert/strict";
import { collectGarbage } from "../../../runtime/mod.ts";

Deno.test("collectGarbage runs the collector V8 exposes (--expose-gc) and says false where none is exposed", () => {
  const g = globalThis as { gc?: () => void };
  const exposed = g.gc;
  try {
    let runs = 0;
    g.gc = () => runs++;
    assert.equal(collectGarbage(), true);
    assert.equal(runs, 1);
    delete g.gc;
    assert.equal(collectGarbage(), false);
  } finally {
    if (exposed !== undefined) g.gc = exposed;
  }
});
