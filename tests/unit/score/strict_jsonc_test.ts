/** JSONC (profiles, compare specs): a key repeated in one object is a problem, never last-wins; nesting is bounded. */
import assert from "node:assert/strict";
import { parseStrictJsonc } from "../../../score/mod.ts";

Deno.test("a key repeated in one object is a problem by JSON Pointer; the same key in two objects is not", () => {
  const { problems } = parseStrictJsonc('{"a": {"x": 1, "x": 2}, "b": {"x": 1}, /* ok */ "c": [1,],}', 64);
  assert.deepEqual(problems, ['/a/x: key "x" repeated at offset 15 (each key once)']);
});

Deno.test("nesting past the bound is a problem and nothing is parsed, never a stack overflow", () => {
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  const jsonc = parseStrictJsonc(`// c\n{"a": ${deep}}`, 64);
  assert.deepEqual(jsonc, { value: undefined, problems: ["nesting 200001 deep, more than the 64 allowed"] });
  assert.deepEqual(parseStrictJsonc("[[1]] // two", 2), { value: [[1]], problems: [] });
  assert.equal(parseStrictJsonc("[[[1]]]", 2).problems.length, 1);
});
