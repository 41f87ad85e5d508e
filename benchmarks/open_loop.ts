/**
 * Open-loop schedule fidelity: Poisson (and constant) arrivals at a requested rate (default 2,000 arrivals/s)
 * against a zero-latency server (shared/tools/sse-ceiling's sse_server, default; or the scripted engine in-process
 * with --server mock), through the project's streaming client and load generator. Reports lateness (actual minus
 * scheduled send) percentiles, late and dropped requests, and the achieved send rate against the requested one,
 * with the load average (the machine is shared). Lateness here is the client's own scheduling error: the server
 * has no service time and the cap is not reached.
 *
 *   deno task bench:open-loop [--rate 2000] [--requests 20000] [--tokens 16] [--server sse|mock] [--repeat 3]
 *   taskset -c 0 deno task bench:open-loop --url http://127.0.0.1:PORT   (a server already running on another core)
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { args, resourceUsage, writeStdout } from "../runtime/mod.ts";
import { closeIdleConnections, streamChat } from "../client/mod.ts";
import {
  buildLoadBody,
  buildLoadRow,
  type LoadPlan,
  RowStore,
  runLoad,
  summarizeStore,
  syntheticProfile,
} from "../load/mod.ts";
import type { ArrivalProcess } from "../contract/mod.ts";
import { startSseServer } from "./_sse_server.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    rate: { type: "string", default: "2000" },
    requests: { type: "string", default: "20000" },
    tokens: { type: "string", default: "16" },
    server: { type: "string", default: "sse" },
    url: { type: "string" },
    "max-concurrency": { type: "string", default: "1024" },
    arrivals: { type: "string", default: "poisson,constant" },
    repeat: { type: "string", default: "1" },
  },
  strict: true,
});
const rate = Number(values.rate), requests = Number(values.requests), tokens = Number(values.tokens);
const cap = Number(values["max-concurrency"]);
const load = () => os.loadavg().map((v) => v.toFixed(2)).join(" ");

let url: string;
let stop: () => Promise<void>;
let pinning = "the server is the caller's (--url)";
if (values.url !== undefined) {
  // A server started (and pinned to a core of its own, e.g. taskset -c 1) by the caller.
  url = values.url;
  stop = () => Promise.resolve();
} else if (values.server === "mock") {
  const { startMockEngine } = await import("../mock/mod.ts");
  const engine = await startMockEngine({
    slots: cap,
    timeScale: 0,
    script: { "*": { answer: { kind: "text", text: Array.from({ length: tokens - 1 }, () => "tok").join(" ") } } },
  });
  url = engine.url;
  stop = () => engine.close();
} else {
  const server = await startSseServer({ tokens });
  url = server.url;
  stop = server.stop;
  pinning = server.pinning;
}
try {
  const set = syntheticProfile("chat-short", { seed: 1, count: 64 });
  const bodies = set.entries.map((e) => ({ ...buildLoadBody(e, { maxTokens: null }), max_tokens: tokens }));
  const ms = (x: number | null) => (x === null ? "-" : (x * 1000).toFixed(3));
  writeStdout(
    `open-loop fidelity: ${requests} arrivals at ${rate}/s, --max-concurrency ${cap}, ` +
      `${values.url ?? `${values.server} server`}, ` +
      `${tokens} tokens a request; ${pinning}\n`,
  );
  writeStdout(
    "| arrival | run | lateness p50 ms | p90 | p99 | max | late > 1 ms | dropped | failed | requested/s | " +
      "achieved send/s | in flight max | load average |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
  );
  for (let r = 0; r < Number(values.repeat); r++) {
    for (const arrival of values.arrivals.split(",") as ArrivalProcess[]) {
      const plan: LoadPlan = {
        endpoints: [url],
        mode: "open",
        ratePerS: rate,
        arrival,
        maxConcurrency: cap,
        seed: 1 + r,
        warmupRequests: 64,
        requests,
        drainLimitS: 10,
        requestFor: (_phase, i) => ({ body: bodies[i % bodies.length]!, promptIndex: i % bodies.length }),
      };
      // Rows go into the compact store, as in `load`: keeping row objects would grow the old generation and add
      // mark-compact pauses of the benchmark's own making. Its first chunks are allocated before the schedule, as
      // `load` does.
      const store = new RowStore();
      store.reserve();
      const before = resourceUsage().cpuS;
      await runLoad(plan, { streamChat, nowS: () => performance.now() / 1000 }, {
        onSample: (s) => store.add(buildLoadRow(s, { lateAfterS: 0.001 })),
      });
      const cpuS = resourceUsage().cpuS - before;
      const s = summarizeStore(store, { mode: "open", effectiveMaxConcurrency: cap }).overall;
      const late = s.distributions.lateness_s;
      writeStdout(
        `| ${arrival} | ${r + 1} | ${ms(late.p50)} | ${ms(late.p90)} | ${ms(late.p99)} | ${ms(late.max)} | ` +
          `${s.counts.late}/${s.counts.attempted} | ${s.counts.dropped} | ${s.counts.failed} | ${rate} | ` +
          `${s.achieved_send_rate_per_s?.toFixed(1)} | ${s.concurrency.max} | ${
            (cpuS * 1e6 / (s.counts.attempted + 64)).toFixed(0)
          } | ${load()} |\n`,
      );
      closeIdleConnections();
    }
  }
} finally {
  await stop();
}
