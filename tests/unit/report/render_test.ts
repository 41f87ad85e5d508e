import assert from "node:assert/strict";
import { renderConsoleSummary, renderReadme, wrapProse } from "../../../report/render.ts";
import type { Result } from "../../../contract/mod.ts";
import { buildRealisticResult } from "./_realistic_result.ts";

/** The console text with each wrapped prose line joined again (its continuations are indented). */
const unwrapped = (text: string) => text.replace(/\n {2,}(?=\S)/g, " ");

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

Deno.test("README's per-case table has the Capped column, actual token counts and the five metrics", async () => {
  const result = await realistic();
  const readme = renderReadme(result);
  assert.match(
    readme,
    /\| Case \| Capped \| Input tokens \| Cached tokens \| Output tokens \| Prompt tok\/s \| Decode tok\/s \| TTFT s \|/,
  );
  assert.match(tableRow(readme, "short"), /^\| short \| 1\/3 \|/);
  assert.match(tableRow(readme, "prompt-4k"), /^\| prompt-4k \| 2\/3 \|/);
  const row16 = tableRow(readme, "prompt-16k");
  assert.match(row16, /^\| prompt-16k \| 3\/3 \|/);
  // Input tokens are the engine's usage.prompt_tokens of the three requests (each fixture has its own count).
  const inputs = result.requests.filter((r) => r.case_id === "prompt-16k").map((r) => r.tokens.input_tokens!);
  const sorted = [...inputs].sort((a, b) => a - b);
  const shown = sorted[0] === sorted[2] ? `${sorted[1]}` : `${sorted[1]} \\[${sorted[0]}-${sorted[2]}\\]`;
  assert.ok(row16.includes(`| ${shown} |`), `${row16} lacks ${shown}`);
  assert.ok(row16.includes("| 512 |"), "capped requests generated exactly 512 tokens");
});

Deno.test("README's first 15 lines name machine, model, engine, status, sanity and the headline numbers", async () => {
  for (const simulated of [false, true]) {
    const result = clone(await realistic());
    result.hardware.gpus = [{
      device_index: 0,
      name: "NVIDIA RTX 3060",
      memory_bytes: 12 * 2 ** 30,
      memory_kind: "dedicated",
      power_limit_w: 170,
    }];
    result.model.id = "Qwen/Qwen3.8-Flash-Next-GGUF";
    result.model.quantization = "IQ3_XXS";
    if (simulated) result.extensions = { ...result.extensions, simulated_engine: true };
    const first = renderReadme(result).split("\n").slice(0, 15).join("\n");
    assert.match(
      first,
      /^# Standard benchmark: NVIDIA RTX 3060 \/ Qwen\/Qwen3\.8-Flash-Next-GGUF \/ IQ3\\_XXS \/ strata-/,
    );
    assert.match(first, /- \*\*Status:\*\* complete; sanity 11\/12/);
    assert.match(first, /- \*\*Machine:\*\* NVIDIA RTX 3060 \(12\.0 GiB dedicated\)/);
    assert.match(first, /- \*\*Model:\*\* Qwen\/Qwen3\.8-Flash-Next-GGUF; quantization IQ3\\_XXS/);
    assert.match(first, /- \*\*Engine:\*\* /);
    const decode = result.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "decode_tps")!;
    const prompt16 = result.summaries.find((s) => s.case_id === "prompt-16k" && s.metric === "prompt_tps")!;
    assert.ok(first.includes(`${decode.median!.toFixed(1)} \\[${decode.min!.toFixed(1)}-${decode.max!.toFixed(1)}\\]`));
    assert.ok(first.includes(`${prompt16.median!.toFixed(1)} \\[`), "16K prompt rate with its range");
    assert.match(first, /\| TTFT s \|/);
    assert.equal(first.includes("SIMULATED ENGINE"), simulated);
  }
});

