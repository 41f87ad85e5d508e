import assert from "node:assert/strict";
import { UsageError } from "../../../cli/_args.ts";
import { parseLoadCommand } from "../../../cli/load.ts";
import { requireLoopback } from "../../../cli/_workload_args.ts";
import { parseCompareCommand } from "../../../cli/compare.ts";

const URL = ["--url", "http://127.0.0.1:8080"];

Deno.test("load refuses every target that is not loopback", () => {
  for (const url of ["http://10.0.0.5:8080", "http://example.com", "http://[::2]:80", "http://0.0.0.0:8080"]) {
    assert.throws(
      () => parseLoadCommand(["--url", url, "--concurrency", "1", "--requests", "1"]).options,
      UsageError,
      url,
    );
  }
  for (const url of ["http://127.0.0.1:1", "http://127.9.9.9:1/", "http://localhost:1", "http://[::1]:1"]) {
    assert.ok(requireLoopback(url).length > 0);
  }
  assert.equal(requireLoopback("http://127.0.0.1:8080/"), "http://127.0.0.1:8080");
});

Deno.test("load needs a bound and exactly one loop mode", () => {
  assert.throws(() => parseLoadCommand([...URL, "--concurrency", "2"]).options, /unbounded/);
  assert.throws(() => parseLoadCommand([...URL, "--requests", "2"]).options, /--concurrency N/);
  assert.throws(
    () => parseLoadCommand([...URL, "--concurrency", "2", "--rate", "3", "--requests", "2"]).options,
    /exclude/,
  );
  assert.throws(
    () => parseLoadCommand([...URL, "--concurrency", "2", "--requests", "2", "--max-concurrency", "3"]).options,
    /--rate/,
  );
  assert.throws(() => parseLoadCommand([...URL, "--concurrency", "0", "--requests", "2"]).options, /integer >= 1/);
  assert.throws(
    () => parseLoadCommand([...URL, "--concurrency", "1", "--requests", "2", "--bogus"]).options,
    UsageError,
  );
});

Deno.test("open-loop flags become an open plan with milliseconds converted to seconds", () => {
  const o = parseLoadCommand([
    ...URL,
    "--rate",
    "50",
    "--arrival",
    "constant",
    "--max-concurrency",
    "16",
    "--drop-late-after-ms",
    "250",
    "--duration",
    "10",
    "--slo-ttft-ms",
    "500",
    "--osl-target",
    "64",
    "--osl-stat",
    "median",
  ]).options;
  assert.equal(o.plan.mode, "open");
  assert.equal(o.plan.ratePerS, 50);
  assert.equal(o.plan.arrival, "constant");
  assert.equal(o.plan.maxConcurrency, 16);
  assert.equal(o.plan.dropLateAfterS, 0.25);
  assert.equal(o.plan.durationS, 10);
  assert.equal(o.plan.warmupRequests, 16); // the open loop warms up at its --max-concurrency
  assert.deepEqual(o.slo, { ttftS: 0.5 });
  assert.deepEqual(o.osl, { target: 64, tolerance: 0.1, stat: "median" });
  assert.deepEqual(o.workload.source, { kind: "profile", name: "chat-short" });
});

Deno.test("closed loop warms up with as many requests as its concurrency unless told otherwise", () => {
  assert.equal(parseLoadCommand([...URL, "--concurrency", "8", "--requests", "9"]).options.plan.warmupRequests, 8);
  assert.equal(
    parseLoadCommand([...URL, "--concurrency", "8", "--requests", "9", "--warmup-requests", "0"]).options.plan
      .warmupRequests,
    0,
  );
});

Deno.test("an OSL target on a prompt file needs --max-tokens; self-check needs no URL and refuses one", () => {
  assert.throws(
    () =>
      parseLoadCommand([...URL, "--concurrency", "1", "--requests", "1", "--prompts", "p.jsonl", "--osl-target", "9"])
        .options,
    /--max-tokens/,
  );
  const self = parseLoadCommand(["--self-check"]).options;
  assert.equal(self.selfCheck, true);
  assert.equal(self.plan.concurrency, 64);
  assert.equal(self.plan.requests, 2000);
  assert.throws(() => parseLoadCommand(["--self-check", ...URL]).options, /--self-check/);
});

