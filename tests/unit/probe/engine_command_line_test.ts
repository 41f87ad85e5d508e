import assert from "node:assert/strict";
import { declaredEngineArgs, shortEngineCommit } from "../../../probe/mod.ts";
import { idsInPackIndex, resolveEngineCommit } from "../../../probe/engine_source.ts";
import { observeEngineCommandLine, splitCommandLine } from "../../../probe/engine_command_line.ts";
import { fakeDeps } from "./_fake.ts";

const SS = 'LISTEN 0      512    127.0.0.1:8080 0.0.0.0:* users:(("llama-server",pid=77,fd=3))\n';
const SS_QUERY = "ss -Hltnp sport = :8080";
const PS = "/opt/llama/bin/llama-server -m /models/q.gguf -c 32768 -ctk q8_0 -ngl 99\n";

Deno.test("command lines split as a POSIX shell splits words", () => {
  assert.deepEqual(splitCommandLine(`llama-server -m '/m/a b.gguf' --alias "x \\"y\\"" -c\t4096 a\\ b ""`), [
    "llama-server",
    "-m",
    "/m/a b.gguf",
    "--alias",
    'x "y"',
    "-c",
    "4096",
    "a b",
    "",
  ]);
  assert.throws(() => splitCommandLine("-m 'open"), /quote is not closed/);
  assert.deepEqual(declaredEngineArgs("./llama-server -c 8").argv, ["-c", "8"]);
  assert.deepEqual(declaredEngineArgs("-c 8").argv, ["-c", "8"]);
  assert.throws(() => declaredEngineArgs("  "), /empty --engine-args/);
});

Deno.test("Linux: ss names the listening process and ps gives its command line", async () => {
  const deps = fakeDeps({ commands: { [SS_QUERY]: SS, "ps -ww -o args= -p 77": PS } });
  const read = await observeEngineCommandLine("http://127.0.0.1:8080", deps);
  assert.deepEqual(read, {
    ok: true,
    argv: ["-m", "/models/q.gguf", "-c", "32768", "-ctk", "q8_0", "-ngl", "99"],
    program: "llama-server",
    source: "observed: ss port 8080 -> ps -o args= -p 77 (one line: an argument holding a space is split)",
  });
});

