import assert from "node:assert/strict";
import { LOAD_LINE_VERSIONS, loadLinesJsonSchema, SENT_ONLY } from "../../../contract/mod.ts";
import { buildLoadRow } from "../../../load/metrics.ts";
import { describeLoadPlan, realLoadDeps } from "../../../load/mod.ts";
import { parseLoadCommand } from "../../../cli/load.ts";
import { schemaText } from "../../../release/schema.ts";
import { outcome, sample } from "../load/_fakes.ts";
import { lineErrors, root } from "./_load_lines.ts";

Deno.test("the published load-lines.schema.json is exactly what contract/load_lines.ts generates", async () => {
  const committed = await Deno.readTextFile(new URL("../../../contract/load-lines.schema.json", import.meta.url));
  assert.equal(committed, schemaText("load-lines.schema.json"), "run deno task schema");
  assert.deepEqual(root, loadLinesJsonSchema());
  // One definition per format, each at the version the toolkit writes; the shared parts are referred to.
  const defs = root["$defs"] as Record<string, { properties?: Record<string, { const?: unknown }> }>;
  for (const [format, version] of Object.entries(LOAD_LINE_VERSIONS)) {
    assert.equal(defs[format]?.properties?.version?.const, version, format);
  }
  assert.match(JSON.stringify(defs["strata-load-summary"]), /"\$ref":"#\/\$defs\/endpoint-summary"/);
});

Deno.test("a changed load line schema is told apart from the committed file", () => {
  const changed = JSON.parse(schemaText("load-lines.schema.json"));
  delete changed.$defs["strata-load-request"].properties.ttft_s;
  assert.notDeepEqual(changed, root);
});

Deno.test("the rows load builds, sent and dropped, satisfy the published schema; a wrong one does not", () => {
  const sent = { run: 0, ...buildLoadRow(sample(outcome({ endS: 1.5, headersS: 0.04, firstDeltaS: 0.25 }))) };
  const dropped = buildLoadRow(sample(null, { dropped: true, drop_reason: "late", send_offset_s: null }));
  for (const row of [sent, dropped]) assert.deepEqual(lineErrors(JSON.parse(JSON.stringify(row))), []);
  assert.deepEqual(lineErrors({ ...sent, status: "fine" }), ["/status: anyOf"]);
  assert.deepEqual(lineErrors({ ...sent, extra: 1 }), ["/extra: additionalProperties"]);
  assert.deepEqual(lineErrors({ ...sent, index: -1 }), ["/index: minimum"]);
  // A dropped row is null in exactly the sent-only columns (and the closed loop's schedule and lateness).
  const nulls = Object.keys(dropped).filter((k) => (dropped as Record<string, unknown>)[k] === null);
  assert.deepEqual(nulls.sort(), [...SENT_ONLY, "scheduled_offset_s", "lateness_s"].sort());
});

Deno.test("the plan load --plan prints satisfies the published schema", async () => {
  const { options } = parseLoadCommand(["--url", "http://127.0.0.1:8080", "--rate", "4", "--requests", "8"]);
  const { plan } = await describeLoadPlan(options, realLoadDeps(), true);
  assert.deepEqual(lineErrors(JSON.parse(JSON.stringify(plan))), []);
  assert.deepEqual(lineErrors({ ...plan, schedule_sha256: "not a digest" }), ["/schedule_sha256: pattern"]);
});
