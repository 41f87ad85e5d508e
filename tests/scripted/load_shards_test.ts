/**
 * A fleet run in one process: three shards of one seeded open-loop schedule, each against its own scripted engine,
 * started at one --start-at, merged; the pooled distributions equal those of the union of all rows.
 */
import assert from "node:assert/strict";
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockEngine } from "../../mock/mod.ts";
import { parseLoadCommand } from "../../cli/load.ts";
import { type LoadRequestRow, mergeShardFiles, realLoadDeps, runLoadTest } from "../../load/mod.ts";
import { MergeRefusal } from "../../load/merge.ts";
import { summarizeStore } from "../../load/summary.ts";
import { RowStore } from "../../load/row_store.ts";
import { describeDistribution } from "../../score/mod.ts";
import { lineErrors } from "../unit/contract/_load_lines.ts";

const mergeDeps = {
  openRead: async (path: string) => {
    const handle = await open(path, "r");
    return {
      read: async (b: Uint8Array) => (await handle.read(b, 0, b.length, null)).bytesRead,
      close: () => handle.close(),
    };
  },
};

/** A shard's options, writing its JSONL to `out` (the CLI would name a new file in the --out folder). */
function shardOptions(url: string, shard: string, startAt: number, out: string, extra: string[] = []) {
  const options = parseLoadCommand(shardArgs(url, shard, startAt, extra)).options;
  options.out = out;
  return options;
}

function shardArgs(url: string, shard: string, startAt: number, extra: string[] = []): string[] {
  return [
    "--no-headroom-check",
    "--url",
    url,
    "--rate",
    "60",
    "--requests",
    "45",
    "--warmup-requests",
    "1",
    "--synthetic",
    "chat-short",
    "--seed",
    "9",
    "--shard",
    shard,
    "--start-at",
    String(startAt),
    ...extra,
  ];
}

