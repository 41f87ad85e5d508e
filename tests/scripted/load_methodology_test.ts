/** `load` by the methodology against the scripted engine: audits, strict mode, pins, the drain limit, headroom. */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockEngine } from "../../mock/mod.ts";
import { parseLoadCommand } from "../../cli/load.ts";
import { type LoadTestOptions, realLoadDeps, runLoadTest } from "../../load/mod.ts";
import { createSanitizer } from "../../sanitize/sanitize.ts";

const quiet = ["--no-headroom-check"];

async function run(options: LoadTestOptions) {
  return await runLoadTest(options, realLoadDeps(undefined, { stream: options.workload.stream !== false }));
}

Deno.test("--strict rejects reasoning-truncated answers; without it they count but pass", async () => {
  const engine = await startMockEngine({ timeScale: 0, script: { "*": { answer: { kind: "cap" } } } });
  try {
    const args = [...quiet, "--url", engine.url, "--concurrency", "2", "--requests", "4", "--synthetic", "chat-short"];
    const loose = await run(parseLoadCommand(args).options);
    assert.equal(loose.status, "ok");
    assert.equal(loose.runs[0]!.summary.overall.counts.reasoning_truncated, 4);
    assert.equal(loose.runs[0]!.summary.audits?.reasoning_truncated.pass, true);
    const strict = await run(parseLoadCommand([...args, "--strict"]).options);
    assert.equal(strict.status, "audit-failed");
    assert.match(strict.reasons.join("\n"), /4 measured answers were reasoning-truncated/);
  } finally {
    await engine.close();
  }
});

Deno.test("non-streaming requests fail the TTFT audit unless allowed, or TTFT is inferred from the first byte", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    script: { "*": { answer: { kind: "text", text: "a b c" }, reasoningTokens: 0 } },
  });
  try {
    const args = [
      ...quiet,
      "--url",
      engine.url,
      "--concurrency",
      "2",
      "--requests",
      "4",
      "--synthetic",
      "chat-short",
      "--no-stream",
    ];
    const audited = await run(parseLoadCommand(args).options);
    assert.equal(audited.status, "audit-failed");
    assert.ok((engine.requests[0]!.body as { stream: boolean }).stream === false);
    assert.equal(audited.runs[0]!.summary.overall.distributions.ttft_s.n, 0);
    assert.equal((await run(parseLoadCommand([...args, "--allow-missing-ttft"]).options)).status, "ok");
    const inferred = await run(parseLoadCommand([...args, "--infer-ttft-from-first-byte"]).options);
    assert.equal(inferred.status, "ok");
    assert.equal(inferred.runs[0]!.summary.overall.distributions.ttft_s.n, 4);
  } finally {
    await engine.close();
  }
});

Deno.test("a pinned workload whose bytes differ is refused before any request", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    await writeFile(join(dir, "p.jsonl"), '{"prompt":"a"}\n{"prompt":"b"}\n');
    const options = parseLoadCommand([
      ...quiet,
      "--url",
      engine.url,
      "--concurrency",
      "1",
      "--requests",
      "2",
      "--prompts",
      join(dir, "p.jsonl"),
      "--max-tokens",
      "8",
      "--workload-sha256",
      "0".repeat(64),
    ]).options;
    await assert.rejects(run(options), /not the pinned/);
    assert.equal(engine.requests.length, 0);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("--duration bounds a run whose requests hang: at the window plus the drain limit they are cancelled", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    // The preflight check answers (it is no request of the workload); every measured request hangs.
    script: { preflight: {}, "*": { fault: { kind: "stall", afterTokens: 1, ms: 120_000 } } },
  });
  try {
    const options = parseLoadCommand([
      ...quiet,
      "--url",
      engine.url,
      "--concurrency",
      "3",
      "--duration",
      "0.5",
      "--drain-s",
      "0.5",
      "--warmup-requests",
      "0",
      "--synthetic",
      "chat-short",
    ]).options;
    const outcome = await run(options);
    const r = outcome.runs[0]!;
    assert.equal(r.facts.drain.cancelled, 3);
    assert.equal(r.summary.overall.counts.cancelled_at_drain, 3);
    assert.equal(r.summary.overall.counts.failed, 3);
    assert.ok(r.facts.drain.end_s >= 1, `ended at ${r.facts.drain.end_s} s, before the window and drain`);
    assert.equal(outcome.status, "no-success");
  } finally {
    await engine.close();
  }
});

