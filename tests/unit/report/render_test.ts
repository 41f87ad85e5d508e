import assert from "node:assert/strict";
import { renderConsoleSummary, renderReadme } from "../../../report/render.ts";
import type { Result } from "../../../contract/mod.ts";
import { buildRealisticResult } from "./_realistic_result.ts";

async function realistic(optionalConcurrency = false): Promise<Result> {
  const built = await buildRealisticResult({ optionalConcurrency });
  await built.cleanup();
  return built.result;
}

function clone(result: Result): Result {
  return structuredClone(result);
}

function tableRow(text: string, firstCell: string): string {
  const row = text.split("\n").find((line) => line.startsWith(`| ${firstCell} |`));
  assert.ok(row, `no table row for ${firstCell}`);
  return row;
}

Deno.test("README has the performance table with a Capped column and capped counts per case", async () => {
  const readme = renderReadme(await realistic());
  assert.match(readme, /\| Case \| Concurrency \| Capped \| Prompt tok\/s \| Decode tok\/s \| TTFT s \|/);
  assert.match(tableRow(readme, "short"), /^\| short \| 1 \| 1\/3 \|/);
  assert.match(tableRow(readme, "prompt-4k"), /^\| prompt-4k \| 1 \| 2\/3 \|/);
  assert.match(tableRow(readme, "prompt-16k"), /^\| prompt-16k \| 1 \| 3\/3 \|/);
});

Deno.test("README leaves the short case's prompt rate out of the table while results.json keeps it", async () => {
  const result = await realistic();
  const shortPrompt = result.summaries.find((s) => s.case_id === "short" && s.metric === "prompt_tps");
  assert.ok(shortPrompt?.median !== null && shortPrompt?.median !== undefined, "results.json keeps the rate");
  const row = tableRow(renderReadme(result), "short");
  assert.match(row, /left out/);
  assert.ok(!row.includes(shortPrompt.median.toFixed(1)), row);
});

Deno.test("README prints medians as stored: an edited summary shows the edited number (no recomputation)", async () => {
  const result = clone(await realistic());
  const decode = result.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "decode_tps");
  assert.ok(decode);
  Object.assign(decode, { median: 123.45, min: 100, max: 150, n: 3 });
  assert.match(tableRow(renderReadme(result), "prompt-4k"), /\| 123\.5 \(100\.0-150\.0, n=3\) \|/);
});

