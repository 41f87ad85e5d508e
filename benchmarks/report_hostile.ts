/**
 * `report` on hostile result files of a million records: wall time, the exit code, the problem lines printed and
 * the peak resident memory of the `report` process (maximum RSS as GNU time reports it; "unknown" where
 * /usr/bin/time is missing). The files are written into a temporary folder and removed afterwards.
 *
 *   deno task bench:report [--records 1000000]
 *
 * Cases: results.json with N empty records `{}`; with N records `{"id":"a"}`; and a valid results.json (the
 * realistic one of the tests is not available here, so a minimal object) next to an outputs.jsonl of N lines.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import os from "node:os";
import { args, spawnProcess, writeStdout } from "../runtime/mod.ts";

const { values } = parseArgs({ args: args(), options: { records: { type: "string", default: "1000000" } } });
const records = Number(values.records);
if (!Number.isSafeInteger(records) || records < 1) throw new RangeError("--records must be a positive integer");

const REPO = fileURLToPath(new URL("../", import.meta.url));
const DENO = join(REPO, "node_modules", ".bin", "deno");
const GNU_TIME = "/usr/bin/time";

async function runReport(dir: string) {
  let stderr = "";
  const decoder = new TextDecoder();
  const onOutput = (chunk: Uint8Array, stream: "stdout" | "stderr") => {
    if (stream === "stderr") stderr += decoder.decode(chunk, { stream: true });
  };
  const started = performance.now();
  const reportArgs = ["run", "-q", "-P=report", "--no-prompt", join(REPO, "mod.ts"), "report", dir];
  const timed = await spawnProcess(GNU_TIME, ["-f", "maxrss-kib %M", DENO, ...reportArgs], { cwd: REPO, onOutput });
  const child = timed.ok ? timed : await spawnProcess(DENO, reportArgs, { cwd: REPO, onOutput });
  if (!child.ok) throw new Error(`Cannot start report: ${child.reason}`);
  const exit = await child.value.exited;
  const peakKiB = /maxrss-kib (\d+)/.exec(stderr)?.[1];
  const peak = peakKiB === undefined ? null : Number(peakKiB);
  const seconds = (performance.now() - started) / 1000;
  const printed = stderr.split("\n").filter((line) => line.startsWith("  ")).length;
  const head = stderr.split("\n").find((line) => line.includes("problem(s)")) ?? stderr.split("\n")[0] ?? "";
  return { seconds, code: exit.code, peakMiB: peak === null ? null : peak / 1024, printed, head };
}

/** A result's format and version: without them report refuses the file before validating it. */
const HEAD = `"format":"strata-standard-benchmark","schema_version":1`;

/** Records of the case that stays under the validator's value cap, so the whole validator runs on it. */
const UNDER_CAP = 190_000;

const cases: [string, (dir: string) => Promise<void>][] = [
  [
    `results.json: ${UNDER_CAP} empty records (under the value cap: every check runs)`,
    (dir) => writeFile(join(dir, "results.json"), `{${HEAD},"requests":[${Array(UNDER_CAP).fill("{}").join(",")}]}`),
  ],
  [
    "results.json: N empty records",
    (dir) => writeFile(join(dir, "results.json"), `{${HEAD},"requests":[${Array(records).fill("{}").join(",")}]}`),
  ],
  [
    'results.json: N records {"id":"a"}',
    (dir) =>
      writeFile(join(dir, "results.json"), `{${HEAD},"requests":[${Array(records).fill('{"id":"a"}').join(",")}]}`),
  ],
  ["results.json: a map of N stale missing entries", (dir) => {
    const entries = Array.from({ length: records }, (_, i) => `"/x/${i}":"r"`).join(",");
    return writeFile(join(dir, "results.json"), `{${HEAD},"missing":{${entries}}}`);
  }],
  ["outputs.jsonl: N lines beside a results.json that lists it", async (dir) => {
    await writeFile(join(dir, "outputs.jsonl"), '{"request_id":"warmup","status":"skipped"}\n'.repeat(records));
    const artifact = { kind: "outputs", path: "outputs.jsonl", sha256: "0".repeat(64) };
    await writeFile(
      join(dir, "results.json"),
      JSON.stringify({ format: "strata-standard-benchmark", schema_version: 1, artifacts: [artifact], requests: [] }),
    );
  }],
];

function loadAverage(): string {
  try {
    return os.loadavg().map((v) => v.toFixed(2)).join(" ");
  } catch {
    return "unknown";
  }
}
writeStdout(`report on hostile files, N = ${records}; load average ${loadAverage()}\n`);
for (const [name, write] of cases) {
  const dir = await mkdtemp(join(tmpdir(), "strata-bench-report-"));
  try {
    await write(dir);
    const r = await runReport(dir);
    const peak = r.peakMiB === null ? "unknown" : `${r.peakMiB.toFixed(0)} MiB`;
    writeStdout(
      `${name.replace("N", String(records))}: exit ${r.code}, ${r.seconds.toFixed(2)} s, peak RSS ${peak}, ` +
        `${r.printed} lines printed (${r.head.trim()})\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