Deno.test("Linux: no listener, another user's process, another program, a refused tool: each a reason", async () => {
  const none = await observeEngineCommandLine("http://127.0.0.1:8080", fakeDeps({ commands: { [SS_QUERY]: "" } }));
  assert.ok(!none.ok && /no process on this machine listens on TCP port 8080 \(ss\)/.test(none.reason));
  const hidden = await observeEngineCommandLine(
    "http://localhost:8080",
    fakeDeps({ commands: { [SS_QUERY]: "LISTEN 0 512 127.0.0.1:8080 0.0.0.0:*\n" } }),
  );
  assert.ok(!hidden.ok && /names no process .* --engine-args/.test(hidden.reason), JSON.stringify(hidden));
  const proxy = await observeEngineCommandLine(
    "http://[::1]:8080",
    fakeDeps({ commands: { [SS_QUERY]: SS, "ps -ww -o args= -p 77": "/usr/bin/docker-proxy -host-port 8080\n" } }),
  );
  assert.ok(!proxy.ok && /is "docker-proxy", not llama-server/.test(proxy.reason));
  const refused = await observeEngineCommandLine(
    "http://127.0.0.1:8080",
    fakeDeps({ commands: { [SS_QUERY]: { refuse: "permission" } } }),
  );
  assert.ok(!refused.ok && /ss cannot list the listening sockets \(permission to run ss refused/.test(refused.reason));
  // A word longer than Linux lets one argument be is not a command line a process can have (a hostile ps).
  const word = "\u0000".repeat(131_073);
  const forged = await observeEngineCommandLine(
    "http://127.0.0.1:8080",
    fakeDeps({ commands: { [SS_QUERY]: SS, "ps -ww -o args= -p 77": `/opt/llama-server --alias ${word}\n` } }),
  );
  assert.ok(!forged.ok && /a word of 131073 characters .* \(131072 bytes\), so it is not/.test(forged.reason));
  const longest = await observeEngineCommandLine(
    "http://127.0.0.1:8080",
    fakeDeps({ commands: { [SS_QUERY]: SS, "ps -ww -o args= -p 77": `/opt/llama-server --alias ${word.slice(1)}\n` } }),
  );
  assert.ok(longest.ok, "a word at the limit is read");
  const remote = await observeEngineCommandLine("http://10.0.0.2:8080", fakeDeps({}));
  assert.ok(!remote.ok && /not on this machine's loopback/.test(remote.reason));
});

Deno.test("macOS: lsof names the PID and ps gives the command as one line; elsewhere a reason", async () => {
  const deps = fakeDeps({
    platform: "darwin",
    commands: {
      "lsof -nP -iTCP:8080 -sTCP:LISTEN -Fp": "p501\nf7\n",
      "ps -ww -o args= -p 501": "/usr/local/bin/llama-server -m /m/q.gguf -fa on\n",
    },
  });
  const read = await observeEngineCommandLine("http://127.0.0.1:8080", deps);
  assert.ok(read.ok);
  assert.deepEqual(read.argv, ["-m", "/m/q.gguf", "-fa", "on"]);
  assert.match(read.source, /lsof port 8080 -> ps -o args= -p 501/);
  const windows = await observeEngineCommandLine("http://127.0.0.1:8080", fakeDeps({ platform: "win32" }));
  assert.ok(!windows.ok && /supported on Linux and macOS/.test(windows.reason));
});

/** A version-2 pack index holding `ids` (sorted), as git writes it: magic, version, fan-out, ids. */
function packIndex(ids: string[]): Uint8Array {
  const sorted = [...ids].sort();
  const bytes = new Uint8Array(8 + 1024 + sorted.length * 20);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0xff744f63);
  view.setUint32(4, 2);
  for (let b = 0; b < 256; b++) {
    view.setUint32(8 + b * 4, sorted.filter((id) => parseInt(id.slice(0, 2), 16) <= b).length);
  }
  sorted.forEach((id, i) => bytes.set(id.match(/../g)!.map((h) => parseInt(h, 16)), 8 + 1024 + i * 20));
  return bytes;
}

const FULL = "80fb11ac73e66d89eae2c6a91d8a77428fa733ed";

Deno.test("the short commit of build_info resolves to the one full id in the checkout's packs or loose objects", async () => {
  assert.equal(shortEngineCommit("b7000-80fb11a"), "80fb11a");
  assert.equal(shortEngineCommit("unknown"), null);
  assert.deepEqual(idsInPackIndex(packIndex([FULL, "80aa" + "0".repeat(36)]), "80fb11a"), [FULL]);
  assert.equal(idsInPackIndex(new Uint8Array(10), "80"), null);
  const packed = fakeDeps({
    dirs: { "/src/.git": [], "/src/.git/objects": [], "/src/.git/objects/pack": ["pack-1.idx", "pack-1.pack"] },
    binaries: { "/src/.git/objects/pack/pack-1.idx": packIndex([FULL, "ffff" + "0".repeat(36)]) },
  });
  assert.deepEqual(await resolveEngineCommit("/src", "80fb11a", packed), { ok: true, value: FULL });
  const loose = fakeDeps({
    dirs: { "/src/.git": [], "/src/.git/objects": [], "/src/.git/objects/80": [FULL.slice(2)] },
  });
  assert.deepEqual(await resolveEngineCommit("/src/", "80FB11A", loose), { ok: true, value: FULL });
  const missing = await resolveEngineCommit("/src", "1234567", loose);
  assert.ok(!missing.ok && /has no commit 1234567/.test(missing.reason));
  const ambiguous = fakeDeps({
    dirs: {
      "/src/.git": [],
      "/src/.git/objects": [],
      "/src/.git/objects/80": [FULL.slice(2), "fb11a" + "1".repeat(33)],
    },
  });
  const two = await resolveEngineCommit("/src", "80fb11a", ambiguous);
  assert.ok(!two.ok && /names 2 objects/.test(two.reason));
  const notGit = await resolveEngineCommit("/tmp", "80fb11a", fakeDeps({}));
  assert.ok(!notGit.ok && /is not a git checkout/.test(notGit.reason));
});
