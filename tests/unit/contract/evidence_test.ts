import assert from "node:assert/strict";
import schema from "../../../contract/evidence.schema.json" with { type: "json" };
import { EVIDENCE_VERSION, evidenceJsonSchema, type ExecutedRequest } from "../../../contract/mod.ts";
import { writtenOf } from "../report/_realistic_result.ts";
import { schemaText } from "../../../release/schema.ts";
import { schemaErrors, type SchemaNode } from "../report/_schema_check.ts";
import { fixture, outcome } from "../score/_helpers.ts";

const root = schema as unknown as SchemaNode;

const sent: ExecutedRequest = {
  kind: "outcome",
  fixture: fixture(),
  concurrency: 1,
  body: { messages: [] },
  outcome: outcome({ answer_text: "hi", first_delta_kind: "answer" }),
  dispatchOffsetS: 0.25,
};

/** A written line as `report` reads it back (a JSON round trip). */
function written(request: ExecutedRequest, status: "completed" | "skipped" = "completed"): Record<string, unknown> {
  return writtenOf(request, status);
}

Deno.test("the published evidence.schema.json is exactly what contract/evidence.ts generates", async () => {
  const committed = await Deno.readTextFile(new URL("../../../contract/evidence.schema.json", import.meta.url));
  assert.equal(committed, schemaText("evidence.schema.json"), "run deno task schema");
  assert.deepEqual(root, evidenceJsonSchema());
  assert.match(String(root["$id"]), new RegExp(`/${EVIDENCE_VERSION}/evidence\\.schema\\.json$`));
});

Deno.test("a changed evidence schema is told apart from the committed file", () => {
  const changed = JSON.parse(schemaText("evidence.schema.json"));
  delete changed.anyOf[1].properties.resent_on_fresh_connection;
  assert.notDeepEqual(changed, root);
});

Deno.test("the lines the run writes (sent and skipped) satisfy the published schema", () => {
  assert.deepEqual(schemaErrors(root, root, written(sent)), []);
  const skipped: ExecutedRequest = {
    kind: "skipped",
    fixture: fixture(),
    concurrency: 1,
    reason: "skipped: the run was cancelled",
  };
  assert.deepEqual(schemaErrors(root, root, written(skipped, "skipped")), []);
});

Deno.test("a sent line records whether the client resent the request on a fresh connection", () => {
  assert.equal(written(sent)["resent_on_fresh_connection"], false);
  const resent = { ...sent, outcome: { ...sent.outcome, resent_on_fresh_connection: true } } as ExecutedRequest;
  assert.equal(written(resent)["resent_on_fresh_connection"], true);
});

Deno.test("the published schema refuses a line without the resend field, with an unknown field, or of version 2", () => {
  const line = written(sent);
  delete line["resent_on_fresh_connection"];
  assert.notDeepEqual(schemaErrors(root, root, line), []);
  assert.notDeepEqual(schemaErrors(root, root, { ...written(sent), surprise: 1 }), []);
  assert.notDeepEqual(schemaErrors(root, root, { ...written(sent), evidence_version: 2 }), []);
});
