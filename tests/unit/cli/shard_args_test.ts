import assert from "node:assert/strict";
import { UsageError } from "../../../cli/_args.ts";
import { parseShardFlags, parseStartAt } from "../../../cli/_shard_args.ts";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const env = (vars: Record<string, string>) => ({ env: (n: string) => vars[n], hostname: "node-a", wallMs: NOW });

Deno.test("--start-at takes a UTC ISO time or epoch milliseconds, and refuses what is ambiguous", () => {
  assert.equal(parseStartAt("2026-03-01T12:00:30Z"), NOW + 30_000);
  assert.equal(parseStartAt("2026-03-01T13:00:30+01:00"), NOW + 30_000);
  assert.equal(parseStartAt(String(NOW + 1)), NOW + 1);
  assert.throws(() => parseStartAt("1772366400"), /epoch seconds/);
  assert.throws(() => parseStartAt("2026-03-01T12:00:30"), /UTC ISO time/);
  assert.throws(() => parseStartAt("tomorrow"), UsageError);
});

Deno.test("--shard I/N is checked; --start-at must be ahead, but less than a day", () => {
  const ahead = new Date(NOW + 60_000).toISOString();
  const s = parseShardFlags({ shard: "2/4", "start-at": ahead }, env({}))!;
  assert.deepEqual([s.index, s.count, s.from, s.startAtEpochMs], [2, 4, "--shard", NOW + 60_000]);
  assert.match(s.hostId, /^host-[0-9a-f]{12}$/);
  assert.throws(() => parseShardFlags({ shard: "4/4", "start-at": ahead }, env({})), /index 4/);
  assert.throws(() => parseShardFlags({ shard: "1-4", "start-at": ahead }, env({})), /expected I\/N/);
  assert.throws(() => parseShardFlags({ shard: "0/2" }, env({})), /--start-at/);
  assert.throws(
    () => parseShardFlags({ shard: "0/2", "start-at": new Date(NOW - 5_000).toISOString() }, env({})),
    /5\.000 s in the past/,
  );
  assert.throws(
    () => parseShardFlags({ shard: "0/2", "start-at": new Date(NOW + 26 * 3600_000).toISOString() }, env({})),
    /at most 24 h/,
  );
  assert.throws(() => parseShardFlags({ "start-at": ahead }, env({})), /without --shard/);
});

Deno.test("--shard auto reads srun's SLURM_PROCID/SLURM_NTASKS or an Indexed Job's JOB_COMPLETION_INDEX", () => {
  const ahead = String(NOW + 10_000);
  const slurm = parseShardFlags({ shard: "auto", "start-at": ahead }, env({ SLURM_PROCID: "3", SLURM_NTASKS: "4" }))!;
  assert.deepEqual([slurm.index, slurm.count, slurm.from], [3, 4, "SLURM_PROCID/SLURM_NTASKS"]);
  const k8s = parseShardFlags({ shard: "auto", shards: "8", "start-at": ahead }, env({ JOB_COMPLETION_INDEX: "5" }))!;
  assert.deepEqual([k8s.index, k8s.count, k8s.from], [5, 8, "JOB_COMPLETION_INDEX"]);
  assert.throws(
    () => parseShardFlags({ shard: "auto", "start-at": ahead }, env({ JOB_COMPLETION_INDEX: "5" })),
    /--shards N/,
  );
  assert.throws(() => parseShardFlags({ shard: "auto", "start-at": ahead }, env({})), /neither SLURM_PROCID/);
  assert.throws(
    () => parseShardFlags({ shard: "auto", "start-at": ahead }, env({ SLURM_PROCID: "4", SLURM_NTASKS: "4" })),
    /index 4/,
  );
});
