/**
 * The run client against the scripted engine: what the project's streamChat adds to each request, and how far its
 * first-delta stamp lies from the engine's own send stamp, alone (c=1) and at concurrency 64 while the engine's
 * per-stream decode speed is swept upwards.
 *
 * The engine runs as a separate process (`mod.ts mock --log -`, always under Deno, so the reference is the same for
 * both client runtimes), so the client's event loop shares nothing with the engine's. Bodies are the real bundle's
 * performance-short fixture through buildChatBody(fixture, "llama.cpp"), with max_tokens set per phase and a unique
 * `seed` per request: the engine logs each body, and the seed joins its log line to the client's request.
 *
 * Clocks: the engine stamps epoch microseconds (performance.timeOrigin + performance.now()); the client's monotonic
 * clock is calibrated to epoch (Date.now ticks) before and after every phase and the mean offset is used.
 *
 *   deno run -P=bench --allow-run=node_modules/.bin/deno --no-prompt benchmarks/run_client.ts
 *   bun benchmarks/run_client.ts
 *   options: --requests 200 --warmup 10 --c1-tps 1000 --c1-cap 64 (c=1 phase)
 *            --concurrency 64 --tps 50,100,200,400,800,1600 --seconds 4 --max-requests 4000 (sweep, per point)
 *            --progress (each request carries run's live counters, with a 10 Hz status render beside it)
 */
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { args, readTextFile, resourceUsage, runtimeName, spawnProcess, writeStdout } from "../runtime/mod.ts";
import { loadBundle } from "../fixtures/mod.ts";
import { buildChatBody } from "../runner/mod.ts";
import { closeIdleConnections, streamChat } from "../client/mod.ts";
import type { MockRequestLog } from "../mock/mod.ts";
import { calibrateEpochOffsetMs } from "./_client_measure.ts";
import { percentileType7 } from "../score/mod.ts";
import { liveProgress } from "./_live_progress.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    requests: { type: "string", default: "200" },
    warmup: { type: "string", default: "10" },
    "c1-tps": { type: "string", default: "1000" },
    "c1-cap": { type: "string", default: "64" },
    concurrency: { type: "string", default: "64" },
    tps: { type: "string", default: "50,100,200,400,800,1600" },
    seconds: { type: "string", default: "4" },
    "max-requests": { type: "string", default: "4000" },
    aligned: { type: "boolean", default: false },
    progress: { type: "boolean", default: false },
  },
  strict: true,
});
/** --progress: every request carries run's live counters and a 10 Hz status render runs (issue 17's cost check). */
const live = liveProgress(values.progress);
const c1Requests = Number(values.requests);
const warmup = Number(values.warmup);
const c1Tps = Number(values["c1-tps"]);
const c1Cap = Number(values["c1-cap"]);
const concurrency = Number(values.concurrency);
const sweepTps = values.tps.split(",").map(Number);
const pointS = Number(values.seconds);
const maxRequests = Number(values["max-requests"]);
for (const [name, v] of Object.entries({ c1Requests, c1Tps, c1Cap, concurrency, pointS, maxRequests })) {
  if (!(v > 0)) throw new RangeError(`Cannot run the benchmark: ${name} must be > 0, got ${v}`);
}
if (sweepTps.some((v) => !(v > 0))) throw new RangeError(`Cannot run the benchmark: bad --tps "${values.tps}"`);

const repo = fileURLToPath(new URL("..", import.meta.url));
const FIXTURE_ID = "performance-short-r1";
/** Requests of the sweep last about this long at the point's speed (cap = tps x this, within 32..2048 tokens). */
const SWEEP_REQUEST_S = 0.5;
const ENGINE_START_MS = 30_000;

function say(text: string): void {
  writeStdout(`${text}\n`);
}

/** A scripted engine child process; stop() ends it and resolves with its per-request log. */
interface EngineChild {
  url: string;
  pid: number;
  stop(): Promise<MockRequestLog[]>;
}

