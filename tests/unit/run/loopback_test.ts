import assert from "node:assert/strict";
import { classifyServerUrl } from "../../../runner/_loopback.ts";

Deno.test("127.0.0.0/8, ::1 and localhost are loopback", () => {
  for (
    const url of [
      "http://127.0.0.1:8080",
      "http://127.0.0.2:1",
      "http://127.255.0.9",
      "http://[::1]:8080",
      "http://localhost:8080",
      "http://LOCALHOST",
      "http://127.1:80",
      "http://[0:0:0:0:0:0:0:1]/",
    ]
  ) {
    assert.equal(classifyServerUrl(url).loopback, true, url);
  }
});

Deno.test("addresses outside loopback make the server remote", () => {
  for (
    const url of [
      "http://192.168.1.20:8080",
      "http://10.0.0.1",
      "http://128.0.0.1",
      "http://example.com",
      "http://localhost.example.com",
      "http://[::2]",
      "http://0.0.0.0:8080",
    ]
  ) {
    const verdict = classifyServerUrl(url);
    assert.equal(verdict.loopback, false, url);
    assert.match(verdict.reason, /not on loopback/);
  }
});

Deno.test("a URL that is not http(s) is a usage problem", () => {
  assert.throws(() => classifyServerUrl("127.0.0.1:8080"), TypeError);
  assert.throws(() => classifyServerUrl("ftp://127.0.0.1/"), TypeError);
});
