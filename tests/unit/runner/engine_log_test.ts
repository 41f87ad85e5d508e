/**
 * runner/engine_log.ts: llama-server's timing lines (the exact shape print_timings writes, with and without a
 * timestamp prefix), logs that are not llama-server's, and the cross-check of each response's timings against them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ExecutedRequest } from "../../../contract/mod.ts";
import {
  checkEngineLog,
  engineLogFile,
  parseEngineLog,
  readEngineLog,
  startedEngineLog,
} from "../../../runner/engine_log.ts";
import { fakeFixtures, outcome } from "./_fakes.ts";

/** The three lines llama-server prints for a finished task (format of tools/server print_timings). */
function timingLines(task: number, p: [number, number], e: [number, number], prefix = ""): string {
  const f = (x: number, w: number) => x.toFixed(2).padStart(w);
  const n = (x: number) => String(x).padStart(5);
  const head = `${prefix}slot print_timing: id  0 | task ${task} | `;
  return [
    `${head}prompt eval time = ${f(p[1], 10)} ms / ${
      n(p[0])
    } tokens (    1.00 ms per token,  1000.00 tokens per second)`,
    `${head}       eval time = ${f(e[1], 10)} ms / ${
      n(e[0])
    } tokens (    1.00 ms per token,  1000.00 tokens per second)`,
    `${head}      total time = ${f(p[1] + e[1], 10)} ms / ${n(p[0] + e[0])} tokens`,
  ].join("\n");
}

const SERVER_HEAD = "main: server is listening on http://127.0.0.1:8080 - starting the main loop\n" +
  "srv  update_slots: all slots are idle\n";

function executed(id: string, timings: unknown, idTask?: number): ExecutedRequest {
  const fixture = fakeFixtures(false).find((f) => f.id === id)!;
  return {
    kind: "outcome",
    fixture,
    concurrency: 1,
    body: {},
    outcome: outcome("finished", { timings }),
    dispatchOffsetS: 0,
    ...(idTask === undefined ? {} : {
      slot: {
        kind: "slot" as const,
        source: "GET /slots",
        matched_by: "test",
        slot_id: 0,
        id_task: idTask,
        params: {},
      },
    }),
  };
}

const t = (pn: number, pms: number, en: number, ems: number) => ({
  prompt_n: pn,
  prompt_ms: pms,
  predicted_n: en,
  predicted_ms: ems,
});

Deno.test("parseEngineLog reads each task's prompt and eval lines, with or without a timestamp prefix", () => {
  const log = SERVER_HEAD + timingLines(3, [13, 39.371], [16, 230.525]) + "\n" +
    timingLines(7, [2048, 1234.5], [512, 9876.54], "0.12.345.678 I ") + "\n";
  const parsed = parseEngineLog(log);
  assert.equal(parsed.format, "llama-server");
  if (parsed.format === null) return;
  assert.deepEqual(parsed.timings, [
    { slot: 0, task: 3, promptTokens: 13, promptMs: 39.37, evalTokens: 16, evalMs: 230.53 },
    { slot: 0, task: 7, promptTokens: 2048, promptMs: 1234.5, evalTokens: 512, evalMs: 9876.54 },
  ]);
  assert.equal(parsed.truncated, false);
});

Deno.test("a log that is not llama-server's is null with a reason (other text, binary, empty)", () => {
  for (const text of ["INFO vllm.engine: started\nGET /v1/models 200\n", "\u0000\u0001GGUF", ""]) {
    const parsed = parseEngineLog(text);
    assert.equal(parsed.format, null, JSON.stringify(text));
    if (parsed.format === null) assert.match(parsed.reason, /not a (llama-server|text) log/);
  }
});

Deno.test("checkEngineLog: equal numbers agree (to the printed hundredth); another number disagrees, named", () => {
  const log = SERVER_HEAD + timingLines(1, [80, 50], [10, 200]) + "\n" + timingLines(2, [80, 61.25], [12, 300]);
  const requests = [
    executed("warmup", t(80, 50.004, 10, 199.996)),
    executed("performance-short-r1", t(80, 61.3, 12, 300), 2),
    executed("performance-short-r2", null),
  ];
  const check = checkEngineLog(startedEngineLog(() => log), parseEngineLog(log), requests);
  assert.equal(check.checked, 2);
  assert.equal(check.agreed, 1);
  assert.deepEqual(check.disagreed, [{
    request_id: "performance-short-r1",
    reason: "the response's timings say prompt 80 tokens in 61.30 ms, eval 12 tokens in 300.00 ms; the engine " +
      "log's timing line (task 2) says prompt 80 tokens in 61.25 ms, eval 12 tokens in 300.00 ms",
  }]);
  assert.deepEqual(check.not_in_log, []);
});

