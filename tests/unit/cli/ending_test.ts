import assert from "node:assert/strict";
import {
  type Ending,
  ENDING_MAX_COLUMNS,
  ENDING_MAX_LINES,
  renderEnding,
  verdictPieces,
} from "../../../cli/_ending.ts";
import { fixFor, resultGlance } from "../../../report/glance.ts";
import { missingGroup, missingLabel } from "../../../report/_missing_groups.ts";
import { buildRealisticResult } from "../report/_realistic_result.ts";
import {
  compareEnding,
  comparePlanLines,
  loadEnding,
  loadPlanLines,
  refusedLines,
  sloMiss,
} from "../../../cli/_load_ending.ts";
import type { CompareResult, LoadTestOptions, LoadTestOutcome } from "../../../load/mod.ts";
import { describeDistribution } from "../../../score/percentiles.ts";

const FOLDER = `bench-results/${"x".repeat(120)}`;

function crowded(n: number): Ending {
  return {
    status: `run: nonconforming; ${"word ".repeat(40)}`,
    numbers: Array.from({ length: n }, (_, i) => `metric ${i} ${"9.99 ".repeat(30)}`),
    problems: Array.from(
      { length: n },
      (_, i) => ({ problem: `problem ${i} ${"why ".repeat(40)}`, fix: `pass --f${i}` }),
    ),
    missing: {
      notGiven: Array.from({ length: n }, (_, i) => `--flag-${i}`),
      notMeasurable: Array.from({ length: n }, (_, i) => `value ${i} (no tool answered)`),
      failed: Array.from({ length: n }, (_, i) => `performance-short-r${i} (failed)`),
    },
    next: ["strata-bench report FOLDER (the full audit; --pr: the pull request text)"],
    folder: FOLDER,
  };
}

Deno.test("the ending fits one screen: at most 15 lines, none over 100 columns, however much there is to say", () => {
  for (const n of [0, 1, 3, 8, 40]) {
    const lines = renderEnding(crowded(n)).trimEnd().split("\n");
    assert.ok(lines.length <= ENDING_MAX_LINES, `${n}: ${lines.length} lines`);
    for (const line of lines.slice(0, -1)) assert.ok(line.length <= ENDING_MAX_COLUMNS, `${n}: ${line}`);
    assert.equal(lines.at(-1), FOLDER, "the folder is the last line, whole, for tail -1");
    assert.match(lines[0]!, /^run: nonconforming/);
  }
});

Deno.test("the ending keeps each fix whole and counts what it leaves out", () => {
  const text = renderEnding(crowded(40));
  assert.match(text, /-> pass --f0\n/);
  assert.match(text, /and \d+ more: see README\.md in the folder/);
  assert.match(text, /^not given \(pass --flag-0, .* and \d+ more\)$/m);
  assert.match(text, /^not measurable here: value 0 \(no tool answered\)/m);
  assert.match(text, /^failed: performance-short-r0 \(failed\)/m);
});

Deno.test("an ending with nothing missing and no problem prints no empty groups", () => {
  const text = renderEnding({
    status: "run: complete; sanity 12/12",
    numbers: ["decode tok/s  short 50.1"],
    problems: [],
    missing: { notGiven: [], notMeasurable: [], failed: [] },
    next: [],
    folder: "bench-results/r",
  });
  assert.equal(text, "run: complete; sanity 12/12\n  decode tok/s  short 50.1\nbench-results/r\n");
});

Deno.test("missing values fall in three groups: a flag to pass, not measurable here, failed", () => {
  assert.equal(missingGroup("not given (pass --quantization)", "/model/quantization"), "not given");
  assert.equal(missingLabel("not given (pass the model id)", "/model/id"), "not given (pass --model-id)");
  assert.equal(missingGroup("no custom pack declared (--custom-pack)", "/model/custom_pack"), "not given");
  assert.equal(missingGroup("no GPU tool answered: nvidia-smi not found", "/software/drivers"), "not measurable here");
  assert.equal(missingLabel("lsblk reports no model", null), "not measurable here (lsblk reports no model)");
  assert.equal(missingGroup("no answer text or tool call arrived before the request failed (timeout)", null), "failed");
  assert.equal(missingGroup("request was skipped: the engine stopped answering", null), "failed");
});

