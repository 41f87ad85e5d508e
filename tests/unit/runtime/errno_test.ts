import assert from "node:assert/strict";
import { errnoKind, errorLine, errorMessage } from "../../../runtime/mod.ts";

Deno.test("errorLine keeps a thrown value's first line, cut to its bound", () => {
  assert.equal(errorLine(new Error("disk full\n    at write (x.ts:1:1)")), "disk full");
  assert.equal(errorLine("plain text thrown"), "plain text thrown");
  assert.equal(errorLine(new Error("x".repeat(1000))).length, 300);
  assert.equal(errorLine(new Error("abcdef"), 3), "abc");
  assert.equal(errorLine(new Error("")), "");
  assert.equal(errorMessage(42), "42");
});

Deno.test("errnoKind names a file-system failure by its code, or by its name", () => {
  assert.equal(errnoKind(Object.assign(new Error("x"), { code: "ENOSPC" })), errnoKind({ code: "ENOSPC" }));
  assert.equal(errnoKind(null), "other");
  assert.equal(errnoKind({ code: "EMADEUP" }), "other");
});