Deno.test("merged shards give exactly the union's distributions; a missing, doubled or foreign shard is refused", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-shards-"));
  const engines = await Promise.all(
    [0, 1, 2].map((i) =>
      startMockEngine({
        timeScale: 1,
        decodeTps: 2000 + 500 * i,
        slots: 16,
        script: { "*": { answer: { kind: "text", text: "w ".repeat(12 + i).trim() }, reasoningTokens: 2 } },
      })
    ),
  );
  try {
    const startAt = Date.now() + 1500;
    const files = [0, 1, 2].map((i) => join(dir, `shard-${i}.jsonl`));
    const outcomes = await Promise.all(
      [0, 1, 2].map((i) => runLoadTest(shardOptions(engines[i]!.url, `${i}/3`, startAt, files[i]!), realLoadDeps())),
    );
    for (const o of outcomes) assert.equal(o.status, "ok");
    const merged = await mergeShardFiles(files, mergeDeps);
    assert.deepEqual(lineErrors(JSON.parse(JSON.stringify(merged))), [], "the merge satisfies the published schema");
    const rows: LoadRequestRow[] = [];
    for (const f of files) {
      for (const line of (await readFile(f, "utf8")).trim().split("\n")) {
        const v = JSON.parse(line);
        if (v.format === "strata-load-request" && v.phase === "measure") rows.push(v);
      }
    }
    // The union of the shards is the unsharded schedule's 45 arrivals, each exactly once.
    assert.deepEqual(rows.map((r) => r.index).sort((a, b) => a - b), Array.from({ length: 45 }, (_, i) => i));
    const union = summarizeStore(RowStore.of(rows.map((r) => ({ ...r, endpoint_index: 0 }))), {
      mode: "open",
      effectiveMaxConcurrency: null,
    }).overall;
    assert.equal(merged.pooled.label, "pooled_mixture");
    assert.deepEqual(merged.pooled.counts, union.counts);
    assert.deepEqual(merged.pooled.distributions, union.distributions);
    assert.deepEqual(merged.pooled.distributions.ttft_s, describeDistribution(rows.map((r) => r.ttft_s as number)));
    assert.deepEqual(merged.pooled.distributions.itl_s, describeDistribution(rows.flatMap((r) => r.itl_s ?? [])));
    assert.equal(merged.pooled.window_s, union.window_s);
    assert.equal(merged.per_shard.length, 3);
    assert.equal(merged.per_host.length, 1); // three shards on this one host
    assert.ok(merged.clock.spread_s !== null && merged.clock.per_shard.every((c) => c.epoch_late_s !== null));

    await assert.rejects(mergeShardFiles(files.slice(0, 2), mergeDeps), /shard 2 of 3 missing/);
    await assert.rejects(mergeShardFiles([files[0]!, files[0]!, files[1]!], mergeDeps), /shard 0 appears twice/);
    const other = join(dir, "other.jsonl");
    const differentSeed = shardOptions(engines[2]!.url, "2/3", Date.now() + 300, other, ["--seed", "10"]);
    assert.equal((await runLoadTest(differentSeed, realLoadDeps())).status, "ok");
    await assert.rejects(mergeShardFiles([files[0]!, files[1]!, other], mergeDeps), MergeRefusal);
    await assert.rejects(
      mergeShardFiles([files[0]!, files[1]!, other], mergeDeps),
      /different plans, seeds or workloads/,
    );
    // A shard whose rows were edited no longer gives its own summary or schedule back, and is refused.
    const edited = async (name: string, edit: (row: Record<string, number>) => void) => {
      const path = join(dir, name);
      const lines = (await readFile(files[1]!, "utf8")).trim().split("\n").map((l) => {
        const v = JSON.parse(l);
        if (v.format === "strata-load-request" && v.phase === "measure") edit(v);
        return JSON.stringify(v);
      });
      await writeFile(path, lines.join("\n") + "\n");
      return path;
    };
    const faster = await edited("faster.jsonl", (r) => {
      for (const k of ["latency_s", "ttft_s", "co_latency_s", "tpot_s"]) if (typeof r[k] === "number") r[k] /= 10;
    });
    await assert.rejects(
      mergeShardFiles([files[0]!, faster, files[2]!], mergeDeps),
      /faster\.jsonl: its rows do not give its own summary's distributions/,
    );
    const moved = await edited("moved.jsonl", (r) => {
      r.scheduled_offset_s! += 0.5;
    });
    await assert.rejects(
      mergeShardFiles([files[0]!, moved, files[2]!], mergeDeps),
      /moved\.jsonl: 15 rows are not at their seeded scheduled time/,
    );
    // A shard row is checked as strictly as a saved one: by the one load-line reader, with its line number.
    const negative = await edited("negative.jsonl", (r) => {
      r.latency_s = -0.01;
    });
    await assert.rejects(
      mergeShardFiles([files[0]!, negative, files[2]!], mergeDeps),
      /Cannot merge .*negative\.jsonl: line 2: latency_s: -0\.01 is negative/,
    );
    const text = await readFile(files[1]!);
    const cut = text.indexOf(0x0a) + 1;
    const notUtf8 = join(dir, "not-utf8.jsonl");
    await writeFile(notUtf8, new Uint8Array([...text.subarray(0, cut), 0xff, ...text.subarray(cut)]));
    await assert.rejects(
      mergeShardFiles([files[0]!, notUtf8, files[2]!], mergeDeps),
      /not-utf8\.jsonl: line 2: not UTF-8 text/,
    );
    const foreignLine = join(dir, "foreign-line.jsonl");
    await writeFile(foreignLine, `${text.subarray(0, cut)}{"format":"strata-load-other","version":1}\n`);
    await assert.rejects(
      mergeShardFiles([files[0]!, foreignLine, files[2]!], mergeDeps),
      /foreign-line\.jsonl: line 2: format "strata-load-other" is not a load or compare line/,
    );
  } finally {
    await Promise.all(engines.map((e) => e.close()));
    await rm(dir, { recursive: true, force: true });
  }
});
