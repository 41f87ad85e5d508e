import assert from "node:assert/strict";
import { LOAD_V8_FLAGS, selfCommand } from "../../../runtime/_self.ts";

const NONE = { read: [], write: [], net: [], env: [], sys: [], run: [] };

Deno.test("a child of this Deno process gets the same executable and no permission the parent lacks", () => {
  // The test task grants read, write, run, env and sys whole, and net only to loopback hosts.
  const { command, args } = selfCommand("/toolkit/mod.ts", "/toolkit/deno.json", {
    ...NONE,
    net: ["127.0.0.1:8080", "example.com:443", "[::1]:9"],
  });
  assert.equal(command, Deno.execPath());
  assert.deepEqual(args.slice(0, 6), [
    "run",
    "-q",
    `--v8-flags=${LOAD_V8_FLAGS}`,
    "--no-prompt",
    "--config",
    "/toolkit/deno.json",
  ]);
  assert.equal(args.at(-1), "/toolkit/mod.ts");
  const flags = args.slice(6, -1);
  assert.ok(flags.includes("--allow-net=127.0.0.1:8080,[::1]:9"), flags.join(" "));
  assert.ok(!flags.some((f) => f.includes("example.com")), flags.join(" "));
  for (const kind of ["read", "write", "run", "env", "sys"]) assert.ok(flags.includes(`--allow-${kind}`), kind);
  assert.ok(!flags.some((f) => f.startsWith("--allow-ffi") || f === "--allow-net" || f === "-A"), flags.join(" "));
});

Deno.test("without a config the child command names none; an item with a comma is never passed", () => {
  const { args } = selfCommand("/t/mod.ts", null, { ...NONE, net: ["127.0.0.1:1,example.com"] });
  assert.ok(!args.includes("--config"));
  assert.ok(!args.some((a) => a.startsWith("--allow-net")), args.join(" "));
});