Deno.test("every run stamps the client headroom, the prompt mix of real text, and writes the mix report", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const options = parseLoadCommand([
      "--headroom-s",
      "0.3",
      "--url",
      engine.url,
      "--concurrency",
      "2",
      "--requests",
      "4",
      "--workload",
      "chat-short",
    ]).options;
    options.promptMixReport = join(dir, "mix.json"); // the CLI names it beside the JSONL (--prompt-mix-report)
    const deps = realLoadDeps();
    delete deps.cacheIdentity; // measure, never read or write the user's cache from a test
    const outcome = await runLoadTest(options, deps);
    const s = outcome.runs[0]!.summary;
    const h = s.client_headroom as { ceiling: { source: string; events_per_s: number }; fraction_of_ceiling: number };
    assert.equal(h.ceiling.source, "measured");
    assert.ok(h.ceiling.events_per_s > 0 && h.fraction_of_ceiling > 0);
    const mix = JSON.parse(await readFile(join(dir, "mix.json"), "utf8"));
    assert.equal(mix.source, "profile:chat-short");
    assert.equal(mix.provenance.kind, "real-text");
    assert.equal(mix.achieved.input_tokens.n, 4);
    assert.deepEqual(mix.achieved.output_tokens, s.overall.distributions.output_tokens);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("the config line of load and of compare says when the test started and which toolkit ran it", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  const engine = await startMockEngine({ timeScale: 0 });
  const stamped = () => {
    const deps = realLoadDeps();
    deps.wallMs = () => Date.parse("2026-01-31T12:00:00Z");
    deps.toolkit = () => Promise.resolve({ version: "9.9.9", commit: "c".repeat(40) });
    return deps;
  };
  const expected = { started_at: "2026-01-31T12:00:00.000Z", toolkit: { version: "9.9.9", commit: "c".repeat(40) } };
  try {
    const options = parseLoadCommand([
      "--no-headroom-check",
      "--url",
      engine.url,
      "--concurrency",
      "1",
      "--requests",
      "1",
    ]).options;
    options.out = join(dir, "load.jsonl");
    assert.equal((await runLoadTest(options, stamped())).status, "ok");
    const config = JSON.parse((await readFile(options.out, "utf8")).split("\n")[0]!);
    assert.equal(config.kind, "config");
    assert.deepEqual({ started_at: config.started_at, toolkit: config.toolkit }, expected);
    const { parseCompareCommand } = await import("../../cli/compare.ts");
    const { runCompare } = await import("../../load/mod.ts");
    const compared = await runCompare(
      parseCompareCommand([
        ...["--baseline", engine.url, "--candidate", engine.url, "--concurrency", "1", "--rounds", "1"],
        ...["--requests", "1", "--warmup-requests", "0", "--workload", "chat-short", "--sample", "4"],
      ]).options,
      stamped(),
    );
    const compareConfig = JSON.parse(compared.lines[0]!);
    assert.equal(compareConfig.kind, "config");
    assert.deepEqual({ started_at: compareConfig.started_at, toolkit: compareConfig.toolkit }, expected);
  } finally {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("load and compare warn when they send min_tokens to llama.cpp, which ignores it; nothing is asked otherwise", async () => {
  const engine = await startMockEngine({ timeScale: 0 }); // announces a llama.cpp build_info in /props
  try {
    const flags = ["--url", engine.url, "--concurrency", "1", "--requests", "1", "--workload", "chat-short"];
    const warned: string[] = [];
    const sent = parseLoadCommand([...quiet, ...flags, "--sample", "4", "--min-tokens", "2"]).options;
    assert.equal((await runLoadTest(sent, realLoadDeps(), { onWarning: (w) => warned.push(w) })).status, "ok");
    assert.equal(warned.length, 1, warned.join("\n"));
    assert.match(warned[0]!, /is llama\.cpp \(\/props build_info "b7000-80fb11a".*\), which ignores min_tokens/);
    const silent: string[] = [];
    const deps = realLoadDeps();
    deps.dialectOf = () => Promise.reject(new Error("asked without a reason"));
    const plain = parseLoadCommand([...quiet, ...flags, "--sample", "4"]).options;
    assert.equal((await runLoadTest(plain, deps, { onWarning: (w) => silent.push(w) })).status, "ok");
    assert.deepEqual(silent, []);

    const { parseCompareCommand } = await import("../../cli/compare.ts");
    const { runCompare } = await import("../../load/mod.ts");
    const progress: string[] = [];
    const compared = await runCompare(
      parseCompareCommand([
        ...["--baseline", engine.url, "--candidate", engine.url, "--concurrency", "1", "--rounds", "1"],
        ...["--requests", "1", "--warmup-requests", "0", "--workload", "chat-short", "--sample", "4"],
        ...["--min-tokens", "2"],
      ]).options,
      { ...realLoadDeps(), progress: (line) => progress.push(line) },
    );
    const config = JSON.parse(compared.lines[0]!);
    assert.equal(config.warnings.length, 1);
    assert.match(config.warnings[0], /which ignores min_tokens/);
    assert.ok(progress.some((l) => /^compare: warning: .*ignores min_tokens/.test(l)), progress.join("\n"));
  } finally {
    await engine.close();
  }
});

Deno.test("a measured row's one new string is known to the sanitizer before the epoch, not sanitized at the first row", async () => {
  // V8 drops the code of regular expressions left unused through full collections (one runs just before the
  // epoch): a string the sanitizer has not seen then costs 2-7 ms of compiling, and the first measured row paid it.
  const engine = await startMockEngine({
    timeScale: 0,
    script: { "*": { answer: { kind: "text", text: "a b c" }, reasoningTokens: 0 } },
  });
  try {
    const memo = new Map<string, string>();
    const real = createSanitizer({ memo });
    const knownAtFirstRow: boolean[] = [];
    const sanitizer = {
      text: real.text,
      json: (value: unknown) => {
        const line = value as Record<string, unknown>;
        if (line.format === "strata-load-request" && line.phase === "measure" && knownAtFirstRow.length === 0) {
          knownAtFirstRow.push(memo.has("measure"));
        }
        return real.json(value);
      },
    };
    const args = [...quiet, "--url", engine.url, "--concurrency", "2", "--requests", "4", "--synthetic", "chat-short"];
    const knownAtEpoch: boolean[] = [];
    const result = await runLoadTest(parseLoadCommand(args).options, { ...realLoadDeps(), sanitizer }, {
      onEpoch: () => knownAtEpoch.push(memo.has("measure")),
    });
    assert.equal(result.status, "ok");
    assert.deepEqual(knownAtEpoch, [true]);
    assert.deepEqual(knownAtFirstRow, [true]);
  } finally {
    await engine.close();
  }
});
