/** The `load` command end to end in-process: JSONL lines, console numbers from the same summary, self-check. */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { startMockEngine } from "../../mock/mod.ts";
import { parseLoadCommand } from "../../cli/load.ts";
import {
  consoleHooks,
  type LoadTestHooks,
  type LoadTestOptions,
  type LoadTestOutcome,
  realLoadDeps,
  renderLoadHtml,
  runLoadTest,
} from "../../load/mod.ts";
import { ENDING_MAX_COLUMNS, ENDING_MAX_LINES, renderEnding } from "../../cli/_ending.ts";
import { loadEnding } from "../../cli/_load_ending.ts";
import { livePageContext } from "../../cli/_saved_results.ts";

/** Runs a load test with the real parts, its console text captured. */
async function captured(options: LoadTestOptions): Promise<{ outcome: LoadTestOutcome; out: string[]; err: string[] }> {
  const out: string[] = [], err: string[] = [];
  const hooks: LoadTestHooks = consoleHooks(options, { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
  return { outcome: await runLoadTest(options, realLoadDeps(), hooks), out, err };
}

Deno.test("load writes versioned JSONL whose summary the console prints number for number", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  const engine = await startMockEngine({
    timeScale: 0,
    script: { "*": { answer: { kind: "text", text: "alpha beta gamma delta" }, reasoningTokens: 2 } },
  });
  try {
    const prompts = ["one", "two", "three", "four", "five"].map((p) => JSON.stringify({ prompt: `say ${p}` })).join(
      "\n",
    );
    await writeFile(join(dir, "p.jsonl"), prompts);
    const out = join(dir, "run.jsonl");
    const options = parseLoadCommand([
      "--url",
      engine.url,
      "--concurrency",
      "3",
      "--requests",
      "12",
      "--warmup-requests",
      "2",
      "--prompts",
      join(dir, "p.jsonl"),
      "--max-tokens",
      "32",
      "--osl-target",
      "7",
      "--fail-on-osl-mismatch",
    ]).options;
    options.out = out; // the CLI names a new file in the --out folder; the conductor writes the file it is given
    const { outcome, out: stdout } = await captured(options);
    assert.equal(outcome.status, "ok");
    const lines = (await readFile(out, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(
      lines.every((l) => typeof l.format === "string" && l.version === 3),
      JSON.stringify(lines.map((l) => [l.format, l.version])),
    );
    assert.equal(lines[0].kind, "config");
    assert.equal(lines[0].workload.prompt_set_sha256, createHash("sha256").update(prompts).digest("hex"));
    const rows = lines.filter((l) => l.format === "strata-load-request");
    assert.equal(rows.length, 14);
    assert.equal(rows.filter((r) => r.phase === "warmup").length, 2);
    const summary = lines.find((l) => l.format === "strata-load-summary");
    assert.equal(summary.overall.counts.succeeded, 12);
    assert.equal(summary.overall.osl.achieved, 7); // 2 reasoning + 4 answer + EOS, from usage
    assert.equal(summary.overall.osl.mismatches, 0);
    const text = stdout.join("");
    assert.ok(text.includes(`${summary.overall.requests_per_s.toFixed(2)} req/s`), text);
    assert.ok(text.includes(`${(summary.overall.distributions.ttft_s.p50 * 1000).toFixed(2)}`), text);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("--fail-on-osl-mismatch fails the test when outputs miss the target", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    script: { "*": { answer: { kind: "text", text: "alpha beta" }, reasoningTokens: 0 } },
  });
  try {
    const options = parseLoadCommand([
      "--url",
      engine.url,
      "--concurrency",
      "2",
      "--requests",
      "4",
      "--osl-target",
      "64",
      "--fail-on-osl-mismatch",
    ]).options;
    assert.equal((await captured(options)).outcome.status, "osl-mismatch");
  } finally {
    await engine.close();
  }
});

Deno.test("one literal prompt repeated is refused before any request is sent", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    await writeFile(join(dir, "same.jsonl"), '{"prompt":"same"}\n{"prompt":"same"}\n');
    const options = parseLoadCommand([
      "--url",
      engine.url,
      "--concurrency",
      "2",
      "--requests",
      "4",
      "--prompts",
      join(dir, "same.jsonl"),
    ]).options;
    await assert.rejects(captured(options), RangeError);
    assert.equal(engine.requests.length, 0);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("self-check loads the in-process scripted engine and reports the client's ceiling", async () => {
  const options =
    parseLoadCommand(["--self-check", "--concurrency", "8", "--requests", "40", "--warmup-requests", "4"]).options;
  const { outcome, out } = await captured(options);
  assert.equal(outcome.status, "ok");
  const text = out.join("");
  assert.match(text, /client ceiling: [\d.]+ req\/s, \d+ output tok\/s, \d+ SSE events\/s at 8 concurrent streams/);
});

Deno.test("load --out sanitizes server error text: a home path in an error message does not reach the file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  const leaked = "/home/alice-strata/models/private.gguf";
  const engine = await startMockEngine({
    timeScale: 0,
    script: {
      preflight: {},
      "*": { fault: { kind: "http_error", status: 500, message: `cannot open ${leaked}: no such file` } },
    },
  });
  try {
    await writeFile(
      join(dir, "p.jsonl"),
      ["say one", "say two"].map((prompt) => JSON.stringify({ prompt })).join("\n"),
    );
    const out = join(dir, "run.jsonl");
    const options = parseLoadCommand([
      "--url",
      engine.url,
      "--concurrency",
      "1",
      "--requests",
      "2",
      "--warmup-requests",
      "0",
      "--prompts",
      join(dir, "p.jsonl"),
    ]).options;
    options.out = out;
    await captured(options);
    const text = await readFile(out, "utf8");
    assert.ok(!text.includes("alice-strata"), text);
    const rows = text.trim().split("\n").map((l) => JSON.parse(l)).filter((l) => l.format === "strata-load-request");
    assert.equal(rows.length, 2);
    for (const row of rows) assert.match(row.error?.message ?? "", /cannot open <home>/, JSON.stringify(row.error));
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a sweep loads each point once into one JSONL, ends with a line per point and draws the curve", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  const engine = await startMockEngine({ timeScale: 0.01, slots: 4 });
  try {
    const prompts = ["one", "two", "three", "four", "five"].map((p) => JSON.stringify({ prompt: `say ${p}` }));
    await writeFile(join(dir, "p.jsonl"), prompts.join("\n"));
    const options = parseLoadCommand([
      ...["--url", engine.url, "--concurrency", "4,1,2", "--requests", "8", "--prompts", join(dir, "p.jsonl")],
      ...["--max-tokens", "16", "--no-headroom-check"],
    ]).options;
    options.out = join(dir, "sweep.jsonl");
    const { outcome } = await captured(options);
    assert.equal(outcome.status, "ok");
    const lines = (await readFile(options.out, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines[0].sweep.map((p: { concurrency: number }) => p.concurrency), [1, 2, 4]);
    const summaries = lines.filter((l) => l.format === "strata-load-summary");
    assert.deepEqual(summaries.map((s) => s.effective_max_concurrency), [1, 2, 4], "one run per point, in order");
    assert.deepEqual(summaries.map((s) => s.overall.counts.succeeded), [8, 8, 8]);
    assert.ok(!lines.some((l) => l.format === "strata-load-aggregate"), "no aggregate pools different levels");
    const ending = renderEnding(loadEnding(outcome, options.out, 0, null)).trimEnd().split("\n");
    assert.match(ending[0]!, /^load: ok \(sweep of 3 points\) \(exit 0\); 24 requests: 24 ok/);
    assert.deepEqual(ending.slice(1, 4).map((l) => l.trim().split(" ")[0]), ["c=1", "c=2", "c=4"]);
    // 8 requests a point: every p99 is marked unreliable, as the table marks it, and the legend says so.
    assert.match(ending[3]!, /output tok\/s {2}TTFT ms p50 [\d.]+ p99 [\d.]+\* {2}TPOT ms p50 [\d.]+ p99 [\d.]+\*$/);
    assert.match(ending[4]!, /^ *\* = unreliable at this n/);
    assert.ok(ending.length <= ENDING_MAX_LINES && ending.every((l) => l.length <= ENDING_MAX_COLUMNS));
    const html = await renderLoadHtml(outcome.runs, "sweep", await livePageContext({ path: options.out }));
    assert.match(html, /concurrency 1, 2, 4 \(a sweep: one run per point\)/);
    assert.match(html, /8 requests measured after 1, 2, 4 warm-up, 3 run\(s\)/, "each point warms up at its level");
    assert.match(html, /TTFT against throughput/);
    assert.match(html, />c=4</, "each point is labelled on the curve");
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});
