/**
 * Streaming-client ceiling: the project's streamChat against a zero-latency llama.cpp-shaped SSE server
 * (shared/tools/sse-ceiling, compiled into .bench/), beside `curl -sN` (transport ceiling) and a C reader that does
 * no parsing, at the same concurrency points in the same run. Per point: token events/s, ratio to curl, client CPU
 * seconds, RSS, and the first-token stamping error (client read time of the first content delta minus the server's
 * logged completion of that delta's send(), epoch microseconds; monotonic clock calibrated to epoch at start and end).
 *
 *   deno run --allow-read --allow-write=.bench --allow-run --allow-net=127.0.0.1 --allow-sys benchmarks/client.ts
 *   bun benchmarks/client.ts
 *   options: --points 1,16,64,256,1024  --tokens 2000  --events 400000 (per point)  --alternatives (fetch, node:http)
 *            --readers curl,c,streamChat (which readers run)  --curl-max 1024 (no curl point above this concurrency)
 *            --progress (streamChat requests carry run's live counters, with a 10 Hz status render beside it)
            --repeat 3 (repetitions of each reader at each point, alternated: curl, C, streamChat, curl, ...)
 * Every repetition is printed, with the client's and the server's CPU over its wall time and the CPU the rest of
 * the machine used meanwhile (all cores' busy time from /proc/stat, less the two); a repetition of the project's
 * reader in which neither side was busy (both under 90%) is flagged "both waited" (a reader that idles while the
 * server had data) when the rest of the machine was quiet, and "machine busy" when something else took over a
 * tenth of a core: then neither side could run, and the repetition measures the neighbour, not the reader.
 * Below the table, each point's slowest repetition against the curl repetition beside it (a target is met when the
 * minimum meets it, not the median).
 * The cost columns (client CPU microseconds per token event, RSS per stream over the idle process) are the cost
 * curve of README's scaling section (`deno task bench:cost-curve`).
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { args, readFile, resourceUsage, runCommand, runtimeName, writeStdout } from "../runtime/mod.ts";
import { closeIdleConnections, streamChat } from "../client/mod.ts";
import { type BenchClient, closeAltClients, fetchClient, nodeHttpClient } from "./_alt_clients.ts";
import { calibrateEpochOffsetMs, parseSendLog } from "./_client_measure.ts";
import { percentileType7 } from "../score/mod.ts";
import { liveProgress } from "./_live_progress.ts";
import { BENCH_DIR as bench, SSE_SOURCES, startSseServer } from "./_sse_server.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    points: { type: "string", default: "1,16,64,256,1024" },
    tokens: { type: "string", default: "2000" },
    events: { type: "string", default: "400000" },
    alternatives: { type: "boolean", default: false },
    readers: { type: "string", default: "curl,c,streamChat" },
    "curl-max": { type: "string", default: "1024" },
    progress: { type: "boolean", default: false },
    repeat: { type: "string", default: "3" },
  },
  strict: true,
});
/** --progress: every streamChat request carries the live counters, with a 10 Hz status render beside it. */
const live = liveProgress(values.progress);
const points = values.points.split(",").map(Number);
const tokens = Number(values.tokens);
const eventsPerPoint = Number(values.events);
const readers = new Set(values.readers.split(","));
const curlMax = Number(values["curl-max"]);
const repeat = Number(values.repeat);
if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) throw new Error("--repeat must be an integer 1-20");
/** Under this share of its wall time on CPU, a side counts as waiting. */
const BUSY = 0.9;

function say(text: string): void {
  writeStdout(`${text}\n`);
}

async function must(command: string, argv: string[], timeoutMs = 120_000): Promise<string> {
  const result = await runCommand(command, argv, { timeoutMs });
  if (!result.ok) throw new Error(`Cannot run ${command}: ${result.reason}`);
  if (result.value.code !== 0) throw new Error(`Cannot run ${command} ${argv.join(" ")}: ${result.value.stderr}`);
  return result.value.stdout;
}

interface PointResult {
  reader: string;
  concurrency: number;
  /** Which repetition of this reader at this point (1-based). */
  repetition?: number;
  /** The server's CPU seconds over this repetition (its /proc stat), null where unreadable. */
  serverCpuS?: number | null;
  /** Busy CPU seconds of the whole machine over this repetition (/proc/stat, every core), null where unreadable. */
  machineCpuS?: number | null;
  /** Token events the point moved. */
  events: number;
  /** RSS of the idle process just before the point. */
  idleRssBytes: number | null;
  eventsPerS: number;
  wallS: number;
  cpuS: number | null;
  rssBytes: number | null;
  bad: number;
  firstDelta: { id: string; atMs: number }[];
}

