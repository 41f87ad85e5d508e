import assert from "node:assert/strict";
import { checkConfigAgrees } from "../../../report/checks/_config.ts";
import type { Problem } from "../../../report/_pointer.ts";

const SAMPLING = { temperature: 1, top_p: 0.95, top_k: 20, min_p: 0, presence_penalty: 0, repetition_penalty: 1 };
const KWARGS = { enable_thinking: true, preserve_thinking: true };
/** A parsed config.json the cases edit freely. */
// deno-lint-ignore no-explicit-any
type Editable = Record<string, any>;
const COMMIT = "80fb11a3c1d5e7f9a2b4c6d8e0f1a3b5c7d9e1f3";

/** The results.json facts config.json restates. */
function result(): Record<string, unknown> {
  return {
    run: {
      command: "strata-bench run --url http://127.0.0.1:8080 --model /home/<user>/q.gguf",
      optional_concurrency: false,
    },
    model: {
      id: "Qwen/Qwen3.8-Flash-Next",
      revision: null,
      source_revision: null,
      quantization: "Q4_K_M",
      tokenizer_revision: null,
      custom_pack: null,
    },
    hardware: { background_workloads: ["desktop session"] },
    software: { strata_commit: COMMIT, build_options: ["GGML_CUDA=ON"] },
    configuration: { track: "custom", track_notes: "one slot", sampling: SAMPLING, chat_template_kwargs: KWARGS },
    extensions: {
      simulated_engine: false,
      dialect: "llama.cpp",
      dialect_evidence: "/props build_info has llama.cpp's form",
      reasoning_budget_tokens_sent: -1,
      reasoning_budget_why: "-1 is unrestricted",
    },
  };
}

/** config.json as the run writes it for result(). */
function config(): Record<string, unknown> {
  return {
    command: "strata-bench run --url http://127.0.0.1:8080 --model /home/<user>/q.gguf",
    base_url: "http://127.0.0.1:8080",
    optional_concurrency: false,
    track: "custom",
    track_notes: "one slot",
    declared: {
      model_id: "Qwen/Qwen3.8-Flash-Next",
      model_revision: null,
      source_revision: null,
      tokenizer_revision: null,
      quantization: "Q4_K_M",
      custom_pack: null,
      background: ["desktop session"],
      build_options: ["GGML_CUDA=ON"],
      engine_commit: COMMIT.toUpperCase(),
      engine_source: null,
      engine_args: null,
    },
    pack_dir: null,
    check_template: true,
    simulated: false,
    dialect: "llama.cpp",
    dialect_evidence: "/props build_info has llama.cpp's form",
    reasoning_budget_tokens_sent: -1,
    reasoning_budget_why: "-1 is unrestricted",
    sampling: SAMPLING,
    chat_template_kwargs: KWARGS,
    request_settings_example: { ...SAMPLING, chat_template_kwargs: KWARGS, reasoning_budget_tokens: -1, seed: 1 },
  };
}

function problems(configValue: unknown, resultValue = result()): Problem[] {
  const found: Problem[] = [];
  const bytes = typeof configValue === "string"
    ? new TextEncoder().encode(configValue)
    : new TextEncoder().encode(JSON.stringify(configValue));
  checkConfigAgrees(bytes, "config.json", resultValue, found);
  return found;
}

Deno.test("config.json as the run writes it agrees with results.json", () => {
  assert.deepEqual(problems(config()), []);
});

