import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chatOnce } from "../../../client/chat_once.ts";

/** A one-route server answering POST /v1/chat/completions with `reply(body)`; closed by the caller. */
async function server(reply: (body: string, res: http.ServerResponse) => void) {
  const s = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => body += c);
    req.on("end", () => reply(body, res));
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => s.close(() => resolve())) };
}

Deno.test("a non-streaming completion gives choice 0's text, usage and finish reason, and no delta stamps", async () => {
  const s = await server((_body, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      choices: [
        { index: 1, message: { content: "not me" }, finish_reason: "length" },
        { index: 0, message: { content: "hello", reasoning_content: "think" }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 7 },
    }));
  });
  try {
    const o = await chatOnce({ baseUrl: s.url, body: { messages: [], stream: false } });
    assert.equal(o.end, "finished");
    assert.equal(o.answer_text, "hello");
    assert.equal(o.reasoning_text, "think");
    assert.equal(o.finish_reason, "stop");
    assert.deepEqual(o.usage, { prompt_tokens: 5, completion_tokens: 7 });
    assert.equal(o.offsets.first_delta_s, null);
    assert.equal(o.offsets.first_answer_s, null);
    assert.ok((o.offsets.headers_s as number) >= 0 && o.offsets.end_s >= (o.offsets.headers_s as number));
  } finally {
    await s.close();
  }
});

Deno.test("a non-streaming HTTP error, a body without finish_reason and an unreadable body are failed outcomes", async () => {
  const cases: [number, string, string][] = [
    [500, `{"error":{"message":"boom"}}`, "http_error"],
    [200, `{"choices":[{"index":0,"message":{"content":"x"}}]}`, "no_finish"],
    [200, `not json`, "malformed"],
  ];
  for (const [status, text, end] of cases) {
    const s = await server((_b, res) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(text);
    });
    try {
      const o = await chatOnce({ baseUrl: s.url, body: {} });
      assert.equal(o.end, end, text);
      assert.notEqual(o.error_message, null);
    } finally {
      await s.close();
    }
  }
});
