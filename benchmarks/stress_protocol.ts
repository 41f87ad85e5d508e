/**
 * The tool must never reject its own genuine result, least of all on a busy machine. This benchmark runs the whole
 * protocol with the optional concurrency stage N times while busy-loop processes hold the cores, and checks every
 * result folder with the validator `report` runs (the runner's own self-check, then results.json re-read from disk
 * and validated against the bundle, its artifacts and its evidence). It prints one line per run and the count of
 * self-rejections; the target is 0.
 *
 * Engines: `scripted` (default) starts `mod.ts mock` as its own process for each run (fresh, one slot by default,
 * so the four clients of a round queue); `in-process` starts the scripted engine inside this process, as the test
 * suite does (engine and client share one event loop); `llama` starts llama-server with the tiny model (deno task
 * engine:build first) for each run.
 *
 *   deno task bench:stress [--runs 50] [--engine scripted|llama] [--busy 2] [--slots 1]
 *                          [--decode-tps 2000] [--prompt-tps 200000] [--instant] [--keep]
 *
 * --instant makes the scripted engine write every token as fast as it can (the timings it reports still follow the
 * speeds): the client then reads bursts of events while the busy loops compete for the cores.
 *
 * Result folders go to .bench/stress/ and are removed after a clean run; a run with problems keeps its folder
 * (and --keep keeps all of them).
 */
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { rm } from "node:fs/promises";
import { args, readFile, type SpawnedProcess, spawnProcess, toolkitCacheDir, writeStdout } from "../runtime/mod.ts";
import { loadBundle } from "../fixtures/mod.ts";
import { closeIdleConnections } from "../client/mod.ts";
import { type EngineHandle, enginePaths, ensureTinyQwen3, LLAMA_CPP_COMMIT, startEngine } from "../engine/mod.ts";
import { validateResultText } from "../report/mod.ts";
import { realRunDeps, runProtocol } from "../runner/mod.ts";
import { startMockEngine, tokenCountsFrom } from "../mock/mod.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    runs: { type: "string" },
    engine: { type: "string", default: "scripted" },
    busy: { type: "string", default: "2" },
    slots: { type: "string", default: "1" },
    "decode-tps": { type: "string", default: "2000" },
    "prompt-tps": { type: "string", default: "200000" },
    keep: { type: "boolean", default: false },
    instant: { type: "boolean", default: false },
  },
  strict: true,
});
const engineKind = values.engine;
if (engineKind !== "scripted" && engineKind !== "in-process" && engineKind !== "llama") {
  throw new RangeError(
    `Cannot run the stress benchmark: --engine must be scripted, in-process or llama, got "${engineKind}"`,
  );
}
const runs = Number(values.runs ?? (engineKind === "llama" ? "3" : "50"));
const busy = Number(values.busy);
const slots = Number(values.slots);
const decodeTps = Number(values["decode-tps"]);
const promptTps = Number(values["prompt-tps"]);
for (const [name, v] of Object.entries({ runs, slots, decodeTps, promptTps })) {
  if (!(v > 0)) throw new RangeError(`Cannot run the stress benchmark: --${name} must be > 0, got ${v}`);
}
if (!(Number.isInteger(busy) && busy >= 0)) {
  throw new RangeError(`Cannot run the stress benchmark: --busy must be a whole number >= 0, got ${values.busy}`);
}

const repo = fileURLToPath(new URL("..", import.meta.url));
const outRoot = join(repo, ".bench", "stress");
const ENGINE_START_MS = 60_000;

function say(text: string): void {
  writeStdout(`${text}\n`);
}

function loadAverage(): string {
  return os.loadavg().map((v) => v.toFixed(2)).join(" ");
}

/** One process that spins a core until it is killed. */
async function startBusyLoop(): Promise<SpawnedProcess> {
  const spawned = await spawnProcess("sh", ["-c", "while :; do :; done"]);
  if (!spawned.ok) throw new Error(`Cannot start a busy loop: ${spawned.reason}`);
  return spawned.value;
}

