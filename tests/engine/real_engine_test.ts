/**
 * Tier 3: the whole protocol against llama-server (built from node-llama-cpp's bundled llama.cpp) serving the
 * tiny random-weight qwen3 model on one slot. Nothing here is scripted: counts, timings, caching, queueing and
 * failures are the engine's own.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { buildChatBody } from "../../runner/mod.ts";
import { closeIdleConnections, streamChat } from "../../client/mod.ts";
import { validateResultText } from "../../report/validate.ts";
import { renderConsoleSummary } from "../../report/mod.ts";
import type { RequestRecord } from "../../contract/mod.ts";
import { chunkGaps, type ConfigCheck, median } from "../../score/mod.ts";
import { writeStderr } from "../../runtime/mod.ts";
import type { EngineHandle } from "../../engine/mod.ts";
import {
  decodeTimingLines,
  type EngineRun,
  promptTimingLines,
  runAgainst,
  sharedBundle,
  startTinyEngine,
  tempDir,
  tinyProfile,
} from "./_engine.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

interface RawUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}
interface RawTimings {
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_second: number;
}

/**
 * Polls GET /slots until the one slot is processing a prompt of more than `minTokens` tokens, then SIGKILLs the
 * engine. /slots shows no prompt text by default, but a slot's n_prompt_tokens grows batch by batch while it reads,
 * so a count no earlier request reaches marks the long request in flight (prefill or decode). Resolves with null,
 * or with the problem when the deadline passed first (the engine is killed then too, so the run still ends).
 */
