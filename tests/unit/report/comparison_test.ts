import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type ComparedInput, compareResults } from "../../../report/comparison/comparison.ts";
import { comparisonSpec, PICTURE_WIDTH_PX } from "../../../report/comparison/picture.ts";
import {
  renderComparisonCsv,
  renderComparisonJson,
  renderComparisonMarkdown,
} from "../../../report/comparison/render.ts";
import { renderChartSvg } from "../../../report/charts.ts";
import type { Result } from "../../../contract/mod.ts";
import { buildRealisticResult } from "./_realistic_result.ts";

const GOLDEN = fileURLToPath(new URL("../../data/report/", import.meta.url));

async function result(runId: string, startedAt: string, edit: (r: Result) => void = () => {}): Promise<Result> {
  const built = await buildRealisticResult({ runId, startedAt, optionalConcurrency: runId.endsWith("c") });
  await built.cleanup();
  edit(built.result);
  return built.result;
}

/** Two runs of one configuration, one of another (two slots), one of another model, and a partial run. */
async function inputs(): Promise<ComparedInput[]> {
  const a1 = await result("run-a1", "2026-11-29T14:03:07.123Z");
  const a2 = await result("run-a2", "2026-11-29T15:03:07.123Z");
  const b = await result("run-b", "2026-11-29T16:03:07.123Z", (r) => (r.configuration.server_capacity = 2));
  const other = await result("run-m", "2026-11-29T17:03:07.123Z", (r) => (r.model.quantization = "Q8_0"));
  const partial = await result("run-p", "2026-11-29T18:03:07.123Z", (r) => (r.run.status = "partial"));
  return [
    { folder: "b", result: b },
    { folder: "a2", result: a2 },
    { folder: "m", result: other },
    { folder: "p", result: partial },
    { folder: "a1", result: a1 },
  ];
}

Deno.test("runs of one configuration share rows; another configuration, model or status never does", async () => {
  const comparison = compareResults(await inputs());
  assert.equal(comparison.groups.length, 2, "two models: two groups");
  assert.match(comparison.notes[0]!, /differ in quantization, model files?|differ in quantization/);
  const main = comparison.groups.find((g) => g.configurations.some((c) => c.label === "A"))!;
  const labels = main.configurations.map((c) => `${c.label}:${c.runs.map((r) => r.folder).join("+")}`);
  assert.deepEqual(labels, ["A:a1+a2+p", "B:b"]);
  assert.deepEqual(main.configurations[1]!.differs, [["server capacity", "2"]]);
  assert.deepEqual(main.sections.map((s) => s.status), ["complete", "partial"]);
  const complete = main.sections[0]!.rows;
  const a4k = complete.find((r) => r.configuration === "A" && r.caseId === "prompt-4k")!;
  assert.equal(a4k.runs, 2);
  assert.equal(a4k.records, 6);
  assert.equal(a4k.capped, 4, "2 of 3 capped in each run");
  assert.deepEqual(a4k.sanity, ["11/12", "11/12"]);
  const single = (await inputs()).find((i) => i.folder === "a1")!.result;
  const summary = single.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "decode_tps")!;
  assert.equal(a4k.metrics.decode_tps!.n, summary.n * 2, "the two runs' included requests, pooled");
  assert.equal(a4k.metrics.decode_tps!.median, summary.median, "identical runs: the same median");
  assert.equal(complete.find((r) => r.caseId === "short")!.metrics.prompt_tps, null, "short prompt rate left out");
  assert.equal(main.sections[1]!.rows.every((r) => r.runs === 1 && r.status === "partial"), true);
});

Deno.test("the comparison does not depend on the order the folders are named in", async () => {
  const list = await inputs();
  const forward = renderComparisonMarkdown(compareResults(list));
  const backward = renderComparisonMarkdown(compareResults([...list].reverse()));
  assert.equal(forward, backward);
});

Deno.test("the same run twice is refused instead of being counted twice", async () => {
  const list = await inputs();
  assert.throws(() => compareResults([...list, { folder: "copy", result: list[0]!.result }]), /same run as "b"/);
});

