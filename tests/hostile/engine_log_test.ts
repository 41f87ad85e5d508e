/**
 * `run --engine-log FILE` through a whole run: the server's log is attached as engine.log (sanitized, hashed,
 * listed in results.json), its timing lines are checked against every response's timings, one request the log
 * contradicts makes the run nonconforming with that request named, and a file that is not llama-server's log is not
 * attached and says why.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { StreamOutcome } from "../../contract/mod.ts";
import { sha256Hex } from "../../contract/mod.ts";
import { streamChat } from "../../client/mod.ts";
import { engineLogFile } from "../../runner/mod.ts";
import type { EngineLogSource } from "../../runner/engine_log.ts";
import { runHostile } from "./_run.ts";

/** The log llama-server would print for these responses (print_timings' three lines per task). */
function logOf(outcomes: StreamOutcome[], tamper: number | null): string {
  const lines = ["main: server is listening on http://127.0.0.1:8080 - starting the main loop"];
  outcomes.forEach((o, task) => {
    const t = o.timings as { prompt_n: number; prompt_ms: number; predicted_n: number; predicted_ms: number };
    const promptMs = task === tamper ? t.prompt_ms + 7 : t.prompt_ms;
    const head = `slot print_timing: id  0 | task ${task} | `;
    lines.push(`${head}prompt eval time = ${promptMs.toFixed(2).padStart(10)} ms / ${t.prompt_n} tokens (x)`);
    lines.push(`${head}       eval time = ${t.predicted_ms.toFixed(2).padStart(10)} ms / ${t.predicted_n} tokens (x)`);
    lines.push(`${head}      total time = ${(promptMs + t.predicted_ms).toFixed(2)} ms / 1 tokens`);
    lines.push("srv  log_server_r: request: POST /v1/chat/completions 10.0.0.7 200");
  });
  return `${lines.join("\n")}\n`;
}

async function runWithLog(dir: string, source: (outcomes: StreamOutcome[]) => EngineLogSource) {
  const outcomes: StreamOutcome[] = [];
  return await runHostile(dir, {}, { engineLogSource: source(outcomes) }, {
    streamChat: async (options) => {
      const outcome = await streamChat(options);
      outcomes.push(outcome);
      return outcome;
    },
  });
}

Deno.test("--engine-log: the log is attached sanitized and hashed, and agreeing timing lines keep the run conforming", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-engine-log-" });
  try {
    const file = join(dir, "server.log");
    const run = await runWithLog(dir, (outcomes) => ({
      ...engineLogFile(file),
      read: async () => {
        await Deno.writeTextFile(file, logOf(outcomes, null));
        return engineLogFile(file).read();
      },
    }));
    assert.deepEqual(run.report.validationProblems, []);
    const written = await Deno.readFile(join(run.folder, "engine.log"));
    const artifact = run.result.artifacts.find((a) => a.kind === "engine_log");
    assert.deepEqual(artifact, { kind: "engine_log", path: "engine.log", sha256: sha256Hex(written) });
    const text = new TextDecoder().decode(written);
    assert.ok(text.includes("<private-ip-") && !text.includes("10.0.0.7"), "the log is sanitized");
    const check = run.result.extensions?.["engine_log"] as Record<string, unknown>;
    assert.equal(check["source"], "--engine-log server.log");
    assert.equal(check["checked"], run.result.requests.filter((r) => r.status !== "skipped").length);
    assert.equal(check["agreed"], check["checked"]);
    assert.deepEqual(check["disagreed"], []);
    assert.ok(
      !((run.result.extensions?.["nonconforming_reasons"] ?? []) as string[]).some((r) => r.includes("engine log")),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--engine-log: a timing line that contradicts a response makes the run nonconforming, naming the request", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-engine-log-" });
  try {
    const run = await runWithLog(dir, (outcomes) => ({
      source: "--engine-log server.log",
      attachAnyText: false,
      read: () => Promise.resolve({ ok: true, text: logOf(outcomes, 2) }),
    }));
    assert.deepEqual(run.report.validationProblems, []);
    const reasons = ((run.result.extensions?.["nonconforming_reasons"] ?? []) as string[]).filter((r) =>
      r.includes("engine log")
    );
    assert.equal(reasons.length, 1);
    // The hostile engine answers equal requests with equal timings, so the request named is one of those.
    const named = /^([\w-]+): the engine log disagrees with the response \(the response's timings say prompt (\d+) /
      .exec(reasons[0]!);
    assert.ok(named, reasons[0]);
    const record = run.byId.get(named[1]!);
    assert.equal(String(record?.tokens.read_tokens ?? record?.tokens.input_tokens), named[2]);
    assert.match(reasons[0]!, /the engine log's timing line \(task 2\) says prompt \d+ tokens in 57\.00 ms/);
    assert.equal(run.result.run.status, "nonconforming");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--engine-log: a file that is not llama-server's log is not attached, and the result says why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-engine-log-" });
  try {
    const file = join(dir, "other.log");
    await Deno.writeTextFile(file, "INFO: Uvicorn running on http://127.0.0.1:8000\nGET /v1/models 200\n");
    const run = await runWithLog(dir, () => engineLogFile(file));
    assert.deepEqual(run.report.validationProblems, []);
    assert.equal(run.result.artifacts.some((a) => a.kind === "engine_log"), false);
    const check = run.result.extensions?.["engine_log"] as Record<string, unknown>;
    assert.equal(check["attached"], false);
    assert.equal(check["format"], null);
    assert.match(String(check["reason"]), /not a llama-server log/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
