import assert from "node:assert/strict";
import { classifyServerUrl, isLoopbackHost } from "../../../client/mod.ts";
import { requireLoopback } from "../../../cli/_workload_args.ts";
import { runMockCommand } from "../../../cli/mock.ts";
import { EXIT } from "../../../cli/exit_codes.ts";
import { parseProfile } from "../../../engine/profile.ts";

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

const ACCEPTED_HOSTS = ["127.0.0.2", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"];
const REFUSED_HOSTS = ["10.0.0.1", "192.0.2.1", "example.com"];

/** The host as it stands in a URL (IPv6 in brackets). */
function urlFor(host: string): string {
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:8080`;
}

/** Whether `load --url` accepts the host (it throws a usage error for a non-loopback one). */
function loadAccepts(host: string): boolean {
  try {
    requireLoopback(urlFor(host));
    return true;
  } catch (error) {
    assert.match((error as Error).message, /not on loopback/, host);
    return false;
  }
}

/** Whether an engine profile with this host parses (every other field is valid). */
function profileAccepts(host: string): boolean {
  const text = JSON.stringify({ label: "x", engine: "/e", args: [], host, port: 8090 });
  try {
    parseProfile(text, "x", { vars: {}, env: () => undefined });
    return true;
  } catch (error) {
    assert.match((error as Error).message, /\/host: .* is not loopback/, host);
    return false;
  }
}

/**
 * Whether `mock --host` passes its loopback check. `--slots 0` is refused right after the host check, so an
 * accepted host ends in that refusal and the mock never binds a socket.
 */
async function mockAccepts(host: string): Promise<boolean> {
  const err: string[] = [];
  const code = await runMockCommand(["--host", host, "--slots", "0"], {
    stdout: () => {},
    stderr: (text) => void err.push(text),
    stopped: new Promise(() => {}),
  });
  assert.equal(code, EXIT.usage, host);
  const message = err.join("");
  assert.match(message, /is not loopback|--slots must be/, host);
  return !/is not loopback/.test(message);
}

Deno.test("run, load, engine profiles and the mock agree on which hosts are loopback", async () => {
  for (const [hosts, expected] of [[ACCEPTED_HOSTS, true], [REFUSED_HOSTS, false]] as const) {
    for (const host of hosts) {
      assert.equal(isLoopbackHost(host), expected, `isLoopbackHost ${host}`);
      assert.equal(classifyServerUrl(urlFor(host)).loopback, expected, `run --url ${host}`);
      assert.equal(loadAccepts(host), expected, `load --url ${host}`);
      assert.equal(profileAccepts(host), expected, `profile host ${host}`);
      assert.equal(await mockAccepts(host), expected, `mock --host ${host}`);
    }
  }
});

Deno.test("a bracketed IPv6 profile host is stored bare so the engine gets --host ::1 and a valid base URL", () => {
  const profile = parseProfile(
    JSON.stringify({ label: "x", engine: "/e", args: [], host: "[::1]", port: 8090 }),
    "x",
    { vars: {}, env: () => undefined },
  );
  assert.equal(profile.host, "::1");
});

Deno.test("a host with a port, path or user part is not a loopback host", () => {
  for (const host of ["127.0.0.1:80", "127.0.0.1/x", "127.0.0.1@example.com", "[::1", "", "0.0.0.0", "::2"]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});
