import assert from "node:assert/strict";
import { createSanitizer, isSecretName, sanitizeJson, sanitizeText } from "../../../sanitize/sanitize.ts";

const context = { username: "alice", hostname: "gpubox.lan" };

/** Each leak: a realistic line, and the private strings that must not survive it. */
const LEAKS: Array<[line: string, secrets: string[]]> = [
  ["main: loading model from '/home/alice/models/qwen3/Qwen3-30B-A3B-Q4_K_M-00001-of-00002.gguf'", ["/home/alice"]],
  ["llama_model_loader: loaded meta data with 35 key-value pairs from /Users/alice/llm/model.gguf", ["/Users/alice"]],
  ["C:\\Users\\alice\\AppData\\Local\\llama\\model.gguf", ["alice", "C:\\Users"]],
  ['{"model_path":"C:\\\\Users\\\\alice\\\\models\\\\m.gguf"}', ["alice"]],
  ["ls /root/.cache/huggingface", ["/root"]],
  ["srv  log_server_r: request: POST /v1/chat/completions 192.168.1.20 200", ["192.168.1.20"]],
  ["main: server is listening on http://10.0.0.5:8080 - starting the main loop", ["10.0.0.5"]],
  ["upstream 172.20.3.4:443 and 172.31.255.254", ["172.20.3.4", "172.31.255.254"]],
  ["link-local 169.254.169.254 metadata", ["169.254.169.254"]],
  ["listening on http://[fe80::1c2b:3dff:fe4a:5b6c%eth0]:8080", ["fe80::1c2b:3dff:fe4a:5b6c", "eth0"]],
  ["ULA fd12:3456:789a::1 and FC00:0:0:0:0:0:0:1", ["fd12:3456:789a::1", "FC00:0:0:0:0:0:0:1"]],
  ["llama-server -m m.gguf --api-key sk-proj-Ab3dEfGhIjKlMnOpQrStUv --port 8080", ["sk-proj-Ab3dEfGhIjKlMnOpQrStUv"]],
  ["llama-server --api-key=changeme-local-key --port 8080", ["changeme-local-key"]],
  ["curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl' http://127.0.0.1:8080", [
    "eyJhbGciOiJIUzI1NiJ9",
  ]],
  ['{"headers": {"authorization": "Basic YWxpY2U6aHVudGVyMg=="}}', ["YWxpY2U6aHVudGVyMg=="]],
  ["HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 huggingface-cli download", ["hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"]],
  ["git clone https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/o/r", [
    "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
  ]],
  ["GITHUB_TOKEN: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH", ["github_pat_11ABCDEFG"]],
  ['{"api_key": "hunter2-very-secret", "max_tokens": 512}', ["hunter2-very-secret"]],
  ["password: s3cr3t!pass; other", ["s3cr3t!pass"]],
  ["https://example.com/hook?token=abcd1234efgh&x=1", ["abcd1234efgh"]],
  ["OPENAI_API_KEY='sk-live-abcdefghijklmnopqrst'", ["sk-live-abcdefghijklmnopqrst"]],
  ["AWS key AKIAIOSFODNN7EXAMPLE in config", ["AKIAIOSFODNN7EXAMPLE"]],
  ["alice@gpubox.lan:~$ ./llama-server", ["alice", "gpubox"]],
  ["Hostname: GPUBOX, user Alice", ["GPUBOX", "Alice"]],
];

for (const [line, secrets] of LEAKS) {
  Deno.test(`leak removed: ${line.slice(0, 70)}`, () => {
    const out = sanitizeText(line, context);
    for (const secret of secrets) {
      assert.ok(!out.toLowerCase().includes(secret.toLowerCase()), `"${secret}" survived in: ${out}`);
    }
    assert.match(out, /<(home|user|host|secret|email|abs-path|private-ip-\d+)>/);
  });
}

/** Innocent text that must come through byte for byte. */
const INNOCENT = [
  "llama.cpp build b6890-80fb11a, CUDA 12.8, driver 570.133.07, version 10.0.1, protocol v1",
  "model Qwen3-30B-A3B-Q4_K_M-00001-of-00002.gguf (qwen3moe, 30.53 B params)",
  "server listening on http://127.0.0.1:8080 and http://[::1]:8080 and http://localhost:8080",
  "bound to 0.0.0.0; public resolver 8.8.8.8; docs at 172.15.0.1 and 172.32.0.1 are not private",
  "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 fd3a4b5c6d7e8f90",
  '{"max_tokens": 512, "cached_tokens": 236, "bos_token": "<|im_start|>", "reasoning_budget_tokens": 0}',
  "prompt eval time = 30.90 ms / 1 tokens; eos token: 151645; n_tokens = 4096",
  "the token count and the password reset page; Bearer of bad news",
  '{"role": "user", "content": "[case sanity-I1]\\nReturn only a JSON object"}',
  "timings: 1.2.3.4.5 and 10.0.0 and 192.168.1 (not addresses)",
  "file /home/ alone, /homepage, https://example.com/home/about",
  "task sk-1 and hf_hub cache",
];

for (const text of INNOCENT) {
  Deno.test(`innocent text unchanged: ${text.slice(0, 60)}`, () => {
    assert.equal(sanitizeText(text, context), text);
  });
}

Deno.test("generic user names (root, user) are redacted only inside home paths, never as words", () => {
  const out = sanitizeText('{"role":"user"} /home/user/m.gguf run as root in /root', { username: "user" });
  assert.equal(out, '{"role":"user"} <home>/m.gguf run as root in <home>');
});

Deno.test("a home folder outside the usual places is redacted when the context names it", () => {
  assert.equal(
    sanitizeText("cache /var/lib/svc-llm/.cache/x", { homeDir: "/var/lib/svc-llm" }),
    "cache <home>/.cache/x",
  );
});