Deno.test("compare takes two loopback URLs, default points 1, 8, 32", () => {
  const o = parseCompareCommand(["--baseline", "http://127.0.0.1:1/", "--candidate", "http://127.0.0.1:2"]).options;
  assert.deepEqual(o.baseline, { url: "http://127.0.0.1:1" });
  assert.deepEqual(o.candidate, { url: "http://127.0.0.1:2" });
  assert.deepEqual(o.points, [1, 8, 32]);
  assert.equal(o.rounds, 2);
  assert.equal(o.tolerance, 0.05);
  assert.throws(() => parseCompareCommand(["--baseline", "http://127.0.0.1:1"]).options, /both/);
  assert.throws(
    () => parseCompareCommand(["--baseline", "http://127.0.0.1:1", "--candidate", "http://192.168.1.2:2"]).options,
    /not on loopback/,
  );
  const floors = parseCompareCommand([
    "--baseline",
    "http://127.0.0.1:1",
    "--candidate",
    "http://127.0.0.1:2",
    "--noise-floor",
    "1=0.03,8=0.07",
    "--concurrency",
    "1,8",
  ]).options;
  assert.deepEqual(floors.noiseFloor, { 1: 0.03, 8: 0.07 });
});

Deno.test("compare takes an engine profile for either side, mixed with a URL, but not both forms for one side", () => {
  const both = parseCompareCommand(["--baseline-profile", "tiny-qwen3", "--candidate-profile", "./new.jsonc"]).options;
  assert.deepEqual(both.baseline, { profile: "tiny-qwen3" });
  assert.deepEqual(both.candidate, { profile: "./new.jsonc" });
  const mixed =
    parseCompareCommand(["--baseline", "http://127.0.0.1:8080", "--candidate-profile", "tiny-qwen3"]).options;
  assert.deepEqual(mixed.baseline, { url: "http://127.0.0.1:8080" });
  assert.deepEqual(mixed.candidate, { profile: "tiny-qwen3" });
  assert.throws(
    () =>
      parseCompareCommand(["--baseline", "http://127.0.0.1:1", "--baseline-profile", "a", "--candidate-profile", "b"])
        .options,
    /--baseline URL or --baseline-profile NAME, not both/,
  );
  assert.throws(() => parseCompareCommand(["--baseline-profile", "a"]).options, /pass both sides/);
  assert.throws(() => parseCompareCommand(["--baseline-profile", " ", "--candidate-profile", "b"]).options, /empty/);
});

