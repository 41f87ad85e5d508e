/**
 * `load --workers N` as a person runs it, against the scripted engine on loopback: N child processes of the same
 * runtime run the plan's shards and one merged result names N workers, its pooled distributions those of the union
 * of the children's rows; SIGTERM to the parent stops every child (exit 4), a worker that dies stops the others
 * (exit 3, nothing merged), and a parent killed outright leaves no child running. Bounded: a dozen requests, or a long plan cut short within seconds.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MockEngine, startMockEngine } from "../../mock/mod.ts";
import { describeDistribution } from "../../score/mod.ts";
import { alive } from "./_processes.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

async function engine(): Promise<MockEngine> {
  return await startMockEngine({
    timeScale: 1,
    decodeTps: 2000,
    slots: 16,
    script: { "*": { answer: { kind: "text", text: "w ".repeat(10).trim() } } },
  });
}

/** `mod.ts load --workers ...` under the narrow permissions a load task gives, plus running Deno itself. */
function startLoad(dir: string, args: string[]): { child: Deno.ChildProcess; stderrLines: Promise<string> } {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--no-prompt",
      "--allow-read",
      `--allow-write=${dir}`,
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-sys",
      `--allow-run=${Deno.execPath()}`,
      join(REPO, "mod.ts"),
      "load",
      "--workers",
      "2",
      "--no-headroom-check",
      "--synthetic",
      "chat-short",
      "--out",
      dir,
      ...args,
    ],
    cwd: REPO,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  void new Response(child.stdout).text();
  return { child, stderrLines: new Response(child.stderr).text() };
}

/**
 * The pids of the parent's two children (as ps lists them); with `dir`, once both have opened their JSONL, which
 * they do after their signal and parent-death watches are set and before any traffic.
 */
async function workers(parent: number, dir: string | null, deadlineMs: number): Promise<number[]> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    const out = await new Deno.Command("ps", { args: ["-o", "pid=", "--ppid", String(parent)] }).output();
    const pids = new TextDecoder().decode(out.stdout).trim().split(/\s+/).filter(Boolean).map(Number);
    const shardDir = dir === null ? undefined : (await readdir(dir)).find((n) => n.endsWith("-workers"));
    const files = shardDir === undefined ? [] : await readdir(join(dir!, shardDir));
    if (pids.length === 2 && (dir === null || files.length === 2)) return pids;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the workers did not start");
}

async function gone(pids: number[], deadlineMs: number): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (!(await Promise.all(pids.map(alive))).some(Boolean)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

Deno.test("load --workers 2 runs two shards as child processes and merges them exactly into one result of 2 workers", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-workers-"));
  const server = await engine();
  try {
    const { child, stderrLines } = startLoad(dir, ["--url", server.url, "--concurrency", "2", "--requests", "12"]);
    const status = await child.status;
    const stderr = await stderrLines;
    assert.equal(status.code, 0, stderr);
    assert.match(stderr, /load: 2 workers \(pids \d+, \d+\) write into /);
    const top = await readdir(dir);
    const merged = top.filter((n) => /-merge-.*\.json$/.test(n));
    const shardDir = top.find((n) => n.endsWith("-workers"));
    assert.equal(merged.length, 1, top.join(", "));
    assert.ok(shardDir !== undefined, top.join(", "));
    const shardFiles = await readdir(join(dir, shardDir));
    assert.deepEqual(shardFiles.map((n) => n.replace(/^.*-shard-/, "")).sort(), ["0-of-2.jsonl", "1-of-2.jsonl"]);
    const result = JSON.parse(await readFile(join(dir, merged[0]!), "utf8"));
    assert.equal(result.workers, 2);
    assert.equal(result.shards, 2);
    const rows = [];
    for (const name of shardFiles) {
      for (const line of (await readFile(join(dir, shardDir, name), "utf8")).trim().split("\n")) {
        const v = JSON.parse(line);
        if (v.format === "strata-load-request" && v.phase === "measure") rows.push(v);
      }
    }
    // The children's rows are the whole plan, each request once; the merge is exactly their union's.
    assert.deepEqual(rows.map((r) => r.index).sort((a, b) => a - b), Array.from({ length: 12 }, (_, i) => i));
    assert.equal(result.pooled.counts.attempted, 12);
    assert.equal(result.pooled.counts.succeeded, 12);
    assert.deepEqual(result.pooled.distributions.ttft_s, describeDistribution(rows.map((r) => r.ttft_s)));
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("the npm launcher runs load --workers under the load task's narrow set, plus running its own Deno", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-workers-"));
  const server = await engine();
  try {
    const output = await new Deno.Command("node", {
      args: [
        join(REPO, "bin", "strata-bench.mjs"),
        ...["load", "--workers", "2", "--url", server.url, "--concurrency", "2", "--requests", "6"],
        ...["--synthetic", "chat-short", "--no-headroom-check", "--quiet", "--out", dir],
      ],
      cwd: REPO,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    const merged = (await readdir(dir)).filter((n) => /-merge-.*\.json$/.test(n));
    assert.equal(merged.length, 1);
    const result = JSON.parse(await readFile(join(dir, merged[0]!), "utf8"));
    assert.equal(result.workers, 2);
    assert.equal(result.pooled.counts.succeeded, 6);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test(
  "SIGTERM to load --workers stops every child (exit 4), a failing worker stops the others, a killed parent leaves none",
  {
    ignore: Deno.build.os === "windows",
  },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-workers-"));
    const server = await engine();
    try {
      const plan = ["--url", server.url, "--concurrency", "2", "--duration", "60", "--drain-s", "1"];
      const terminated = startLoad(dir, plan);
      const pids = await workers(terminated.child.pid, dir, 10_000);
      terminated.child.kill("SIGTERM");
      const status = await terminated.child.status;
      assert.equal(status.code, 4, await terminated.stderrLines);
      assert.match(await terminated.stderrLines, /SIGTERM: stopping the 2 workers/);
      assert.ok(await gone(pids, 1000), "a worker outlived its parent's exit");

      // A worker that dies stops the other, and the parent fails (exit 3) without a merge.
      await rm(dir, { recursive: true });
      await Deno.mkdir(dir);
      const crashing = startLoad(dir, plan);
      const [first, second] = await workers(crashing.child.pid, dir, 10_000);
      Deno.kill(first!, "SIGKILL");
      assert.equal((await crashing.child.status).code, 3);
      assert.match(await crashing.stderrLines, /load: worker \d\/2 failed .*: stopping the others/);
      assert.ok(await gone([second!], 1000), "the other worker ran on after one failed");
      assert.ok(!(await readdir(dir)).some((n) => n.includes("-merge-")), "a failed set of workers was merged");

      await rm(dir, { recursive: true });
      await Deno.mkdir(dir);
      const killed = startLoad(dir, plan);
      // Killed as soon as its children exist, before they have even loaded: each knows its parent by --worker-of.
      const orphans = await workers(killed.child.pid, null, 10_000);
      killed.child.kill("SIGKILL");
      await killed.child.status;
      await killed.stderrLines;
      assert.ok(await gone(orphans, 5000), "a worker ran on after its parent was killed");
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
);