Deno.test("each declared fact edited in config.json is named at the results.json value it contradicts", () => {
  const cases: [string, (c: Editable) => void, string, RegExp][] = [
    [
      "model id",
      (c) => (c.declared.model_id = "Qwen/Qwen3.8-Pro"),
      "/model/id",
      /\/declared\/model_id is "Qwen\/Qwen3\.8-Pro"/,
    ],
    ["quantization", (c) => (c.declared.quantization = "Q8_0"), "/model/quantization", /quantization/],
    ["command", (c) => (c.command = "strata-bench run --profile h200"), "/run/command", /\/command is/],
    ["engine commit", (c) => (c.declared.engine_commit = "a".repeat(40)), "/software/strata_commit", /engine_commit/],
    ["build options", (c) => (c.declared.build_options = []), "/software/build_options", /build_options/],
    ["simulated", (c) => (c.simulated = true), "/extensions/simulated_engine", /\/simulated is true/],
    ["sampling", (c) => (c.sampling = { ...SAMPLING, temperature: 0.6 }), "/configuration/sampling", /sampling/],
    [
      "example",
      (c) => (c.request_settings_example.top_k = 40),
      "/configuration/sampling/top_k",
      /request_settings_example\/top_k is 40/,
    ],
    [
      "budget sent",
      (c) => (c.request_settings_example.reasoning_budget_tokens = 0),
      "/extensions/reasoning_budget_tokens_sent",
      /reasoning_budget_tokens is 0/,
    ],
    ["an added key", (c) => (c.note = "x"), "/artifacts", /\/note is a key no run writes/],
    ["an added declared key", (c) => (c.declared.gpu = "H200"), "/artifacts", /\/declared\/gpu is a key no run writes/],
    ["a removed key", (c) => delete c.track, "/artifacts", /\/track is absent/],
  ];
  for (const [what, edit, pointer, message] of cases) {
    const c = config();
    edit(c);
    const found = problems(c);
    assert.equal(found.length, 1, `${what}: ${JSON.stringify(found)}`);
    assert.equal(found[0]!.pointer, pointer, what);
    assert.match(found[0]!.message, message, what);
  }
});

Deno.test("a redacted text agrees with the text it can have been made from, and with no other", () => {
  const c = config();
  c.command = "strata-bench run --url http://127.0.0.1:8080 --model <redacted>";
  (c.declared as Record<string, unknown>).model_id = "<redacted>";
  c.track_notes = "one <host> slot";
  assert.equal(problems(c).length, 1, "the notes gained a word around the placeholder");
  c.track_notes = "<redacted>";
  assert.deepEqual(problems(c), []);
  const r = result();
  (r.run as Record<string, unknown>).command = "<redacted>";
  assert.deepEqual(problems(config(), r), [], "results.json's command redacted by hand");
  c.command = "strata-bench load --model <redacted>";
  assert.match(problems(c)[0]!.message, /\/command is "strata-bench load/);
});

Deno.test("a hostile pattern of many placeholders is matched in linear time and correctly", () => {
  const c = config();
  c.track_notes = "<host>a".repeat(5_000) + "b";
  const r = result();
  (r.configuration as Record<string, unknown>).track_notes = "a".repeat(200_000);
  assert.equal(problems(c, r).length, 1);
  c.track_notes = "<host>a".repeat(5_000);
  assert.deepEqual(problems(c, r), []);
});

Deno.test("engine arguments: declared when results.json says so, and used when declared", () => {
  const r = result();
  (r.extensions as Record<string, unknown>).engine_command_line = { provenance: "declared", source: "--engine-args" };
  assert.match(problems(config(), r)[0]!.message, /engine_args is null, but results\.json says/);
  const c = config();
  (c.declared as Record<string, unknown>).engine_args = "llama-server -m q.gguf --reasoning-budget 0";
  assert.deepEqual(problems(c, r), []);
  assert.match(problems(c)[0]!.message, /engine_args holds a command line, but results\.json records none/);
  (r.extensions as Record<string, unknown>).engine_command_line = { provenance: "observed", source: "ps" };
  assert.deepEqual(problems(c, r), [], "an observed command line is preferred to a declared one");
});

Deno.test("config.json that is not one JSON object is refused", () => {
  assert.match(problems("[1]")[0]!.message, /not one JSON object/);
  assert.match(problems('{"a":1,"a":2}')[0]!.message, /not one JSON object/);
  const found: Problem[] = [];
  checkConfigAgrees(new Uint8Array([0xff, 0xfe]), "config.json", result(), found);
  assert.match(found[0]!.message, /not UTF-8/);
});