async function killWhenProcessing(engine: EngineHandle, minTokens: number, deadlineMs: number): Promise<string | null> {
  const deadline = performance.now() + deadlineMs;
  let last = "no answer yet";
  while (performance.now() < deadline) {
    try {
      const response = await fetch(`${engine.baseUrl}/slots`, { signal: AbortSignal.timeout(5_000) });
      const slots = await response.json() as { is_processing?: boolean; n_prompt_tokens?: number }[];
      if (slots.some((slot) => slot.is_processing === true && (slot.n_prompt_tokens ?? 0) > minTokens)) {
        engine.kill("SIGKILL");
        return null;
      }
      last = `slots: ${JSON.stringify(slots.map((slot) => [slot.is_processing, slot.n_prompt_tokens]))}`;
    } catch (error) {
      last = String(error);
    }
    // The poll interval, not a wait for the event: the event is the next /slots answer.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  engine.kill("SIGKILL");
  return `the engine never reported a prompt over ${minTokens} tokens in a slot within ${deadlineMs} ms (${last})`;
}

function measured(record: RequestRecord): boolean {
  return record.status === "completed" || record.status === "truncated";
}

Deno.test("real engine: fresh run, then a second run on the same server", options, async (t) => {
  const dir = await tempDir();
  let engine: EngineHandle | null = null;
  try {
    engine = await startTinyEngine();
    const { fixtures } = await sharedBundle();
    const byId = new Map(fixtures.map((f) => [f.id, f]));
    let first: EngineRun | null = null;

    await t.step("the whole protocol with the optional stage gives a result the strict validator accepts", async () => {
      first = await runAgainst(engine!, join(dir.path, "first"), { optionalConcurrency: true });
      assert.deepEqual(first.report.validationProblems, []);
      const text = new TextDecoder().decode(await readFile(join(first.folder, "results.json")));
      const problems = await validateResultText(text, {
        maxSharedPrefixTokens: Object.fromEntries(fixtures.map((f) => [f.id, f.max_shared_prefix_tokens])),
        readArtifact: (path) => readFile(join(first!.folder, path)).catch(() => null),
      });
      assert.deepEqual(problems, []);
      const ext = first.result.extensions as Record<string, unknown>;
      assert.equal(
        first.result.run.status,
        "complete",
        JSON.stringify(ext.nonconforming_reasons ?? ext.status_reasons),
      );
      assert.equal(first.result.requests.length, 34);
      assert.ok(first.result.artifacts.some((a) => a.kind === "engine_log" && a.path === "engine.log"));
      assert.equal(first.result.model.files?.length, 1);
    });

    await t.step("each request's usage.prompt_tokens equals its fixture's frozen input_tokens", () => {
      for (const record of first!.result.requests) {
        assert.ok(measured(record), `${record.id} ${record.status} ${record.error?.message}`);
        assert.equal(record.tokens.input_tokens, byId.get(record.id)!.input_tokens, record.id);
      }
    });

    await t.step("accounting identities hold on the engine's own fields", () => {
      for (const record of first!.result.requests) {
        const line = first!.outputs.get(record.id)!;
        // The evidence keeps the exact text of the chunk that carried usage and timings.
        const usage = (JSON.parse(line.usage_chunk as string) as { usage: RawUsage }).usage;
        // llama-server's last chunk carries both; the line writes it once (timings_in_usage_chunk).
        assert.equal(line.timings_in_usage_chunk, true);
        const timings = (JSON.parse(line.usage_chunk as string) as { timings: RawTimings }).timings;
        assert.equal(timings.prompt_n + timings.cache_n, usage.prompt_tokens, `${record.id}: prompt_n + cache_n`);
        assert.equal(usage.prompt_tokens_details?.cached_tokens, timings.cache_n, `${record.id}: cached_tokens`);
        assert.equal(usage.completion_tokens, timings.predicted_n, `${record.id}: completion_tokens`);
        // predicted_per_second is (n-1)/predicted_ms here: one token off, inside the agreement tolerance.
        assert.equal(record.tokens.decode_tokens, timings.predicted_n, `${record.id}: decode_tokens`);
        assert.equal(record.sources.decode_tokens, "timings.predicted_n");
        assert.equal(record.tokens.read_tokens, timings.prompt_n);
        assert.equal(record.token_accounting_note, null);
      }
    });

    await t.step("thinking is not cut short: -1 is sent, reasoning runs until the model closes it", async () => {
      const ext = first!.result.extensions as Record<string, unknown>;
      assert.equal(ext.dialect, "llama.cpp");
      assert.equal(ext.reasoning_budget_tokens_sent, -1);
      let naturalEnds = 0;
      for (const record of first!.result.requests) {
        const line = first!.outputs.get(record.id)!;
        assert.equal((line.request as Record<string, unknown>).reasoning_budget_tokens, -1);
        assert.equal(record.first_delta_kind, "reasoning", record.id);
        if (record.finish_reason === "stop") {
          assert.notEqual(line.reasoning_text, "", record.id);
          naturalEnds++;
        }
      }
      assert.ok(naturalEnds > 0);
      // Control: the same request with budget 0 has its reasoning ended at once, so the setting is live.
      const warmup = byId.get("warmup")!;
      const body = { ...buildChatBody(warmup, "llama.cpp").body, reasoning_budget_tokens: 0 };
      const cut = await streamChat({ baseUrl: engine!.baseUrl, body, deadlineS: 60 });
      assert.equal(cut.end, "finished");
      assert.equal(cut.reasoning_text, "");
      assert.equal(cut.first_delta_kind, "answer");
    });

    await t.step("every request that reasoned carries its reasoning cadence, from the client's chunk stamps", () => {
      const ms = (s: number | null | undefined) => (s === null || s === undefined ? "-" : (s * 1000).toFixed(2));
      const rows = [
        "request                    reasoning chunks  thinking s  reasoning TPOT/ITL p50/max ms  answer TPOT/ITL p50/max ms",
      ];
      let reasoned = 0;
      for (const record of first!.result.requests) {
        const line = first!.outputs.get(record.id)!;
        // Whole microseconds, each after the first a difference (evidence version 5).
        const us = line.reasoning_chunk_offsets_us as number[];
        const stamps = us.map((_, i) => us.slice(0, i + 1).reduce((a, b) => a + b, 0) / 1e6);
        assert.ok(Array.isArray(us) && Array.isArray(line.chunk_offsets_us), record.id);
        // The tiny model opens every turn with <think> (the step above), so every request reasoned.
        assert.ok(stamps.length > 0, record.id);
        const cadence = first!.result.extensions!.reasoning_cadence![record.id]!;
        const reasoningGaps = chunkGaps(stamps);
        const answerUs = line.chunk_offsets_us as number[];
        const answerGaps = chunkGaps(answerUs.map((_, i) => answerUs.slice(0, i + 1).reduce((a, b) => a + b, 0) / 1e6));
        const firstAnswer = record.timings.first_answer_s;
        assert.equal(cadence.thinking_s, firstAnswer === null ? null : firstAnswer - stamps[0]!, record.id);
        reasoned++;
        const spread = (gaps: number[]) => `${ms(gaps.length > 0 ? median(gaps) : null)}/${ms(Math.max(...gaps, 0))}`;
        rows.push(
          `${record.id.padEnd(27)}${String(stamps.length).padStart(16)}  ${
            (cadence.thinking_s?.toFixed(3) ?? "-").padStart(10)
          }  ${`${ms(cadence.reasoning_tpot_s)}/${spread(reasoningGaps)}`.padStart(29)}  ${
            `${ms(cadence.answer_tpot_s)}/${spread(answerGaps)}`.padStart(26)
          }`,
        );
      }
      assert.equal(reasoned, first!.result.requests.length);
      const perCase = renderConsoleSummary(first!.result).split("\n").filter((l) =>
        l.startsWith("Reasoning cadence, ")
      );
      assert.equal(perCase.length, 5, perCase.join("\n"));
      writeStderr(`${rows.join("\n")}\n${perCase.join("\n")}\n`);
    });

    await t.step("the resolved configuration of every required request is verified against /slots", () => {
      const checks = (first!.result.extensions as Record<string, unknown>).resolved_configuration as {
        requests: Record<string, ConfigCheck>;
      };
      // One line per request: each compared setting as sent/resolved (GET /slots prints float32 values).
      const table = [
        `request                    verified  ${
          checks.requests["warmup"]!.compared.map((c) => c.field).join(" ")
        } (sent/resolved)`,
      ];
      for (const record of first!.result.requests) {
        const check = checks.requests[record.id]!;
        if (record.phase !== "concurrency") assert.equal(check.verified, true, `${record.id}: ${check.reason}`);
        const pairs = check.compared.map((c) => `${c.sent}/${c.resolved}`).join(" ");
        table.push(
          `${record.id.padEnd(26)} ${String(check.verified).padEnd(9)} ${pairs || `(not read: ${check.reason})`}`,
        );
      }
      writeStderr(`${table.join("\n")}\n`);
      // One slot for four clients: each round's last request is read; the slot ran the three before it earlier.
      for (const round of [1, 2, 3]) {
        const ids = first!.result.requests.filter((r) => r.round === round).map((r) => r.id);
        const verdicts = ids.map((id) => checks.requests[id]!.verified);
        assert.equal(verdicts.filter((v) => v === true).length, 1, `round ${round}: ${JSON.stringify(verdicts)}`);
        for (const id of ids) {
          const check = checks.requests[id]!;
          if (check.verified === null) assert.match(check.reason ?? "", /ran a later request of the same round/);
        }
      }
    });

    await t.step("four clients on a one-slot server queue: the round report says three of four waited", () => {
      assert.equal(first!.result.configuration.server_capacity, 1);
      assert.equal(first!.result.concurrency_rounds.length, 3);
      const queueing = (first!.result.extensions as Record<string, unknown>).round_queueing as {
        waited: number;
        requests: { request_id: string; wait_s: number; queued: boolean; source: string }[];
      }[];
      for (const [i, q] of queueing.entries()) {
        assert.equal(q.waited, 3, JSON.stringify(q));
        assert.ok(q.requests.every((w) => w.source.startsWith("engine timers")), JSON.stringify(q));
        assert.notEqual(first!.result.concurrency_rounds[i]!.aggregate_tps, null);
      }
    });

    await t.step("sanity checks fail honestly, each with its own reason", () => {
      const sanity = first!.result.requests.filter((r) => r.phase === "sanity");
      assert.equal(sanity.length, 12);
      for (const record of sanity) {
        assert.equal(record.evaluation?.passed, false, record.id);
        assert.match(record.evaluation!.reason, new RegExp(`^${record.case_id}: `));
      }
      assert.equal(first!.result.quality.passed, 0);
    });

    await t.step("the tool's rates match llama-server's own log; decode differs by n/(n-1)", () => {
      const log = first!.engineLog!;
      const decodeLines = decodeTimingLines(log);
      const promptLines = promptTimingLines(log);
      const table: string[] = [
        "request              read  prompt_tps(tool) (log)   n  decode_tps(tool) (log)  n/(n-1)",
      ];
      for (const record of first!.result.requests.filter((r) => r.phase === "performance")) {
        const n = record.tokens.decode_tokens!;
        // The log prints milliseconds to two decimals, so on a tiny model two requests with the same token count
        // can print the same time: every line the request could be is a candidate, and one must agree.
        const decodes = decodeLines.filter((l) =>
          l.tokens === n && Math.abs(l.ms - record.timings.decode_s! * 1000) <= 0.0051
        );
        const prompts = promptLines.filter((l) =>
          l.tokens === record.tokens.read_tokens && Math.abs(l.ms - record.timings.prompt_s! * 1000) <= 0.0051
        );
        assert.ok(decodes.length > 0 && prompts.length > 0, `${record.id}: no matching print_timing lines`);
        const prompt = prompts.find((l) =>
          Math.abs(record.metrics.prompt_tps! - l.perSecond) <= 0.01 + 1e-6 * l.perSecond
        );
        assert.ok(
          prompt,
          `${record.id}: prompt_tps ${record.metrics.prompt_tps} vs ${prompts.map((l) => l.perSecond)}`,
        );
        // The engine prints (n-1)/t; the protocol's decode_tps is n/t.
        const decode = decodes.find((l) =>
          Math.abs(record.metrics.decode_tps! - l.perSecond * n / (n - 1)) <= 0.02 * n / (n - 1)
        );
        assert.ok(
          decode,
          `${record.id}: decode_tps ${record.metrics.decode_tps} vs ${decodes.map((l) => l.perSecond)}`,
        );
        table.push(
          `${record.id.padEnd(26)} ${String(record.tokens.read_tokens).padStart(5)} ${
            record.metrics.prompt_tps!.toFixed(1).padStart(9)
          } ${prompt.perSecond.toFixed(2).padStart(9)} ${String(n).padStart(4)} ${
            record.metrics.decode_tps!.toFixed(2).padStart(9)
          } ${decode.perSecond.toFixed(2).padStart(9)}  ${(n / (n - 1)).toFixed(4)}`,
        );
      }
      writeStderr(`${table.join("\n")}\n`);
    });

    await t.step("a second run on the same server is flagged for payload reuse and is nonconforming", async () => {
      const controller = new AbortController();
      const second = await runAgainst(engine!, join(dir.path, "second"), {
        signal: controller.signal,
        onRequestEnd: (_record, position) => {
          if (position.index >= 4) controller.abort("enough evidence");
        },
      });
      assert.deepEqual(second.report.validationProblems, []);
      assert.equal(second.result.run.status, "nonconforming");
      const ext = second.result.extensions as Record<string, unknown>;
      const prior = ext.server_prior_requests as { freshly_loaded: boolean | null; served: number | null };
      assert.equal(prior.freshly_loaded, false);
      const reused = second.result.requests.filter((r) =>
        r.phase === "performance" && r.tokens.cached_tokens !== null &&
        r.tokens.cached_tokens > byId.get(r.id)!.max_shared_prefix_tokens + 8
      );
      assert.ok(reused.length > 0, "no performance request read its payload from the cache");
      const excluded = second.result.summaries.flatMap((s) => s.excluded.map((e) => e.request_id));
      for (const record of reused) assert.ok(excluded.includes(record.id), `${record.id} not excluded`);
      assert.ok(
        (ext.nonconforming_reasons as string[]).some((r) => /reuse|cache/i.test(r)),
        JSON.stringify(ext.nonconforming_reasons),
      );
    });
  } finally {
    await engine?.stop();
    closeIdleConnections();
    await dir.remove();
  }
});

Deno.test("real engine: killed mid-run, the result is partial and keeps every measurement", options, async () => {
  const dir = await tempDir();
  const engine = await startTinyEngine();
  try {
    let killing: Promise<string | null> | undefined;
    const run = await runAgainst(engine, dir.path, {
      onRequestStart: (fixture) => {
        // Killed once the engine itself reports the 16K request in its slot (past 8192 prompt tokens; the requests
        // before it read at most ~4K), however fast the machine reads it.
        if (fixture.id === "performance-prompt-16k-r1") killing = killWhenProcessing(engine, 8192, 60_000);
      },
    });
    assert.equal(await killing, null, "the engine was killed while its slot held the 16K request");
    assert.equal(engine.exitStatus()?.signal, "SIGKILL");
    assert.deepEqual(run.report.validationProblems, []);
    assert.equal(run.result.run.status, "partial");
    const records = run.result.requests;
    const killedAt = records.findIndex((r) => r.id === "performance-prompt-16k-r1");
    for (const record of records.slice(0, killedAt)) {
      assert.ok(measured(record), record.id);
      assert.notEqual(record.metrics.decode_tps, null, record.id);
      assert.notEqual(run.outputs.get(record.id)?.timings, null, record.id);
    }
    assert.equal(records[killedAt]!.status, "failed");
    assert.ok(records[killedAt]!.error?.message);
    for (const record of records.slice(killedAt + 1)) {
      assert.equal(record.status, "skipped", record.id);
      assert.ok(record.error && record.error.message.length > 0, record.id);
    }
    assert.equal(run.result.request_counts.sanity.skipped, 12);
    assert.equal(run.outputs.size, records.length);
    assert.match(run.engineLog ?? "", /print_timing/);
  } finally {
    await engine.stop();
    closeIdleConnections();
    await dir.remove();
  }
});

/** Runs the first requests of the protocol against `engine` and stops: enough to read each one's /slots. */
async function firstRequests(engine: EngineHandle, dir: string, count: number): Promise<EngineRun> {
  const controller = new AbortController();
  return await runAgainst(engine, dir, {
    signal: controller.signal,
    onRequestEnd: (_record, position) => {
      if (position.index >= count) controller.abort("enough requests");
    },
  });
}

Deno.test(
  "real engine: a server started with --temp 0.3 --top-k 7 still runs each request as sent",
  options,
  async () => {
    const dir = await tempDir();
    const base = await tinyProfile();
    const engine = await startTinyEngine({ args: [...base.args, "--temp", "0.3", "--top-k", "7"] });
    try {
      const run = await firstRequests(engine, dir.path, 3);
      assert.deepEqual(run.report.validationProblems, []);
      const ext = run.result.extensions as Record<string, unknown>;
      const checks = (ext.resolved_configuration as { requests: Record<string, ConfigCheck> }).requests;
      const sent = run.result.requests.filter((r) => r.status !== "skipped");
      assert.equal(sent.length, 3);
      for (const record of sent) {
        const check = checks[record.id]!;
        assert.equal(check.verified, true, `${record.id}: ${check.reason}`);
        assert.equal(check.compared.find((c) => c.field === "temperature")?.resolved, 1);
        assert.equal(check.compared.find((c) => c.field === "top_k")?.resolved, 20);
      }
      // The server's own defaults are recorded, and what the requests overrode.
      const defaults = ext.server_defaults as { overridden: Record<string, { server: number; sent: number }> };
      assert.equal(Math.fround(defaults.overridden.temperature!.server), Math.fround(0.3));
      assert.equal(defaults.overridden.top_k!.server, 7);
      assert.equal(defaults.overridden.temperature!.sent, 1);
    } finally {
      await engine.stop();
      closeIdleConnections();
      await dir.remove();
    }
  },
);

Deno.test(
  "real engine: --no-slots leaves the resolved configuration null with the reason, and the run is not failed for it",
  options,
  async () => {
    const dir = await tempDir();
    const base = await tinyProfile();
    const engine = await startTinyEngine({ args: [...base.args, "--no-slots"] });
    try {
      const run = await firstRequests(engine, dir.path, 2);
      assert.deepEqual(run.report.validationProblems, []);
      const checks = ((run.result.extensions as Record<string, unknown>).resolved_configuration as {
        requests: Record<string, ConfigCheck>;
      }).requests;
      const sent = run.result.requests.filter((r) => r.status !== "skipped");
      assert.equal(sent.length, 2);
      for (const record of sent) {
        assert.equal(checks[record.id]!.verified, null);
        assert.match(
          checks[record.id]!.reason ?? "",
          /GET \/slots answered HTTP 501 \(llama-server started with --no-slots\)/,
        );
        assert.ok(record.status === "completed" || record.status === "truncated", record.id);
      }
    } finally {
      await engine.stop();
      closeIdleConnections();
      await dir.remove();
    }
  },
);

Deno.test(
  "real engine: a server started with --reasoning-budget 0 makes the run nonconforming, naming the flag",
  options,
  async () => {
    const dir = await tempDir();
    const base = await tinyProfile();
    const engine = await startTinyEngine({ args: [...base.args, "--reasoning-budget", "0"] });
    try {
      const run = await firstRequests(engine, dir.path, 1);
      assert.deepEqual(run.report.validationProblems, []);
      assert.equal(run.result.run.status, "nonconforming");
      const reasons = (run.result.extensions as Record<string, unknown>).nonconforming_reasons as string[];
      assert.ok(
        reasons.some((r) => /^the server runs with --reasoning-budget 0: the profile leaves thinking/.test(r)),
        reasons.join("\n"),
      );
    } finally {
      await engine.stop();
      closeIdleConnections();
      await dir.remove();
    }
  },
);
