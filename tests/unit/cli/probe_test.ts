import assert from "node:assert/strict";
import { captured } from "../probe/_fake.ts";

const DENO = Deno.execPath();
const MOD = new URL("../../../mod.ts", import.meta.url).pathname;

async function probe(permissions: string[], args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(DENO, {
    args: ["run", "--no-prompt", ...permissions, MOD, "probe", ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

Deno.test("probe with every permission refused still prints the facts, each null explained by the flag to add", async () => {
  const { code, stdout } = await probe([], []);
  assert.equal(code, 0);
  const facts = JSON.parse(stdout);
  assert.equal(facts.hardware.cpu, null);
  assert.equal(facts.hardware.ram_bytes, null);
  assert.equal(facts.software.runner_commit, null);
  assert.match(facts.missing["/hardware/cpu"], /--allow-read/);
  assert.match(facts.missing["/hardware/ram_bytes"], /--allow-sys/);
  assert.match(facts.missing["/software/runner_commit"], /--allow-read/);
  for (const [pointer, reason] of Object.entries(facts.missing)) {
    assert.ok(typeof reason === "string" && reason.length > 0, pointer);
  }
});

Deno.test("probe --url reads a llama-server's /props and prints no machine path from it", async () => {
  const props = captured("props-llamacpp.json");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/props") return new Response(props, { headers: { "content-type": "application/json" } });
    if (path === "/slots") return new Response(captured("slots-llamacpp.json"));
    if (path === "/metrics") return new Response(captured("metrics-served.txt"));
    return new Response("File Not Found", { status: 404 });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    const { code, stdout } = await probe(["--allow-net=127.0.0.1", "--allow-read"], ["--url", url, "--no-cache"]);
    assert.equal(code, 0);
    const facts = JSON.parse(stdout);
    assert.equal(facts.server.dialect, "llama.cpp");
    assert.equal(facts.software.engine_version, "b6890-80fb11a");
    assert.equal(facts.configuration.context_tokens, 32768);
    assert.equal(facts.configuration.server_capacity, 1);
    assert.match(facts.configuration.template.sha256, /^[0-9a-f]{64}$/);
    assert.equal(facts.server.prior_requests.served, null);
    assert.equal(facts.server.prior_requests.at_least, 1);
    assert.deepEqual(facts.model.files.map((f: { path: string }) => f.path), [
      "Qwen3-30B-A3B-Q4_K_M-00001-of-00002.gguf",
      "Qwen3-30B-A3B-Q4_K_M-00002-of-00002.gguf",
    ]);
    assert.ok(!stdout.includes("/home/alice"), "the server's model path is not printed");
    assert.ok(facts.nonconforming_reasons.some((r: string) => r.startsWith("cannot hash model file")));
  } finally {
    await server.shutdown();
  }
});

Deno.test("probe --url against a port nobody listens on prints the facts and exits with the environment code", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const { code, stdout } = await probe(["--allow-net=127.0.0.1"], ["--url", `http://127.0.0.1:${port}`]);
  assert.equal(code, 3);
  assert.match(JSON.parse(stdout).server.endpoint_problems["/props"], /failed/);
});

Deno.test("probe rejects an unknown flag with the usage exit code", async () => {
  const { code, stderr } = await probe([], ["--bogus"]);
  assert.equal(code, 2);
  assert.match(stderr, /Cannot run probe: .*bogus/);
});

Deno.test("probe --template prints the counts side by side and exits 1 on a mismatch", async () => {
  const { loadBundle } = await import("../../../fixtures/mod.ts");
  const { startMockEngine } = await import("../../../mock/mod.ts");
  const { fixtures } = await loadBundle();
  const counts = Object.fromEntries(fixtures.map((f) => [f.id, f.input_tokens]));
  counts["sanity-R1"] = 3000;
  const engine = await startMockEngine({ timeScale: 0, tokenCounts: counts });
  try {
    const { code, stdout } = await probe(["--allow-net=127.0.0.1", "--allow-read"], [
      "--template",
      "--url",
      engine.url,
    ]);
    assert.equal(code, 1, stdout);
    assert.match(stdout, /: 33 match, 1 mismatch, 0 unchecked\n/);
    assert.match(stdout, /\nsanity-R1 +4085 +3000 +\d+ +0 +mismatch: 3000 tokens, 1085 off the frozen 4085/);
    assert.equal(engine.requests.length, 0, "nothing was generated");
  } finally {
    await engine.close();
  }
});
