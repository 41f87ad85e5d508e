import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { probeServer } from "../../../probe/mod.ts";
import { engineCommitFromBuildInfo, priorRequestsFrom } from "../../../probe/server.ts";
import { parsePrometheusText } from "../../../probe/_prometheus.ts";
import { captured } from "./_fake.ts";

type Route = { status: number; body: string };

/** A fetch that answers from a table of routes (404 elsewhere) and records the paths asked for. */
function routes(table: Record<string, Route | string>): typeof fetch & { asked: string[] } {
  const asked: string[] = [];
  const fake = (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    asked.push(url.pathname);
    const route = table[url.pathname];
    if (route === undefined) return Promise.resolve(new Response("File Not Found", { status: 404 }));
    const { status, body } = typeof route === "string" ? { status: 200, body: route } : route;
    return Promise.resolve(new Response(body, { status }));
  };
  return Object.assign(fake, { asked }) as typeof fetch & { asked: string[] };
}

const METRICS_OFF = {
  status: 501,
  body:
    '{"error":{"code":501,"message":"This server does not support metrics endpoint. Start it with `--metrics`","type":"not_supported_error"}}',
};

Deno.test("a llama-server: dialect, build as engine version, n_ctx, total_slots, template hash and model path", async () => {
  const props = captured("props-llamacpp.json");
  const fetch = routes({ "/props": props, "/slots": captured("slots-llamacpp.json"), "/metrics": METRICS_OFF });
  const facts = await probeServer("http://127.0.0.1:8080", { fetch });
  const template = JSON.parse(props).chat_template as string;
  assert.equal(facts.dialect, "llama.cpp");
  assert.match(facts.dialectEvidence, /b6890-80fb11a/);
  assert.equal(facts.engineVersion, "b6890-80fb11a");
  assert.equal(facts.engineCommit, null);
  assert.match(facts.missing["/software/strata_commit"] ?? "", /no full 40-character commit/);
  assert.equal(facts.contextTokens, 32768);
  assert.equal(facts.serverCapacity, 1);
  assert.equal(facts.modelPath, "/home/alice/models/qwen3/Qwen3-30B-A3B-Q4_K_M-00001-of-00002.gguf");
  assert.equal(facts.chatTemplate?.text, template);
  assert.equal(facts.chatTemplate?.sha256, createHash("sha256").update(template).digest("hex"));
  assert.equal(facts.defaultGenerationParams?.top_k, 20);
  assert.equal(facts.missing["/configuration/template"], undefined);
  assert.ok(facts.endpointProblems["/v1/status"]?.includes("404"));
  assert.deepEqual([...fetch.asked].sort(), ["/metrics", "/props", "/slots", "/v1/status"]);
});

Deno.test("prior requests without --metrics: a slot holding a task id proves at least one; the count is null", async () => {
  const fetch = routes({
    "/props": captured("props-llamacpp.json"),
    "/slots": captured("slots-llamacpp.json"),
    "/metrics": METRICS_OFF,
  });
  const { priorRequests } = await probeServer("http://127.0.0.1:8080/", { fetch });
  assert.equal(priorRequests.served, null);
  assert.equal(priorRequests.atLeast, 1);
  assert.equal(priorRequests.freshlyLoaded, false);
  assert.match(priorRequests.reason ?? "", /HTTP 501.*--metrics/);
  assert.deepEqual(priorRequests.evidence, ["/slots slot 0 id_task 57"]);
});

Deno.test("prior requests with all /metrics counters at zero: a freshly loaded server that served 0", () => {
  const metrics = Object.fromEntries(parsePrometheusText(captured("metrics-fresh.txt")));
  const prior = priorRequestsFrom(metrics, [{ id: 0, id_task: -1 }]);
  assert.deepEqual(prior.served, 0);
  assert.equal(prior.freshlyLoaded, true);
  assert.equal(prior.reason, null);
  assert.ok(prior.evidence.includes("llamacpp:tokens_predicted_total 0"));
});

Deno.test("prior requests with nonzero token counters: at least one, count null because llama.cpp counts tokens", () => {
  const metrics = Object.fromEntries(parsePrometheusText(captured("metrics-served.txt")));
  const prior = priorRequestsFrom(metrics, null);
  assert.equal(prior.served, null);
  assert.equal(prior.atLeast, 1);
  assert.equal(prior.freshlyLoaded, false);
  assert.ok(prior.evidence.includes("llamacpp:tokens_predicted_total 4608"));
  assert.match(prior.reason ?? "", /counts tokens, not requests/);
});

Deno.test("requests in flight or queued raise the lower bound to their number", () => {
  const prior = priorRequestsFrom({
    "llamacpp:prompt_tokens_total": 0,
    "llamacpp:tokens_predicted_total": 0,
    "llamacpp:requests_processing": 1,
    "llamacpp:requests_deferred": 2,
  }, null);
  assert.equal(prior.atLeast, 3);
  assert.equal(prior.served, null);
});

Deno.test("a server with /v1/status is the strata dialect; its version and full commit are used when /props has none", async () => {
  const fetch = routes({ "/v1/status": captured("status-strata.json"), "/props": JSON.stringify({ total_slots: 2 }) });
  const facts = await probeServer("http://127.0.0.1:9000", { fetch });
  assert.equal(facts.dialect, "strata");
  assert.equal(facts.engineVersion, "0.2.1");
  assert.equal(facts.engineCommit, "4f0c2b1e9a7d3c5b8e6f1a2d4c3b5a6e7f8091a2");
  assert.equal(facts.modelPath, "/home/alice/strata/packs/flash-next-iq3/model-00001-of-00003.gguf");
  assert.equal(facts.serverCapacity, 2);
  assert.equal(facts.contextTokens, null);
  assert.ok(facts.missing["/configuration/context_tokens"]);
  assert.ok(facts.missing["/configuration/template"]);
});