Deno.test("each nonconforming reason gets a fix: the flag it names, else what to do", () => {
  assert.equal(fixFor("the server's build_info carries no commit (pass --engine-commit)"), "pass --engine-commit");
  assert.match(fixFor("the server is the scripted engine (a simulation)"), /--url/);
  assert.match(fixFor("the server is not on loopback"), /127\.0\.0\.1/);
  assert.equal(fixFor("something new"), "see Status in README.md");
});

Deno.test("a realistic result at a glance: status, three headline lines, problems with fixes, grouped missing", async () => {
  const built = await buildRealisticResult({ faults: true });
  await built.cleanup();
  const glance = resultGlance(built.result);
  assert.match(glance.status, new RegExp(`^${built.result.run.status}`));
  assert.match(glance.status, /sanity \d+\/12; \d+ requests: \d+ failed, \d+ skipped/);
  assert.equal(glance.numbers.length, 3);
  assert.match(glance.numbers[1]!, /^decode tok\/s +short \S+ +prompt-4k \S+ +prompt-16k \S+$/);
  for (const p of glance.problems) assert.ok(p.fix.length > 0 && p.problem.length > 0);
  for (const flag of glance.missing.notGiven) assert.match(flag, /^--[a-z-]+$|^[a-z ]+$/);
  assert.ok(glance.missing.failed.length > 0, "the run has a failed and two skipped requests");
  const lines = renderEnding({ ...glance, next: [], folder: "f" }).trimEnd().split("\n");
  assert.ok(lines.length <= ENDING_MAX_LINES && lines.every((l) => l.length <= ENDING_MAX_COLUMNS));
});

function outcomeWith(goodputPerS: number | null, attempted: number, windowS: number): LoadTestOutcome {
  const overall = {
    counts: { attempted, cancelled: 0, succeeded: attempted, failed: 0, dropped: 0, late: 0 },
    goodput_requests_per_s: goodputPerS,
    window_s: windowS,
    requests_per_s: attempted / windowS,
    output_tokens_per_s: 100,
    distributions: {},
    missing: { achieved_send_rate_per_s: "closed loop: no requested rate" },
  };
  return { status: "ok", runs: [{ summary: { overall } }], aggregate: null, reasons: [] } as unknown as LoadTestOutcome;
}

Deno.test("a fact kept under extensions is named by itself, not by where the project keeps it", async () => {
  const built = await buildRealisticResult();
  await built.cleanup();
  const result = structuredClone(built.result);
  result.missing = { "/extensions/model_file_facts": "the GGUF header cannot be read: not a GGUF file" };
  assert.deepEqual(resultGlance(result).missing.notMeasurable, ["model file facts (the GGUF header cannot be read)"]);
});

Deno.test("--fail-on-slo fails below the share of requests that met every SLO, and passes at it", () => {
  assert.equal(sloMiss(outcomeWith(0.9, 10, 10), 0.9), null, "9 of 10 met: 0.9 holds");
  const missed = sloMiss(outcomeWith(0.8, 10, 10), 0.9);
  assert.match(missed?.problem ?? "", /^80\.0% of 10 requests met every SLO, below --fail-on-slo 0\.9$/);
  assert.equal(sloMiss(outcomeWith(0.8, 10, 10), null), null, "no gate without the flag");
  const ending = loadEnding(outcomeWith(0.8, 10, 10), "bench-results/x.jsonl", 1, null, missed);
  assert.match(ending.status, /^load: SLO MISSED \(exit 1\); 10 requests: 10 ok/);
  assert.match(renderEnding(ending), /kept from passing:\n {2}80\.0% of 10 requests/);
  // The advice is what would make it pass, not a diagnosis that reads as the remedy.
  assert.equal(missed?.fix, "a faster server, a lighter load or a looser SLO");
});

Deno.test("a failed gate's advice names where the rounds are set: --rounds, or the spec when one was run", () => {
  const metric = {
    metric: "output_tokens_per_s",
    gated: true,
    pass: false,
    baseline: 100,
    candidate: 80,
    delta_fraction: -0.2,
    reason: "-20.0% beyond the 5.0% tolerance",
  };
  const result = {
    tolerance_fraction: 0.05,
    pass: false,
    points: [{ key: "W1@1", pass: false, metrics: [metric] }],
  } as unknown as CompareResult;
  const flags = renderEnding(compareEnding(result, "x.jsonl", 1, null));
  assert.match(flags, /W1@1 tok\/s: -20\.0% beyond/, "the metric by its column's name, not its key");
  assert.match(flags, /a regression, or noise: more --rounds/);
  const spec = renderEnding(compareEnding(result, "x.jsonl", 1, null, "spec"));
  assert.match(spec, /a regression, or noise: more rounds in the spec/);
  assert.doesNotMatch(spec, /--rounds/);
  const saved = renderEnding(compareEnding(result, "x.jsonl", 1, null, "saved"));
  assert.match(saved, /a regression, or noise: compare again with more --rounds/);
});

