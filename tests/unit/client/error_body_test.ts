import assert from "node:assert/strict";
import { errorBodyMessage } from "../../../client/_error_body.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("a JSON error answer keeps the server's own message, whole", () => {
  const body = JSON.stringify({ error: { code: 400, message: "the request exceeds the available context size" } });
  assert.equal(
    errorBodyMessage(400, "application/json", bytes(body)),
    "the request exceeds the available context size",
  );
  assert.equal(errorBodyMessage(503, "application/json", bytes('{"error":"Loading model"}')), "Loading model");
  assert.equal(errorBodyMessage(422, "application/json", bytes('{"detail":"unprocessable"}')), "unprocessable");
});

Deno.test("an HTML page is described by status, content type and size, never copied", () => {
  const page = "<!DOCTYPE html>\n<html><head><title>404</title></head><body><h1>Not Found</h1>\x1b[2J</body></html>";
  const message = errorBodyMessage(404, "text/html; charset=utf-8", bytes(page));
  assert.equal(
    message,
    `a markup (HTML) body of ${page.length} bytes that is no JSON error (Content-Type text/html; charset=utf-8; not kept)`,
  );
  assert.ok(!message.includes("<") && !message.includes("Not Found"));
});

Deno.test("a short plain-text body is kept; a long or many-line one is described", () => {
  assert.equal(errorBodyMessage(500, "text/plain", bytes("engine crashed")), "engine crashed");
  const long = "x".repeat(301);
  assert.match(
    errorBodyMessage(500, undefined, bytes(long)),
    /^a body of 301 bytes that is no JSON error \(no Content-Type; not kept\)$/,
  );
  assert.match(errorBodyMessage(500, "text/plain", bytes("line one\nline two")), /^a body of 17 bytes/);
  assert.equal(errorBodyMessage(500, undefined, bytes("  ")), "HTTP 500 with an empty body (no Content-Type)");
});