Deno.test("new load flags are checked: first-byte TTFT needs --no-stream, --min-tokens needs a cap, --ci-safety a warm-up", () => {
  const base = [...URL, "--concurrency", "2", "--requests", "4"];
  assert.throws(() => parseLoadCommand([...base, "--infer-ttft-from-first-byte"]).options, /--no-stream/);
  const file = [...base, "--prompts", "set.jsonl"];
  assert.throws(() => parseLoadCommand([...file, "--min-tokens", "8"]).options, /needs a cap: --max-tokens/);
  assert.throws(
    () => parseLoadCommand([...file, "--min-tokens", "9", "--max-tokens", "8"]).options,
    /exceeds the cap 8/,
  );
  // A named workload caps every request at its OSL: --min-tokens pairs with it; --max-tokens would do nothing.
  assert.equal(parseLoadCommand([...base, "--min-tokens", "8"]).options.workload.minTokens, 8);
  assert.throws(
    () => parseLoadCommand([...base, "--min-tokens", "65"]).options,
    /exceeds the cap 64 \(the workload's OSL\)/,
  );
  assert.throws(
    () => parseLoadCommand([...base, "--max-tokens", "32"]).options,
    /--max-tokens has no effect with a named/,
  );
  assert.throws(() => parseLoadCommand([...base, "--ci-safety", "--warmup-requests", "0"]).options, /zero warm-up/);
  assert.throws(() => parseLoadCommand([...base, "--workload-sha256", "abc"]).options, /64 hex digits/);
  assert.throws(() => parseLoadCommand([...base, "--warmup-s", "2", "--warmup-requests", "2"]).options, /not both/);
  assert.throws(() => parseLoadCommand([...base, "--print-schedule"]).options, /without --plan/);
  assert.throws(() => parseLoadCommand([...base, "--temperature", "-1"]).options, UsageError);
  const o = parseLoadCommand([...base, "--no-stream", "--infer-ttft-from-first-byte", "--temperature", "0.5"]).options;
  assert.equal(o.workload.stream, false);
  assert.equal(o.workload.temperature, 0.5);
  assert.equal(o.inferTtftFromFirstByte, true);
  assert.equal(parseLoadCommand([...base, "--ci-safety"]).options.strict, true);
});

Deno.test("--duration gets the default 30 s drain limit; --drain-s sets it; a count-bounded run has none", () => {
  assert.equal(parseLoadCommand([...URL, "--concurrency", "2", "--duration", "5"]).options.plan.drainLimitS, 30);
  assert.equal(
    parseLoadCommand([...URL, "--concurrency", "2", "--duration", "5", "--drain-s", "1"]).options.plan.drainLimitS,
    1,
  );
  assert.equal(parseLoadCommand([...URL, "--concurrency", "2", "--requests", "5"]).options.plan.drainLimitS, undefined);
});

Deno.test("compare refuses the flags a spec file pins, and --drain-s without --duration", () => {
  const sides = ["--baseline", "http://127.0.0.1:1", "--candidate", "http://127.0.0.1:2"];
  assert.throws(
    () => parseCompareCommand([...sides, "--spec", "s.jsonc", "--rounds", "3"]).options,
    /the spec pins it/,
  );
  assert.throws(() => parseCompareCommand([...sides, "--drain-s", "3"]).options, /without --duration/);
  assert.throws(() => parseCompareCommand([...sides, "--spec", "a", "--plan", "b"]).options, /not both/);
});

Deno.test("compare refuses --publishable and --allow-repeated-prompt beside a spec, which names its workloads", () => {
  const sides = ["--baseline", "http://127.0.0.1:1", "--candidate", "http://127.0.0.1:2"];
  assert.throws(
    () => parseCompareCommand([...sides, "--spec", "s.jsonc", "--publishable"]).options,
    /--publishable has no effect with a spec file, which names its workloads: .*no "sample" in the spec/,
  );
  assert.throws(
    () => parseCompareCommand([...sides, "--plan", "s.jsonc", "--allow-repeated-prompt"]).options,
    /--allow-repeated-prompt has no effect with a spec file.*distinct prompts/,
  );
  // Without a spec they are workload flags that take effect.
  const flags = parseCompareCommand([...sides, "--publishable", "--allow-repeated-prompt"]).options.workloads[0]!;
  assert.equal(flags.options.publishable, true);
  assert.equal(flags.options.allowRepeatedPrompt, true);
});

Deno.test("one vocabulary: an old spelling that now means something else is refused with the new one", () => {
  const base = [...URL, "--concurrency", "2", "--requests", "4"];
  assert.throws(
    () => parseLoadCommand([...base, "--profile", "chat-short"]).options,
    /"chat-short" is a workload: pass --workload chat-short/,
  );
  assert.throws(
    () => parseLoadCommand([...base, "--out", "run.jsonl"]).options,
    /--out names a folder now, not a file/,
  );
  assert.throws(
    () => parseLoadCommand([...base, "--html", "page.html"]).options,
    /--html takes no value now .*--out DIR --html/,
  );
  assert.throws(() => parseLoadCommand([...base, "--prompt-mix-report", "mix.json"]).options, /takes no value now/);
  assert.throws(
    () =>
      parseCompareCommand([
        "--baseline",
        "http://127.0.0.1:1",
        "--candidate",
        "http://127.0.0.1:2",
        "--profile",
        "rag-medium",
      ]).options,
    /pass --workload rag-medium/,
  );
  assert.throws(
    () =>
      parseCompareCommand([
        "--baseline",
        "http://127.0.0.1:1",
        "--candidate",
        "http://127.0.0.1:2",
        "--profile",
        "tiny-qwen3",
      ]).options,
    /--baseline-profile NAME and\/or --candidate-profile NAME/,
  );
  assert.equal(parseLoadCommand([...base, "--workload", "rag-medium"]).options.workload.source.kind, "profile");
});

Deno.test("a flag with no effect in its combination is a usage error that says why", () => {
  const base = [...URL, "--concurrency", "2", "--requests", "4"];
  const inert: [string[], RegExp][] = [
    [["--late-after-ms", "5"], /--late-after-ms without --rate/],
    [["--ci-safety", "--strict"], /--strict has no effect with --ci-safety/],
    [["--max-tokens", "32"], /--max-tokens has no effect with a named workload/],
    [["--plan", "--out", "dir"], /--out has no effect with --plan/],
    [["--plan", "--html"], /--html has no effect with --plan/],
    [["--no-headroom-check", "--headroom-s", "1"], /--headroom-s has no effect with --no-headroom-check/],
  ];
  for (const [extra, why] of inert) {
    assert.throws(() => parseLoadCommand([...base, ...extra]).options, why, extra.join(" "));
  }
  assert.throws(() => parseLoadCommand(["--self-check", "--no-headroom-check"]).options, /no effect with --self-check/);
  assert.throws(
    () =>
      parseCompareCommand([
        "--baseline",
        "http://127.0.0.1:1",
        "--candidate",
        "http://127.0.0.1:2",
        "--noise-floor",
        "64=0.1",
      ]).options,
    /--noise-floor has no effect for concurrency 64: no such point is measured/,
  );
  assert.throws(
    () =>
      parseLoadCommand([...URL.slice(0, 0), "--profile", "tiny-qwen3", ...URL, "--concurrency", "1", "--requests", "1"])
        .options,
    /Cannot combine --profile with --url/,
  );
});

Deno.test("a comma list is a sweep: one run per point in increasing order, each with its own warm-up", () => {
  const closed = parseLoadCommand([...URL, "--concurrency", "16,1,4", "--requests", "20"]).options;
  assert.deepEqual(closed.sweep, [
    { concurrency: 1, warmupRequests: 1 },
    { concurrency: 4, warmupRequests: 4 },
    { concurrency: 16, warmupRequests: 16 },
  ]);
  assert.equal(closed.repeat, 3);
  assert.equal(closed.plan.concurrency, 16, "the plan is the largest point (the headroom check's shape)");
  const open = parseLoadCommand([...URL, "--rate", "1,2", "--duration", "5", "--warmup-requests", "3"]).options;
  assert.deepEqual(open.sweep, [{ ratePerS: 1, warmupRequests: 3 }, { ratePerS: 2, warmupRequests: 3 }]);
  assert.equal(
    parseLoadCommand([...URL, "--concurrency", "4", "--requests", "2"]).options.sweep,
    undefined,
    "one point",
  );
  for (
    const [argv, why] of [
      [["--concurrency", "1,1"], /each once/],
      [["--concurrency", "1,2,3,4,5,6,7,8,9"], /at most 8 points/],
      [["--concurrency", "1,x"], /--concurrency must be an integer/],
      [["--concurrency", "1,4", "--repeat", "2"], /--repeat with a sweep/],
      [["--concurrency", "1,4", "--slo-ttft-ms", "500", "--fail-on-slo", "0.9"], /--fail-on-slo with a sweep/],
    ] as const
  ) {
    assert.throws(() => parseLoadCommand([...URL, ...argv, "--requests", "2"]).options, why);
  }
});

Deno.test("--workers N takes 2 to 64 and refuses what a set of local shards cannot do", async () => {
  const { parseLoadCommand } = await import("../../../cli/load.ts");
  const plan = [...URL, "--concurrency", "4", "--requests", "40"];
  assert.equal(parseLoadCommand([...plan, "--workers", "4"]).workers, 4);
  assert.equal(parseLoadCommand(plan).workers, null);
  assert.throws(() => parseLoadCommand([...plan, "--workers", "1"]), /integer >= 2|\[2, 64\]|at least 2/);
  assert.throws(() => parseLoadCommand([...plan, "--workers", "65"]), UsageError);
  for (const extra of [["--repeat", "2"], ["--plan"], ["--html"], ["--prompt-mix-report"]]) {
    assert.throws(
      () => parseLoadCommand([...plan, "--workers", "2", ...extra]),
      new RegExp(`Cannot combine --workers with ${extra[0]}:`),
    );
  }
  assert.throws(
    () => parseLoadCommand([...plan, "--workers", "2", "--shard", "0/2", "--start-at", `${Date.now() + 60_000}`]),
    /Cannot combine --workers with --shard/,
  );
  assert.throws(
    () => parseLoadCommand(["--self-check", "--workers", "2"]),
    /Cannot combine --workers with --self-check/,
  );
  assert.throws(
    () => parseLoadCommand([...URL, "--concurrency", "1,4", "--requests", "4", "--workers", "2"]),
    /Cannot combine --workers with a sweep/,
  );
});
