/**
 * Checks of the Slurm tier, each printed as "ok: ..." or "FAILED: ...":
 *   schedule WHOLE.jsonl SHARD.jsonl...   the shards' planned requests are disjoint and their union is the whole
 *   merged MERGED.json SHARD.jsonl...     the merge's pooled counts and distributions equal the union of the rows
 * Exits 1 when a check failed.
 */
import { readFileSync } from "node:fs";
import type { LoadRequestRow } from "../../load/mod.ts";
import { summarizeStore } from "../../load/summary.ts";
import { RowStore } from "../../load/row_store.ts";
import { describeDistribution } from "../../score/mod.ts";

const [mode, first, ...rest] = Deno.args;
let failed = 0;
function check(ok: boolean, what: string, detail = ""): void {
  console.log(`${ok ? "ok" : "FAILED"}: ${what}${ok || detail === "" ? "" : ` (${detail})`}`);
  if (!ok) failed++;
}
function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8").trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}
const key = (r: Record<string, unknown>) => JSON.stringify([r.index, r.scheduled_offset_s, r.prompt_index]);

if (mode === "schedule") {
  const whole = lines(first!).filter((l) => l.kind === "request").map(key);
  const shards = rest.map((p) => lines(p).filter((l) => l.kind === "request").map(key));
  const seen = new Map<string, number>();
  let overlaps = 0;
  shards.forEach((s, i) =>
    s.forEach((k) => {
      if (seen.has(k)) overlaps++;
      seen.set(k, i);
    })
  );
  check(whole.length > 0, `the unsharded schedule has ${whole.length} requests`);
  check(overlaps === 0, `the ${shards.length} shard schedules are disjoint`, `${overlaps} requests in two shards`);
  const union = [...seen.keys()].sort();
  check(
    JSON.stringify(union) === JSON.stringify([...whole].sort()),
    "the union of the shard schedules is the unsharded schedule (index, scheduled time, prompt)",
    `${union.length} vs ${whole.length}`,
  );
} else if (mode === "merged") {
  const merged = JSON.parse(readFileSync(first!, "utf8"));
  const rows = rest.flatMap((p) =>
    lines(p).filter((l) => l.format === "strata-load-request" && l.phase === "measure")
  ) as unknown as LoadRequestRow[];
  const union = summarizeStore(RowStore.of(rows.map((r) => ({ ...r, endpoint_index: 0 }))), {
    mode: merged.mode,
    effectiveMaxConcurrency: null,
  }).overall;
  check(rows.length > 0, `the shards wrote ${rows.length} measured rows`);
  check(JSON.stringify(merged.pooled.counts) === JSON.stringify(union.counts), "merged counts equal the union's");
  check(
    JSON.stringify(merged.pooled.distributions) === JSON.stringify(union.distributions),
    "merged distributions (every one: latency, TTFT, ITL, TPOT, tokens, ...) equal the union's",
  );
  check(
    JSON.stringify(merged.pooled.distributions.ttft_s) ===
      JSON.stringify(describeDistribution(rows.map((r) => r.ttft_s).filter((v): v is number => v !== null))),
    "merged TTFT equals describeDistribution of every row's TTFT",
  );
  check(merged.pooled.window_s === union.window_s, "merged window equals the union's (earliest send to latest end)");
  check(merged.shards === rest.length, `the merge joined ${merged.shards} shards`);
  console.log(
    `merged: ${merged.pooled.counts.succeeded}/${merged.pooled.counts.attempted} ok, ` +
      `TTFT p50 ${(merged.pooled.distributions.ttft_s.p50 * 1000).toFixed(2)} ms, ` +
      `window ${merged.pooled.window_s.toFixed(3)} s +- ${(merged.window_uncertainty_s * 1000).toFixed(1)} ms`,
  );
} else {
  console.log("usage: _check.ts schedule WHOLE SHARD... | merged MERGED SHARD...");
  Deno.exit(2);
}
Deno.exit(failed === 0 ? 0 : 1);
