import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import { startEngine } from "../../../engine/mod.ts";
import type { EngineProfile } from "../../../engine/profile.ts";
import { EngineStartError } from "../../../engine/engine_process.ts";
import { sys } from "../../../runtime/mod.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/**
 * A stand-in engine: answers /health 503 for its first two probes, then 200 (mode "foreign": 404 always); prints
 * llama-server's "listening on" line; optionally ignores SIGTERM or exits at once with a message.
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
  if (mode === "foreign") { res.writeHead(404); res.end("no such route"); return; }
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

Deno.test(
  "a started engine whose /health answers 404 fails at once as not an engine, with the log's tail, and is stopped",
  options,
  async () => {
    await withFake(async (script) => {
      let url = "";
      await assert.rejects(startEngine(profile(script, "foreign", { readyTimeoutS: 10 })), (error) => {
        assert.ok(error instanceof EngineStartError);
        assert.equal(error.code, "not-engine");
        assert.match(error.message, /^Cannot start profile "fake": the server on http:\/\/127\.0\.0\.1:\d+ answers/);
        assert.match(error.message, /answers \/health with HTTP 404: it is not a llama\.cpp-compatible engine/);
        assert.match(error.message, /\| main: listening on http:\/\/127\.0\.0\.1:/);
        url = /the server on (\S+) answers/.exec(error.message)![1]!;
        return true;
      });
      // startEngine stops the engine before it rejects: its port no longer answers.
      await assert.rejects(fetch(`${url}/health`), TypeError);
    });
  },
);

/** Starts an in-test HTTP server on a free loopback port whose /health answers the given statuses in turn. */
async function healthServer(statuses: number[]) {
  let probes = 0;
  const server = createServer((_req, res) => {
    const status = statuses[Math.min(probes++, statuses.length - 1)]!;
    res.writeHead(status);
    res.end(status === 200 ? '{"status":"ok"}' : "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { port, probes: () => probes, close: () => new Promise((resolve) => server.close(resolve)) };
}

Deno.test(
  "a server on the profile's port answering /health 404 or 500 is not reused as an engine and nothing is started",
  options,
  async () => {
    for (const status of [404, 500]) {
      const server = await healthServer([status]);
      try {
        const found = profile("unused.mjs", "normal", { engine: "/nonexistent/llama-server", port: server.port });
        await assert.rejects(startEngine(found), (error) => {
          assert.ok(error instanceof EngineStartError);
          assert.equal(error.code, "not-engine");
          assert.equal(
            error.message,
            `Cannot use profile "fake": the server on http://127.0.0.1:${server.port} answers /health with HTTP ` +
              `${status}: it is not a llama.cpp-compatible engine that is loading (503) or ready (200); stop what ` +
              `listens on port ${server.port} or give the profile another port`,
          );
          return true;
        });
        assert.equal(server.probes(), 1);
      } finally {
        await server.close();
      }
    }
  },
);

Deno.test(
  "a reused server that answers 503 (loading) and then 500 fails the wait at once instead of waiting it out",
  options,
  async () => {
    const server = await healthServer([503, 500]);
    try {
      const found = profile("unused.mjs", "normal", {
        engine: "/nonexistent/llama-server",
        port: server.port,
        readyTimeoutS: 10,
      });
      await assert.rejects(startEngine(found), (error) => {
        assert.ok(error instanceof EngineStartError);
        assert.equal(error.code, "not-engine");
        assert.match(error.message, /^Cannot use profile "fake": the server on .* answers \/health with HTTP 500:/);
        return true;
      });
      assert.equal(server.probes(), 2);
    } finally {
      await server.close();
    }
  },
);