/** A server for one run and how to stop it (with the engine handle when this script started llama-server). */
interface Server {
  url: string;
  handle: EngineHandle | null;
  stop(): Promise<void>;
}

/** `mod.ts mock` as its own process, on a free loopback port. */
async function startScripted(): Promise<Server> {
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
    `${promptTps}`,
    // Instant: every token as fast as the engine can write it (the timings still follow the speeds above).
    ...(values.instant ? ["--instant"] : []),
  ];
  let stderr = "";
  let seen = "";
  let announce: (url: string) => void = () => {};
  const announced = new Promise<string>((resolve) => announce = resolve);
  const spawned = await spawnProcess(`${repo}node_modules/.bin/deno`, argv, {
    cwd: repo,
    onOutput: (chunk, stream) => {
      const text = new TextDecoder().decode(chunk);
      if (stream === "stderr") stderr += text;
      else if (!seen.includes("\n")) {
        seen += text;
        if (seen.includes("\n")) announce(seen.slice(0, seen.indexOf("\n")).trim());
      }
    },
  });
  if (!spawned.ok) throw new Error(`Cannot start the scripted engine: ${spawned.reason}`);
  const child = spawned.value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const url = await Promise.race([
      announced,
      child.exited.then(() => Promise.reject(new Error(`Cannot start the scripted engine: it exited: ${stderr}`))),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("Cannot start the scripted engine: no URL in time")),
          ENGINE_START_MS,
        );
      }),
    ]);
    return {
      url,
      handle: null,
      async stop() {
        child.kill("SIGTERM");
        await child.exited;
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    await child.exited;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The scripted engine inside this process, as `deno task test` runs it: engine and client then share one event
 * loop, so the client's stamps and the executor's continuation compete with the engine's writes as well.
 */
async function startInProcess(): Promise<Server> {
  const engine = await startMockEngine({
    slots,
    decodeTps,
    promptTps,
    timeScale: values.instant ? 0 : 1,
    tokenCounts: tokenCountsFrom(bundle.fixtures),
  });
  return { url: engine.url, handle: null, stop: () => engine.close() };
}

/** llama-server with the tiny model on one slot, as the real-engine tests start it. */
async function startLlama(): Promise<Server> {
  const cache = toolkitCacheDir();
  if (!cache.ok) throw new Error(`Cannot find the engine cache: ${cache.reason}`);
  const llamaServer = enginePaths(cache.value).llamaServer;
  try {
    await readFile(llamaServer);
  } catch {
    throw new Error(`Cannot run the llama variant: ${llamaServer} is not built; run "deno task engine:build" first`);
  }
  const model = await ensureTinyQwen3();
  const handle = await startEngine({
    name: "tiny-qwen3-stress",
    label: "llama-server with the tiny model (stress benchmark)",
    engine: llamaServer,
    args: ["-m", model.path, "-c", "20480", "-np", `${slots}`, "-ngl", "0", "-t", "2", "--metrics"],
    host: "127.0.0.1",
    port: 0,
    env: {},
    modelFiles: [],
    readyTimeoutS: 120,
    stopGraceS: 10,
    engineCommit: LLAMA_CPP_COMMIT,
  });
  return { url: handle.baseUrl, handle, stop: () => handle.stop().then(() => {}) };
}

interface RunLine {
  index: number;
  status: string;
  selfCheck: number;
  report: number;
  requiredS: number | null;
  optionalS: number | null;
  wallS: number;
  load: string;
  problems: string[];
  folder: string;
}

const bundle = await loadBundle();
const maxSharedPrefixTokens = Object.fromEntries(bundle.fixtures.map((f) => [f.id, f.max_shared_prefix_tokens]));

/** One whole protocol run against a fresh server, checked twice. */
async function oneRun(index: number): Promise<RunLine> {
  const server = engineKind === "scripted"
    ? await startScripted()
    : engineKind === "in-process"
    ? await startInProcess()
    : await startLlama();
  const started = performance.now();
  try {
    const deps = realRunDeps({ loadBundle: () => Promise.resolve(bundle) }, { hashCacheDir: null });
    const report = await runProtocol({
      baseUrl: server.url,
      optionalConcurrency: true,
      track: "custom",
      trackNotes: `stress benchmark run ${index}: ${busy} busy-loop processes on ${os.cpus().length} cores`,
      declared: {
        modelId: null,
        modelRevision: null,
        sourceRevision: null,
        tokenizerRevision: null,
        quantization: null,
        customPack: null,
        background: [`${busy} busy-loop processes (stress benchmark)`],
        buildOptions: null,
        engineCommit: engineKind === "llama" ? LLAMA_CPP_COMMIT : null,
      },
      simulated: engineKind !== "llama",
      outRoot,
      command: `strata-bench run --optional-concurrency (stress run ${index})`,
      ...(server.handle === null ? {} : { engineArgs: server.handle.engineArgs, engineLog: server.handle.log }),
    }, deps);
    const folder = report.folder;
    // What `report DIR` does: results.json from disk, checked against the bundle, its artifacts and its evidence.
    const text = new TextDecoder().decode(await readFile(join(folder, "results.json")));
    const problems = await validateResultText(text, {
      maxSharedPrefixTokens,
      corpusSha256: bundle.corpusSha256,
      fixtures: bundle.fixtures,
      readArtifact: (path) => readFile(join(folder, path)).catch(() => null),
    });
    const all = [...report.validationProblems, ...problems].map((p) => `${p.pointer || "(root)"}: ${p.message}`);
    return {
      index,
      status: report.result.run.status,
      selfCheck: report.validationProblems.length,
      report: problems.length,
      requiredS: report.result.run.required_duration_s,
      optionalS: report.result.run.optional_duration_s,
      wallS: (performance.now() - started) / 1000,
      load: loadAverage(),
      problems: all,
      folder,
    };
  } finally {
    await server.stop();
    closeIdleConnections();
  }
}

const loops: SpawnedProcess[] = [];
const lines: RunLine[] = [];
try {
  for (let i = 0; i < busy; i++) loops.push(await startBusyLoop());
  say(
    `stress: ${runs} protocol runs with --optional-concurrency against ${
      engineKind === "llama"
        ? `llama-server (tiny model, ${slots} slot(s))`
        : `the scripted engine (${engineKind === "scripted" ? "mod.ts mock" : "in this process"}, ${slots} slot(s), ${
          values.instant ? "instant" : `decode ${decodeTps} tok/s`
        })`
    }, ${busy} busy-loop processes on ${os.cpus().length} cores; load average at start ${loadAverage()}`,
  );
  say("");
  say("| run | status | self-check problems | report problems | required s | optional s | run wall s | load avg |");
  say("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (let i = 1; i <= runs; i++) {
    const line = await oneRun(i);
    lines.push(line);
    say(
      `| ${i} | ${line.status} | ${line.selfCheck} | ${line.report} | ${line.requiredS?.toFixed(3) ?? "null"} | ` +
        `${line.optionalS?.toFixed(3) ?? "null"} | ${line.wallS.toFixed(1)} | ${line.load} |`,
    );
    for (const problem of line.problems) say(`    ${problem}`);
    if (line.problems.length === 0 && !values.keep) await rm(line.folder, { recursive: true, force: true });
  }
} finally {
  for (const loop of loops) {
    loop.kill("SIGKILL");
    await loop.exited;
  }
}
const rejected = lines.filter((line) => line.problems.length > 0);
say("");
say(
  `self-rejections: ${rejected.length} of ${lines.length} runs (target 0)` +
    (rejected.length > 0 ? `; folders kept: ${rejected.map((l) => l.folder).join(", ")}` : ""),
);
