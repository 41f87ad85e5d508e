import assert from "node:assert/strict";
import { BUNDLE_NAME, readWrittenLine, sha256Hex, writtenLine } from "../../../contract/mod.ts";
import { fixtureFileSha256 } from "../../../contract/evidence_form.ts";
import { buildChatBody } from "../../../runner/request_body.ts";
import { loadBundle } from "../../../fixtures/mod.ts";
import { fixture } from "../score/_helpers.ts";

const f = fixture();
const { body } = buildChatBody(f, "llama.cpp");

/** A sent line as the run holds it before writing (only the fields this form touches matter here). */
function held(request: Record<string, unknown> = body): Record<string, unknown> {
  return {
    evidence_version: 5,
    request_id: f.id,
    status: "completed",
    request: JSON.parse(JSON.stringify(request)),
    reasoning_chunk_offsets_s: [0.000125, 0.002152, 0.002152, 0.004675],
    chunk_offsets_s: [0.01, 0.012345],
    usage_chunk: '{"usage":{"completion_tokens":3},"timings":{"predicted_n":3}}',
    timings_chunk: '{"usage":{"completion_tokens":3},"timings":{"predicted_n":3}}',
    final_answer: "ok",
  };
}

Deno.test("a frozen request is written by reference and read back exactly: the body, its hashes, the stamps", () => {
  const line = held();
  const written = writtenLine(line, { body, fixture: f });
  const request = written["request"] as Record<string, unknown>;
  assert.equal("messages" in request, false);
  assert.deepEqual(written["request_ref"], {
    bundle: BUNDLE_NAME,
    fixture_sha256: fixtureFileSha256(f),
    body_sha256: sha256Hex(JSON.stringify(body)),
  });
  assert.deepEqual(written["reasoning_chunk_offsets_us"], [125, 2027, 0, 2523]);
  assert.deepEqual(written["chunk_offsets_us"], [10000, 2345]);
  assert.equal("chunk_offsets_s" in written, false);
  // llama-server's last chunk carries usage and timings: its text is written once.
  assert.equal(written["timings_in_usage_chunk"], true);
  assert.equal("timings_chunk" in written, false);
  const read = readWrittenLine(JSON.parse(JSON.stringify(written)), f);
  assert.deepEqual(read, line);
  // The same key order as the body the client sent, so its bytes are the bytes hashed.
  assert.equal(JSON.stringify((read as Record<string, unknown>)["request"]), JSON.stringify(body));
});

Deno.test("a body whose messages are not the fixture's, or that redaction changed, keeps its text", () => {
  const other = { ...body, messages: [{ role: "user", content: "[case performance-short-r1]\nanother prompt" }] };
  const kept = writtenLine(held(other), { body: other, fixture: f });
  assert.equal("request_ref" in kept, false);
  assert.deepEqual((kept["request"] as Record<string, unknown>)["messages"], other.messages);
  // The held line was sanitized (a value changed) but the body sent was not: no reference can be made.
  const redacted = held({ ...body, seed: 2 });
  assert.equal("request_ref" in writtenLine(redacted, { body, fixture: f }), false);
  assert.deepEqual(readWrittenLine(JSON.parse(JSON.stringify(kept)), f), held(other));
});

Deno.test("a stamp that is not a whole microsecond cannot be written", () => {
  assert.throws(() => writtenLine({ ...held(), chunk_offsets_s: [0.1234567] }, null), /not a whole microsecond/);
});

Deno.test("a broken written form is named: hashes, a bundle, messages beside the reference, stamps", () => {
  const written = JSON.parse(JSON.stringify(writtenLine(held(), { body, fixture: f })));
  // deno-lint-ignore no-explicit-any -- the edits reach into a parsed line
  const broken = (edit: (line: Record<string, any>) => void) => {
    const copy = structuredClone(written);
    edit(copy);
    return readWrittenLine(copy, f);
  };
  assert.match(String(broken((l) => (l.request.seed = 9))), /body_sha256 is not that of the body rebuilt/);
  assert.match(String(broken((l) => (l.request_ref.fixture_sha256 = "0".repeat(64)))), /fixture_sha256 is not/);
  assert.match(String(broken((l) => (l.request_ref.bundle = "standard-v2"))), /names the bundle "standard-v2"/);
  assert.match(String(broken((l) => (l.request.messages = body.messages))), /must not also carry request\.messages/);
  assert.match(String(broken((l) => (l.request_ref.extra = 1))), /unknown field "extra"/);
  assert.match(String(broken((l) => (l.request_ref.body_sha256 = "ABC"))), /lowercase hex SHA-256/);
  assert.match(String(broken((l) => (l.chunk_offsets_us = [0.5]))), /chunk_offsets_us must be an array of integers/);
  assert.match(String(broken((l) => (l.chunk_offsets_s = [0.5]))), /writes chunk_offsets_s as chunk_offsets_us/);
  assert.match(String(broken((l) => (l.timings_chunk = "{}"))), /timings_in_usage_chunk must be true, beside/);
  assert.match(String(broken((l) => (l.timings_in_usage_chunk = false))), /timings_in_usage_chunk must be true/);
  // Without the bundle's fixture the line is read, the messages not restored and the hashes not checked.
  const unchecked = readWrittenLine(structuredClone(written), null) as Record<string, unknown>;
  assert.equal("messages" in (unchecked["request"] as object), false);
  assert.equal("request_ref" in unchecked, false);
});

Deno.test("the fixture file's SHA-256 is that of the committed file, from the fixture as read", async () => {
  const bundle = await loadBundle();
  for (const fixture of bundle.fixtures.slice(0, 5)) {
    assert.equal(fixtureFileSha256(fixture), sha256Hex((await bundle.readFile(`${fixture.id}.json`))!));
  }
});
