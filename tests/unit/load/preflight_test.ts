import assert from "node:assert/strict";
import { checkStreamingServer, PREFLIGHT_PROMPT, preflightBody } from "../../../load/preflight.ts";
import { streamChat } from "../../../client/mod.ts";
import { startMockEngine } from "../../../mock/mod.ts";

const deps = { streamChat };
const options = { stream: true, deadlineS: 10 };

/** A plain web server on port 0 that answers every request with `status` and an HTML page. */
function webServer(status: number, body: string, type = "text/html; charset=utf-8") {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () => new Response(body, { status, headers: { "content-type": type } }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Deno.test("a streaming chat server passes the preflight with one tiny request of its own", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const checked = await checkStreamingServer(engine.url, deps, options);
    assert.equal(checked.ok, true, checked.reason ?? "");
    assert.equal(checked.http_status, 200);
    assert.equal(engine.requests.length, 1);
    assert.equal(preflightBody({ stream: true }).max_tokens, 1);
    assert.ok(PREFLIGHT_PROMPT.startsWith("[case preflight]"));
  } finally {
    await engine.close();
  }
});

Deno.test("a plain web server is refused as not an OpenAI-compatible server, with its status, never its page", async () => {
  const page = "<!DOCTYPE html><html><body><h1>Directory listing</h1><script>evil()</script></body></html>";
  for (const status of [200, 404, 501]) {
    const web = webServer(status, page);
    try {
      const checked = await checkStreamingServer(web.url, deps, options);
      assert.equal(checked.ok, false);
      assert.equal(checked.http_status, status);
      // Said as a person would: not an OpenAI-compatible server, an HTML page of so many bytes.
      assert.match(
        checked.reason!,
        new RegExp(
          `^${web.url} is not an OpenAI-compatible server: POST /v1/chat/completions answered HTTP ${status} ` +
            `with an HTML page( \\(${page.length} bytes\\))?$`,
        ),
      );
      assert.ok(!checked.reason!.includes("Directory listing") && !checked.reason!.includes("<"), checked.reason!);
    } finally {
      await web.close();
    }
  }
});

Deno.test("a JSON error says the server's own first line (a model still loading)", async () => {
  const web = webServer(
    503,
    JSON.stringify({ error: { message: "Loading model", code: 503 } }),
    "application/json",
  );
  try {
    const checked = await checkStreamingServer(web.url, deps, options);
    assert.equal(checked.ok, false);
    assert.match(checked.reason!, /answered HTTP 503: Loading model$/);
  } finally {
    await web.close();
  }
});

Deno.test("a closed port: nothing answered, with the client's reason", async () => {
  const web = webServer(200, "");
  const url = web.url;
  await web.close();
  const checked = await checkStreamingServer(url, deps, options);
  assert.equal(checked.ok, false);
  assert.equal(checked.http_status, null);
  assert.match(checked.reason!, new RegExp(`^nothing answered at ${url} \\(.*refused`));
});

Deno.test("a --url ending in /v1 is told to drop it (the tool adds /v1/chat/completions)", async () => {
  const web = webServer(404, JSON.stringify({ error: { message: "File Not Found", code: 404 } }), "application/json");
  try {
    const checked = await checkStreamingServer(`${web.url}/v1`, deps, options);
    assert.equal(checked.ok, false);
    assert.match(
      checked.reason!,
      /\/v1\/v1\/chat\/completions answered HTTP 404: File Not Found; drop \/v1 from --url/,
    );
    const root = await checkStreamingServer(web.url, deps, options);
    assert.doesNotMatch(root.reason!, /drop \/v1/, "a root URL gets no such advice");
  } finally {
    await web.close();
  }
});

Deno.test("a port that takes the connection and closes it says no HTTP answer came, never 'HTTP ?'", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      await conn.read(new Uint8Array(65536)).catch(() => null);
      conn.close();
    }
  })().catch(() => {});
  try {
    const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
    const checked = await checkStreamingServer(url, deps, options);
    assert.equal(checked.ok, false);
    assert.equal(checked.http_status, null);
    assert.match(checked.reason!, /^POST .*\/v1\/chat\/completions got no HTTP answer/);
    assert.doesNotMatch(checked.reason!, /HTTP \?/);
  } finally {
    listener.close();
    await served;
  }
});
