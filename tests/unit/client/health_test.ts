import assert from "node:assert/strict";
import { checkHealth } from "../../../client/health.ts";
import { closeIdleConnections } from "../../../client/stream_client.ts";
import { startRawServer, within, writePieces } from "./_raw_server.ts";

async function answer(response: string) {
  const server = await startRawServer((ex) => writePieces(ex.socket, [response]));
  try {
    const result = await within(checkHealth(server.baseUrl, 2000), 5000, "the health answer");
    return { result, request: server.requests[0]?.head ?? "" };
  } finally {
    closeIdleConnections();
    await server.close();
  }
}

Deno.test("/health 200 is ok", async () => {
  const body = '{"status":"ok"}';
  const { result, request } = await answer(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  assert.deepEqual(result, { ok: true, status: 200, message: "ok", connected: true });
  assert.match(request, /^GET \/health HTTP\/1\.1\r\n/);
});

Deno.test("/health 503 while loading is not ok and carries the server's message", async () => {
  const body = '{"error":{"message":"Loading model","type":"unavailable_error","code":503}}';
  const { result } = await answer(`HTTP/1.1 503 Service Unavailable\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  assert.deepEqual(result, { ok: false, status: 503, message: "Loading model", connected: true });
});

Deno.test("a refused connection is not ok, with no status", async () => {
  const server = await startRawServer(() => {});
  await server.close();
  const result = await within(checkHealth(server.baseUrl, 2000), 5000, "the health answer");
  assert.equal(result.ok, false);
  assert.equal(result.status, null);
  assert.match(result.message, /refused/);
});

Deno.test("a server that never answers times out as not ok", async () => {
  const server = await startRawServer(() => {});
  try {
    const result = await within(checkHealth(server.baseUrl, 100), 5000, "the health answer");
    assert.equal(result.ok, false);
    assert.match(result.message, /within 100 ms/);
  } finally {
    await server.close();
  }
});

Deno.test("a malformed base URL is not ok, and says so", async () => {
  const result = await checkHealth("not a url");
  assert.equal(result.ok, false);
  assert.match(result.message, /Cannot parse base URL/);
});

Deno.test("/health answered by a plain web server's HTML page is described with its status, never copied", async () => {
  const body = "<!DOCTYPE HTML>\n<html><head><title>Error response</title></head>\n<body><h1>404</h1></body></html>\n";
  const { result } = await answer(
    `HTTP/1.1 404 Not Found\r\nContent-Type: text/html;charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  assert.equal(result.ok, false);
  assert.equal(result.status, 404);
  assert.match(result.message, /^HTTP 404: a markup \(HTML\) body of \d+ bytes that is no JSON error/);
  assert.ok(!result.message.includes("<"), result.message);
});