/** Numbers every request of the run, so that the send log finds each repetition's own requests. */
let requestCounter = 0;

/** Requests per stream so that a point moves about `eventsPerPoint` token events (at least 1 per stream). */
function perStream(concurrency: number): number {
  return Math.max(1, Math.round(eventsPerPoint / tokens / concurrency));
}

async function runOurs(name: string, port: number, concurrency: number, client: BenchClient | null) {
  const url = `http://127.0.0.1:${port}`;
  const body = JSON.stringify({ messages: [{ role: "user", content: "hi" }], max_tokens: tokens, stream: true });
  const n = perStream(concurrency);
  const firstDelta: { id: string; atMs: number }[] = [];
  let tokenEvents = 0, bad = 0, peakRss = 0;
  const sampler = setInterval(() => peakRss = Math.max(peakRss, resourceUsage().rssBytes), 100);
  (globalThis as { gc?: () => void }).gc?.();
  const before = resourceUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = 0; i < n; i++) {
      const id = `${name}-c${concurrency}-${requestCounter++}`;
      if (client === null) {
        let atMs: number | null = null;
        const counters = live.counters();
        const o = await streamChat({
          baseUrl: url,
          body,
          headers: { "x-request-id": id },
          onFirstDelta: (_offsetS, readAtMs) => atMs = readAtMs,
          ...(counters === undefined ? {} : { progress: counters }),
        });
        live.done(counters);
        if (o.end !== "finished") bad++;
        else tokenEvents += tokens;
        if (atMs !== null) firstDelta.push({ id, atMs });
      } else {
        const r = await client(`${url}/v1/chat/completions`, body, id);
        if (!r.ok) bad++;
        else tokenEvents += tokens;
        if (r.firstDeltaAtMs !== null) firstDelta.push({ id, atMs: r.firstDeltaAtMs });
      }
    }
  }));
  const wallS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const after = resourceUsage();
  peakRss = Math.max(peakRss, after.rssBytes);
  return {
    reader: name,
    concurrency,
    events: tokenEvents,
    idleRssBytes: before.rssBytes,
    eventsPerS: tokenEvents / wallS,
    wallS,
    cpuS: after.cpuS - before.cpuS,
    rssBytes: peakRss,
    bad,
    firstDelta,
  } satisfies PointResult;
}

async function runCurl(port: number, concurrency: number): Promise<PointResult> {
  const n = Math.min(perStream(concurrency), 50);
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const urls = Array.from({ length: n }, () => url).join(" ");
  // Children's CPU comes from the shell's own /proc stat after wait (cutime + cstime, clock ticks).
  const script =
    `for i in $(seq ${concurrency}); do curl -sN -d '{"max_tokens":${tokens}}' ${urls} >/dev/null & done; ` +
    `wait; awk '{print $16+$17}' /proc/$$/stat; getconf CLK_TCK`;
  const t0 = performance.now();
  const out = await must("sh", ["-c", script], 600_000);
  const wallS = (performance.now() - t0) / 1000;
  const [ticks, hz] = out.trim().split("\n").map(Number);
  return {
    reader: "curl -sN",
    concurrency,
    events: n * concurrency * tokens,
    idleRssBytes: null,
    eventsPerS: (n * concurrency * tokens) / wallS,
    wallS,
    cpuS: ticks !== undefined && hz ? ticks / hz : null,
    rssBytes: null,
    bad: 0,
    firstDelta: [],
  };
}

async function runCReader(port: number, concurrency: number): Promise<PointResult> {
  const count = perStream(concurrency) * concurrency;
  const outFile = `${bench}/c_reader_${concurrency}.json`;
  await must(`${bench}/c_reader`, [
    "-p",
    `${port}`,
    "-c",
    `${concurrency}`,
    "-r",
    `${count}`,
    "-n",
    `${tokens}`,
    "-o",
    outFile,
    "-t",
    `c${concurrency}`,
  ], 600_000);
  const report = JSON.parse(new TextDecoder().decode(await readFile(outFile))) as {
    duration_s: number;
    cpu_s: number;
    tokens: number;
    bad: number;
  };
  return {
    reader: "C reader (no parsing)",
    concurrency,
    events: report.tokens,
    idleRssBytes: null,
    eventsPerS: report.tokens / report.duration_s,
    wallS: report.duration_s,
    cpuS: report.cpu_s,
    rssBytes: null,
    bad: report.bad,
    firstDelta: [],
  };
}