Deno.test("checkEngineLog: each line serves one request; a request without a line disagrees unless the log is cut", () => {
  const log = SERVER_HEAD + timingLines(1, [80, 50], [10, 200]);
  const requests = [executed("warmup", t(80, 50, 10, 200)), executed("performance-short-r1", t(80, 50, 10, 200))];
  const whole = checkEngineLog(startedEngineLog(() => log), parseEngineLog(log), requests);
  assert.equal(whole.agreed, 1);
  assert.equal(whole.disagreed[0]?.request_id, "performance-short-r1");
  const cut = `${log}\n[... 999 characters of engine log dropped ...]\n`;
  const partial = checkEngineLog(startedEngineLog(() => cut), parseEngineLog(cut), requests);
  assert.deepEqual(partial.disagreed, []);
  assert.deepEqual(partial.not_in_log, ["performance-short-r1"]);
});

Deno.test("checkEngineLog matches by task first: two requests with the same numbers blame the one whose line differs", () => {
  // r1 (task 1) claims what task 2's line says; r2 (task 2) is honest. By numbers first, r1 would take task 2's line
  // and r2 would be blamed.
  const log = SERVER_HEAD + timingLines(1, [80, 70], [10, 250]) + "\n" + timingLines(2, [80, 50], [10, 200]);
  const requests = [
    executed("performance-short-r1", t(80, 50, 10, 200), 1),
    executed("performance-short-r2", t(80, 50, 10, 200), 2),
  ];
  const check = checkEngineLog(startedEngineLog(() => log), parseEngineLog(log), requests);
  assert.equal(check.agreed, 1);
  assert.deepEqual(check.disagreed.map((d) => d.request_id), ["performance-short-r1"]);
  assert.match(check.disagreed[0]?.reason ?? "", /timing line \(task 1\) says prompt 80 tokens in 70\.00 ms/);
  // A request without a slot reading may not take a line another request's task claims.
  const unread = [executed("warmup", t(80, 50, 10, 200)), requests[1]!];
  const byNumbers = checkEngineLog(startedEngineLog(() => log), parseEngineLog(log), unread);
  assert.deepEqual(byNumbers.disagreed.map((d) => d.request_id), ["warmup"]);
  assert.equal(byNumbers.agreed, 1);
});

Deno.test("checkEngineLog: a llama-server log without timing lines is attached but not checked", () => {
  const check = checkEngineLog(startedEngineLog(() => SERVER_HEAD), parseEngineLog(SERVER_HEAD), [
    executed("warmup", t(80, 50, 10, 200)),
  ]);
  assert.equal(check.attached, true);
  assert.equal(check.checked, 0);
  assert.match(check.reason ?? "", /no per-request timing lines/);
});

Deno.test("engineLogFile: a missing file and a link are unreadable with a reason, a regular file is read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "strata-engine-log-" });
  try {
    const file = join(dir, "server.log");
    await Deno.writeTextFile(file, SERVER_HEAD);
    await Deno.symlink(file, join(dir, "link.log"));
    assert.deepEqual(await engineLogFile(file).read(), { ok: true, text: SERVER_HEAD });
    assert.equal(engineLogFile(file).source, "--engine-log server.log");
    for (const name of ["missing.log", "link.log"]) {
      const read = await engineLogFile(join(dir, name)).read();
      assert.equal(read.ok, false, name);
      if (!read.ok) assert.match(read.reason, new RegExp(`the engine log ${name} could not be read`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readEngineLog: a source whose read throws attaches nothing and says why", async () => {
  const read = await readEngineLog({
    source: "--engine-log server.log",
    attachAnyText: false,
    read: () => Promise.reject(new Error("EIO: input/output error, read")),
  }, []);
  assert.equal(read.text, null);
  assert.deepEqual(read.reasons, []);
  assert.equal(read.check.attached, false);
  assert.equal(read.check.source, "--engine-log server.log");
  assert.equal(read.check.reason, "the engine log could not be read or checked: EIO: input/output error, read");
});
