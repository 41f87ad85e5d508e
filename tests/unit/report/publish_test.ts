import assert from "node:assert/strict";
import { publishRequest, sanitizeResult } from "../../../report/publish.ts";
import { createSanitizer } from "../../../sanitize/sanitize.ts";
import type { ExecutedRequest, Result } from "../../../contract/mod.ts";
import { recordOf } from "../../../score/mod.ts";
import { lineFacts, overridesOf, rebuildRecord } from "../../../report/_evidence_line.ts";
import { leafDifferences } from "../../../report/_difference.ts";
import { fixture, outcome, sanityFixture } from "../score/_helpers.ts";

const sanitizers = createSanitizer({ username: "alice", hostname: "orion.lab.example" });

function sent(f = sanityFixture("I3"), answer = '{"project":"Orion","build":17}'): ExecutedRequest {
  return {
    kind: "outcome",
    fixture: f,
    concurrency: 1,
    body: { messages: [] },
    outcome: outcome({ answer_text: answer, first_delta_kind: "answer" }),
    dispatchOffsetS: 1.5,
  };
}

/** What report rebuilds from the written line. */
function rebuilt(request: ExecutedRequest, line: Record<string, unknown>) {
  const facts = lineFacts(JSON.parse(JSON.stringify(line)));
  assert.ok(typeof facts !== "string", String(facts));
  const overrides = overridesOf(line);
  assert.ok(typeof overrides !== "string");
  return rebuildRecord(request.fixture, facts, overrides, request.concurrency);
}

Deno.test("a right answer that names the host keeps its verdict, stated in the line, and report rebuilds it", () => {
  const request = sent();
  const published = publishRequest(request, recordOf(request), request.fixture, sanitizers);
  assert.equal(published.built.record.evaluation?.passed, true, "scored on the text as the engine sent it");
  assert.match(String(published.line["final_answer"]), /"project":"<host>"/);
  assert.deepEqual(published.overridden, ["/evaluation/passed", "/evaluation/reason"]);
  assert.match(published.built.record.evaluation!.reason, /<host>/, "the published reason is redacted");
  assert.deepEqual(leafDifferences(rebuilt(request, published.line), published.built.record), []);
});

Deno.test("a request whose text redaction does not touch needs no override", () => {
  const request = sent(sanityFixture("I1"), '{"ok":true,"count":3}');
  const published = publishRequest(request, recordOf(request), request.fixture, sanitizers);
  assert.deepEqual(published.overridden, []);
  assert.equal(published.line["record_overrides"], undefined);
  assert.deepEqual(leafDifferences(rebuilt(request, published.line), published.built.record), []);
});

Deno.test("a reason that quotes and cuts private text is consistent with the redacted evidence", () => {
  const long = `${"x".repeat(60)} 192.168.1.20 and /home/alice/notes`;
  const request = sent(sanityFixture("I4"), long);
  const published = publishRequest(request, recordOf(request), request.fixture, sanitizers);
  const reason = published.built.record.evaluation!.reason;
  assert.ok(!reason.includes("192.168.1") && !reason.includes("alice"), reason);
  assert.deepEqual(leafDifferences(rebuilt(request, published.line), published.built.record), []);
});

Deno.test("protocol words of the line and a protocol finish reason are never rewritten by the sanitizer", () => {
  const odd = {
    text: (t: string) => t.replaceAll("stop", "halt"),
    json: (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll("stop", "halt")),
  };
  const request = sent(fixture(), "a short answer");
  const published = publishRequest(request, recordOf(request), request.fixture, odd);
  assert.equal(published.line["finish_reason"], "stop");
  assert.equal(published.line["status"], "completed");
  assert.equal(published.built.record.finish_reason, "stop");
});

Deno.test("sanitizeResult redacts every section but leaves published requests and summaries as they are", () => {
  const result = {
    format: "strata-standard-benchmark",
    run: { command: "run --out /home/alice/x" },
    requests: [{ id: "r", note: "/home/alice/kept-as-published" }],
    summaries: [{ excluded: [{ reason: "alice" }] }],
    missing: { "/requests/0/x": "seen at 10.0.0.5" },
    extensions: { nonconforming_reasons: ["alice's server"] },
  } as unknown as Result;
  const fresh = createSanitizer({ username: "alice", hostname: "orion.lab.example" });
  const out = sanitizeResult(result, fresh) as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(out), Object.keys(result), "key order kept");
  assert.equal((out.run as { command: string }).command, "run --out <home>/x");
  assert.equal(out.requests, result.requests);
  assert.equal(out.summaries, result.summaries);
  assert.deepEqual(out.missing, { "/requests/0/x": "seen at <private-ip-1>" });
  assert.deepEqual((out.extensions as Record<string, unknown>).nonconforming_reasons, ["<user>'s server"]);
});
