/**
 * Open-loop schedule fidelity: Poisson and constant arrivals at a requested rate (default 50 req/s) against the
 * scripted engine started in-process, through the project's streaming client. Reports lateness (actual minus
 * scheduled send) percentiles and the achieved send rate against the requested one. Lateness here is the
 * client's own scheduling error, since the engine has free slots and (by default) short service times.
 *
 *   deno run -P=bench --no-prompt benchmarks/open_loop.ts [--rate 50] [--requests 500] [--decode-tps 2000]
 */
import { parseArgs } from "node:util";
import { args, writeStdout } from "../runtime/mod.ts";
import { startMockEngine } from "../mock/mod.ts";
import { streamChat } from "../client/mod.ts";
import { buildLoadBody, buildLoadRow, type LoadPlan, runLoad, summarizeLoad, syntheticProfile } from "../load/mod.ts";
import type { ArrivalProcess } from "../contract/mod.ts";

const { values } = parseArgs({
  args: args(),
  options: {
    rate: { type: "string", default: "50" },
    requests: { type: "string", default: "500" },
    "decode-tps": { type: "string", default: "2000" },
    tokens: { type: "string", default: "32" },
  },
  strict: true,
});
const rate = Number(values.rate), requests = Number(values.requests), decodeTps = Number(values["decode-tps"]);
const tokens = Number(values.tokens);

const engine = await startMockEngine({
  slots: 1024,
  promptTps: 1_000_000,
  decodeTps,
  timeScale: 1,
  script: {
    "*": {
      answer: { kind: "text", text: Array.from({ length: tokens - 1 }, () => "tok").join(" ") },
      reasoningTokens: 0,
    },
  },
});
try {
  const set = syntheticProfile("chat-short", { seed: 1, count: 64 });
  const bodies = set.entries.map((e) => buildLoadBody(e, { maxTokens: null }));
  const ms = (x: number | null) => (x === null ? "-" : (x * 1000).toFixed(2));
  writeStdout(
    `open-loop fidelity: ${requests} requests at ${rate} req/s, scripted engine ${tokens} tokens at ${decodeTps} tok/s ` +
      `(service about ${(tokens / decodeTps * 1000).toFixed(0)} ms)\n`,
  );
  for (const arrival of ["poisson", "constant"] as ArrivalProcess[]) {
    const plan: LoadPlan = {
      endpoints: [engine.url],
      mode: "open",
      ratePerS: rate,
      arrival,
      maxConcurrency: 1024,
      seed: 1,
      warmupRequests: 8,
      requests,
      requestFor: (_phase, i) => ({ body: bodies[i % bodies.length]!, promptIndex: i % bodies.length }),
    };
    const facts = await runLoad(plan, { streamChat, nowS: () => performance.now() / 1000 });
    const rows = facts.samples.map((s) => buildLoadRow(s, { lateAfterS: 0.002 }));
    const s = summarizeLoad(rows, { mode: "open", effectiveMaxConcurrency: 1024 }).overall;
    const late = s.distributions.lateness_s;
    const last = Math.max(...rows.filter((r) => r.phase === "measure").map((r) => r.scheduled_offset_s ?? 0));
    const scheduledRate = (requests - 1) / last;
    writeStdout(
      `${arrival.padEnd(9)} lateness ms: p50 ${ms(late.p50)} p90 ${ms(late.p90)} p99 ${ms(late.p99)} max ${
        ms(late.max)
      }` +
        ` | late (>2 ms) ${s.counts.late}/${s.counts.attempted} | requested ${rate}/s, schedule drew ` +
        `${scheduledRate.toFixed(2)}/s, achieved send ${s.achieved_send_rate_per_s?.toFixed(2)}/s | ` +
        `${s.counts.failed} failed | in flight max ${s.concurrency.max}\n`,
    );
  }
} finally {
  await engine.close();
}
