/**
 * What the sanitizer costs on engine text built to be expensive: a long run of backslashes before a quote (a chunk
 * of escaped backslashes, kept as text by usage_chunk). The nested-JSON secret rule matched its escaped quote from
 * every backslash of the run, each time reading to the run's end: 64 Ki backslashes took 4.8 s, 4 Mi would take
 * hours (a hostile run never finished). The rule now starts at the quote; the same cases redact as before.
 */
import assert from "node:assert/strict";
import { sanitizeText } from "../../../report/sanitize.ts";

const RUN = 4 * 1024 * 1024;

Deno.test("sanitizeText reads 4 Mi backslashes before a quote in linear time (it took hours)", () => {
  for (const text of [`{"pad":"${"\\".repeat(RUN)}"}`, `${"\\".repeat(RUN)}"password\\": \\"x1\\"`]) {
    const started = performance.now();
    const out = sanitizeText(text);
    const elapsedMs = performance.now() - started;
    assert.equal(out.length, text.length + (text.includes("x1") ? "<secret>".length - 2 : 0));
    // About 0.5 s on a busy 2-core machine; the quadratic pattern needed hours here.
    assert.ok(elapsedMs < 30_000, `${elapsedMs.toFixed(0)} ms`);
  }
});

const cases: [string, string, string][] = [
  ["one level", String.raw`{\"password\":\"hunter2\"}`, String.raw`{\"password\":\"<secret>\"}`],
  ["three levels", String.raw`\\\"api_key\\\": \\\"abc123\\\"`, String.raw`\\\"api_key\\\": \\\"<secret>\\\"`],
  [
    "more backslashes before the key than its quotes have: the extra ones stay",
    String.raw`x\\\"password\": \"x1\" y`,
    String.raw`x\\\"password\": \"<secret>\" y`,
  ],
  ["a number", String.raw`{\"secret\": 123, \"n\": 1}`, String.raw`{\"secret\": \"<secret>\", \"n\": 1}`],
  [
    "a value quoted at another level stays",
    String.raw`\\\"password\\\": \"x1\"`,
    String.raw`\\\"password\\\": \"x1\"`,
  ],
];
for (const [kind, input, expected] of cases) {
  Deno.test(`sanitizeText: a secret in JSON nested in JSON, ${kind}`, () => {
    assert.equal(sanitizeText(input), expected);
  });
}
