/**
 * What the sanitizer costs on engine text built to be expensive. A long run of backslashes before a quote (a chunk
 * of escaped backslashes, kept as text by usage_chunk): the nested-JSON secret rule matched its escaped quote from
 * every backslash of the run, each time reading to the run's end (64 Ki backslashes took 4.8 s, 4 Mi would take
 * hours; a hostile run never finished). Secret-named keys whose escaped value never closes, each escaped once less
 * than the one before: the rule read from every such key to the end of the text (or line), 199 s for 1 MiB. The
 * rule now starts at the quote and looks up whether a value can close; the same cases redact as before.
 */
import assert from "node:assert/strict";
import { sanitizeText } from "../../../sanitize/sanitize.ts";

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

/** Keys whose values never close: each level's quote is escaped once less than the last one's, so none closes. */
function openKeys(totalChars: number, key: (backslashes: string) => string): string {
  const parts: string[] = [];
  let chars = 0;
  for (let level = 1; chars + key("\\".repeat(level)).length <= totalChars; level++) {
    const part = key("\\".repeat(level));
    parts.push(part);
    chars += part.length;
  }
  return parts.reverse().join("");
}

Deno.test("sanitizeText reads 1 MiB of secret keys left open, escaped ever less, in linear time (it took 199 s)", () => {
  for (
    const text of [
      openKeys(1024 * 1024, (b) => `${b}"password${b}": ${b}"x `),
      openKeys(1024 * 1024, (b) => `password=${b}"x `),
    ]
  ) {
    const started = performance.now();
    assert.equal(sanitizeText(text), text, "nothing closes, so nothing is redacted");
    const elapsedMs = performance.now() - started;
    // About 0.3 s on a busy 2-core machine; reading on from every open key needed 199 s (and 39 s for 256 KiB).
    assert.ok(elapsedMs < 30_000, `${elapsedMs.toFixed(0)} ms`);
  }
});

const cases: [string, string, string][] = [
  ["a flag's value", String.raw`cmd --api-key=\"abc123\" next`, String.raw`cmd --api-key=\"<secret>\" next`],
  ["a flag's value does not close on the next line", "password: \\'x1\nx\\' y", "password: \\'x1\nx\\' y"],
  [
    "a flag's value closes at the first quote escaped as much",
    String.raw`password=\\\"x1\" later \\\"`,
    String.raw`password=\\\"<secret>\\\"`,
  ],
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
