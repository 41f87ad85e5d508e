/**
 * Memory of a long load run: `load`'s own conductor path (generator, rows into compact columns, exact summary)
 * against the zero-latency SSE server, closed loop at the machine's request ceiling, for --minutes (default 10).
 * Every --sample-s seconds it prints elapsed time, requests stored, the store's typed bytes and the process RSS;
 * at the end a least-squares line through the RSS samples after the first minute, the bytes retained per request
 * (store and RSS slope), and the RSS a one-hour run at the same rate would reach. Rows are not written to disk
 * unless --out is given (its writer holds only a buffer).
 *
 *   deno task bench:load-memory [--minutes 10] [--concurrency 64] [--tokens 64] [--sample-s 10]
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { args, resourceUsage, writeStdout } from "../runtime/mod.ts";
import { streamChat } from "../client/mod.ts";
import { executeLoad, prepareWorkload, RowStore } from "../load/mod.ts";
import { startSseServer } from "./_sse_server.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    minutes: { type: "string", default: "10" },
    concurrency: { type: "string", default: "64" },
    tokens: { type: "string", default: "64" },
    "sample-s": { type: "string", default: "10" },
  },
  strict: true,
});
const minutes = Number(values.minutes), concurrency = Number(values.concurrency), tokens = Number(values.tokens);
const sampleS = Number(values["sample-s"]);
const say = (t: string) => writeStdout(`${t}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
const load = () => os.loadavg().map((v) => v.toFixed(2)).join(" ");

const server = await startSseServer({ tokens });
try {
  const workload = await prepareWorkload(
    {
      source: { kind: "synthetic", name: "chat-short" },
      sample: 256,
      seed: 1,
      maxTokens: null,
      ignoreEos: false,
      model: undefined,
      allowRepeatedPrompt: false,
      requestTimeoutS: 60,
    },
    1000,
    () => Promise.reject(new Error("no file")),
  );
  // The synthetic set carries its own caps (its OSL), so --max-tokens is refused for it; send exactly `tokens`.
  const requestFor = (phase: "warmup" | "measure", i: number) => {
    const r = workload.requestFor(phase, i);
    return { ...r, body: { ...r.body, max_tokens: tokens } };
  };
  const store = new RowStore();
  let rows = 0;
  const samples: { t: number; rows: number; store: number; rss: number }[] = [];
  const t0 = performance.now();
  say(`load memory: closed loop c=${concurrency}, ${tokens} tokens a request, ${minutes} min against sse_server`);
  say(`load average at start ${load()}; ${gc ? "full GC before each sample" : "no forced GC (run with --expose-gc)"}`);
  say("| elapsed s | requests | store MB | RSS MB | req/s so far |");
  say("| --- | --- | --- | --- | --- |");
  const timer = setInterval(() => {
    // With --expose-gc a full collection runs first, so RSS shows what is retained, not garbage not yet collected.
    gc?.();
    const t = (performance.now() - t0) / 1000;
    const s = { t, rows, store: store.allocatedBytes, rss: resourceUsage().rssBytes };
    samples.push(s);
    say(
      `| ${t.toFixed(0)} | ${rows} | ${(s.store / 1e6).toFixed(1)} | ${(s.rss / 1e6).toFixed(1)} | ${
        (rows / t).toFixed(0)
      } |`,
    );
  }, sampleS * 1000);
  const run = await executeLoad({
    urls: [server.url],
    plan: { mode: "closed", concurrency, warmupRequests: concurrency, durationS: minutes * 60, drainLimitS: 10 },
    workload: { ...workload, requestFor },
    seed: 1,
    lateAfterS: 0.002,
    binS: 1,
    slo: {},
    store,
    onRow: () => rows++,
  }, { streamChat, nowS: () => performance.now() / 1000 });
  clearInterval(timer);
  const afterSummary = resourceUsage().rssBytes;
  const o = run.summary.overall;
  // Least squares of RSS on time, after the first minute (start-up, JIT and the first chunks settle).
  const fit = samples.filter((s) => s.t >= 60);
  const n = fit.length;
  const mt = fit.reduce((a, s) => a + s.t, 0) / n, mr = fit.reduce((a, s) => a + s.rss, 0) / n;
  const slope = fit.reduce((a, s) => a + (s.t - mt) * (s.rss - mr), 0) / fit.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  const rate = o.counts.attempted / (o.window_s ?? 1);
  const itlPerRequest = o.distributions.itl_s.n / Math.max(1, o.counts.succeeded);
  say("");
  say(
    `requests ${o.counts.attempted} (${o.counts.failed} failed) in ${o.window_s?.toFixed(1)} s: ${
      rate.toFixed(0)
    } req/s, ` +
      `${itlPerRequest.toFixed(1)} ITL samples a request; load average at end ${load()}`,
  );
  say(
    `store: ${(store.allocatedBytes / o.counts.attempted).toFixed(0)} B a request allocated ` +
      `(budget 1024 + 8 x ${itlPerRequest.toFixed(0)} = ${(1024 + 8 * itlPerRequest).toFixed(0)} B)`,
  );
  say(`RSS slope after the first minute: ${(slope / 1e6).toFixed(3)} MB/s = ${(slope / rate).toFixed(0)} B a request`);
  say(
    `RSS at the end ${(samples.at(-1)!.rss / 1e6).toFixed(0)} MB, after the summary ${
      (afterSummary / 1e6).toFixed(0)
    } MB; ` +
      `one hour at this rate: ${((mr + slope * (3600 - mt)) / 1e6).toFixed(0)} MB by the line (${
        ((samples.at(-1)!.rss + (3600 - samples.at(-1)!.t) * rate * (store.allocatedBytes / o.counts.attempted)) / 1e6)
          .toFixed(0)
      } MB by the store's bytes a request)`,
  );
} finally {
  await server.stop();
}