Deno.test("the title names only what is known: no 'not measured' parts", async () => {
  const result = clone(await realistic());
  result.hardware.gpus = null;
  result.model.id = null;
  result.model.quantization = null;
  const title = renderReadme(result).split("\n")[0]!;
  assert.doesNotMatch(title, /not measured/);
  assert.match(title, /strata-qwen38-thinking-v1-draft\.1$/);
  result.hardware.gpus = [];
  result.hardware.cpu = "AMD EPYC";
  assert.match(renderReadme(result).split("\n")[0]!, /^# Standard benchmark: AMD EPYC \(no GPU\) \/ /);
});

Deno.test("README reports model hashing and a profile-started engine's model load apart from the run", async () => {
  const result = clone(await realistic());
  result.extensions = {
    ...result.extensions,
    model_hashing: { hashed_bytes: 44 * 2 ** 30, hash_seconds: 181.25, cache_problem: null },
    engine_load: { started_by_runner: true, load_seconds: 12.34, reason: null },
  };
  const time = renderReadme(result).split("\n").find((line) => line.startsWith("- **Time:**"))!;
  assert.match(time, /model hashing 181\.3 s \(44\.0 GiB read\)/);
  assert.match(time, /model load 12\.3 s \(the runner started the engine from its profile\)/);
  result.extensions.engine_load = { started_by_runner: false, load_seconds: null, reason: "already running" };
  assert.match(renderReadme(result), /model load not measured \(already running\)/);
});

Deno.test("the long tail has one line per reason, however many requests share it", async () => {
  const readme = renderReadme(await realistic());
  const tail = section(readme, "## Limitations and missing values");
  const lines = tail.split("\n").filter((line) => line.startsWith("- "));
  assert.equal(new Set(lines).size, lines.length, "no line repeats");
  const capped = lines.filter((line) => /512-token cap while reasoning/.test(line));
  assert.equal(capped.length, 1, capped.join("\n"));
  assert.doesNotMatch(section(readme, "## Per case"), /left out \(first_answer/);
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
  assert.match(tableRow(renderReadme(result), "prompt-4k"), /\| 123\.5 \\\[100\.0-150\.0\\\] n=3 \|/);
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
    // The realistic result's build options were not given: the README says which flag gives them.
    assert.equal(result.missing["/software/build_options"] !== undefined, true);
    assert.match(readme, /\*\*Build options:\*\* not given \(pass --build-options\)/);
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
  assert.match(readme, /- \*\*Status:\*\* nonconforming: the server is not on loopback/);
  assert.ok(!renderReadme(await realistic()).includes("SIMULATED"), "no label when simulated_engine is false");
});

Deno.test("README includes the concurrency rounds only when the optional stage ran", async () => {
  assert.ok(!renderReadme(await realistic()).includes("## Concurrency rounds"));
  const readme = renderReadme(await realistic(true));
  assert.match(readme, /## Concurrency rounds/);
  assert.match(tableRow(readme, "short-burst x4"), /^\| short-burst x4 \| 1\/12 \|/);
  // One slot: the first request the engine began had it, the three others waited 11.5, 23 and 34.5 s.
  assert.match(readme, /\| 2 \| 4 \| 3 of 4 \(11\.5\d-34\.5\d s\) \| 40\.591 \| 1486 \| 36\.6 \| 0 \|/);
  assert.match(readme, /Waited for a slot: requests the engine began after the first server\\?_capacity of the round/);
  assert.match(readme, /Measured from engine timers: total\\?_s - timings\.prompt\\?_ms - timings\.predicted\\?_ms/);
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
  assert.match(text, /Status:\s+complete; sanity 11\/12/);
  assert.match(text, /Case\s+Capped\s+Input tokens\s+Cached tokens\s+Output tokens\s+Prompt tok\/s/);
  assert.match(text, /prompt-16k\s+3\/3\s+/);
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
  assert.ok(section(readme, "## Limitations and missing values").includes(line));
  assert.ok(unwrapped(renderConsoleSummary(result)).includes(line));
  assert.match(readme, /- \*\*Status:\*\* complete;/, "the renderer reports the status, it does not change it");

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

Deno.test("the console summary shows control characters of result text as escapes", async () => {
  const result = clone(await realistic());
  result.configuration.track_notes = "red \u001b[31mX\u001b[0m bell \u0007";
  const text = renderConsoleSummary(result);
  assert.ok(![...text].some((c) => c !== "\n" && (c < " " || c === "\u007f")), "no raw control character");
  assert.match(text, /red \\u001b\[31mX\\u001b\[0m bell \\u0007/);
});

Deno.test("report prints a reasoning-cadence line per case where any request reasoned, and none otherwise", async () => {
  const result = clone(await realistic());
  const cadenceOf = result.extensions!.reasoning_cadence!;
  assert.deepEqual(result.extensions!.reasoning_itl!.map((p) => [p.case_id, p.reasoning_itl_s.n]), [
    ["short", 15],
    ["prompt-4k", 15],
    ["prompt-16k", 15],
  ]);
  const text = unwrapped(renderConsoleSummary(result));
  const lines = text.split("\n").filter((line) => line.startsWith("Reasoning cadence, "));
  assert.equal(lines.length, 4, lines.join("\n"));
  assert.match(lines[1]!, /^Reasoning cadence, short \(3 of 3 measured requests reasoned\): thinking [0-9.]+ s \[/);
  assert.match(lines[1]!, /; reasoning TPOT 24\.10 ms \[24\.10-24\.10\] n=3, ITL 24\.10 ms \[24\.10-24\.10\] n=15;/);
  assert.match(lines[3]!, /prompt-16k .*thinking not measured \(n=0\);.* answer TPOT not measured \(n=0\)/);
  assert.ok(section(renderReadme(result), "## Per case").includes("Reasoning cadence, prompt-4k (3 of 3"));
  for (const record of result.requests) cadenceOf[record.id] = null;
  assert.doesNotMatch(renderConsoleSummary(result), /Reasoning cadence/);
});

Deno.test("console prose wraps at 100 columns under its label; a table row keeps its width", () => {
  const fact = `  Status:  ${"word ".repeat(40).trim()}`;
  const row = `  Case        Capped  ${"1500.0 [1500.0-1500.0] n=3  ".repeat(5).trim()}`;
  const wrapped = wrapProse(`${fact}\n${row}`).split("\n");
  assert.ok(wrapped.slice(0, -1).every((l) => l.length <= 100), wrapped.join("\n"));
  assert.ok(wrapped.slice(1, -1).every((l) => l.startsWith(" ".repeat(11) + "word")), "under the value");
  assert.equal(wrapped.slice(0, -1).join(" ").replace(/ +/g, " "), fact.replace(/ +/g, " "), "every word, in order");
  assert.equal(wrapped.at(-1), row, "the table row is whole");
  assert.equal(wrapProse("short line"), "short line");
});

Deno.test("README says not given (pass --flag) where results.json says so, not measured only where it could not be", async () => {
  const result = clone(await realistic());
  result.model.id = null;
  result.missing["/model/id"] = "not given (pass --model-id)";
  result.model.quantization = null;
  result.missing["/model/quantization"] = "no quantization declared";
  result.configuration.kv_cache = null;
  result.missing["/configuration/kv_cache"] = "not given (pass --engine-args with the KV cache flags)";
  result.software.drivers = null;
  result.missing["/software/drivers"] = "no GPU tool answered: nvidia-smi not found";
  result.hardware.storage = [{ kind: null, model: null, bus: "virtio" }, { kind: "nvme", model: "X1", bus: null }];
  const readme = renderReadme(result);
  assert.match(readme, /^- \*\*Model:\*\* not given \(pass --model-id\)$/m);
  assert.match(readme, /^- \*\*Quantization:\*\* not given \(pass --quantization\)$/m);
  assert.match(readme, /^- \*\*KV cache:\*\* not given \(pass --engine-args\)$/m);
  assert.match(readme, /^- \*\*Drivers:\*\* not measured$/m, "a tool that did not answer: not measured");
  assert.match(readme, /^- \*\*Storage:\*\* a device on virtio; nvme X1 \(kind, model and bus not measured\)$/m);
  assert.doesNotMatch(readme, /not measured not measured/);
  assert.match(readme, /^- \*\*Model card revision:\*\* not pinned \(a draft protocol pins it at activation\)$/m);
});
