/**
 * report/checks/_plausible.ts: each row of docs/results.md "Plausibility" refuses its impossible value at its
 * pointer, and a realistic result (the project's own) passes every row.
 */
import assert from "node:assert/strict";
import { checkPlausibleLines, checkPlausibleResult } from "../../../report/checks/_plausible.ts";
import { parseEvidenceLines } from "../../../report/checks/_evidence.ts";
import type { Problem } from "../../../report/_pointer.ts";
import { buildRealisticResult } from "./_realistic_result.ts";

// deno-lint-ignore no-explicit-any
type Editable = Record<string, any>;
const NOW = Date.parse("2026-12-07T12:00:00Z");

function record(): Editable {
  return {
    id: "performance-short-r1",
    max_output_tokens: 512,
    tokens: { input_tokens: 32, cached_tokens: 7, read_tokens: 25, output_tokens: 512, decode_tokens: 512 },
    timings: { prompt_s: 0.02, decode_s: 10.2, ttft_s: 0.05, first_answer_s: 3.1, total_s: 10.3 },
  };
}

function result(): Editable {
  return {
    run: { started_at: "2026-12-07T02:32:42.493Z" },
    configuration: { context_tokens: 32768 },
    requests: [record()],
    extensions: {
      gpu_power: {
        gpus: 2,
        requests: [{ request_id: "performance-short-r1", energy_j: 3000, mean_power_w: 290.5, peak_power_w: 410 }],
        cases: [],
      },
    },
  };
}

function problemsOf(value: Editable): Problem[] {
  const problems: Problem[] = [];
  checkPlausibleResult(value, NOW, problems);
  return problems;
}

Deno.test("a plausible result passes every row", () => {
  assert.deepEqual(problemsOf(result()), []);
});

Deno.test("each implausible value of results.json is refused at its pointer", () => {
  const cases: [string, (r: Editable) => void, string, RegExp][] = [
    [
      "9e15 output tokens",
      (r) => (r.requests[0].tokens.output_tokens = 9e15),
      "/requests/0/tokens/output_tokens",
      /capped its output at 512/,
    ],
    [
      "decode tokens past the cap",
      (r) => (r.requests[0].tokens.decode_tokens = 513),
      "/requests/0/tokens/decode_tokens",
      /513 tokens/,
    ],
    [
      "cached past the prompt",
      (r) => (r.requests[0].tokens.cached_tokens = 33),
      "/requests/0/tokens/cached_tokens",
      /more than the 32 prompt/,
    ],
    [
      "a count past any engine's",
      (r) => {
        r.requests[0].tokens.input_tokens = 2e8;
      },
      "/requests/0/tokens/input_tokens",
      /more than any engine counts/,
    ],
    ["a negative duration", (r) => (r.requests[0].timings.decode_s = -1), "/requests/0/timings/decode_s", /negative/],
    [
      "the first answer before the first token",
      (r) => (r.requests[0].timings.first_answer_s = 0.01),
      "/requests/0/timings/first_answer_s",
      /comes before ttft_s/,
    ],
    ["a start in 2099", (r) => (r.run.started_at = "2099-01-01T00:00:00Z"), "/run/started_at", /in the future/],
    ["a start in 1999", (r) => (r.run.started_at = "1999-01-01T00:00:00Z"), "/run/started_at", /before 2025/],
    [
      "1e29 W",
      (r) => (r.extensions.gpu_power.requests[0].peak_power_w = 1e29),
      "/extensions/gpu_power/requests/0/peak_power_w",
      /more than 10000 W \(5000 W per GPU\)/,
    ],
    [
      "mean above peak",
      (r) => (r.extensions.gpu_power.requests[0].mean_power_w = 500),
      "/extensions/gpu_power/requests/0/mean_power_w",
      /exceeds the peak/,
    ],
    [
      "negative energy",
      (r) => (r.extensions.gpu_power.requests[0].energy_j = -3),
      "/extensions/gpu_power/requests/0/energy_j",
      /negative/,
    ],
  ];
  for (const [name, edit, pointer, message] of cases) {
    const value = result();
    edit(value);
    const found = problemsOf(value);
    assert.equal(found.length, 1, `${name}: ${JSON.stringify(found)}`);
    assert.equal(found[0]!.pointer, pointer, name);
    assert.match(found[0]!.message, /^implausible: /, name);
    assert.match(found[0]!.message, message, name);
  }
});

Deno.test("the evidence lines' clocks: stamps near the start, offsets ordered and inside the stream", async () => {
  const r = await buildRealisticResult();
  try {
    const bytes = await Deno.readFile(`${r.dir}/outputs.jsonl`);
    const startedAt = JSON.parse(r.text).run.started_at as string;
    const check = (text: string) => {
      const parsing: Problem[] = [];
      const artifact = { kind: "outputs" as const, path: "outputs.jsonl", sha256: "" };
      const lines = parseEvidenceLines({ index: 1, artifact, bytes: new TextEncoder().encode(text) }, null, parsing);
      assert.equal(parsing.length, 0, JSON.stringify(parsing));
      const problems: Problem[] = [];
      checkPlausibleLines(lines!, startedAt, "/artifacts/1", problems);
      return problems.map((p) => `${p.pointer} ${p.message}`);
    };
    const text = new TextDecoder().decode(bytes);
    assert.deepEqual(check(text), [], "the project's own evidence is plausible");
    const edited = (edit: (line: Editable) => void) =>
      text.split("\n").map((l, i) => {
        if (i !== 2 || l === "") return l;
        const line = JSON.parse(l);
        edit(line);
        return JSON.stringify(line);
      }).join("\n");
    const cases: [(l: Editable) => void, RegExp][] = [
      [
        (l) => (l.dispatched_at_epoch_ms += 3 * 365 * 86_400_000),
        /line 3 .*dispatched_at_epoch_ms .* not within an hour/,
      ],
      [(l) => (l.client_offsets_s.headers_s = -0.5), /line 3 .*headers_s -0\.5 is negative/],
      [
        (l) => (l.client_offsets_s.first_byte_s = l.client_offsets_s.end_s + 1),
        /headers_s [0-9.]+ comes before first_byte_s/,
      ],
      [
        (l) => (l.client_offsets_s.first_answer_s = l.client_offsets_s.end_s + 1),
        /first_answer_s .* outside first_delta_s\.\.end_s/,
      ],
      [
        (l) => (l.reasoning_chunk_offsets_us = [200000, -100000]),
        /reasoning_chunk_offsets_us stamp 1 \(0\.1 s\) is negative, out of order/,
      ],
    ];
    for (const [edit, message] of cases) {
      const found = check(edited(edit));
      assert.ok(found.length >= 1, String(message));
      assert.match(found.join("\n"), /^\/artifacts\/1 outputs\.jsonl line 3 \(.*\): implausible: /);
      assert.match(found.join("\n"), message);
    }
  } finally {
    await r.cleanup();
  }
});