Deno.test("known literal secrets from the context are removed wherever they appear", () => {
  assert.equal(sanitizeText("x-key: plainvalue42 ok", { secrets: ["plainvalue42"] }), "x-key: <secret> ok");
});

Deno.test("private addresses get stable numbers across a sanitizer's text and JSON calls", () => {
  const sanitizer = createSanitizer({});
  assert.equal(
    sanitizer.text("a 10.1.1.1 b 192.168.0.9 c 10.1.1.1"),
    "a <private-ip-1> b <private-ip-2> c <private-ip-1>",
  );
  assert.deepEqual(sanitizer.json({ host: "192.168.0.9", other: "10.9.9.9" }), {
    host: "<private-ip-2>",
    other: "<private-ip-3>",
  });
});

Deno.test("sanitizeJson redacts secret-named keys whatever their value, argv secrets, and leaves numbers alone", () => {
  const input = {
    command: ["llama-server", "--api-key", "opensesame", "-c", "32768", "--host", "192.168.2.2"],
    env: { HF_TOKEN: "abc", api_key: 12345, max_tokens: 512, token: "t0ken-value" },
    path: "/home/alice/x",
    nested: [{ Authorization: "Bearer abcdefghijk" }],
  };
  const copy = structuredClone(input);
  assert.deepEqual(sanitizeJson(input, context), {
    command: ["llama-server", "--api-key", "<secret>", "-c", "32768", "--host", "<private-ip-1>"],
    env: { HF_TOKEN: "<secret>", api_key: "<secret>", max_tokens: 512, token: "<secret>" },
    path: "<home>/x",
    nested: [{ Authorization: "Bearer <secret>" }],
  });
  assert.deepEqual(input, copy, "the input is not modified");
});

Deno.test("secret names: api keys, tokens, passwords yes; token counts and special tokens no", () => {
  for (
    const name of [
      "api_key",
      "API-KEY",
      "apikey",
      "HF_TOKEN",
      "access_token",
      "client_secret",
      "password",
      "token",
      "--api-key",
    ]
  ) {
    assert.equal(isSecretName(name), true, name);
  }
  for (
    const name of ["max_tokens", "bos_token", "eos_token", "cached_tokens", "tokenizer", "n_tokens", "passed", "key"]
  ) {
    assert.equal(isSecretName(name), false, name);
  }
});

Deno.test("sanitizing twice changes nothing more (placeholders are stable)", () => {
  const once = sanitizeText(
    "Authorization: Bearer abcdefghijkl /home/alice 10.0.0.1 sk-abcdefghijklmnopqrstu",
    context,
  );
  assert.equal(sanitizeText(once, context), once);
});

Deno.test("the corpus: no private string survives sanitizeText, and a second pass changes nothing", async () => {
  const { CORPUS_CONTEXT, PRIVATE } = await import("./_sanitizer_corpus.ts");
  assert.ok(PRIVATE.length >= 150, `${PRIVATE.length} private strings`);
  const survivors = PRIVATE.filter(({ line, secret }) =>
    sanitizeText(line, CORPUS_CONTEXT).toLowerCase().includes(secret.toLowerCase())
  );
  assert.deepEqual(survivors.map((s) => `${s.category}: ${s.line}`), []);
  for (const { line } of PRIVATE) {
    const once = sanitizeText(line, CORPUS_CONTEXT);
    assert.equal(sanitizeText(once, CORPUS_CONTEXT), once, line);
  }
});

Deno.test("the corpus: every innocent look-alike comes through sanitizeText and sanitizeJson unchanged", async () => {
  const { CORPUS_CONTEXT, INNOCENT } = await import("./_sanitizer_corpus.ts");
  assert.ok(INNOCENT.length >= 60, `${INNOCENT.length} innocent strings`);
  assert.deepEqual(INNOCENT.filter((text) => sanitizeText(text, CORPUS_CONTEXT) !== text), []);
  assert.deepEqual(sanitizeJson({ answers: [...INNOCENT] }, CORPUS_CONTEXT), { answers: [...INNOCENT] });
});

Deno.test("the corpus inside JSON values and keys: sanitizeJson leaves no private string in any decoded string", async () => {
  const { CORPUS_CONTEXT, PRIVATE } = await import("./_sanitizer_corpus.ts");
  const value = { lines: PRIVATE.map((c) => c.line), nested: Object.fromEntries(PRIVATE.map((c, i) => [c.line, i])) };
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        strings.push(k);
        walk(item);
      }
    }
  };
  walk(sanitizeJson(value, CORPUS_CONTEXT));
  const survivors = PRIVATE.filter(({ secret }) => strings.some((s) => s.toLowerCase().includes(secret.toLowerCase())));
  assert.deepEqual(survivors.map((s) => s.line), []);
});

Deno.test("a sanitizer remembers what it made of a text: the same output as sanitizing afresh, numbering kept", () => {
  const context = { username: "alice", hostname: "box.lan", homeDir: "/home/alice" };
  const remembering = createSanitizer(context);
  const texts = ["GET http://10.0.0.5:8080 from /home/alice/x", "10.0.0.9 then 10.0.0.5", "plain text"];
  const afresh = { ...context, addressNumbers: new Map<string, number>() };
  for (let round = 0; round < 3; round++) {
    for (const t of texts) assert.equal(remembering.text(t), sanitizeText(t, afresh));
  }
  assert.deepEqual(
    remembering.json({ a: texts[0], b: [texts[1]] }),
    sanitizeJson({ a: texts[0], b: [texts[1]] }, afresh),
  );
});