function loadAverage(): string {
  try {
    return os.loadavg().map((v) => v.toFixed(2)).join(" ");
  } catch {
    return "unknown";
  }
}

/** A process's user + system CPU seconds from /proc/PID/stat (Linux), or null. */
async function processCpuS(pid: number): Promise<number | null> {
  // Deno reads another process's /proc entries only with every permission: the shell the benchmark runs reads it.
  const shown = await runCommand("sh", ["-c", `cat /proc/${pid}/stat`], { timeoutMs: 10_000 });
  if (!shown.ok || shown.value.code !== 0) return null;
  const stat = shown.value.stdout;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / clockTicks : null;
}
let clockTicks = 100;

/** Busy CPU seconds of every core so far (user, nice, system, irq, softirq, steal of /proc/stat), or null. */
async function machineCpuS(): Promise<number | null> {
  const shown = await runCommand("sh", ["-c", "head -n 1 /proc/stat"], { timeoutMs: 10_000 });
  if (!shown.ok || shown.value.code !== 0) return null;
  const [user, nice, system, _idle, _iowait, irq, softirq, steal] = shown.value.stdout.trim().split(/\s+/).slice(1)
    .map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce((a: number, b) => a + (b ?? Number.NaN), 0);
  return Number.isFinite(busy) ? busy / clockTicks : null;
}

/** One repetition of a reader, with the server's and the whole machine's CPU over it. */
async function measured(serverPid: number, repetition: number, work: () => Promise<PointResult>) {
  const [server0, machine0] = [await processCpuS(serverPid), await machineCpuS()];
  const result = await work();
  const [server1, machine1] = [await processCpuS(serverPid), await machineCpuS()];
  return {
    ...result,
    repetition,
    serverCpuS: server0 === null || server1 === null ? null : server1 - server0,
    machineCpuS: machine0 === null || machine1 === null ? null : machine1 - machine0,
  };
}

