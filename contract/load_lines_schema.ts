/**
 * The published JSON Schema of the load line contract (contract/load_lines.ts): one definition per format, the parts
 * many lines share (a distribution, an endpoint's summary) defined once and referred to.
 */
import { ENDPOINT_LOAD_SUMMARY, LOAD_DISTRIBUTION, LOAD_LINE_SCHEMAS, LOAD_LINE_VERSIONS } from "./load_lines.ts";

/** Parts many lines share, published once under $defs and referred to. */
const SHARED = { "load-distribution": LOAD_DISTRIBUTION, "endpoint-summary": ENDPOINT_LOAD_SUMMARY } as const;

/** `node` as plain JSON with every shared part but `own` replaced by a $ref to its definition. */
function referenced(node: unknown, shared: ReadonlyMap<string, string>, own?: string): unknown {
  const name = shared.get(JSON.stringify(node));
  if (name !== undefined && name !== own) return { $ref: `#/$defs/${name}` };
  if (Array.isArray(node)) return node.map((n) => referenced(n, shared));
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, referenced(v, shared)]));
}

/** The published JSON Schema document (draft 2020-12) of the load and compare lines: one definition per format. */
export function loadLinesJsonSchema(): Record<string, unknown> {
  const lines = LOAD_LINE_SCHEMAS;
  const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema));
  const shared = new Map(Object.entries(SHARED).map(([name, schema]) => [JSON.stringify(plain(schema)), name]));
  const defs = Object.fromEntries(
    [...Object.entries(lines), ...Object.entries(SHARED)].map(([name, schema]) => [
      name,
      referenced(plain(schema), shared, name),
    ]),
  );
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://strata-bench.invalid/schemas/strata-load-lines/3/load-lines.schema.json",
    title: "strata-bench load and compare JSONL lines (and the plan, prompt-mix and merge documents)",
    description: "One line of what `load` and `compare` write to --out, chosen by its `format` (the versions: " +
      `${Object.entries(LOAD_LINE_VERSIONS).map(([f, v]) => `${f} ${v}`).join(", ")}). What a schema cannot say ` +
      "(no time before its start, no end before its send, the first line a config line, rows that agree with their " +
      "summary) is checked by every strata-bench command that reads the file back.",
    $defs: defs,
    anyOf: Object.keys(lines).map((name) => ({ $ref: `#/$defs/${name}` })),
  };
}