async function startEngine(slots: number, decodeTps: number): Promise<EngineChild> {
  const argv = [
    "run",
    "-q",
    "-P=mock",
    "--no-prompt",
    `${repo}mod.ts`,
    "mock",
    "--port",
    "0",
    "--slots",
    `${slots}`,
    "--decode-tps",
    `${decodeTps}`,
    "--prompt-tps",
    "10000000",
    "--log",
    "-",
  ];
  const chunks: Uint8Array[] = [];
  let stderr = "";
  let announce: (url: string) => void = () => {};
  const announced = new Promise<string>((resolve) => announce = resolve);
  let seen = "";
  const spawned = await spawnProcess(`${repo}node_modules/.bin/deno`, argv, {
    cwd: repo,
    onOutput: (chunk, stream) => {
      if (stream === "stderr") {
        stderr += new TextDecoder().decode(chunk);
        return;
      }
      chunks.push(chunk);
      if (!seen.includes("\n")) {
        seen += new TextDecoder().decode(chunk);
        if (seen.includes("\n")) announce(seen.slice(0, seen.indexOf("\n")).trim());
      }
    },
  });
  if (!spawned.ok) throw new Error(`Cannot start the scripted engine: ${spawned.reason}`);
  const child = spawned.value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const url = await Promise.race([
    announced,
    child.exited.then(() => Promise.reject(new Error(`Cannot start the scripted engine: it exited: ${stderr}`))),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error("Cannot start the scripted engine: no URL within 30 s")),
        ENGINE_START_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      const exit = await child.exited;
      if (exit.code !== 0) {
        throw new Error(`Cannot read the engine's log: it exited ${JSON.stringify(exit)}: ${stderr}`);
      }
      const total = chunks.reduce((n, c) => n + c.length, 0);
      const all = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        all.set(c, at);
        at += c.length;
      }
      const text = new TextDecoder().decode(all);
      return JSON.parse(text.slice(text.indexOf("\n") + 1)) as MockRequestLog[];
    },
  };
}

