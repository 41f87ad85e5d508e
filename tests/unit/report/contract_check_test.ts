import assert from "node:assert/strict";
import schema from "../../../contract/result.schema.json" with { type: "json" };
import { FORMAT_PATTERNS, resultJsonSchema, type StringFormat } from "../../../contract/mod.ts";
import { matchesFormat } from "../../../report/_contract_check.ts";
import { schemaText } from "../../../release/schema.ts";
import { parseStrictJsonPlain } from "../../../score/mod.ts";
import { buildRealisticResult } from "./_realistic_result.ts";
import { CORRUPTIONS, type Mutable } from "./_corruptions.ts";
import { schemaErrors, type SchemaNode } from "./_schema_check.ts";

const root = schema as unknown as SchemaNode;

Deno.test("the published result.schema.json is exactly what contract/result.ts generates", async () => {
  const committed = await Deno.readTextFile(new URL("../../../contract/result.schema.json", import.meta.url));
  assert.equal(committed, schemaText(), "run deno task schema");
  assert.deepEqual(root, resultJsonSchema());
});

/** Every node of the schema that carries a format annotation, with its pattern. */
function formatNodes(node: unknown, out: { format: string; pattern: unknown }[] = []): typeof out {
  if (node === null || typeof node !== "object") return out;
  const record = node as Record<string, unknown>;
  if (typeof record["format"] === "string") out.push({ format: record["format"], pattern: record["pattern"] });
  for (const child of Object.values(record)) formatNodes(child, out);
  return out;
}

Deno.test("the schema declares draft 2020-12 and each format's pattern is the contract's format pattern", () => {
  assert.equal(root["$schema"], "https://json-schema.org/draft/2020-12/schema");
  const nodes = formatNodes(root);
  assert.deepEqual(new Set(nodes.map((n) => n.format)), new Set(Object.keys(FORMAT_PATTERNS)));
  for (const node of nodes) assert.equal(node.pattern, FORMAT_PATTERNS[node.format as StringFormat], node.format);
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