Deno.test("README shows passed/12 with the category scores and each failing case's reason", async () => {
  const readme = renderReadme(await realistic());
  assert.match(readme, /## Sanity checks: 11\/12 passed/);
  assert.match(readme, /retrieval 3\/4/);
  assert.match(readme, /- R3 \(retrieval, completed\): .*DELTA-609/);
});

Deno.test('README says "not measured" for nulls and never prints NaN, undefined or Infinity', async () => {
  for (const result of [await realistic(), await realistic(true)]) {
    const readme = renderReadme(result);
    assert.match(readme, /\*\*Storage:\*\* not measured/);
    assert.match(readme, /\*\*Build options:\*\* not measured/);
    assert.match(tableRow(readme, "prompt-16k"), /not measured \(n=0\)/, "16K first answer has no valid sample");
    for (const word of ["NaN", "undefined", "Infinity", "[object Object]"]) assert.ok(!readme.includes(word), word);
  }
});

Deno.test("README lists every failed and skipped request with its error in Failures", async () => {
  const result = clone(await realistic());
  const record = result.requests.find((r) => r.id === "performance-prompt-16k-r3");
  assert.ok(record);
  Object.assign(record, { status: "failed", error: { kind: "timeout", message: "no answer within 1800 s" } });
  const readme = renderReadme(result);
  assert.match(readme, /## Failures\n\n- performance-prompt-16k-r3: failed, timeout: no answer within 1800 s/);
  const clean = renderReadme(await realistic());
  assert.match(clean, /## Failures\n\n- none/);
});

Deno.test("README labels a simulated engine and lists nonconforming reasons", async () => {
  const result = clone(await realistic());
  result.run.status = "nonconforming";
  result.extensions = { simulated_engine: true, nonconforming_reasons: ["the server is not on loopback"] };
  const readme = renderReadme(result);
  assert.match(readme, /^> \*\*SIMULATED ENGINE/m);
  assert.match(readme, /- nonconforming: the server is not on loopback/);
  assert.match(readme, /Status \*\*nonconforming\*\*/);
  assert.ok(!renderReadme(await realistic()).includes("SIMULATED"), "no label when simulated_engine is false");
});

Deno.test("README includes the concurrency rounds only when the optional stage ran", async () => {
  assert.ok(!renderReadme(await realistic()).includes("## Concurrency rounds"));
  const readme = renderReadme(await realistic(true));
  assert.match(readme, /## Concurrency rounds/);
  assert.match(tableRow(readme, "short-burst"), /^\| short-burst \| 4 \| 1\/12 \|/);
  assert.match(readme, /\| 2 \| 4 \| 40\.591 \| 1486 \| 36\.6 \| 0 \|/);
});

Deno.test("README keeps table and list structure when values hold pipes, newlines or Markdown", async () => {
  const result = clone(await realistic());
  result.configuration.track_notes = "a | b\n# not a heading <script>";
  result.artifacts[0]!.path = "logs/engine log|1.txt";
  const readme = renderReadme(result);
  assert.ok(readme.includes("- **Track notes:** a \\| b \\# not a heading \\<script\\>"), readme);
  assert.ok(!readme.includes("\n# not a heading"));
  assert.match(readme, /\[logs\/engine log\\\|1\.txt\]\(logs\/engine%20log%7C1\.txt\)/);
});

Deno.test("console summary carries the same facts in plain text", async () => {
  const text = renderConsoleSummary(await realistic());
  assert.match(text, /Status complete, sanity 11\/12\./);
  assert.match(text, /Case\s+Concurrency\s+Capped\s+Prompt tok\/s/);
  assert.match(text, /prompt-16k\s+1\s+3\/3\s+/);
  assert.match(text, /R3 \(retrieval, completed\)/);
  assert.match(text, /Storage:\s+not measured/);
  for (const word of ["NaN", "undefined", "**", "| ---"]) assert.ok(!text.includes(word), word);
});

function section(text: string, heading: string): string {
  const start = text.indexOf(heading);
  assert.ok(start >= 0, `no ${heading}`);
  const next = text.indexOf("\n## ", start + heading.length);
  return text.slice(start, next < 0 ? undefined : next);
}

Deno.test("README and console say a reused server had already answered requests, with the count and evidence", async () => {
  const result = clone(await realistic());
  const evidence = "/slots: slot 0 has handled 3 tasks (counted since the server started)";
  result.extensions = {
    ...result.extensions,
    server_prior_requests: { served: null, at_least: 1, freshly_loaded: false, evidence: [evidence], reason: "x" },
  };
  const line = "not freshly loaded: the server had already answered at least 1 request(s) before this run " +
    `(evidence: ${evidence})`;
  const readme = renderReadme(result);
  assert.ok(section(readme, "## Status").includes(line), section(readme, "## Status"));
  assert.ok(section(readme, "## Limitations").includes(line));
  assert.ok(renderConsoleSummary(result).includes(line));
  assert.match(readme, /Status \*\*complete\*\*/, "the renderer reports the status, it does not change it");

  result.extensions.server_prior_requests = {
    served: 7,
    at_least: 7,
    freshly_loaded: false,
    evidence: [],
    reason: null,
  };
  assert.match(section(renderReadme(result), "## Status"), /already answered 7 request\(s\) before this run;/);
});

Deno.test("README says nothing about prior requests for a freshly loaded server and says so when unknown", async () => {
  const result = clone(await realistic());
  result.extensions = {
    ...result.extensions,
    server_prior_requests: { served: 0, at_least: 0, freshly_loaded: true, evidence: ["counters 0"], reason: null },
  };
  assert.doesNotMatch(renderReadme(result), /freshly loaded/);
  result.extensions.server_prior_requests = {
    served: null,
    at_least: 0,
    freshly_loaded: null,
    evidence: [],
    reason: "the server exposes neither /metrics nor /slots",
  };
  assert.match(
    section(renderReadme(result), "## Status"),
    /not known to be freshly loaded: .* \(the server exposes neither \/metrics nor \/slots\)/,
  );
});

Deno.test("a nonconforming run that also skipped required work says both in Status, with counts", async () => {
  const result = clone(await realistic());
  result.run.status = "nonconforming";
  result.extensions = { ...result.extensions, nonconforming_reasons: ["the server is not on loopback"] };
  result.request_counts.performance = { ...result.request_counts.performance, attempted: 5, completed: 3, skipped: 4 };
  result.request_counts.sanity = { ...result.request_counts.sanity, attempted: 0, completed: 0, skipped: 12 };
  const status = section(renderReadme(result), "## Status");
  assert.match(status, /- nonconforming: the server is not on loopback/);
  assert.match(
    status,
    /- partial: 16 of 22 required requests were skipped \(warmup 0, performance 4, sanity 12\); this is not a full-suite result/,
  );
  assert.match(renderConsoleSummary(result), /partial: 16 of 22 required requests were skipped/);
  assert.doesNotMatch(section(renderReadme(await realistic()), "## Status"), /partial:/);
});
