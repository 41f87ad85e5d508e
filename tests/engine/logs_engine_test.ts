/**
 * Tier 3, the engine log and two failure records, against the real llama-server and the tiny model: the server's
 * own timing lines agree with the timings its responses carried (read through --engine-log's file reader, exactly
 * as a run checks them); a 16K request against a small -c fails with the engine's context error; an engine that
 * dies after the first delta leaves a failed record that keeps that delta. Each record is asserted field by field.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { join } from "node:path";
import { closeIdleConnections, streamChat } from "../../client/mod.ts";
import type { ExecutedRequest, Fixture } from "../../contract/mod.ts";
import { buildChatBody, engineLogFile } from "../../runner/mod.ts";
import { checkEngineLog, parseEngineLog } from "../../runner/engine_log.ts";
import { recordOf } from "../../score/mod.ts";
import { prepareEngine, sharedBundle, startTinyEngine, tempDir } from "./_engine.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

async function send(baseUrl: string, fixture: Fixture, onFirstDelta?: () => void): Promise<ExecutedRequest> {
  const outcome = await streamChat({
    baseUrl,
    body: buildChatBody(fixture, "llama.cpp").body,
    deadlineS: 300,
    ...(onFirstDelta === undefined ? {} : { onFirstDelta }),
  });
  return { kind: "outcome", fixture, concurrency: 1, body: {}, outcome, dispatchOffsetS: 0 };
}

async function fixture(id: string): Promise<Fixture> {
  const found = (await sharedBundle()).fixtures.find((f) => f.id === id);
  if (found === undefined) throw new RangeError(`no fixture ${id}`);
  return found;
}

Deno.test(
  "real engine: its log's timing lines agree with every response's timings, read as --engine-log reads a file",
  options,
  async () => {
    const engine = await startTinyEngine();
    const dir = await tempDir();
    try {
      const requests: ExecutedRequest[] = [];
      for (const id of ["warmup", "performance-short-r1", "performance-short-r2", "sanity-I1"]) {
        requests.push(await send(engine.baseUrl, await fixture(id)));
      }
      // The engine writes a task's timing lines to its log after the response's last byte, from another process:
      // wait (bounded) until the four tasks' eval lines are there before the log is read.
      const evalLines = () => (engine.log().match(/print_timing: .*\beval time =/g) ?? []).length;
      for (let waited = 0; evalLines() < 8 && waited < 5000; waited += 50) await delay(50);
      const file = join(dir.path, "server.log");
      await writeFile(file, engine.log());
      const source = engineLogFile(file);
      const read = await source.read();
      assert.ok(read.ok);
      const parsed = parseEngineLog(read.text);
      assert.equal(parsed.format, "llama-server");
      const check = checkEngineLog(source, parsed, requests);
      assert.equal(check.attached, true);
      assert.equal(check.checked, 4);
      assert.deepEqual(check.disagreed, []);
      assert.equal(check.agreed, 4);
    } finally {
      await closeIdleConnections();
      await engine.stop();
      await dir.remove();
    }
  },
);

const NO_TOKENS = {
  input_tokens: null,
  cached_tokens: null,
  read_tokens: null,
  output_tokens: null,
  decode_tokens: null,
};
const CLIENT_ONLY = {
  ...NO_TOKENS,
  engine_timings: null,
  client_timings: "client monotonic clock (performance.now), dispatch = 0",
};

Deno.test(
  "real engine: a 16K request against -c 4096, and an engine killed after the first delta: their exact records",
  options,
  async () => {
    const { model } = await prepareEngine();
    const engine = await startTinyEngine({ args: ["-m", model, "-c", "4096", "-np", "1", "-ngl", "0", "-t", "2"] });
    try {
      const long = await fixture("performance-prompt-16k-r1");
      const tooLong = await send(engine.baseUrl, long);
      assert.equal(tooLong.kind === "outcome" && tooLong.outcome.http_status, 400);
      const endS = tooLong.kind === "outcome" ? tooLong.outcome.offsets.end_s : null;
      assert.ok(typeof endS === "number" && endS > 0);
      assert.deepEqual(recordOf(tooLong).record, {
        id: "performance-prompt-16k-r1",
        phase: "performance",
        case_id: "prompt-16k",
        repetition: 1,
        seed: long.seed,
        max_output_tokens: 512,
        concurrency: 1,
        round: null,
        status: "failed",
        finish_reason: null,
        error: {
          kind: "http_error",
          message: "the server answered with an HTTP error before streaming (HTTP 400): request (16384 tokens) " +
            "exceeds the available context size (4096 tokens), try increasing it",
        },
        tokens: NO_TOKENS,
        timings: { prompt_s: null, decode_s: null, ttft_s: null, first_answer_s: null, total_s: endS },
        metrics: { prompt_tps: null, decode_tps: null },
        reasoning_cadence: null,
        sources: CLIENT_ONLY,
        first_delta_kind: null,
        token_accounting_note: null,
        evaluation: null,
      });

      const short = await fixture("performance-short-r1");
      let killed = false;
      const cut = await send(engine.baseUrl, short, () => {
        killed = engine.kill("SIGKILL");
      });
      assert.ok(killed, "the engine was killed at the first delta");
      assert.ok(cut.kind === "outcome");
      const offsets = cut.outcome.offsets;
      assert.ok(offsets.first_delta_s !== null && offsets.end_s >= offsets.first_delta_s);
      assert.deepEqual(recordOf(cut).record, {
        id: "performance-short-r1",
        phase: "performance",
        case_id: "short",
        repetition: 1,
        seed: short.seed,
        max_output_tokens: 512,
        concurrency: 1,
        round: null,
        status: "failed",
        finish_reason: null,
        error: {
          kind: "cut",
          message: "the connection closed before a finish reason and a normal end: the server closed the " +
            "connection before the stream finished",
        },
        tokens: NO_TOKENS,
        timings: {
          prompt_s: null,
          decode_s: null,
          ttft_s: offsets.first_delta_s,
          first_answer_s: null,
          total_s: offsets.end_s,
        },
        metrics: { prompt_tps: null, decode_tps: null },
        reasoning_cadence: null,
        sources: CLIENT_ONLY,
        // The tiny model thinks first (the template opens a think block): the one delta is reasoning text.
        first_delta_kind: "reasoning",
        token_accounting_note: null,
        evaluation: null,
      });
      assert.ok(cut.outcome.reasoning_text.length > 0, "the delta that arrived is kept");
    } finally {
      await closeIdleConnections();
      await engine.stop();
    }
  },
);
