/**
 * The signals a person and a supervisor send, to `run` started as README says (`./node_modules/.bin/deno task
 * run ...`, whose task runner forwards SIGINT and SIGTERM to the benchmark) and through a launcher that is then
 * killed outright: Ctrl-C during model hashing, SIGTERM during a stalled stream, and SIGKILL of the launcher (no
 * signal reaches the benchmark; it must notice its parent died). Each time the benchmark stops as if cancelled,
 * writes its result and exits with the documented code; nothing is left running.
 */
import assert from "node:assert/strict";
import { open, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle } from "../../fixtures/mod.ts";
import { type MockEngine, type MockEngineOptions, startMockEngine } from "../../mock/mod.ts";
import { alive } from "./_processes.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const DENO = join(REPO, "node_modules", ".bin", "deno");
const POSIX = Deno.build.os !== "windows";

async function engineWith(options: MockEngineOptions): Promise<MockEngine> {
  const bundle = await loadBundle();
  return await startMockEngine({
    timeScale: 0,
    tokenCounts: Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.input_tokens])),
    ...options,
  });
}

/** A started process with its stderr read as it comes, so a test can wait for a line. */
interface Watched {
  child: Deno.ChildProcess;
  stderr(): string;
  /** Resolves when stderr holds `pattern`; rejects when the process ends first or `deadlineMs` passes. */
  waitFor(pattern: RegExp, deadlineMs: number): Promise<void>;
  /** Resolves with the exit status and all of stderr once stdout and stderr are closed and the process ended. */
  done: Promise<{ code: number; signal: string | null; stdout: string; stderr: string }>;
}