Deno.test("an unknown OpenAI-compatible server: dialect unknown, every server fact null with a reason", async () => {
  const facts = await probeServer("http://127.0.0.1:8000", { fetch: routes({}) });
  assert.equal(facts.dialect, "unknown");
  assert.equal(facts.engineVersion, null);
  for (
    const pointer of [
      "/software/engine_version",
      "/configuration/context_tokens",
      "/configuration/server_capacity",
      "/configuration/template",
    ]
  ) {
    assert.match(facts.missing[pointer] ?? "", /HTTP 404/, pointer);
  }
  assert.equal(facts.priorRequests.served, null);
});

Deno.test("an unreachable server gives reasons, not an exception", async () => {
  const refused = (() =>
    Promise.reject(
      new TypeError("error sending request: Connection refused (os error 111)"),
    )) as typeof globalThis.fetch;
  const facts = await probeServer("http://127.0.0.1:1", { fetch: refused });
  assert.match(facts.endpointProblems["/props"] ?? "", /Connection refused/);
  assert.match(facts.missing["/software/engine_version"] ?? "", /Connection refused/);
});

Deno.test("a /props body that is not JSON (a proxy's HTML page) is a problem, not a crash", async () => {
  const facts = await probeServer("http://127.0.0.1:8080", { fetch: routes({ "/props": "<html>gateway</html>" }) });
  assert.match(facts.endpointProblems["/props"] ?? "", /not a JSON object/);
  assert.equal(facts.props, null);
});

Deno.test("engine commit: only a full 40-hex id counts; llama.cpp's short build commit does not", () => {
  assert.equal(engineCommitFromBuildInfo("b6890-80fb11a"), null);
  assert.equal(
    engineCommitFromBuildInfo("b6890-80FB11A6C1D2E3F4A5B6C7D8E9F0A1B2C3D4E5F6"),
    "80fb11a6c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6",
  );
  assert.equal(engineCommitFromBuildInfo("x".repeat(40)), null);
  assert.equal(engineCommitFromBuildInfo("a".repeat(41)), null, "41 hex digits is not a commit");
});

Deno.test("Prometheus text: comments skipped, labels kept in the name, timestamps and junk tolerated", () => {
  const samples = parsePrometheusText(
    '# HELP x y\nllamacpp:n_decode_total 12\nreqs{slot="0"} 3 1700000000000\nbroken line here\nnan_metric NaN\n',
  );
  assert.deepEqual([...samples], [["llamacpp:n_decode_total", 12], ['reqs{slot="0"}', 3]]);
});

/** A body that would go on for `totalBytes` (made lazily, so the test holds none of it), counting what was read. */
function endless(totalBytes: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = new TextEncoder().encode(`llamacpp:prompt_tokens_total 1\n`.repeat(2048));
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= totalBytes) return controller.close();
      pulled += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

Deno.test("a 60 MB /metrics is read only up to its cap and gives a reason, not 60 MB held", async () => {
  const body = endless(60 * 1024 * 1024);
  const fetch = ((input: RequestInfo | URL) => {
    const path = new URL(String(input)).pathname;
    if (path === "/metrics") return Promise.resolve(new Response(body.stream));
    if (path === "/props") return Promise.resolve(new Response(captured("props-llamacpp.json")));
    return Promise.resolve(new Response("no", { status: 404 }));
  }) as typeof globalThis.fetch;
  const facts = await probeServer("http://127.0.0.1:8080", { fetch });
  assert.equal(facts.metrics, null);
  assert.match(facts.endpointProblems["/metrics"]!, /answered more than 4194304 bytes; not read/);
  assert.ok(body.pulled() < 5 * 1024 * 1024, `${body.pulled()} bytes pulled`);
});

Deno.test("a chat template over the copy cap is recorded by its SHA-256 and size, not copied", async () => {
  const props = JSON.parse(captured("props-llamacpp.json"));
  const template = "{{ messages }}".repeat(80_000); // 1,120,000 bytes
  props.chat_template = template;
  const facts = await probeServer("http://127.0.0.1:8080", { fetch: routes({ "/props": JSON.stringify(props) }) });
  assert.equal(facts.chatTemplate, null);
  const sha = createHash("sha256").update(template).digest("hex");
  assert.equal(
    facts.missing["/configuration/template"],
    `the server's chat template is 1120000 bytes, more than the 1048576 bytes the runner copies; it is not ` +
      `attached (its SHA-256 is ${sha})`,
  );
});

Deno.test("an endpoint that sends headers and then stalls is given up at the deadline", async () => {
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input)).pathname;
    if (path !== "/props") return Promise.resolve(new Response("no", { status: 404 }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"chat_template":"'));
        init?.signal?.addEventListener("abort", () => controller.error(init.signal?.reason));
      },
    });
    return Promise.resolve(new Response(stream));
  }) as typeof globalThis.fetch;
  const facts = await probeServer("http://127.0.0.1:8080", { fetch, timeoutMs: 50 });
  assert.equal(facts.props, null);
  assert.match(facts.endpointProblems["/props"]!, /did not answer within 50 ms/);
});
