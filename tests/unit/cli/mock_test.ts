import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { HELP, runMockCommand } from "../../../cli/mock.ts";
import { EXIT } from "../../../cli/exit_codes.ts";
import type { MockRequestLog } from "../../../mock/mod.ts";
import { chatBody, joined, postChat } from "../mock/_client.ts";

/** Runs the command in-process until `stop` is called; stdout/stderr are captured. */
function start(argv: string[]) {
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const out: string[] = [];
  const err: string[] = [];
  let announce: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => (announce = resolve));
  const exit = runMockCommand(argv, {
    stdout: (text) => {
      out.push(text);
      announce(text.trim());
    },
    stderr: (text) => void err.push(text),
    stopped,
  });
  return { url, exit, stop, out, err };
}

Deno.test("mock refuses a non-loopback host, unknown flags and bad numbers with the usage exit code", async () => {
  for (
    const argv of [["--host", "0.0.0.0"], ["--colour"], ["--slots", "0"], ["--decode-tps", "fast"], ["--port", "70000"]]
  ) {
    const run = start(argv);
    assert.equal(await run.exit, EXIT.usage, argv.join(" "));
    assert.match(run.err.join(""), /^Cannot start mock: /, argv.join(" "));
    assert.deepEqual(run.out, []);
  }
});

Deno.test("mock prints its URL, serves a script file, and stops cleanly when told to", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mock-cli-"));
  try {
    const scriptPath = join(dir, "script.json");
    await writeFile(scriptPath, JSON.stringify({ "sanity-I4": { answer: { kind: "text", text: "NOT READY" } } }));
    const run = start(["--port", "0", "--instant", "--slots", "2", "--script", scriptPath, "--no-bundle"]);
    const url = await run.url;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const result = await postChat(url, chatBody("sanity-I4"));
    assert.equal(joined(result.events, "content"), "NOT READY");
    const props = await (await fetch(`${url}/props`)).json();
    assert.equal(props.total_slots, 2);
    run.stop();
    assert.equal(await run.exit, EXIT.ok);
    await assert.rejects(fetch(`${url}/health`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("mock rejects an invalid script (usage) and a missing one (environment)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mock-cli-"));
  try {
    const scriptPath = join(dir, "bad.json");
    await writeFile(scriptPath, JSON.stringify({ x: { answer: { kind: "nope" } } }));
    const invalid = start(["--port", "0", "--script", scriptPath]);
    assert.equal(await invalid.exit, EXIT.usage);
    assert.match(invalid.err.join(""), /\/x\/answer\/kind/);
    const missing = start(["--port", "0", "--script", join(dir, "none.json")]);
    assert.equal(await missing.exit, EXIT.environment);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("mock reads prompt token counts from the committed fixture bundle by default", async () => {
  const run = start(["--port", "0", "--instant"]);
  try {
    const url = await run.url;
    const result = await postChat(url, chatBody("performance-prompt-16k-r1", { max_tokens: 1 }));
    const usage = result.events.at(-1)!.usage as { prompt_tokens: number };
    assert.ok(Math.abs(usage.prompt_tokens - 16384) <= 16384 * 0.02, `bundle count: ${usage.prompt_tokens}`);
  } finally {
    run.stop();
    await run.exit;
  }
});

Deno.test("mod.ts mock runs as a process and exits 0 on SIGTERM", async () => {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const child = spawn(
    Deno.execPath(),
    ["run", "-P=test", "--no-prompt", "mod.ts", "mock", "--port", "0", "--instant"],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout.on("data", (chunk: Uint8Array) => {
        text += new TextDecoder().decode(chunk);
        if (text.includes("\n")) resolve(text.trim());
      });
      child.on("exit", () => reject(new Error(`mock exited before printing its URL: ${text}`)));
    });
    const health = await fetch(`${url}/health`);
    assert.deepEqual(await health.json(), { status: "ok" });
    process.kill(child.pid!, "SIGTERM"); // under Deno, child.kill() ended the child without running its SIGTERM handler
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await exited;
    child.stderr.destroy();
    child.stdout.destroy();
  }
});

Deno.test("mock --log writes every chat request's send times as JSON to a file, or to stdout after the URL", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mock-cli-"));
  try {
    const logPath = join(dir, "nested", "requests.json");
    const toFile = start(["--port", "0", "--instant", "--no-bundle", "--log", logPath]);
    const url = await toFile.url;
    const result = await postChat(url, chatBody("performance-short-r1", { max_tokens: 5 }));
    assert.equal(result.done, true);
    toFile.stop();
    assert.equal(await toFile.exit, EXIT.ok);
    const logged = JSON.parse(await readFile(logPath, "utf8")) as MockRequestLog[];
    assert.equal(logged.length, 1);
    const entry = logged[0]!;
    assert.equal(entry.requestId, "performance-short-r1");
    assert.equal(entry.outcome, "finished");
    assert.equal(entry.completionTokens, 5);
    assert.ok(entry.arrivedAtEpochUs <= entry.firstDeltaSentAtEpochUs!);
    assert.ok(entry.firstDeltaSentAtEpochUs! <= entry.lastDeltaSentAtEpochUs!);
    assert.ok(entry.lastDeltaSentAtEpochUs! <= entry.endedAtEpochUs!);

    const toStdout = start(["--port", "0", "--instant", "--no-bundle", "--log", "-"]);
    await postChat(await toStdout.url, chatBody("performance-short-r2", { max_tokens: 3 }));
    toStdout.stop();
    assert.equal(await toStdout.exit, EXIT.ok);
    assert.equal(toStdout.out.length, 2);
    const printed = JSON.parse(toStdout.out[1]!) as MockRequestLog[];
    assert.deepEqual(printed.map((r) => [r.requestId, r.completionTokens]), [["performance-short-r2", 3]]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("mock --log refuses an empty path and reports an unwritable one as an environment failure", async () => {
  const empty = start(["--port", "0", "--log", ""]);
  assert.equal(await empty.exit, EXIT.usage);
  assert.match(empty.err.join(""), /--log needs a file path/);
  const dir = await mkdtemp(join(tmpdir(), "mock-cli-"));
  try {
    const blocker = join(dir, "file");
    await writeFile(blocker, "not a folder");
    const run = start(["--port", "0", "--instant", "--no-bundle", "--log", join(blocker, "requests.json")]);
    await run.url;
    run.stop();
    assert.equal(await run.exit, EXIT.environment);
    assert.match(run.err.join(""), /^Cannot write the request log /m);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("mock --help names every flag", () => {
  for (
    const flag of ["--port", "--host", "--slots", "--script", "--decode-tps", "--prompt-tps", "--instant", "--log"]
  ) {
    assert.ok(HELP.includes(flag), flag);
  }
});
