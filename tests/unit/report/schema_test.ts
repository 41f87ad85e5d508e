import assert from "node:assert/strict";
import schema from "../../../report/result.schema.json" with { type: "json" };
import { RESULT_SHAPE } from "../../../report/_result_shape.ts";
import { FORMAT_PATTERNS, matchesFormat } from "../../../report/_shape.ts";
import { parseStrictJsonPlain } from "../../../score/mod.ts";
import { buildRealisticResult } from "./_realistic_result.ts";
import { CORRUPTIONS, type Mutable } from "./_corruptions.ts";
import { schemaErrors, type SchemaNode, shapeOfSchema } from "./_schema_check.ts";

const root = schema as unknown as SchemaNode;

Deno.test("the published schema says field for field what the validator's contract shape says", () => {
  assert.deepEqual(shapeOfSchema(root, root), RESULT_SHAPE);
});

Deno.test("the schema declares draft 2020-12 and its patterns are the validator's format patterns", () => {
  assert.equal(root["$schema"], "https://json-schema.org/draft/2020-12/schema");
  const defs = root["$defs"] as Record<string, { pattern?: string }>;
  assert.equal(defs["sha256"]?.pattern, FORMAT_PATTERNS.sha256);
  assert.equal(defs["commit"]?.pattern, FORMAT_PATTERNS.commit);
  assert.equal(defs["utc_time"]?.pattern, FORMAT_PATTERNS["utc-time"]);
  assert.equal(defs["relative_path"]?.pattern, FORMAT_PATTERNS["relative-path"]);
});

Deno.test("relative-path format accepts folder-relative names and refuses escapes", () => {
  for (const ok of ["outputs.jsonl", "logs/engine.log", "a..b/c", "./config.json", "Qwen-00001-of-00002.gguf"]) {
    assert.ok(matchesFormat(ok, "relative-path"), ok);
  }
  for (const bad of ["/etc/passwd", "../x", "a/../../x", "a/..", "..", "C:\\x", "c:x", "a\\b", "~/x", "", "a\nb"]) {
    assert.ok(!matchesFormat(bad, "relative-path"), JSON.stringify(bad));
  }
});

Deno.test("schema and validator agree: realistic results pass, value corruptions fail only where a schema can tell", async (t) => {
  const required = await buildRealisticResult();
  const optional = await buildRealisticResult({ optionalConcurrency: true });
  try {
    for (const r of [required, optional]) assert.deepEqual(schemaErrors(root, root, r.result), []);
    for (const corruption of CORRUPTIONS) {
      if (corruption.schema === null || corruption.read) continue;
      await t.step(`${corruption.name}: schema ${corruption.schema ? "rejects" : "cannot tell"}`, () => {
        const base = corruption.optional ? optional : required;
        let text = base.text;
        if (corruption.value) {
          const value = JSON.parse(text) as Mutable;
          corruption.value(value);
          text = JSON.stringify(value);
        }
        if (corruption.text) text = corruption.text(text);
        const parsed = parseStrictJsonPlain(text);
        assert.ok(parsed.ok);
        const errors = schemaErrors(root, root, parsed.value);
        if (corruption.schema) {
          assert.ok(errors.some((e) => e.startsWith(`${corruption.pointer}:`)), errors.join("\n"));
        } else {
          assert.deepEqual(errors, []);
        }
      });
    }
  } finally {
    await required.cleanup();
    await optional.cleanup();
  }
});