async function main(): Promise<void> {
  await must("mkdir", ["-p", bench]);
  await must("cc", ["-O2", "-o", `${bench}/c_reader`, `${SSE_SOURCES}/c_reader.c`]);
  const logPath = `${bench}/client-send-log.bin`;
  const server = await startSseServer({ tokens, logPath });
  const port = server.port;
  clockTicks = Number((await must("sh", ["-c", "getconf CLK_TCK"])).trim()) || 100;

  const loadBefore = loadAverage();
  const offsetStart = calibrateEpochOffsetMs();
  const results: PointResult[] = [];
  const designs: [string, BenchClient | null][] = [["streamChat", null]];
  if (values.alternatives) designs.push(["fetch+getReader", fetchClient], ["node:http", nodeHttpClient]);
  const pid = server.process.pid;
  for (const c of points) {
    for (let r = 1; r <= repeat; r++) {
      if (readers.has("curl") && c <= curlMax) results.push(await measured(pid, r, () => runCurl(port, c)));
      if (readers.has("c")) results.push(await measured(pid, r, () => runCReader(port, c)));
      for (const [name, client] of designs) {
        if (!readers.has(name) && client === null) continue;
        if (client !== null && c > 64) continue;
        results.push(await measured(pid, r, () => runOurs(name, port, c, client)));
      }
      closeIdleConnections();
      closeAltClients();
    }
  }
  const offsetEnd = calibrateEpochOffsetMs();
  const loadAfter = loadAverage();
  await server.stop();

  const sendLog = parseSendLog(await readFile(logPath));
  const offsetMs = (offsetStart + offsetEnd) / 2;
  const runtime = runtimeName().name;
  say(`client ceiling (${runtime}), ${tokens} token events per request, loopback, sse_server on port ${port}`);
  say(server.pinning);
  say(
    `load average before ${loadBefore}, after ${loadAfter}; clock calibration drift ${
      ((offsetEnd - offsetStart) * 1000).toFixed(0)
    } us`,
  );
  say("");
  say(
    "| reader | c | rep | token events/s | x curl | wall s | client CPU s | client CPU % | server CPU % | elsewhere % | " +
      "waited | CPU us/event | RSS MB | RSS KB/stream | bad | stamp err p50 ms | p99 ms | n |",
  );
  say(`|${" --- |".repeat(18)}`);
  const curlOf = (r: PointResult) =>
    results.find((x) => x.reader === "curl -sN" && x.concurrency === r.concurrency && x.repetition === r.repetition);
  const errorsOf = (r: PointResult) => {
    const errors: number[] = [];
    for (const f of r.firstDelta) {
      const sent = sendLog.get(f.id);
      if (sent !== undefined) errors.push((f.atMs + offsetMs) - sent / 1000);
    }
    return errors.sort((a, b) => a - b);
  };
  for (const r of results) {
    const curl = curlOf(r);
    const errors = errorsOf(r);
    const cell = (v: number | null, digits: number) => v === null ? "-" : v.toFixed(digits);
    const clientShare = r.cpuS === null ? null : r.cpuS / r.wallS;
    const serverShare = r.serverCpuS == null ? null : r.serverCpuS / r.wallS;
    const elsewhere = r.machineCpuS == null || r.cpuS === null || r.serverCpuS == null
      ? null
      : Math.max(0, r.machineCpuS - r.cpuS - r.serverCpuS) / r.wallS;
    const flag = r.reader === "curl -sN" || r.reader.startsWith("C reader") || clientShare === null ||
        serverShare === null || clientShare >= BUSY || serverShare >= BUSY
      ? "-"
      : elsewhere !== null && elsewhere > 0.1
      ? `machine busy (${(elsewhere * 100).toFixed(0)}% of a core elsewhere)`
      : "both waited";
    say(
      `| ${r.reader} | ${r.concurrency} | ${r.repetition} | ${Math.round(r.eventsPerS)} | ${
        curl ? (r.eventsPerS / curl.eventsPerS).toFixed(2) : "-"
      } | ${r.wallS.toFixed(2)} | ${cell(r.cpuS, 2)} | ${cell(clientShare === null ? null : clientShare * 100, 0)} | ${
        cell(serverShare === null ? null : serverShare * 100, 0)
      } | ${cell(elsewhere === null ? null : elsewhere * 100, 0)} | ${flag} | ${
        r.cpuS === null || r.events === 0 ? "-" : (r.cpuS * 1e6 / r.events).toFixed(2)
      } | ${r.rssBytes === null ? "-" : (r.rssBytes / 1e6).toFixed(0)} | ${
        r.rssBytes === null || r.idleRssBytes === null
          ? "-"
          : ((r.rssBytes - r.idleRssBytes) / 1e3 / r.concurrency).toFixed(1)
      } | ${r.bad} | ${errors.length ? percentileType7(errors, 0.5).toFixed(3) : "-"} | ${
        errors.length ? percentileType7(errors, 0.99).toFixed(3) : "-"
      } | ${errors.length} |`,
    );
  }
  say("");
  for (const c of points) {
    const ours = results.filter((r) => r.reader === "streamChat" && r.concurrency === c);
    const ratios = ours.flatMap((r) => {
      const curl = curlOf(r);
      return curl ? [r.eventsPerS / curl.eventsPerS] : [];
    });
    if (ours.length === 0) continue;
    const shares = ours.flatMap((r) => r.cpuS === null ? [] : [r.cpuS / r.wallS * 100]);
    const stampP50 = ours.flatMap((r) => {
      const errors = errorsOf(r);
      return errors.length ? [percentileType7(errors, 0.5)] : [];
    });
    say(
      `streamChat c=${c}: ${ours.length} repetition(s); x curl min ${
        ratios.length ? Math.min(...ratios).toFixed(2) : "-"
      } max ${ratios.length ? Math.max(...ratios).toFixed(2) : "-"}; client CPU min ${
        shares.length ? Math.min(...shares).toFixed(0) : "-"
      }%; stamp err p50 max ${stampP50.length ? Math.max(...stampP50).toFixed(3) : "-"} ms; peak RSS max ${
        Math.max(...ours.map((r) => (r.rssBytes ?? 0) / 1e6)).toFixed(0)
      } MB`,
    );
  }
  say("");
  say("Stamping error: client read time of the first content delta minus the server's post-send() time of that");
  say("delta (epoch); percentiles are Hyndman-Fan type 7. RSS is the peak of the whole process, sampled every 100 ms;");
  say(
    "RSS per stream is that peak minus the process's RSS just before the point, over the point's streams. CPU us/event",
  );
  say("is the client process's user+system CPU over the token events it read (curl: its children's CPU).");
}

await main();
const rendered = live.stop();
if (values.progress) {
  say(`live progress: on (counters on streamChat requests, ${rendered.renders} status renders at 10 Hz)`);
}