Deno.test("a load whose file could not be written names no file to open and no folder", () => {
  const refused = { status: "write-failed", runs: [], aggregate: null, reasons: ["permission refused"] };
  const text = renderEnding(loadEnding(refused as unknown as LoadTestOutcome, "bench-results/x.jsonl", 3, "x.html"));
  assert.match(text, /^load: WRITE-FAILED \(exit 3\); nothing was measured/);
  assert.doesNotMatch(text, /x\.html|x\.jsonl|next:/);
});

Deno.test("a refused preflight is one line a URL: UNREACHABLE only when nothing answered, the fix matching the cause", () => {
  const lines = (...reasons: string[]) => {
    const outcome = { status: "unreachable", runs: [], aggregate: null, reasons };
    return refusedLines(outcome as unknown as LoadTestOutcome, 3);
  };
  const [closed] = lines("nothing answered at http://127.0.0.1:9 (connection refused)");
  assert.equal(
    closed,
    "load: UNREACHABLE (exit 3): nothing answered at http://127.0.0.1:9 (connection refused); start the server, " +
      "or pass --url with its address; nothing was measured",
  );
  const [v1] = lines(
    "POST http://127.0.0.1:8080/v1/v1/chat/completions answered HTTP 404: File Not Found; drop /v1 from --url " +
      "(the tool adds /v1/chat/completions)",
  );
  assert.match(
    v1!,
    /^load: REFUSED \(exit 3\): POST .*; drop \/v1 from --url \(the tool adds \/v1\/chat\/completions\); nothing was measured$/,
  );
  const [page] = lines(
    "http://127.0.0.1:8000 is not an OpenAI-compatible server: POST /v1/chat/completions answered HTTP 501 with an " +
      "HTML page (357 bytes)",
  );
  assert.match(page!, /^load: REFUSED \(exit 3\): .*HTML page \(357 bytes\); pass the address of an LLM server/);
  const [other] = lines("POST http://127.0.0.1:8080/v1/chat/completions answered HTTP 503: Loading model");
  assert.match(other!, /; check --url \(the server's root, no path\) and the server's log; nothing was measured$/);
  for (const line of [closed, v1, page, other]) {
    assert.doesNotMatch(line!, /start the server/.test(line!) ? /REFUSED/ : /UNREACHABLE|start the server/);
  }
  assert.equal(lines("a", "b").length, 2, "one line a refused URL");
});

Deno.test("load --plan opens with its shape, its request count and a bound on the wall time", () => {
  const lines = loadPlanLines({
    urls: ["http://127.0.0.1:8080"],
    plan: { mode: "open", ratePerS: 4, arrival: "poisson", durationS: 30, drainLimitS: 30, warmupRequests: 4 },
  } as unknown as LoadTestOptions);
  assert.deepEqual(lines, [
    "load --plan (nothing is sent): open loop, poisson arrivals at 4 req/s against http://127.0.0.1:8080",
    "  4 warm-up requests, then 30 s of measured issuance (about 120 requests)",
    "  wall time at most about 60 s + warm-up (30 s drain limit included); the JSON plan follows on stdout",
  ]);
  const closed = loadPlanLines({
    urls: ["http://127.0.0.1:8080"],
    plan: { mode: "closed", concurrency: 2, requests: 30, warmupRequests: 2, requestDeadlineS: 600 },
  } as unknown as LoadTestOptions);
  assert.match(closed[1]!, /2 warm-up requests, then 30 measured requests/);
  assert.match(closed[2]!, /no fixed bound \(a request may take up to 600 s\)/);
});

Deno.test("load --plan of a sweep names its points and bounds the whole sweep, every run included", () => {
  const lines = loadPlanLines({
    urls: ["http://127.0.0.1:8080"],
    repeat: 3,
    sweep: [{ concurrency: 1, warmupRequests: 1 }, { concurrency: 4, warmupRequests: 4 }, {
      concurrency: 16,
      warmupRequests: 16,
    }],
    plan: { mode: "closed", concurrency: 16, durationS: 30, drainLimitS: 30, warmupRequests: 16 },
  } as unknown as LoadTestOptions);
  assert.deepEqual(lines, [
    "load --plan (nothing is sent): closed loop, 1, 4, 16 concurrent streams (a sweep: a run per point) against " +
    "http://127.0.0.1:8080",
    "  1, 4, 16 warm-up requests, then 30 s of measured issuance a run, 3 runs",
    "  wall time at most about 180 s + warm-up (30 s drain limit a run included); the JSON plan follows on stdout",
  ]);
});

Deno.test("load's ending marks a tail percentile that too few samples make unreliable, as the run's table does", () => {
  const spread = (n: number) => describeDistribution(Array.from({ length: n }, (_, i) => 0.1 + i / 1000));
  const ending = (n: number) => {
    const outcome = outcomeWith(null, n, 10);
    const d = spread(n);
    Object.assign(outcome.runs[0]!.summary.overall.distributions, { ttft_s: d, tpot_s: d, latency_s: d });
    return renderEnding(loadEnding(outcome, "bench-results/x.jsonl", 0, null));
  };
  // 12 samples: p95 (under 20) and p99 (under 100) are both marked; p50 never is.
  assert.match(ending(12), /TTFT ms {5}p50 [\d.]+ {2}p95 [\d.]+\* {2}p99 [\d.]+\*\n/);
  assert.match(ending(12), /\* = unreliable at this n/);
  // 50: p95 holds, p99 does not; 100: neither is marked, and no legend is printed.
  assert.match(ending(50), /e2e ms {6}p50 [\d.]+ {2}p95 [\d.]+ {2}p99 [\d.]+\*\n/);
  assert.doesNotMatch(ending(100), /\*/);
});

Deno.test("an interrupted run says so first, before the status its partial evidence earned", async () => {
  const built = await buildRealisticResult();
  await built.cleanup();
  assert.doesNotMatch(resultGlance(built.result).status, /INTERRUPTED/, "a run that was not interrupted");
  const result = structuredClone(built.result);
  for (const r of result.requests.slice(-3)) {
    r.status = "skipped";
    r.error = { kind: "skipped", message: "skipped: the run was cancelled (SIGINT)" };
  }
  const status = resultGlance(result).status;
  assert.match(status, new RegExp(`^INTERRUPTED \\(SIGINT\\), ${result.run.status}`));
  assert.match(renderEnding({ ...resultGlance(result), status: `run: ${status}`, next: [], folder: "f" }), /^run: INT/);
});

Deno.test("the verdict word of the status line is the one styled piece: green, red or yellow", () => {
  const ending = (status: string) => renderEnding({ ...crowded(0), status, folder: "f" });
  const cases: [string, string, string][] = [
    ["run: complete; sanity 12/12", "complete", "green"],
    ["load: SLO MISSED (exit 1); 10 requests: 10 ok", "SLO MISSED", "red"],
    ["compare: gate PASS (exit 0); tolerance", "PASS", "green"],
    ["compare: gate FAIL (exit 1); tolerance", "FAIL", "red"],
    ["run: INTERRUPTED (SIGINT), partial; sanity 3/12", "INTERRUPTED", "red"],
    ["run: partial; sanity 3/12", "partial", "yellow"],
    ["load: WRITE-FAILED (exit 3)", "WRITE-FAILED", "red"],
    ["run: nonconforming (simulated engine); sanity", "nonconforming", "red"],
  ];
  for (const [status, word, style] of cases) {
    const pieces = verdictPieces(ending(status));
    assert.deepEqual(pieces.filter((p) => p.style !== undefined), [{ text: word, style }], status);
    assert.equal(pieces.map((p) => p.text).join(""), ending(status), "the same text, only styled");
  }
  assert.deepEqual(verdictPieces("no verdict here\n"), [{ text: "no verdict here\n" }]);
});

Deno.test("every next command is named: on one line where they fit, else one a line, never 'and 1 more'", () => {
  const long = `open bench-results/${"x".repeat(60)}-report.html`;
  const text = renderEnding({ ...crowded(0), status: "report: ok", next: [long, "compare --from A.jsonl B.jsonl"] });
  assert.ok(text.includes(`next: ${long}\n      compare --from A.jsonl B.jsonl\n`), text);
  assert.doesNotMatch(text, /and \d+ more/);
  const short = renderEnding({ ...crowded(0), status: "run: ok", next: ["a", "b"] });
  assert.ok(short.includes("next: a, b\n"), short);
});

Deno.test("compare --plan opens with its runs, its sides and the time it takes beside its bound", () => {
  const run = (order: number, concurrency: number, round: number) => ({
    order,
    side: order % 2 === 0 ? "candidate" : "baseline",
    round,
    workload: "W1",
    concurrency,
    warmup: "1 s",
    measure: "4 s",
    bound_s: 135,
    expected_s: 5,
  });
  const runs = [run(1, 1, 1), run(2, 1, 1), run(3, 4, 1), run(4, 4, 1), run(5, 1, 2), run(6, 1, 2)];
  const options = {
    baseline: { url: "http://127.0.0.1:8080" },
    candidate: { profile: "tiny.jsonc" },
    spec: { name: "gate", sha256: "0", servingStack: {}, path: "gate.jsonc" },
  };
  const lines = comparePlanLines(options, { runs, bound_s: 850, expected_s: 30 } as never);
  assert.deepEqual(lines, [
    "compare --plan (nothing is sent): spec gate, 6 runs (2 point(s) x 2 round(s) x 2 sides, interleaved)",
    "  baseline http://127.0.0.1:8080, candidate the profile tiny.jsonc",
    "  about 30 s of warm-up and measured issuance, plus each run's drain;",
    "  at most 850 s if every warm-up, drain and preflight reaches its limit",
    "  the JSON plan follows on stdout",
  ]);
  assert.ok(lines.every((l) => l.length <= ENDING_MAX_COLUMNS));
  const counted = comparePlanLines({ ...options, spec: null }, { runs, bound_s: null, expected_s: null } as never);
  assert.match(counted[2]!, /time: no fixed bound/);
});

Deno.test("a fix too long for its line wraps between words under the problem, whole, never cut", () => {
  const fix = "start llama-server and run: strata-bench run --url http://127.0.0.1:8080 (docs/conforming-run.md)";
  const text = renderEnding({
    ...crowded(0),
    status: "demo: nonconforming",
    problems: [{ problem: "the server is the scripted engine (a simulation)", fix }],
  });
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith("    -> "));
  assert.ok(at > 0, text);
  const shown = lines.slice(at, at + 2);
  assert.equal(shown.map((l) => l.trim()).join(" "), `-> ${fix}`, "every word of the fix, in order");
  assert.ok(shown.every((l) => l.length <= ENDING_MAX_COLUMNS) && !text.includes("..."), text);
  assert.match(shown[1]!, /^ {7}\(docs\/conforming-run\.md\)$/);
});

