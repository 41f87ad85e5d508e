/**
 * The zero-latency SSE server of shared/tools/sse-ceiling, compiled into .bench/ and started on a free loopback
 * port, for benchmarks that must measure the client and not a server.
 */
import net from "node:net";
import { fileURLToPath } from "node:url";
import { runCommand, type SpawnedProcess, spawnProcess } from "../runtime/mod.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
export const BENCH_DIR = `${repo}.bench`;
const sources = `${repo}../shared/tools/sse-ceiling`;

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

/** Compiles (once per call) and starts sse_server; `stop()` ends it by its PID and waits. */
export async function startSseServer(
  options: { tokens: number; logPath?: string },
): Promise<{ url: string; port: number; process: SpawnedProcess; stop(): Promise<void> }> {
  await must("mkdir", ["-p", BENCH_DIR]);
  await must("cc", ["-O2", "-o", `${BENCH_DIR}/sse_server`, `${sources}/sse_server.c`]);
  const port = await freePort();
  let text = "";
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => listening = resolve);
  const argv = ["-p", `${port}`, "-n", `${options.tokens}`];
  if (options.logPath) argv.push("-l", options.logPath);
  const spawned = await spawnProcess(`${BENCH_DIR}/sse_server`, argv, {
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
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