/** CPU seconds (user + system) of a process from /proc (Linux), or null where that cannot be read. */
async function processCpuS(pid: number): Promise<number | null> {
  try {
    const stat = await readTextFile(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/** What the client saw of one request (monotonic ms of this process). */
interface ClientSide {
  seed: number;
  ok: boolean;
  dispatchMs: number | null;
  firstDeltaMs: number | null;
  endS: number;
  completionTokens: number;
}

const bundle = await loadBundle();
const fixture = bundle.fixtures.find((f) => f.id === FIXTURE_ID);
if (fixture === undefined) throw new Error(`Cannot run the benchmark: fixture ${FIXTURE_ID} is not in the bundle`);
const baseBody = buildChatBody(fixture, "llama.cpp").body;
let nextSeed = 1_000_000;

async function oneRequest(url: string, maxTokens: number): Promise<ClientSide> {
  const seed = nextSeed++;
  let firstDeltaMs: number | null = null;
  let dispatchMs: number | null = null;
  const counters = live.counters();
  const outcome = await streamChat({
    baseUrl: url,
    body: { ...baseBody, seed, max_tokens: maxTokens },
    deadlineS: 60,
    onFirstDelta: (offsetS, atMs) => {
      firstDeltaMs = atMs;
      dispatchMs = atMs - offsetS * 1000;
    },
    ...(counters === undefined ? {} : { progress: counters }),
  });
  live.done(counters);
  const usage = outcome.usage as { completion_tokens?: unknown } | null;
  return {
    seed,
    ok: outcome.end === "finished",
    dispatchMs,
    firstDeltaMs,
    endS: outcome.offsets.end_s,
    completionTokens: typeof usage?.completion_tokens === "number" ? usage.completion_tokens : 0,
  };
}

/** Client and engine facts of one request joined by seed; times in ms. */
interface Joined {
  /** Engine's first-delta send stamp, epoch ms (to group late stamps that one stall caused). */
  firstSentMs: number;
  ttftErrMs: number;
  endErrMs: number;
  addedMs: number;
  requestPathMs: number;
  /** Engine's first-to-last delta span minus the paced schedule's (how late the engine itself ran). */
  engineLateMs: number;
}

function join(client: ClientSide[], log: MockRequestLog[], offsetMs: number, decodeTps: number): Joined[] {
  const bySeed = new Map<number, MockRequestLog>();
  for (const entry of log) {
    const seed = (entry.body as { seed?: unknown } | null)?.seed;
    if (typeof seed === "number") bySeed.set(seed, entry);
  }
  const out: Joined[] = [];
  for (const c of client) {
    const e = bySeed.get(c.seed);
    if (!c.ok || e === undefined || c.firstDeltaMs === null || c.dispatchMs === null) continue;
    if (e.firstDeltaSentAtEpochUs === null || e.lastDeltaSentAtEpochUs === null || e.endedAtEpochUs === null) continue;
    const engineS = (e.endedAtEpochUs - e.arrivedAtEpochUs) / 1e6;
    const tokens = e.completionTokens ?? 1;
    out.push({
      firstSentMs: e.firstDeltaSentAtEpochUs / 1000,
      ttftErrMs: c.firstDeltaMs + offsetMs - e.firstDeltaSentAtEpochUs / 1000,
      endErrMs: c.dispatchMs + c.endS * 1000 + offsetMs - e.endedAtEpochUs / 1000,
      addedMs: (c.endS - engineS) * 1000,
      requestPathMs: e.arrivedAtEpochUs / 1000 - (c.dispatchMs + offsetMs),
      engineLateMs: (e.lastDeltaSentAtEpochUs - e.firstDeltaSentAtEpochUs) / 1000 - ((tokens - 1) / decodeTps) * 1000,
    });
  }
  return out;
}

function stats(values: number[]): { p50: number; p99: number; max: number; min: number } {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { p50: NaN, p99: NaN, max: NaN, min: NaN };
  return {
    p50: percentileType7(sorted, 0.5),
    p99: percentileType7(sorted, 0.99),
    max: sorted[sorted.length - 1]!,
    min: sorted[0]!,
  };
}

/** Requests whose TTFT error is 1 ms or more, and into how many episodes they fall (gaps over 20 ms apart). */
function lateEpisodes(joined: Joined[]): string {
  const late = joined.filter((j) => j.ttftErrMs >= 1).map((j) => j.firstSentMs).sort((a, b) => a - b);
  let episodes = 0;
  late.forEach((t, i) => {
    if (i === 0 || t - late[i - 1]! > 20) episodes++;
  });
  return `${late.length} (${episodes})`;
}

const ms = (v: number) => Number.isNaN(v) ? "-" : v.toFixed(3);

async function phaseC1(): Promise<void> {
  const engine = await startEngine(1, c1Tps);
  const client: ClientSide[] = [];
  const offsetStart = calibrateEpochOffsetMs();
  for (let i = 0; i < warmup; i++) await oneRequest(engine.url, c1Cap);
  for (let i = 0; i < c1Requests; i++) client.push(await oneRequest(engine.url, c1Cap));
  const offsetEnd = calibrateEpochOffsetMs();
  closeIdleConnections();
  const log = await engine.stop();
  const joined = join(client, log, (offsetStart + offsetEnd) / 2, c1Tps);
  say(
    `## c=1: ${c1Requests} requests (after ${warmup} warm-up), ${FIXTURE_ID}, max_tokens ${c1Cap}, ` +
      `engine ${c1Tps} tok/s; joined ${joined.length}, failed ${client.filter((c) => !c.ok).length}`,
  );
  say(
    `clock: calibration drift over the phase ${((offsetEnd - offsetStart) * 1000).toFixed(0)} us; ` +
      `calibrated offset minus performance.timeOrigin ${
        (((offsetStart + offsetEnd) / 2 - performance.timeOrigin) * 1000).toFixed(0)
      } us`,
  );
  say("");
  say("| ms | p50 | p99 | max | min |");
  say("| --- | --- | --- | --- | --- |");
  const rows: [string, (j: Joined) => number][] = [
    ["client added latency (client total_s - engine end-arrival)", (j) => j.addedMs],
    ["TTFT error (client first-delta read - engine first-delta send)", (j) => j.ttftErrMs],
    ["end error (client end - engine end)", (j) => j.endErrMs],
    ["request path (engine arrival - client dispatch)", (j) => j.requestPathMs],
  ];
  for (const [name, pick] of rows) {
    const s = stats(joined.map(pick));
    say(`| ${name} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} | ${ms(s.min)} |`);
  }
  const added = stats(joined.map((j) => j.addedMs));
  const ttft = stats(joined.map((j) => j.ttftErrMs));
  say(`TTFT errors >= 1 ms (episodes): ${lateEpisodes(joined)}`);
  say("");
  say(
    `SUMMARY c1 added_p50=${ms(added.p50)} added_max=${ms(added.max)} ttft_err_p50=${ms(ttft.p50)} ` +
      `ttft_err_p99=${ms(ttft.p99)} ttft_err_max=${ms(ttft.max)}`,
  );
}

interface PointRow {
  tps: number;
  achievedTps: number;
  p99: number;
  max: number;
}

async function sweepPoint(tps: number): Promise<PointRow> {
  const cap = Math.min(2048, Math.max(32, Math.round(tps * SWEEP_REQUEST_S)));
  const engine = await startEngine(concurrency, tps);
  // Warm every connection once so that the point measures streaming, not the first connects.
  await Promise.all(Array.from({ length: concurrency }, () => oneRequest(engine.url, 2)));
  const client: ClientSide[] = [];
  const offsetStart = calibrateEpochOffsetMs();
  const engineCpu0 = await processCpuS(engine.pid);
  const cpu0 = resourceUsage().cpuS;
  const t0 = performance.now();
  const deadline = t0 + pointS * 1000;
  let started = 0;
  await Promise.all(Array.from({ length: concurrency }, async (_, k) => {
    // Staggered (default): stream k starts k/c of a request's length late, so requests start and end evenly spread
    // (steady state of a closed loop); --aligned starts all together, so every request wave starts as one burst.
    if (!values.aligned) {
      await new Promise((resolve) => setTimeout(resolve, (k / concurrency) * ((cap - 1) / tps) * 1000));
    }
    while (performance.now() < deadline && started < maxRequests) {
      started++;
      client.push(await oneRequest(engine.url, cap));
    }
  }));
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = resourceUsage().cpuS - cpu0;
  const engineCpu1 = await processCpuS(engine.pid);
  const offsetEnd = calibrateEpochOffsetMs();
  closeIdleConnections();
  const log = await engine.stop();
  const joined = join(client, log, (offsetStart + offsetEnd) / 2, tps);
  const tokens = client.reduce((n, c) => n + c.completionTokens, 0);
  const ttft = stats(joined.map((j) => j.ttftErrMs));
  const end = stats(joined.map((j) => j.endErrMs));
  const late = stats(joined.map((j) => j.engineLateMs));
  const engineCpu = engineCpu0 !== null && engineCpu1 !== null
    ? `${((engineCpu1 - engineCpu0) / wallS * 100).toFixed(0)}%`
    : "-";
  const achieved = tokens / wallS;
  say(
    `| ${tps} | ${cap} | ${concurrency * tps} | ${Math.round(achieved)} | ${client.length} | ${
      client.filter((c) => !c.ok).length
    } | ${ms(ttft.p50)} | ${ms(ttft.p99)} | ${ms(ttft.max)} | ${ms(end.p50)} | ${ms(end.p99)} | ${
      lateEpisodes(joined)
    } | ${ms(late.p50)} | ${(cpuS / wallS * 100).toFixed(0)}% | ${engineCpu} |`,
  );
  return { tps, achievedTps: achieved, p99: ttft.p99, max: ttft.max };
}

async function phaseSweep(): Promise<void> {
  say(
    `## c=${concurrency}, ${
      values.aligned ? "aligned starts" : "starts staggered over one request's length"
    }: ${pointS} s per point (at most ${maxRequests} requests), each request ~${SWEEP_REQUEST_S} s ` +
      `of tokens (max_tokens = per-stream tok/s x ${SWEEP_REQUEST_S}, 32..2048)`,
  );
  say("");
  say(
    "| per-stream tok/s | max_tokens | target agg tok/s | achieved agg tok/s | requests | failed | TTFT err p50 ms | p99 ms | max ms | end err p50 ms | p99 ms | n err>=1ms (episodes) | engine late p50 ms | client CPU | engine CPU |",
  );
  say("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  const rows: PointRow[] = [];
  for (const tps of sweepTps) rows.push(await sweepPoint(tps));
  const underP99 = rows.filter((r) => r.p99 < 1).map((r) => r.achievedTps);
  const underMax = rows.filter((r) => r.max < 1).map((r) => r.achievedTps);
  const best = (list: number[]) => list.length ? `${Math.round(Math.max(...list))}` : "none";
  say("");
  say(`SUMMARY c${concurrency} best_agg_p99_under_1ms=${best(underP99)} best_agg_max_under_1ms=${best(underMax)}`);
}

function loadAverage(): string {
  try {
    return os.loadavg().map((v) => v.toFixed(2)).join(" ");
  } catch {
    return "unknown";
  }
}

const runtime = runtimeName();
say(`# run client vs scripted engine (client ${runtime.name} ${runtime.version}; engine: separate Deno process)`);
say(`load average before: ${loadAverage()}`);
say("");
await phaseC1();
say("");
await phaseSweep();
say("");
say(`load average after: ${loadAverage()}`);
const rendered = live.stop();
if (values.progress) say(`live progress: on (counters on every request, ${rendered.renders} status renders at 10 Hz)`);
say("Errors are client minus engine (epoch ms); the engine stamps just before it writes. Percentiles: type 7.");
