/**
 * The engine-log corpus (_sanitizer_corpus_logs.ts): every private kind that logs carry beyond answers is redacted
 * by sanitizeText and sanitizeJson (values, keys, and a log text as one JSON string), a second pass changes
 * nothing, and llama-server's own lines, model and quantization names, timings and hash fields come through byte
 * for byte. The kinds are named one by one below, so a regression says which rule broke.
 */
import assert from "node:assert/strict";
import { sanitizeJson, sanitizeText } from "../../../sanitize/sanitize.ts";
import { CORPUS_CONTEXT } from "./_sanitizer_corpus.ts";
import { LOG_INNOCENT, LOG_PRIVATE } from "./_sanitizer_corpus_logs.ts";

const survives = (out: string, secret: string) => out.toLowerCase().includes(secret.toLowerCase());

Deno.test("log corpus: no private string of any kind survives sanitizeText, and a second pass changes nothing", () => {
  assert.ok(LOG_PRIVATE.length >= 100, `${LOG_PRIVATE.length} private strings`);
  const survivors = LOG_PRIVATE.filter(({ line, secret }) => survives(sanitizeText(line, CORPUS_CONTEXT), secret));
  assert.deepEqual(survivors.map((s) => `${s.category}: ${s.line}`), []);
  for (const { line } of LOG_PRIVATE) {
    const once = sanitizeText(line, CORPUS_CONTEXT);
    assert.equal(sanitizeText(once, CORPUS_CONTEXT), once, line);
  }
});

Deno.test("log corpus: every innocent log line comes through sanitizeText and sanitizeJson unchanged", () => {
  assert.ok(LOG_INNOCENT.length >= 50, `${LOG_INNOCENT.length} innocent strings`);
  assert.deepEqual(LOG_INNOCENT.filter((text) => sanitizeText(text, CORPUS_CONTEXT) !== text), []);
  assert.deepEqual(sanitizeJson({ log: [...LOG_INNOCENT] }, CORPUS_CONTEXT), { log: [...LOG_INNOCENT] });
  const whole = LOG_INNOCENT.join("\n");
  assert.equal(sanitizeText(whole, CORPUS_CONTEXT), whole);
});

Deno.test("log corpus as a JSON document (values, keys, one whole log string): no private string decodes", () => {
  const lines = LOG_PRIVATE.map((c) => c.line);
  const value = { lines, keys: Object.fromEntries(lines.map((l, i) => [l, i])), log: lines.join("\n") };
  const text = JSON.stringify(sanitizeJson(value, CORPUS_CONTEXT));
  const decoded = JSON.parse(text) as { lines: string[]; keys: Record<string, number>; log: string };
  const strings = [...decoded.lines, ...Object.keys(decoded.keys), decoded.log];
  const survivors = LOG_PRIVATE.filter(({ secret }) => strings.some((s) => survives(s, secret)));
  assert.deepEqual(survivors.map((s) => s.line), []);
  // A raw JSON text sanitized as text (a log that holds JSON) stays JSON.
  JSON.parse(sanitizeText(JSON.stringify(value), CORPUS_CONTEXT));
});

const cases: [string, string, string][] = [
  ["an OpenAI project key", "key sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12", "key <secret>"],
  [
    "a Slack webhook keeps its host",
    "https://hooks.slack.com/services/T0A/B0B/XxYyZz0123",
    "https://hooks.slack.com/services/<secret>",
  ],
  ["a Cookie header keeps its names", "Cookie: a=1x2y3z; b=4q5r6s", "Cookie: a=<secret>; b=<secret>"],
  [
    "Set-Cookie keeps its attributes",
    "Set-Cookie: sid=abc123; Path=/; HttpOnly",
    "Set-Cookie: sid=<secret>; Path=/; HttpOnly",
  ],
  ["PGPASSWORD in the environment", "PGPASSWORD=pw123 psql", "PGPASSWORD=<secret> psql"],
  ["curl -u keeps the user", "curl -u bob:hunter2 http://127.0.0.1/", "curl -u bob:<secret> http://127.0.0.1/"],
  ["curl -u without a password stays", "curl -u bob http://127.0.0.1/", "curl -u bob http://127.0.0.1/"],
  ["mysql -p attached", "mysql -u root -pS3cret db", "mysql -u root -p<secret> db"],
  ["a Cisco MAC", "mac 3cec.ef12.3456", "mac <mac>"],
  ["an EUI-64", "3c:ec:ef:ff:fe:12:34:56", "<mac>"],
  ["a cluster root and its user", "cd /scratch/bob", "cd <abs-path>"],
  ["a machine id", "machine-id: 4c4c4544004a4d10804bb4c04f4a4d32", "machine-id: <machine-id>"],
  ["a GPU serial", "Serial Number : 1652821012345", "Serial Number : <serial>"],
  ["a .local host", "on node17.cluster.local:8080", "on <host>:8080"],
  ["a fully qualified host", "login01.hpc.uni-example.edu", "<host>"],
  [
    "a public service's host stays",
    "api.github.com and cdn-lfs.huggingface.co",
    "api.github.com and cdn-lfs.huggingface.co",
  ],
  ["an integer address in a URL", "http://167772161:8080/", "http://<private-ip-1>:8080/"],
  ["a hex address in a URL", "http://0x0a000001/", "http://<private-ip-1>/"],
  ["a public integer address stays", "http://134744072/", "http://134744072/"],
  ["IPv4-mapped in hex", "::ffff:a00:1", "<private-ip-1>"],
  ["a reversed private address", "1.0.0.10.in-addr.arpa", "<private-ip-1>.in-addr.arpa"],
  ["another user's short home", "cp ~bob/q.gguf .", "cp <home>/q.gguf ."],
  ["a percent-encoded home", "p=%2Fhome%2Fbob%2Fq.gguf", "p=<home>%2Fq.gguf"],
  ["a secret in JSON nested in JSON", '{"b":"{\\"password\\":\\"x1\\"}"}', '{"b":"{\\"password\\":\\"<secret>\\"}"}'],
];
for (const [kind, input, expected] of cases) {
  Deno.test(`sanitizeText: ${kind}`, () => assert.equal(sanitizeText(input, CORPUS_CONTEXT), expected));
}
