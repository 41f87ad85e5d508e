/**
 * The zero-latency SSE server of shared/tools/sse-ceiling, compiled into .bench/ and started on a free loopback
 * port, for benchmarks that must measure the client and not a server. Where the machine has two or more cores it
 * runs pinned (taskset) to a core the client is not pinned to: sharing one core, the two fight for it and the
 * figures describe the fight.
 */
import net from "node:net";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { env, runCommand, type SpawnedProcess, spawnProcess } from "../runtime/mod.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
export const BENCH_DIR = `${repo}.bench`;
/** The C sources (shared/ beside the repository; SSE_CEILING_DIR where it lies elsewhere, as from a git worktree). */
export const SSE_SOURCES = env("SSE_CEILING_DIR") ?? `${repo}../shared/tools/sse-ceiling`;

async function must(command: string, argv: string[]): Promise<void> {
  const result = await runCommand(command, argv, { timeoutMs: 120_000 });
  if (!result.ok) throw new Error(`Cannot run ${command}: ${result.reason}`);
  if (result.value.code !== 0) throw new Error(`Cannot run ${command} ${argv.join(" ")}: ${result.value.stderr}`);
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The cores this process may run on (a child shell inherits them; taskset reads them), or null where unknown. */
async function clientCores(): Promise<number[] | null> {
  const shown = await runCommand("sh", ["-c", "taskset -cp $$"], { timeoutMs: 10_000 });
  const list = shown.ok ? /affinity list:\s*(\S+)/.exec(shown.value.stdout)?.[1] : undefined;
  if (list === undefined) return null;
  return list.split(",").flatMap((part) => {
    const [from, to = from] = part.split("-").map(Number) as [number, number?];
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

/**
 * Where the server runs: the last core outside the client's own set (the client pinned with taskset -c 0), else the
 * last core; null with one core or no taskset. `note` says it in the benchmark's output.
 */
async function serverPinning(): Promise<{ core: number | null; note: string }> {
  const cores = os.cpus().length;
  if (cores < 2) return { core: null, note: "one core: server and client share it" };
  const mine = await clientCores();
  const free = Array.from({ length: cores }, (_, i) => i).filter((c) => mine === null || !mine.includes(c));
  const core = free.length > 0 && mine !== null && mine.length < cores ? free[free.length - 1]! : cores - 1;
  const probe = await runCommand("taskset", ["-c", `${core}`, "true"], { timeoutMs: 10_000 });
  if (!probe.ok || probe.value.code !== 0) {
    return { core: null, note: "not pinned (no taskset): server and client share the cores" };
  }
  const client = mine !== null && mine.length < cores
    ? `client pinned to core(s) ${mine.join(",")}`
    : "client not pinned (run it under taskset -c 0 for a core of its own)";
  return { core, note: `server pinned to core ${core}, ${client}` };
}

/**
 * Compiles (once per call) and starts sse_server, pinned where it can be (see serverPinning; `pinning` says how);
 * `stop()` ends it by its PID and waits.
 */
export async function startSseServer(
  options: { tokens: number; logPath?: string },
): Promise<{ url: string; port: number; process: SpawnedProcess; pinning: string; stop(): Promise<void> }> {
  await must("mkdir", ["-p", BENCH_DIR]);
  await must("cc", ["-O2", "-o", `${BENCH_DIR}/sse_server`, `${SSE_SOURCES}/sse_server.c`]);
  const port = await freePort();
  const pinning = await serverPinning();
  let text = "";
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => listening = resolve);
  const argv = ["-p", `${port}`, "-n", `${options.tokens}`];
  if (options.logPath) argv.push("-l", options.logPath);
  const [command, commandArgs] = pinning.core === null
    ? [`${BENCH_DIR}/sse_server`, argv]
    : ["taskset", ["-c", `${pinning.core}`, `${BENCH_DIR}/sse_server`, ...argv]];
  const spawned = await spawnProcess(command, commandArgs, {
    onOutput: (chunk) => {
      text += new TextDecoder().decode(chunk);
      if (text.includes("listening")) listening();
    },
  });
  if (!spawned.ok) throw new Error(`Cannot start sse_server: ${spawned.reason}`);
  const proc = spawned.value;
  await Promise.race([ready, proc.exited.then(() => Promise.reject(new Error(`sse_server exited: ${text}`)))]);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: proc,
    pinning: pinning.note,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
