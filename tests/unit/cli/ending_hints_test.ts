/**
 * docs/hints.md is the table of every hint the tool prints; this file puts the tool in each row's situation, through
 * the same functions the commands call (a real preflight against real sockets where the hint comes from a server's
 * answer), and holds that it prints the row's hint word for word. A row without a situation here, or a situation
 * without a row, fails.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Result } from "../../../contract/mod.ts";
import { conformingFixes } from "../../../runner/mod.ts";
import { resultGlance } from "../../../report/mod.ts";
import { compareEnding, loadEnding, refusedLines, sloMiss } from "../../../cli/_load_ending.ts";
import { checkStreamingServer } from "../../../load/preflight.ts";
import { preflightSide } from "../../../load/gate/_compare_stages.ts";
import type { CompareDeps } from "../../../load/gate/_compare_types.ts";
import type { CompareResult, CompareRunOptions, LoadTestOutcome } from "../../../load/mod.ts";
import { streamChat } from "../../../client/mod.ts";
import { startMockEngine } from "../../../mock/mod.ts";

const TABLE = readFileSync(fileURLToPath(new URL("../../../docs/hints.md", import.meta.url)), "utf8");

/** The table's rows: id -> hint (the last cell, as printed). */
function rows(): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of TABLE.split("\n")) {
    const cells = /^\| ([a-z]+-[a-z0-9-]+) \| .* \| (.+) \|$/.exec(line);
    if (cells !== null) found.set(cells[1]!, cells[2]!);
  }
  return found;
}

/** A nonconforming result with these missing pointers, extensions and engine version: what conformingFixes reads. */
function nonconforming(missing: string[], extensions: Record<string, unknown> = {}, engine = "b7000"): Result {
  return {
    run: { status: "nonconforming" },
    missing: Object.fromEntries(missing.map((p) => [p, "not given"])),
    extensions,
    software: { engine_version: engine },
  } as unknown as Result;
}

/** The fix run's ending prints for `result`'s problem matching `problem`. */
function runFix(result: Result, problem: RegExp): string {
  const fix = conformingFixes(result).find((f) => problem.test(f.problem));
  assert.ok(fix !== undefined, `no fix for ${problem}: ${JSON.stringify(conformingFixes(result))}`);
  return fix.fix;
}

/** The fix the ending prints for a partial result whose one reason is `reason` (no conforming fix applies). */
function glanceFix(reason: string): string {
  const result = {
    run: { status: "partial" },
    extensions: { nonconforming_reasons: [reason] },
    request_counts: Object.fromEntries(["warmup", "performance", "sanity", "concurrency"].map((phase) => [
      phase,
      { planned: 0, attempted: 0, completed: 0, truncated: 0, failed: 0, skipped: 0 },
    ])),
    quality: { passed: 0, total: 12 },
    summaries: [],
    missing: {},
    requests: [],
  } as unknown as Result;
  assert.deepEqual(conformingFixes(result), [], "a partial run has no conforming fix list");
  const problem = resultGlance(result).problems.find((p) => p.problem === reason);
  assert.ok(problem !== undefined, JSON.stringify(resultGlance(result).problems));
  return problem.fix;
}

function loadFix(status: LoadTestOutcome["status"]): string {
  const outcome = {
    status,
    runs: [],
    aggregate: null,
    reasons: [`the ${status} reason`],
  } as unknown as LoadTestOutcome;
  const problem = loadEnding(outcome, null, 1, null).problems[0];
  assert.ok(problem !== undefined, status);
  return problem.fix;
}

/** The hint of a refused preflight against `url`, as load prints it (the fix, or the reason's own advice). */
async function refusedHint(url: string, flag = "--url"): Promise<string> {
  const checked = await checkStreamingServer(url, { streamChat }, { stream: true, deadlineS: 10, flag });
  assert.equal(checked.ok, false);
  const [line] = refusedLines({ status: "unreachable", runs: [], aggregate: null, reasons: [checked.reason!] }, 3);
  const said = /(?:; ([^;]+))?; nothing was measured$/.exec(line!)?.[1];
  assert.ok(said !== undefined, line);
  return said;
}

function compareFix(rounds: "flag" | "spec" | "saved"): string {
  const metric = { metric: "output_tokens_per_s", gated: true, pass: false, baseline: 1, candidate: 0.8, reason: "r" };
  const result = { tolerance_fraction: 0.05, pass: false, points: [{ key: "W1@1", pass: false, metrics: [metric] }] };
  return compareEnding(result as unknown as CompareResult, null, 1, null, rounds).problems[0]!.fix;
}

