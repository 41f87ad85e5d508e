/**
 * One list of placeholder kinds: what the sanitizer writes over both corpora is exactly PLACEHOLDER_KINDS, the
 * stated-value rule of report accepts each of them, and the website's own restatement (site/web/stated.js) accepts
 * the same set and nothing else. A kind the sanitizer learns without the rules learning it would make a run reject
 * its own result (an answer naming a serial number once did).
 */
import assert from "node:assert/strict";
import { PLACEHOLDER_KINDS, REDACTION_PLACEHOLDER, sanitizeText } from "../../../sanitize/sanitize.ts";
import { PLACEHOLDER as SITE_PLACEHOLDER } from "../../../site/web/stated.js";
import { CORPUS_CONTEXT, PRIVATE } from "./_sanitizer_corpus.ts";
import { LOG_PRIVATE } from "./_sanitizer_corpus_logs.ts";

/** The kinds of every `<kind>` the sanitizer wrote that the input did not hold; numbers fold to N. */
function writtenKinds(): Set<string> {
  const kinds = new Set<string>();
  for (const { line } of [...PRIVATE, ...LOG_PRIVATE]) {
    const before = new Set(line.match(/<[a-z0-9-]+>/g) ?? []);
    for (const token of sanitizeText(line, CORPUS_CONTEXT).match(/<[a-z0-9-]+>/g) ?? []) {
      if (!before.has(token)) kinds.add(token.slice(1, -1).replace(/-\d+$/, "-N"));
    }
  }
  return kinds;
}

Deno.test("the sanitizer writes exactly the placeholder kinds the rules know, over both corpora", () => {
  assert.deepEqual([...writtenKinds()].sort(), [...PLACEHOLDER_KINDS].sort());
});

Deno.test("report's rule and the site's restated rule accept every kind and nothing else", () => {
  const samples = PLACEHOLDER_KINDS.map((k) => `<${k.replace("-N", "-3")}>`);
  for (const sample of samples) {
    assert.ok(REDACTION_PLACEHOLDER.test(`answer ${sample} here`), `report accepts ${sample}`);
    assert.ok(SITE_PLACEHOLDER.test(`answer ${sample} here`), `the site accepts ${sample}`);
  }
  for (const other of ["<gpu>", "<private-ip-N>", "<hosts>", "<serial-number>", "<Home>", "home", "<private-ip->"]) {
    assert.equal(REDACTION_PLACEHOLDER.test(other), false, `report refuses ${other}`);
    assert.equal(SITE_PLACEHOLDER.test(other), false, `the site refuses ${other}`);
  }
});