Deno.test("md, csv and json output is pinned byte for byte", async () => {
  const comparison = compareResults(await inputs());
  const outputs: [string, string][] = [
    [
      "comparison.md",
      renderComparisonMarkdown(comparison, ["x: invalid (1 problem(s); first: /format: not a result)"]),
    ],
    ["comparison.csv", renderComparisonCsv(comparison)],
    ["comparison.json", renderComparisonJson(comparison, [])],
  ];
  for (const [name, text] of outputs) {
    if (Deno.env.get("STRATA_UPDATE_GOLDEN") === "1") await writeFile(`${GOLDEN}${name}`, text);
    assert.equal(text, await readFile(`${GOLDEN}${name}`, "utf8"), `${name} differs from tests/data/report/${name}`);
  }
});

Deno.test("each section puts its B-against-A table first; the terminal view leaves the wide table out and wraps", async () => {
  const comparison = compareResults(await inputs());
  const full = renderComparisonMarkdown(comparison);
  const complete = full.slice(full.indexOf("### Complete results"), full.indexOf("### Partial results"));
  assert.ok(complete.indexOf("#### B against A, case by case") < complete.indexOf("#### Every metric"), complete);
  assert.ok(complete.indexOf("#### Every metric") < complete.indexOf("| Config | Case |"));
  const screen = renderComparisonMarkdown(comparison, [], false);
  const screenComplete = screen.slice(screen.indexOf("### Complete results"), screen.indexOf("### Partial results"));
  assert.match(screenComplete, /#### B against A, case by case/);
  assert.doesNotMatch(screenComplete, /\| Config \| Case \|/, "the wide table waits for a file");
  // The partial section has one configuration, no B against A: its one table is shown even on a terminal.
  assert.match(screen.slice(screen.indexOf("### Partial results")), /\| Config \| Case \|/);
  for (const line of screen.split("\n").filter((l) => !l.startsWith("|"))) assert.ok(line.length <= 100, line);
  assert.ok(full.split("\n").some((l) => !l.startsWith("|") && l.length > 100), "a file keeps its long lines");
  const flat = screen.replace(/\s+/g, " ");
  assert.match(flat, /Shared by every configuration: protocol .*?\(and \d+ more: in the full report\)\./);
  assert.doesNotMatch(full, /in the full report/);
});

Deno.test("a CSV cell that a spreadsheet would run as a formula is neutralized; quotes are doubled", async () => {
  const list = await inputs();
  list[0]!.folder = '=HYPERLINK("x")';
  const csv = renderComparisonCsv(compareResults(list));
  assert.ok(csv.includes(`"'=HYPERLINK(""x"")"`), csv.split("\n").slice(0, 3).join("\n"));
});

Deno.test("the comparison picture renders as one SVG with a panel per group, case and metric", async () => {
  const svg = await renderChartSvg(comparisonSpec(compareResults(await inputs())));
  assert.match(svg, /^<svg /);
  assert.match(svg, /Group 1, prompt-4k: prompt tok\/s/);
  assert.match(svg, /Group 2, short: decode tok\/s/);
  assert.match(svg, /Group 1, short: TTFT s/);
  assert.match(svg, /B vs A: \+0\.0% \(95% [-+0-9.%]+ to [-+0-9.%]+\): not resolved/, "the delta in the subtitle");
  // It fits a 1280 px screen, cuts no row label (vega would end it with an ellipsis), and every axis starts at zero.
  assert.ok(Number(/^<svg [^>]*width="(\d+)"/.exec(svg)![1]) <= PICTURE_WIDTH_PX, svg.slice(0, 200));
  assert.doesNotMatch(svg, /…/);
  const axes = [...svg.matchAll(/aria-label="X-axis titled '[^']+' for a linear scale with values from ([\d.]+) to/g)];
  assert.ok(axes.length >= 4, `${axes.length} panels`);
  assert.deepEqual([...new Set(axes.map((m) => Number(m[1])))], [0]);
  // The legend says what A and B differ in, as the configuration list does, whole.
  const legends = [
    ...svg.matchAll(/aria-label="Symbol legend titled 'configuration' for [a-z ]+ with \d+ values: ([^"]+)"/g),
  ]
    .map((m) => m[1]!);
  assert.ok(legends.some((l) => /^A: server capacity 1, B: server capacity 2, C$/.test(l)), legends.join(" | "));
});

/** Scales every request's decode rate and TTFT of a result (a faster or slower configuration). */
function scaled(r: Result, decode: number, ttft: number): void {
  for (const request of r.requests) {
    if (request.metrics.decode_tps !== null) request.metrics.decode_tps *= decode;
    if (request.timings.ttft_s !== null) request.timings.ttft_s *= ttft;
  }
}

Deno.test("B against A: a 25% faster decode is resolved with its interval; identical prompt rates are not", async () => {
  const a = await result("run-a", "2026-11-29T14:03:07.123Z");
  const b = await result("run-b", "2026-11-29T15:03:07.123Z", (r) => {
    r.configuration.server_capacity = 2;
    scaled(r, 1.25, 0.5);
  });
  const comparison = compareResults([{ folder: "a", result: a }, { folder: "b", result: b }]);
  const deltas = comparison.groups[0]!.sections[0]!.deltas;
  const decode = deltas.find((d) => d.caseId === "prompt-4k" && d.metric === "decode_tps")!;
  assert.equal(decode.verdict, "better");
  assert.ok(Math.abs(decode.delta!.estimate - 0.25) < 1e-9, String(decode.delta!.estimate));
  assert.ok(decode.delta!.lower > 0 && decode.delta!.upper >= decode.delta!.estimate, JSON.stringify(decode.delta));
  const ttft = deltas.find((d) => d.caseId === "prompt-4k" && d.metric === "ttft_s")!;
  assert.equal(ttft.verdict, "better", "half the TTFT is better: lower is better for latencies");
  const prompt = deltas.find((d) => d.caseId === "prompt-4k" && d.metric === "prompt_tps")!;
  assert.deepEqual([prompt.verdict, prompt.why], ["not resolved", "the interval includes 0"]);
  assert.deepEqual(compareResults([{ folder: "b", result: b }, { folder: "a", result: a }]).groups, comparison.groups);
  const md = renderComparisonMarkdown(comparison);
  const csv = renderComparisonCsv(comparison).trim().split("\n").map((line) => line.split(","));
  const verdict = csv[0]!.indexOf("decode_tps_verdict");
  const b4k = csv.find((cells) => cells[2] === "B" && cells[6] === "prompt-4k")!;
  assert.equal(b4k[verdict], "B better", "the CSV carries the delta columns");
  assert.equal(csv.find((cells) => cells[2] === "A")![verdict], "", "the baseline has no delta against itself");
  assert.match(md, /#### B against A, case by case/);
  assert.match(
    md,
    /\| prompt-4k \| decode tok\/s \| 42\.1 \| 52\.6 \| \+25\.0% \| \+[0-9.]+% to \+[0-9.]+% \| B better \|/,
  );
  assert.match(md, /\| prompt-4k \| prompt tok\/s \| 902\.0 \| 902\.0 \| \+0\.0% \| .* \| not resolved \(the interval/);
});

Deno.test("two runs of one configuration that disagree are never pooled into one figure", async () => {
  const a1 = await result("run-a1", "2026-11-29T14:03:07.123Z");
  const a2 = await result("run-a2", "2026-11-29T15:03:07.123Z", (r) => scaled(r, 1, 2));
  const b = await result("run-b", "2026-11-29T16:03:07.123Z", (r) => (r.configuration.server_capacity = 2));
  const comparison = compareResults([{ folder: "a1", result: a1 }, { folder: "a2", result: a2 }, {
    folder: "b",
    result: b,
  }]);
  const row = comparison.groups[0]!.sections[0]!.rows.find((r) => r.configuration === "A" && r.caseId === "prompt-4k")!;
  assert.equal(row.metrics.ttft_s!.median, null, "no pooled TTFT median");
  const medians = row.samples.ttft_s!.disagreeingRunMedians!;
  assert.ok(Math.abs(medians[1]! - 2 * medians[0]!) < 1e-9, JSON.stringify(medians));
  assert.notEqual(row.metrics.decode_tps!.median, null, "the decode rates agree: pooled");
  const ttft = comparison.groups[0]!.sections[0]!.deltas.find((d) =>
    d.caseId === "prompt-4k" && d.metric === "ttft_s"
  )!;
  assert.deepEqual([ttft.verdict, ttft.delta, ttft.why], ["not resolved", null, "the runs of A disagree"]);
  const md = renderComparisonMarkdown(comparison);
  assert.match(md, /\| A \| prompt-4k \|.*\| runs disagree: [0-9.]+; [0-9.]+ \(not pooled\) \|/);
  const json = JSON.parse(renderComparisonJson(comparison));
  assert.equal(json.groups[0].sections[0].rows[1].disagreeing_run_medians.ttft_s.length, 2);
  assert.match(await renderChartSvg(comparisonSpec(comparison)), /A: runs [0-9.]+; [0-9.]+, not pooled/);
});

Deno.test("a simulated configuration is labelled SIMULATED in md (banner and rows), csv, json and the picture", async () => {
  const real = await result("run-r", "2026-11-29T14:03:07.123Z");
  const simulated = await result("run-sc", "2026-11-29T15:03:07.123Z", (r) => {
    r.extensions = { ...r.extensions, simulated_engine: true };
  });
  const comparison = compareResults([{ folder: "r", result: real }, { folder: "s", result: simulated }]);
  const md = renderComparisonMarkdown(comparison);
  assert.match(md, /^# Comparison of 2 result folders\n\n> \*\*SIMULATED: configuration B ran against the scripted/);
  assert.match(md, /- \*\*B\*\* \(\*\*SIMULATED ENGINE\*\*\)/);
  assert.match(md, /\n\| B \(SIMULATED\) \| short \|/);
  assert.doesNotMatch(md, /\n\| A \(SIMULATED\)/);
  const csv = renderComparisonCsv(comparison).split("\n");
  const column = csv[0]!.split(",").indexOf("simulated");
  assert.ok(column > 0, csv[0]);
  assert.deepEqual([...new Set(csv.slice(1, -1).map((line) => line.split(",")[column]))].sort(), ["no", "yes"]);
  const json = JSON.parse(renderComparisonJson(comparison));
  const configs = json.groups[0].configurations;
  assert.deepEqual(configs.map((c: { simulated: boolean }) => c.simulated), [false, true]);
  const svg = await renderChartSvg(comparisonSpec(comparison));
  assert.match(svg, /SIMULATED: Comparison: configurations side by side per case/);
  assert.match(svg, />B \(SIMULATED\): /);
});

Deno.test("the heading counts every folder given, refused ones too; csv sanity cannot become a date", async () => {
  const comparison = compareResults([{ folder: "a", result: await result("run-a", "2026-11-29T14:03:07.123Z") }]);
  const refused = ["b: invalid", "c: invalid", "d: interrupted", "e: invalid"];
  assert.match(
    renderComparisonMarkdown(comparison, refused),
    /^# Comparison of 5 result folders: 1 compared, 4 refused\n/,
  );
  const csv = renderComparisonCsv(comparison);
  assert.match(csv, /,11 of 12\n/);
  assert.doesNotMatch(csv, /\d+\/12/);
});

Deno.test("the comparison JSON has a format and schema version, snake_case keys, and null for not measured", async () => {
  const json = JSON.parse(renderComparisonJson(compareResults(await inputs())));
  assert.equal(json.format, "strata-bench-comparison");
  assert.equal(json.schema_version, 3);
  const keys = new Set<string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        keys.add(key);
        walk(inner);
      }
    }
  };
  walk(json);
  assert.deepEqual([...keys].filter((k) => /[A-Z]/.test(k) && k !== "GPU" && k !== "CPU" && k !== "MTP"), []);
  assert.doesNotMatch(JSON.stringify(json), /not measured/);
  const shared = json.groups[0].shared;
  assert.equal(shared.build_options, null);
  assert.equal(json.groups[0].sections[0].rows[0].metrics.prompt_tps, null, "left out of the readout");
});

Deno.test("the optional stage's row carries the rounds' aggregate output tokens/s", async () => {
  const withRounds = await result("run-oc", "2026-11-29T14:03:07.123Z");
  const comparison = compareResults([{ folder: "o", result: withRounds }]);
  const row = comparison.groups[0]!.sections[0]!.rows.find((r) => r.caseId === "short-burst")!;
  const rounds = withRounds.concurrency_rounds.map((r) => r.aggregate_tps!).sort((a, b) => a - b);
  assert.deepEqual(row.roundAggregateTps, { median: rounds[1], min: rounds[0], max: rounds[2], n: 3 });
  assert.equal(comparison.groups[0]!.sections[0]!.rows.find((r) => r.caseId === "short")!.roundAggregateTps, null);
  assert.match(renderComparisonMarkdown(comparison), /\| short-burst x4 \|.*n=3 rounds \|/);
});
