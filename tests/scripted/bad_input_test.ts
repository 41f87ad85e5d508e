/**
 * Nothing the engine sends can make the tool's own result invalid: every malformed or extreme count, a repeated
 * key and bytes that are not UTF-8 give nulls (or a failed verdict) with reasons that say what was sent, the
 * evidence keeps the text as sent, and `report` finds no problem.
 */
import assert from "node:assert/strict";
import { cleanup, runScripted, type ScriptedRun } from "./_harness.ts";

const TIMINGS = '{"cache_n":0,"prompt_n":80,"prompt_ms":50.0,"predicted_n":25,"predicted_ms":480.0,' +
  '"predicted_per_second":50.0}';

Deno.test("extreme and malformed engine counts, repeated keys and invalid UTF-8 give nulls with reasons and a valid result", async () => {
  let run: ScriptedRun | undefined;
  try {
    run = await runScripted({
      mock: {
        script: {
          "performance-short-r1": { usageJson: '{"completion_tokens":1e308,"prompt_tokens":80}' },
          "performance-short-r2": { usageJson: '{"completion_tokens":25,"prompt_tokens":-100}' },
          "performance-short-r3": { usageJson: '{"completion_tokens":12.0,"prompt_tokens":80}' },
          "performance-prompt-4k-r1": {
            usageJson: '{"completion_tokens":25,"prompt_tokens":4096,"prompt_tokens":4100}',
          },
          "performance-prompt-4k-r2": {
            timingsJson: TIMINGS.replace('"predicted_n":25', '"predicted_n":25,"predicted_n":26'),
          },
          "performance-prompt-4k-r3": { usageJson: '{"completion_tokens":9007199254740993,"prompt_tokens":4096}' },
          "performance-prompt-16k-r1": { usageJson: '{"completion_tokens":"25","prompt_tokens":16384}' },
          "sanity-I1": { usageJson: '{"completion_tokens":1E3,"prompt_tokens":40}' },
          "sanity-I4": { invalidUtf8InAnswer: true },
          // Past the plausibility table: more output than the cap, an engine timer of two days.
          "sanity-T1": { usageJson: '{"completion_tokens":9000000000000000,"prompt_tokens":40}' },
          "sanity-T2": { timingsJson: TIMINGS.replace('"predicted_ms":480.0', '"predicted_ms":172800000') },
          warmup: { timingsJson: TIMINGS.replace('"prompt_ms":50.0', '"prompt_ms":1e400') },
        },
      },
    });
    assert.deepEqual(run.problems, [], "report finds no problem");
    assert.deepEqual(run.report.validationProblems, [], "the runner's own check agrees");
    assert.deepEqual(run.report.unexplainedNulls, []);
    const missing = run.result.missing;
    const at = (id: string) => run!.result.requests.findIndex((r) => r.id === id);
    const reasonOf = (id: string, field: string) => missing[`/requests/${at(id)}${field}`] ?? "";
    const nullWith = (id: string, field: string, reason: RegExp) => {
      const [group, key] = field.slice(1).split("/") as [string, string];
      const record = run!.byId.get(id)! as unknown as Record<string, Record<string, unknown>>;
      assert.equal(record[group]![key], null, `${id} ${field}`);
      assert.match(reasonOf(id, field), reason, `${id} ${field}`);
    };
    nullWith(
      "performance-short-r1",
      "/tokens/output_tokens",
      /^usage\.completion_tokens is 1e308, written with an exponent/,
    );
    nullWith("performance-short-r2", "/tokens/input_tokens", /^usage\.prompt_tokens is -100, a negative number/);
    nullWith(
      "performance-short-r3",
      "/tokens/output_tokens",
      /^usage\.completion_tokens is 12\.0, written with a fraction/,
    );
    nullWith(
      "performance-prompt-4k-r1",
      "/tokens/input_tokens",
      /^usage has prompt_tokens 2 times \(4096, 4100\): usage\.prompt_tokens is ambiguous/,
    );
    assert.match(
      run.byId.get("performance-prompt-4k-r2")!.token_accounting_note ?? "",
      /timings has predicted_n 2 times \(25, 26\)/,
    );
    nullWith("performance-prompt-4k-r3", "/tokens/output_tokens", /is 9007199254740993, above 2\^53-1/);
    nullWith("performance-prompt-16k-r1", "/tokens/output_tokens", /^usage\.completion_tokens is "25", a string/);
    nullWith("sanity-I1", "/tokens/output_tokens", /^usage\.completion_tokens is 1E3, written with an exponent/);
    nullWith("warmup", "/timings/prompt_s", /^timings\.prompt_ms is 1e400, beyond the range of a double/);
    nullWith("sanity-T1", "/tokens/output_tokens", /is 9000000000000000, more than the request's cap of \d+/);
    nullWith("sanity-T2", "/timings/decode_s", /^timings\.predicted_ms gives 172800 s, longer than a day/);
    // The warm-up's timings say 80 tokens were read of a 30-token prompt: not a count to keep.
    nullWith("warmup", "/tokens/read_tokens", /^timings\.prompt_n is 80, more than the prompt's \d+ tokens/);
    // The answer with a byte that is not UTF-8 fails its check with where the byte was; I1 still passes.
    const i4 = run.byId.get("sanity-I4")!;
    assert.equal(i4.evaluation?.passed, false);
    assert.match(
      i4.evaluation?.reason ?? "",
      /^I4: the answer held bytes that are not UTF-8 \(event \d+ at byte \d+\)/,
    );
    assert.equal(run.byId.get("sanity-I1")!.evaluation?.passed, true);
    // The evidence keeps the text as sent: lexemes, the repeated key, the invalid byte's place.
    const line = (id: string) => run!.outputs.find((o) => o.request_id === id)!;
    assert.match(String(line("performance-short-r1").usage_chunk), /"completion_tokens":1e308/);
    assert.match(String(line("performance-prompt-4k-r1").usage_chunk), /"prompt_tokens":4096,"prompt_tokens":4100/);
    // Usage and timings came in one chunk, which the line writes once (timings_in_usage_chunk).
    assert.equal(line("warmup").timings_in_usage_chunk, true);
    assert.match(String(line("warmup").usage_chunk), /"prompt_ms":1e400/);
    const invalid = line("sanity-I4").invalid_utf8 as { delta_kinds: string[] }[];
    assert.equal(invalid.length, 1);
    assert.deepEqual(invalid[0]!.delta_kinds, ["answer"]);
    // Every request ran: nothing the engine sent stopped the run.
    assert.equal(run.result.request_counts.sanity.skipped, 0);
    assert.equal(run.result.request_counts.performance.completed + run.result.request_counts.performance.truncated, 9);
  } finally {
    await cleanup(run);
  }
});
