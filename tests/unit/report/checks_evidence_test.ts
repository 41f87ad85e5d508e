import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type Problem, validateResultText } from "../../../report/validate.ts";
import { EVIDENCE_VERSION, type RequestRecord, type Result } from "../../../contract/mod.ts";
import { buildConcurrencyRounds, buildRequestRecord, summarizeRequests } from "../../../score/mod.ts";
import { buildRealisticResult, type RealisticResult } from "./_realistic_result.ts";

function show(problems: Problem[]): string {
  return problems.map((p) => `${p.pointer || "(root)"}: ${p.message}`).join("\n");
}

type Line = Record<string, unknown>;

/** A folder edit: results.json as a value and outputs.jsonl as parsed lines, either may change. */
interface Edit {
  result?: (result: Result, r: RealisticResult) => void;
  lines?: (lines: Line[]) => void;
  /** Keep outputs.jsonl's recorded sha256 equal to the edited bytes (a careful forger). Default true. */
  rehash?: boolean;
}

const OUTPUTS_INDEX = 2;

async function validateEdited(r: RealisticResult, edit: Edit): Promise<Problem[]> {
  const result = JSON.parse(r.text) as Result;
  const original = new TextDecoder().decode((await r.readArtifact("outputs.jsonl"))!);
  const lines = original.trim().split("\n").map((line) => JSON.parse(line) as Line);
  edit.lines?.(lines);
  const outputs = new TextEncoder().encode(lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  assert.equal(result.artifacts[OUTPUTS_INDEX]?.path, "outputs.jsonl");
  if (edit.rehash ?? true) {
    result.artifacts[OUTPUTS_INDEX]!.sha256 = createHash("sha256").update(outputs).digest("hex");
  }
  edit.result?.(result, r);
  return await validateResultText(JSON.stringify(result, null, 2), {
    maxSharedPrefixTokens: r.maxSharedPrefixTokens,
    fixtures: r.fixtures,
    readArtifact: async (path) => (path === "outputs.jsonl" ? outputs : await r.readArtifact(path)),
  });
}

async function withRealistic(optional: boolean, body: (r: RealisticResult) => Promise<void>): Promise<void> {
  const r = await buildRealisticResult({ optionalConcurrency: optional });
  try {
    await body(r);
  } finally {
    await r.cleanup();
  }
}

function indexOf(r: RealisticResult, id: string): number {
  const index = r.result.requests.findIndex((record) => record.id === id);
  assert.ok(index >= 0, id);
  return index;
}

function lineOf(lines: Line[], id: string): Line {
  const line = lines.find((l) => l["request_id"] === id);
  assert.ok(line, id);
  return line;
}

/** Rebuilds summaries from the (edited) records with score/, as a careful forger would. */
function resummarize(result: Result, r: RealisticResult): void {
  result.summaries = summarizeRequests(result.requests, {
    maxSharedPrefixTokens: r.maxSharedPrefixTokens,
    optionalConcurrency: result.run.optional_concurrency,
  }).summaries;
}

Deno.test("untouched realistic folders (22 and 34 records) give zero problems with the evidence checked", async () => {
  for (const optional of [false, true]) {
    await withRealistic(optional, async (r) => {
      const problems = await validateEdited(r, {});
      assert.deepEqual(problems, [], show(problems));
      assert.ok(r.result.run.required_duration_s !== null && r.result.run.required_duration_s > 100);
    });
  }
});

Deno.test("a record's output_tokens that the evidence contradicts is reported with the evidence's field", async () => {
  await withRealistic(false, async (r) => {
    const i = indexOf(r, "performance-short-r1");
    const stated = r.result.requests[i]!.tokens.output_tokens!;
    const problems = await validateEdited(r, {
      result: (result) => (result.requests[i]!.tokens.output_tokens = stated + 12),
    });
    const hit = problems.find((p) => p.pointer === `/requests/${i}/tokens/output_tokens`);
    assert.ok(hit, show(problems));
    assert.equal(
      hit.message,
      `results.json says ${stated + 12}, the evidence (outputs.jsonl line ${i + 1}: usage.completion_tokens) ` +
        `gives ${stated}`,
    );
  });
});

Deno.test("the reasoning cadence is rebuilt from the line's chunk stamps: an edit on either side is reported", async () => {
  await withRealistic(false, async (r) => {
    const i = indexOf(r, "performance-short-r2");
    const id = "performance-short-r2";
    const cadence = r.result.extensions!.reasoning_cadence![id]!;
    const tpot = cadence.reasoning_tpot_s!;
    const edited = await validateEdited(r, {
      result: (result) => (result.extensions!.reasoning_cadence![id]!.reasoning_tpot_s = tpot / 2),
    });
    const hit = edited.find((p) => p.pointer === `/extensions/reasoning_cadence/${id}/reasoning_tpot_s`);
    assert.ok(hit, show(edited));
    assert.equal(
      hit.message,
      `results.json says ${tpot / 2}, the evidence (outputs.jsonl line ${i + 1}: reasoning_chunk_offsets_us, ` +
        `chunk_offsets_us, client_offsets_s.first_answer_s) gives ${tpot}`,
    );
    // The gaps are pooled per case: a pooled median, a count, a case left out or a request's own list added.
    const pooled = r.result.extensions!.reasoning_itl!;
    assert.deepEqual(pooled.map((p) => p.case_id), ["short", "prompt-4k", "prompt-16k"]);
    const median = pooled[0]!.reasoning_itl_s.median!;
    const halved = await validateEdited(r, {
      result: (result) => (result.extensions!.reasoning_itl![0]!.reasoning_itl_s.median = median / 2),
    });
    const pooledHit = halved.find((p) => p.pointer === "/extensions/reasoning_itl/0/reasoning_itl_s/median");
    assert.equal(
      pooledHit?.message,
      `results.json says ${median / 2}, the evidence (outputs.jsonl: reasoning_chunk_offsets_us, chunk_offsets_us, ` +
        `client_offsets_s.first_answer_s, pooled per case) gives ${median}`,
      show(halved),
    );
    const counted = await validateEdited(r, {
      result: (result) => result.extensions!.reasoning_itl![1]!.answer_itl_s.n++,
    });
    assert.ok(counted.some((p) => p.pointer === "/extensions/reasoning_itl/1/answer_itl_s/n"), show(counted));
    const leftOut = await validateEdited(r, { result: (result) => result.extensions!.reasoning_itl!.pop() });
    assert.ok(leftOut.some((p) => p.pointer === "/extensions/reasoning_itl"), show(leftOut));
    const listed = await validateEdited(r, {
      result: (result) => Object.assign(result.extensions!.reasoning_cadence![id]!, { reasoning_itl_s: [0.02] }),
    });
    assert.ok(
      listed.some((p) => p.pointer === `/extensions/reasoning_cadence/${id}/reasoning_itl_s`),
      show(listed),
    );
    const dropped = await validateEdited(r, {
      lines: (lines) => delete lineOf(lines, "performance-short-r2")["reasoning_chunk_offsets_us"],
    });
    assert.ok(dropped.some((p) => p.pointer === `/extensions/reasoning_cadence/${id}`), show(dropped));
    const unlisted = await validateEdited(r, {
      result: (result) => delete result.extensions!.reasoning_cadence![id],
    });
    const absent = unlisted.find((p) => p.pointer === `/extensions/reasoning_cadence/${id}`);
    assert.match(absent?.message ?? show(unlisted), /^is absent; the evidence \(outputs\.jsonl line \d+: /);
    const oldPlace = await validateEdited(r, {
      result: (result) => Object.assign(result.requests[i]!, { reasoning_cadence: cadence }),
    });
    const unknown = oldPlace.find((p) => p.pointer === `/requests/${i}/reasoning_cadence`);
    assert.match(
      unknown?.message ?? show(oldPlace),
      /unknown field; data beyond the contract belongs under \/extensions/,
    );
  });
});

Deno.test("evidence usage and timings edited (hash recomputed) while results.json is unchanged are reported", async () => {
  await withRealistic(false, async (r) => {
    const i = indexOf(r, "performance-short-r3");
    const problems = await validateEdited(r, {
      lines: (lines) => {
        const line = lineOf(lines, "performance-short-r3");
        // The counts are read from the chunk text, so the forger edits that.
        const chunk = JSON.parse(line["usage_chunk"] as string) as Record<string, Record<string, number>>;
        chunk["usage"]!["completion_tokens"] = chunk["usage"]!["completion_tokens"]! + 40;
        chunk["timings"]!["predicted_n"] = chunk["timings"]!["predicted_n"]! + 40;
        chunk["timings"]!["predicted_ms"] = chunk["timings"]!["predicted_ms"]! * 2;
        // llama-server's last chunk carries both, so the line writes it once (timings_in_usage_chunk).
        line["usage_chunk"] = JSON.stringify(chunk);
      },
    });
    assert.ok(!problems.some((p) => p.pointer.startsWith("/artifacts/")), "the hash was recomputed");
    for (const sub of ["tokens/output_tokens", "tokens/decode_tokens", "timings/decode_s", "metrics/decode_tps"]) {
      const hit = problems.find((p) => p.pointer === `/requests/${i}/${sub}`);
      assert.ok(hit, `${sub}:\n${show(problems)}`);
      assert.match(hit.message, new RegExp(`^results\\.json says .*, the evidence \\(outputs\\.jsonl line ${i + 1}:`));
    }
  });
});

Deno.test("a wrong I1 answer in the evidence contradicts a passed verdict", async () => {
  await withRealistic(false, async (r) => {
    const i = indexOf(r, "sanity-I1");
    assert.equal(r.result.requests[i]!.evaluation?.passed, true);
    const problems = await validateEdited(r, {
      lines: (lines) => (lineOf(lines, "sanity-I1")["final_answer"] = "certainly not the expected answer"),
    });
    const hit = problems.find((p) => p.pointer === `/requests/${i}/evaluation/passed`);
    assert.ok(hit, show(problems));
    assert.match(
      hit.message,
      /^results\.json says true, the evidence \(outputs\.jsonl line \d+: final_answer, tool_calls\) gives false$/,
    );
    assert.ok(problems.some((p) => p.pointer === `/requests/${i}/evaluation/reason`));
  });
});

Deno.test("decode_s and decode_tps edited consistently with the summaries are caught by predicted_ms", async () => {
  await withRealistic(false, async (r) => {
    const i = indexOf(r, "performance-short-r1");
    const problems = await validateEdited(r, {
      result: (result, folder) => {
        const record: RequestRecord = result.requests[i]!;
        record.timings.decode_s = record.timings.decode_s! / 1.5;
        record.metrics.decode_tps = record.tokens.decode_tokens! / record.timings.decode_s;
        resummarize(result, folder);
      },
    });
    assert.deepEqual(
      problems.map((p) => p.pointer).sort(),
      [`/requests/${i}/metrics/decode_tps`, `/requests/${i}/timings/decode_s`],
      `only the evidence check can see this edit:\n${show(problems)}`,
    );
    assert.match(problems.find((p) => p.pointer.endsWith("decode_s"))!.message, /timings\.predicted_ms/);
  });
});

Deno.test("required_duration_s is rebuilt exactly from the dispatch and end offsets: one double off is reported", async () => {
  await withRealistic(false, async (r) => {
    const stated = r.result.run.required_duration_s!;
    const problems = await validateEdited(r, { result: (result) => (result.run.required_duration_s = stated - 2.5) });
    assert.deepEqual(problems.map((p) => p.pointer), ["/run/required_duration_s"], show(problems));
    assert.equal(
      problems[0]!.message,
      `results.json says ${stated - 2.5}, the evidence (outputs.jsonl lines 1 and 22: dispatch_offset_s to ` +
        `dispatch_offset_s + client_offsets_s.end_s) gives ${stated}; the run measures this duration from exactly ` +
        "these numbers",
    );
    // No tolerance: the next double above the true value is already a different duration.
    const nextUp = stated + stated * Number.EPSILON;
    assert.notEqual(nextUp, stated);
    const near = await validateEdited(r, { result: (result) => (result.run.required_duration_s = nextUp) });
    assert.deepEqual(near.map((p) => p.pointer), ["/run/required_duration_s"], show(near));
  });
});

Deno.test("evidence lines of version 1 (no evidence_version) are refused with the reason, once", async () => {
  await withRealistic(false, async (r) => {
    const problems = await validateEdited(r, {
      lines: (lines) => {
        for (const line of lines) {
          delete line["evidence_version"];
          delete line["dispatch_offset_s"];
        }
      },
    });
    assert.equal(problems.length, 1, show(problems));
    assert.equal(problems[0]!.pointer, `/artifacts/${OUTPUTS_INDEX}`);
    assert.match(problems[0]!.message, /^outputs\.jsonl line 1 is evidence version 1 \(it has no evidence_version\)/);
    assert.match(problems[0]!.message, /Check the result with the strata-bench that wrote it/);
  });
});

Deno.test("a line whose dispatch_offset_s is missing or negative is reported", async () => {
  await withRealistic(false, async (r) => {
    const problems = await validateEdited(r, {
      lines: (lines) => (lineOf(lines, "performance-short-r2")["dispatch_offset_s"] = -1),
    });
    assert.ok(
      problems.some((p) =>
        /line 5: request "performance-short-r2": dispatch_offset_s: expected a finite number >= 0/.test(p.message)
      ),
      show(problems),
    );
  });
});

Deno.test("a round's wall_s and the optional duration are rebuilt from the evidence", async () => {
  await withRealistic(true, async (r) => {
    const problems = await validateEdited(r, {
      result: (result) => {
        // A forger shortens round 2 and keeps aggregate_tps consistent with score/'s own rounds.
        const walls = result.concurrency_rounds.map((round) => round.wall_s);
        walls[1] = walls[1]! - 5;
        result.concurrency_rounds = buildConcurrencyRounds(result.requests, walls).rounds;
        result.run.optional_duration_s = result.run.optional_duration_s! + 1;
      },
    });
    assert.deepEqual(
      problems.map((p) => p.pointer).sort(),
      ["/concurrency_rounds/1/wall_s", "/run/optional_duration_s"],
      show(problems),
    );
  });
});

Deno.test("a skipped line must carry the skip reason its record states", async () => {
  await withRealistic(false, async (r) => {
    const i = indexOf(r, "sanity-T4");
    const fixture = r.fixtures.find((f) => f.id === "sanity-T4")!;
    const problems = await validateEdited(r, {
      result: (result) => {
        const reason = "skipped: the engine did not answer /health after sanity-T3 failed";
        const { reasoning_cadence: _, ...record } =
          buildRequestRecord(fixture, { kind: "skipped", reason, concurrency: 1 }).record;
        result.requests[i] = record;
      },
      lines: (lines) => {
        lines[i] = {
          evidence_version: EVIDENCE_VERSION,
          request_id: "sanity-T4",
          status: "skipped",
          skip_reason: "skipped: the run was cancelled",
        };
      },
    });
    const hit = problems.find((p) => p.pointer === `/requests/${i}/error/message`);
    assert.ok(hit, show(problems));
    assert.match(hit.message, /outputs\.jsonl line 22: skip_reason\) gives "skipped: the run was cancelled"; .*--seal/);
    // The last sanity request was never sent, so there is no required duration.
    assert.ok(problems.some((p) => p.pointer === "/run/required_duration_s" && /must be null/.test(p.message)));
  });
});

Deno.test("malformed, repeated, missing and misordered evidence lines are problems at the artifact", async () => {
  await withRealistic(false, async (r) => {
    const at = `/artifacts/${OUTPUTS_INDEX}`;
    const cases: [string, Edit, RegExp][] = [
      ["not JSON", { lines: (l) => (l[2] = "{" as unknown as Line) }, /^outputs\.jsonl line 3: must be one JSON/],
      ["a field of the wrong type", {
        lines: (l) => (l[4]!["client_offsets_s"] = "soon"),
      }, /^outputs\.jsonl line 5: request "performance-short-r2": client_offsets_s: expected an object/],
      [
        "a repeated line",
        { lines: (l) => l.push({ ...l[0]! }) },
        /line 23 repeats request "warmup" \(first on line 1\)/,
      ],
      ["a missing line", { lines: (l) => l.splice(5, 1) }, /has no line for request "performance-prompt-4k-r2"/],
      ["swapped lines", {
        lines: (l) => l.splice(1, 2, l[2]!, l[1]!),
      }, /line 3 \("performance-short-r1"\) comes after line 2 \("performance-prompt-4k-r1"\)/],
      ["a line for an unknown request", {
        lines: (l) => l.push({ ...l[1]!, request_id: "performance-short-r9" }),
      }, /line 23 is for request "performance-short-r9", which has no record/],
    ];
    for (const [name, edit, says] of cases) {
      const problems = await validateEdited(r, edit);
      assert.ok(problems.some((p) => p.pointer === at && says.test(p.message)), `${name}:\n${show(problems)}`);
    }
  });
});

Deno.test("a line that is not strict JSON is reported with its line number", async () => {
  await withRealistic(false, async (r) => {
    const outputs = new TextDecoder().decode((await r.readArtifact("outputs.jsonl"))!);
    const lines = outputs.split("\n");
    lines[6] = lines[6]!.replace('"request_id":', '"request_id":"x","request_id":');
    const bytes = new TextEncoder().encode(lines.join("\n"));
    const problems = await validateResultText(r.text, {
      maxSharedPrefixTokens: r.maxSharedPrefixTokens,
      fixtures: r.fixtures,
      readArtifact: async (path) => (path === "outputs.jsonl" ? bytes : await r.readArtifact(path)),
    });
    const hit = problems.find((p) => p.pointer === `/artifacts/${OUTPUTS_INDEX}` && /line 7:/.test(p.message));
    assert.ok(hit, show(problems));
    assert.match(hit.message, /not strict JSON/);
  });
});

Deno.test("fixtures without a scheduled request are a TypeError naming it", async () => {
  await withRealistic(false, async (r) => {
    await assert.rejects(
      validateResultText(r.text, {
        maxSharedPrefixTokens: r.maxSharedPrefixTokens,
        fixtures: r.fixtures.filter((f) => f.id !== "concurrency-r3-c4"),
      }),
      (error: unknown) =>
        error instanceof TypeError && /fixtures has no fixture "concurrency-r3-c4"/.test(error.message),
    );
  });
});

Deno.test("without fixtures the records are not rebuilt, but the lines and durations still are checked", async () => {
  await withRealistic(false, async (r) => {
    const i = indexOf(r, "performance-short-r1");
    const result = JSON.parse(r.text) as Result;
    result.requests[i]!.tokens.output_tokens = 1;
    result.run.required_duration_s = 1;
    const problems = await validateResultText(JSON.stringify(result), {
      maxSharedPrefixTokens: r.maxSharedPrefixTokens,
      readArtifact: r.readArtifact,
    });
    assert.deepEqual(problems.map((p) => p.pointer), ["/run/required_duration_s"], show(problems));
  });
});

Deno.test("a record value a line states (record_overrides) is applied, and must be listed in /extensions", async () => {
  await withRealistic(false, async (r) => {
    // I3's right answer names the project "Orion"; on a host of that name redaction writes <host> in its place.
    const i = indexOf(r, "sanity-I3");
    const override = (lines: Line[], placeholder = "<host>") => {
      const line = lineOf(lines, "sanity-I3");
      line["final_answer"] = `{"project":"${placeholder}","build":17}`;
      line["record_overrides"] = {
        "/evaluation/passed": true,
        "/evaluation/reason": r.result.requests[i]!.evaluation!.reason,
      };
    };
    const unlisted = await validateEdited(r, { lines: override });
    assert.deepEqual(unlisted.map((p) => p.pointer), ["/extensions/record_overrides"], show(unlisted));
    assert.match(unlisted[0]!.message, /states record values of "sanity-I3" scored before redaction/);
    const listed = await validateEdited(r, {
      lines: override,
      result: (result) => {
        result.extensions = {
          ...result.extensions,
          record_overrides: { "sanity-I3": ["/evaluation/passed", "/evaluation/reason"] },
        };
      },
    });
    assert.deepEqual(listed, [], show(listed));
    const stale = await validateEdited(r, {
      result: (result) => {
        result.extensions = { ...result.extensions, record_overrides: { "sanity-I2": ["/evaluation/passed"] } };
      },
    });
    assert.deepEqual(stale.map((p) => p.message), ['lists "sanity-I2", whose evidence line states no record value']);
    // A stated value needs the redaction that made it necessary: a placeholder the sanitizer writes, in its text.
    const listing = (result: Result) => {
      result.extensions = {
        ...result.extensions,
        record_overrides: { "sanity-I3": ["/evaluation/passed", "/evaluation/reason"] },
      };
    };
    const byHand = await validateEdited(r, { lines: (l) => override(l, "<redacted>"), result: listing });
    assert.match(
      byHand.map((p) => p.message).join("\n"),
      /states \/evaluation\/passed, but the text it is computed from \(its answer\) holds no redaction placeholder/,
    );
    const wrongType = await validateEdited(r, {
      lines: (l) => {
        override(l);
        lineOf(l, "sanity-I3")["record_overrides"] = { "/evaluation/passed": "yes", "/evaluation/reason": "ok" };
      },
      result: listing,
    });
    assert.match(
      wrongType.map((p) => p.message).join("\n"),
      /states \/evaluation\/passed as "yes", which is no value of that field/,
    );
  });
});

Deno.test("a stated pass is refused unless the check, with what it expects in place of the placeholders, passes", async () => {
  await withRealistic(false, async (r) => {
    const state = (id: string, answer: string | null, call?: { name: string; arguments: string }) => ({
      lines: (lines: Line[]) => {
        const line = lineOf(lines, id);
        if (answer !== null) line["final_answer"] = answer;
        if (call) line["tool_calls"] = [{ index: 0, id: "call-0", type: "function", ...call }];
        line["record_overrides"] = { "/evaluation/passed": true, "/evaluation/reason": `${id.slice(7)}: stated` };
      },
      result: (result: Result) => {
        result.extensions = {
          ...result.extensions,
          record_overrides: { [id]: ["/evaluation/passed", "/evaluation/reason"] },
        };
      },
    });
    const refused = async (edit: ReturnType<typeof state>, why: RegExp) => {
      const problems = await validateEdited(r, edit);
      const text = problems.map((p) => p.message).join("\n");
      assert.match(text, why, text);
      assert.match(text, /a stated value is taken only where redaction could have produced it/);
    };
    // The forgery: a wrong I1 answer holding a host placeholder, stated as passed.
    await refused(state("sanity-I1", '{"ok":true,"count":"<host>"}'), /cannot be recomputed|gives a failure/);
    await refused(state("sanity-R1", "ORBIT-7 <host>"), /cannot be exactly "ORBIT-731"/);
    await refused(state("sanity-R1", "ORBIT-731 is the code"), /holds no placeholder/);
    await refused(state("sanity-I2", "[-4, 1, <serial>]"), /not JSON with its placeholders/);
    // A tool case reads only the call: a placeholder in the text beside it counts for nothing.
    await refused(
      state("sanity-T2", "at <host>", { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' }),
      /holds no placeholder/,
    );
    // Where the placeholder could have stood for what the check expects, the stated reason must be its reason.
    await refused(state("sanity-R1", "<host>"), /states the reason "R1: stated"/);
    const possible = state("sanity-R1", "<host>");
    const lines = possible.lines;
    possible.lines = (l: Line[]) => {
      lines(l);
      (lineOf(l, "sanity-R1")["record_overrides"] as Record<string, unknown>)["/evaluation/reason"] =
        'R1: answer is exactly "ORBIT-731"';
    };
    assert.deepEqual(await validateEdited(r, possible), []);
  });
});

Deno.test("the resolved-configuration check is rebuilt from each line, and a differing setting needs nonconforming", async () => {
  await withRealistic(false, async (r) => {
    const untouched = JSON.parse(r.text) as Result;
    const checks = (untouched.extensions!.resolved_configuration as { requests: Record<string, { verified: unknown }> })
      .requests;
    assert.ok(Object.values(checks).every((c) => c.verified === true), "every request was run as sent");
    // The engine's report says it ran performance-short-r2 at temperature 0.3: the stated check must say so, and
    // the run must be nonconforming.
    const lines = (ls: Line[]) => {
      const reading = lineOf(ls, "performance-short-r2")["slot_reading"] as { params: Record<string, unknown> };
      reading.params["temperature"] = Math.fround(0.3);
    };
    const problems = await validateEdited(r, { lines });
    assert.deepEqual(
      problems.map((p) => p.pointer).sort(),
      ["/extensions/resolved_configuration/requests/performance-short-r2", "/run/status"],
      show(problems),
    );
    assert.match(
      problems.find((p) => p.pointer === "/run/status")!.message,
      /ran "performance-short-r2" with temperature/,
    );
  });
});