Deno.test("a missing value too long for its line wraps between words, never cut", () => {
  const long = "model file facts (the GGUF header of qwen3-mock-Q4_K_M.gguf cannot be read: it is not a GGUF file)";
  const text = renderEnding({
    status: "run: nonconforming (exit 1)",
    numbers: [],
    problems: [],
    missing: { notGiven: [], notMeasurable: [long, "storage (virtio)"], failed: [] },
    next: [],
    folder: "bench-results/r",
  });
  const lines = text.trimEnd().split("\n");
  for (const line of lines) assert.ok(line.length <= ENDING_MAX_COLUMNS, line);
  const shown = lines.slice(1, -1).join(" ").replace(/\s+/g, " ");
  assert.equal(shown, `not measurable here: ${long}, and 1 more`);
  assert.ok(!text.includes("..."), text);
});

Deno.test("a problem and its fix too long for one line both stay whole: the fix goes under the problem", () => {
  const problem = "0.0% of 40 requests met every SLO, below --fail-on-slo 0.9";
  const fix = "a faster server, a lighter load or a looser SLO";
  const text = renderEnding({
    status: "load: SLO MISSED (exit 1)",
    numbers: [],
    problems: [{ problem, fix }],
    missing: { notGiven: [], notMeasurable: [], failed: [] },
    next: [],
    folder: "x.jsonl",
  });
  assert.ok(text.includes(`\n  ${problem}\n    -> ${fix}\n`), text);
  assert.ok(!text.includes("..."), text);
  const short = renderEnding({
    status: "s",
    numbers: [],
    problems: [{ problem: "interrupted by SIGTERM", fix: "run again and let it finish" }],
    missing: { notGiven: [], notMeasurable: [], failed: [] },
    next: [],
    folder: "x.jsonl",
  });
  assert.match(short, /\n {2}interrupted by SIGTERM -> run again and let it finish\n/, "one line where both fit");
});
