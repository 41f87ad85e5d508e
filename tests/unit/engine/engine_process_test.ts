import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import { type EngineProfile, EngineStartError, startEngine } from "../../../engine/mod.ts";
import { sys } from "../../../runtime/mod.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/**
 * A stand-in engine: answers /health 503 for its first two probes, then 200; prints llama-server's "listening on"
 * line; optionally ignores SIGTERM or exits at once with a message.
 */
const FAKE = `
import { createServer } from "node:http";
import process from "node:process";
const mode = process.argv[2];
const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
if (mode === "crash") { console.error("error: cannot open model file"); process.exit(3); }
if (mode === "stubborn") process.on("SIGTERM", () => console.error("ignoring SIGTERM"));
let probes = 0;
const server = createServer((req, res) => {
  probes++;
  res.writeHead(probes > 2 ? 200 : 503, { "content-type": "application/json" });
  res.end(probes > 2 ? '{"status":"ok"}' : '{"error":{"message":"Loading model"}}');
});
server.listen(port, "127.0.0.1", () => console.error("main: listening on http://127.0.0.1:" + server.address().port));
`;

async function withFake(fn: (script: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "strata-fake-engine-"));
  const script = join(dir, "fake.mjs");
  await writeFile(script, FAKE);
  try {
    await fn(script);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function profile(script: string, mode: string, overrides: Partial<EngineProfile> = {}): EngineProfile {
  const exec = sys.execPath();
  assert.ok(exec.ok);
  return {
    name: "fake",
    label: "fake engine",
    engine: exec.value,
    args: ["run", "--allow-net", "--allow-env", script, mode],
    host: "127.0.0.1",
    port: 0,
    env: {},
    modelFiles: [],
    readyTimeoutS: 30,
    stopGraceS: 0.5,
    engineCommit: null,
    ...overrides,
  };
}

Deno.test(
  "an engine on port 0 is found through its log, waited for past 503, and stopped by SIGTERM",
  options,
  async () => {
    await withFake(async (script) => {
      const engine = await startEngine(profile(script, "normal"));
      try {
        assert.equal(engine.started, true);
        assert.match(engine.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.equal((await fetch(`${engine.baseUrl}/health`)).status, 200);
        assert.deepEqual(engine.engineArgs?.slice(-4), ["--host", "127.0.0.1", "--port", "0"]);
        assert.match(engine.log(), /listening on/);
      } finally {
        assert.deepEqual(await engine.stop(), { code: null, signal: "SIGTERM" });
      }
    });
  },
);

Deno.test("an engine that ignores SIGTERM is killed after the grace period", options, async () => {
  await withFake(async (script) => {
    const engine = await startEngine(profile(script, "stubborn"));
    assert.equal((await engine.stop())?.signal, "SIGKILL");
    assert.match(engine.log(), /ignoring SIGTERM/);
  });
});

Deno.test("an engine that exits before it is ready fails with its code and the log's tail", options, async () => {
  await withFake(async (script) => {
    await assert.rejects(startEngine(profile(script, "crash")), (error: unknown) => {
      assert.ok(error instanceof EngineStartError);
      assert.equal(error.code, "exited");
      assert.match(error.message, /exited with code 3/);
      assert.match(error.message, /\| error: cannot open model file/);
      return true;
    });
  });
});

Deno.test(
  "a server already on the profile's port is used and left running; --no-start refuses an empty port",
  options,
  async () => {
    const server = createServer((_req, res) => res.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const missing = profile("unused.mjs", "normal", { engine: "/nonexistent/llama-server", port });
      const engine = await startEngine(missing, { noStart: true });
      assert.equal(engine.started, false);
      assert.equal(engine.baseUrl, `http://127.0.0.1:${port}`);
      assert.equal(await engine.stop(), null);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const refused = profile("unused.mjs", "normal", { engine: "/nonexistent/llama-server", port });
    await assert.rejects(startEngine(refused, { noStart: true }), /--no-start forbids starting/);
    await assert.rejects(startEngine(refused), /not found.*engine:build/);
  },
);