async function withServer<T>(status: number, type: string, body: string, use: (url: string) => Promise<T>) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(body, { status, headers: { "content-type": type } }),
  );
  try {
    return await use(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

/** The words client/base_url.ts gives a server that is not on loopback. */
const NOT_LOOPBACK =
  "the server 10.0.0.2 is not on loopback (127.0.0.0/8, ::1, localhost); standard latency is a loopback measurement";

const FACTS = { model_file_facts: { file_type: "Q4_K_M", warnings: [] } };

const SITUATIONS: Record<string, () => string | Promise<string>> = {
  "run-simulated": () => conformingFixes(nonconforming([], { simulated_engine: true }))[0]!.fix,
  "run-model-id": () => runFix(nonconforming(["/model/id"]), /repository id/),
  "run-model-revision": () => runFix(nonconforming(["/model/revision"]), /repository's revision/),
  "run-source-revision": () => runFix(nonconforming(["/model/source_revision"]), /source model/),
  "run-tokenizer-revision": () => runFix(nonconforming(["/model/tokenizer_revision"]), /tokenizer/),
  "run-quantization": () => runFix(nonconforming(["/model/quantization"], FACTS), /quantization/),
  "run-engine-source": () => runFix(nonconforming(["/software/strata_commit"], {}, "b7000-80fb11a"), /commit/),
  "run-engine-commit": () => runFix(nonconforming(["/software/strata_commit"], {}, "unknown"), /commit/),
  "run-engine-args": () => runFix(nonconforming(["/configuration/kv_cache"]), /configuration/),
  "run-pack-dir": () => runFix(nonconforming(["/model/files"]), /model files/),
  "run-template": () => runFix(nonconforming(["/configuration/template"]), /chat template/),
  "run-runner-commit": () => runFix(nonconforming(["/software/runner_commit"]), /toolkit's commit/),
  "run-loopback": () => runFix(nonconforming([], { nonconforming_reasons: [NOT_LOOPBACK] }), /loopback/),
  "run-template-mismatch": () =>
    runFix(
      nonconforming([], {
        nonconforming_reasons: ["prompt-4k: 4200 tokens, more than 2% off the case's target length"],
      }),
      /template or tokenizer/,
    ),
  "run-cache-reuse": () =>
    runFix(
      nonconforming([], {
        nonconforming_reasons: ["unexpected cache reuse: cached_tokens 40 > max_shared_prefix_tokens 12"],
      }),
      /cache/,
    ),
  "glance-simulated": () => glanceFix("the server is the scripted engine (a simulation); nothing real was measured"),
  "glance-loopback": () => glanceFix(NOT_LOOPBACK),
  "glance-model-file": () => glanceFix("cannot hash model file q.gguf: permission denied"),
  "glance-skipped": () => glanceFix("partial: 13 of 22 required requests were skipped"),
  "glance-flag": () => glanceFix("the quantization was not declared (pass --quantization)"),
  "glance-other": () => glanceFix("the settings dialect of the server is unknown (no /props)"),
  "load-no-success": () => loadFix("no-success"),
  "load-audit": () => loadFix("audit-failed"),
  "load-osl": () => loadFix("osl-mismatch"),
  "load-interrupted": () => loadFix("interrupted"),
  "load-slo": () => {
    const overall = { counts: { attempted: 10, cancelled: 0 }, goodput_requests_per_s: 0.5, window_s: 10 };
    const outcome = { status: "ok", runs: [{ summary: { overall } }], aggregate: null, reasons: [] };
    return sloMiss(outcome as unknown as LoadTestOutcome, 0.9)!.fix;
  },
  "load-unreachable": () => refusedHint("http://127.0.0.1:9"),
  "load-v1": async () => {
    const engine = await startMockEngine({ timeScale: 0 });
    try {
      return await refusedHint(`${engine.url}/v1`);
    } finally {
      await engine.close();
    }
  },
  "load-web-page": () => withServer(501, "text/html", "<html><body>index</body></html>", refusedHint),
  "load-http-error": () =>
    withServer(503, "application/json", JSON.stringify({ error: { message: "Loading model" } }), refusedHint),
  "compare-rounds-flag": () => compareFix("flag"),
  "compare-rounds-spec": () => compareFix("spec"),
  "compare-rounds-saved": () => compareFix("saved"),
  "compare-unreachable": async () => {
    const options = { workloads: [{ options: { stream: true } }] } as unknown as CompareRunOptions;
    const refused = await preflightSide(
      options,
      { streamChat } as unknown as CompareDeps,
      "baseline",
      "http://127.0.0.1:9",
    )
      .then(() => null, (error: Error) => error.message);
    return /; ([^;]+); nothing was measured$/.exec(refused ?? "")?.[1] ?? `not refused: ${refused}`;
  },
};

Deno.test("docs/hints.md and the situations here name the same hints, each once", () => {
  const table = rows();
  assert.ok(table.size >= 30, `${table.size} rows`);
  assert.deepEqual([...table.keys()].sort(), Object.keys(SITUATIONS).sort());
});

for (const [id, hint] of rows()) {
  Deno.test(`hint ${id}: the tool prints what docs/hints.md says`, async () => {
    const situation = SITUATIONS[id];
    assert.ok(situation !== undefined, `no situation for ${id}`);
    assert.equal(await situation(), hint);
  });
}
