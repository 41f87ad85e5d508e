/** What a person hands load and compare is parsed strictly: a repeated key is refused, nesting is bounded. */
import assert from "node:assert/strict";
import { MAX_INPUT_DEPTH, parseStrictInput } from "../../../load/_strict_input.ts";
import { parsePromptJsonl, parseShareGpt } from "../../../load/workloads.ts";
import { parseCompareSpec } from "../../../load/gate/compare_spec.ts";

Deno.test("a prompt row with a repeated key is refused, not read last-wins", () => {
  assert.throws(
    () => parsePromptJsonl('{"prompt":"a"}\n{"prompt":"b","prompt":"c"}\n', "p.jsonl"),
    /Cannot read prompt set "p\.jsonl": line 2 is not JSON \(duplicate key "prompt"/,
  );
  assert.equal(parsePromptJsonl('{"prompt":"a"}\n', "p.jsonl").entries.length, 1);
});

Deno.test("nesting past the bound is an error, never a stack overflow", () => {
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  assert.throws(() => parseStrictInput(deep, "x"), /Cannot read x: .*(depth|nest)/i);
  assert.throws(() => parseShareGpt(deep, "s.json"), SyntaxError);
  assert.equal(
    (parseStrictInput("[".repeat(MAX_INPUT_DEPTH) + "]".repeat(MAX_INPUT_DEPTH), "x") as unknown[]).length,
    1,
  );
  const spec = `// c\n{"a": ${deep}}`;
  assert.throws(
    () => parseCompareSpec(spec, ".", "a".repeat(64)),
    new RegExp(`more than the ${MAX_INPUT_DEPTH} allowed`),
  );
});

Deno.test("a JSONC spec with a key repeated in one object is refused by JSON Pointer", () => {
  assert.throws(
    () => parseCompareSpec('{"format": "strata-compare-spec", "format": "x", "version": 1}', ".", "a".repeat(64)),
    /\/format: key "format" repeated/,
  );
});