function watch(program: string, args: string[], cwd: string): Watched {
  const child = new Deno.Command(program, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" }).spawn();
  let err = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const decoder = new TextDecoder();
  const drainErr = (async () => {
    for await (const chunk of child.stderr) {
      err += decoder.decode(chunk, { stream: true });
      for (const w of waiters.splice(0)) {
        if (w.pattern.test(err)) w.resolve();
        else waiters.push(w);
      }
    }
  })();
  const out = new Response(child.stdout).text();
  const done = Promise.all([child.status, out, drainErr]).then(([status, stdout]) => ({
    code: status.code,
    signal: status.signal,
    stdout,
    stderr: err,
  }));
  return {
    child,
    stderr: () => err,
    waitFor(pattern, deadlineMs) {
      if (pattern.test(err)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${deadlineMs} ms:\n${err}`)), deadlineMs);
        waiters.push({
          pattern,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        done.then(() => {
          clearTimeout(timer);
          if (!pattern.test(err)) reject(new Error(`ended before ${pattern}:\n${err}`));
        });
      });
    },
    done,
  };
}

/** `promise`, or a failure naming `what` when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The only result folder under `root`, and its results.json. */
async function resultOf(root: string): Promise<{ folder: string; result: Record<string, unknown> }> {
  const names = await readdir(root);
  assert.equal(names.length, 1, names.join(", "));
  const folder = join(root, names[0]!);
  return { folder, result: JSON.parse(await readFile(join(folder, "results.json"), "utf8")) };
}

/** The process ids of `pid`'s children (Linux /proc, read by cat: Deno reads /proc task files only with -A). */
async function childrenOf(pid: number): Promise<number[]> {
  const output = await new Deno.Command("cat", { args: [`/proc/${pid}/task/${pid}/children`], stderr: "null" })
    .output();
  const text = new TextDecoder().decode(output.stdout).trim();
  return text === "" ? [] : text.split(/\s+/).map(Number);
}

/** A sparse 20 GiB file that starts like a GGUF: hashing it takes many seconds, writing it none. */
async function bigModel(dir: string): Promise<string> {
  const path = join(dir, "big-model.gguf");
  const handle = await open(path, "w");
  await handle.write(new TextEncoder().encode("GGUF"));
  await handle.truncate(20 * 1024 ** 3);
  await handle.close();
  return path;
}

/** `deno task run ...` as README documents it, with results under the repository's bench-results/<name>. */
function benchTask(url: string, outName: string, extra: string[] = []): Watched {
  return watch(DENO, [
    "task",
    "-q",
    "run",
    "--url",
    url,
    "--simulated",
    "--out",
    `bench-results/${outName}`,
    ...extra,
  ], REPO);
}

Deno.test({
  name: "Ctrl-C during model hashing (SIGINT to the task and the benchmark) stops the hash; the result is written",
  ignore: !POSIX,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "strata-sig-" });
    const outName = `sig-hash-${Date.now().toString(36)}`;
    const engine = await engineWith({ modelPath: await bigModel(dir) });
    try {
      const run = benchTask(engine.url, outName);
      await run.waitFor(/hashing model file 1\/1 \(20\.0 GiB; Ctrl-C stops it\)/, 60_000);
      // A terminal's Ctrl-C reaches the whole foreground group: the task runner and the benchmark.
      const benchmarks = await childrenOf(run.child.pid);
      assert.equal(benchmarks.length, 1, "the task runner's benchmark process was not found");
      for (const pid of [run.child.pid, ...benchmarks]) Deno.kill(pid, "SIGINT");
      const ended = await within(run.done, 30_000, "the benchmark's exit after Ctrl-C");
      assert.equal(ended.code, 1, ended.stderr);
      const { result } = await resultOf(join(REPO, "bench-results", outName));
      const missing = result["missing"] as Record<string, string>;
      assert.match(missing["/model/files/0/sha256"]!, /hashing was cancelled \(SIGINT\)/);
      const requests = result["requests"] as { status: string }[];
      assert.ok(requests.every((r) => r.status === "skipped"), "no request is sent after Ctrl-C");
      assert.equal(engine.requests.length, 0);
      for (const pid of benchmarks) assert.equal(await alive(pid), false, `benchmark ${pid} still running`);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
      await rm(join(REPO, "bench-results", outName), { recursive: true, force: true });
    }
  },
});

Deno.test({
  name: "a supervisor's SIGTERM to the task during a stalled stream cancels the request and writes the result",
  ignore: !POSIX,
  fn: async () => {
    const outName = `sig-term-${Date.now().toString(36)}`;
    const engine = await engineWith({ script: { "performance-prompt-4k-r1": { fault: { kind: "stall" } } } });
    try {
      const run = benchTask(engine.url, outName);
      await run.waitFor(/\[2\/22\] performance-short-r1 \.\.\./, 60_000);
      // The stalled request has arrived (the engine logs a request when it arrives).
      await engine.waitFor((e) => e.requests.length >= 3, 30_000);
      Deno.kill(run.child.pid, "SIGTERM");
      const ended = await within(run.done, 30_000, "the benchmark's exit after SIGTERM");
      assert.equal(ended.code, 1, ended.stderr);
      assert.match(ended.stderr, /SIGTERM: cancelling the request in flight/);
      const { result } = await resultOf(join(REPO, "bench-results", outName));
      const byId = new Map((result["requests"] as { id: string; status: string; error: { kind: string } | null }[])
        .map((r) => [r.id, r]));
      assert.equal(byId.get("performance-short-r1")?.status, "truncated"); // the scripted engine reaches the cap
      assert.equal(byId.get("performance-prompt-4k-r1")?.error?.kind, "cancelled");
      assert.equal(byId.get("sanity-I1")?.status, "skipped");
    } finally {
      await engine.close();
      await rm(join(REPO, "bench-results", outName), { recursive: true, force: true });
    }
  },
});

Deno.test({
  name: "SIGKILL of the launcher leaves no orphan: the benchmark sees its parent die, cancels and writes its result",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "strata-orphan-" });
    const engine = await engineWith({ script: { "performance-prompt-4k-r1": { fault: { kind: "stall" } } } });
    try {
      const out = join(dir, "results");
      const args = [
        "run",
        "--quiet",
        "--config",
        join(REPO, "deno.json"),
        "-P=run",
        `--allow-write=${dir}`,
        "--no-prompt",
        join(REPO, "mod.ts"),
        "run",
        "--url",
        engine.url,
        "--simulated",
        "--out",
        out,
      ];
      // A launcher that waits for the benchmark (no exec), like a task runner or a shell script.
      const quoted = [DENO, ...args].map((a) => `'${a}'`).join(" ");
      const launcher = watch("sh", ["-c", `${quoted}; echo "benchmark ended $?" >&2`], dir);
      await launcher.waitFor(/performance-short-r1 \.\.\./, 60_000);
      await engine.waitFor((e) => e.requests.length >= 3, 30_000);
      const [benchmark] = await childrenOf(launcher.child.pid);
      assert.ok(benchmark !== undefined, "the benchmark process was not found");
      Deno.kill(launcher.child.pid, "SIGKILL");
      // The benchmark still holds the pipes: they close when it ends.
      const ended = await within(launcher.done, 30_000, "the orphaned benchmark's exit");
      assert.equal(ended.signal, "SIGKILL");
      assert.match(ended.stderr, /the parent process exited: cancelling the request in flight/);
      assert.equal(await alive(benchmark), false, "the benchmark is still running");
      const { result } = await resultOf(out);
      const requests = result["requests"] as { id: string; status: string; error: { kind: string } | null }[];
      assert.equal(requests.find((r) => r.id === "performance-prompt-4k-r1")?.error?.kind, "cancelled");
      assert.match(JSON.stringify(result["requests"]), /the run was cancelled \(the parent process exited\)/);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
});
