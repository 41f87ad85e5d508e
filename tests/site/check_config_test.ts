/**
 * The site's own reading of config.json against results.json: the same facts, in the site's code, with the same
 * rules for redaction and for keys the runner never writes.
 */
import assert from "node:assert/strict";
import { configProblems } from "../../site/web/check_config.js";
import type { Editable } from "./_fixture_repo.ts";
import { parseStrictJson } from "../../site/web/strict_json.js";

const SAMPLING = { temperature: 1, top_p: 0.95, top_k: 20 };
const KWARGS = { enable_thinking: true };

function result(): Editable {
  return {
    run: { command: "strata-bench run --url http://127.0.0.1:8080", optional_concurrency: false },
    model: {
      id: "Qwen/Qwen3.8",
      revision: null,
      source_revision: null,
      quantization: "Q4_K_M",
      tokenizer_revision: null,
      custom_pack: null,
    },
    hardware: { background_workloads: [] },
    software: { strata_commit: "ab".repeat(20), build_options: null },
    configuration: { track: "default", track_notes: null, sampling: SAMPLING, chat_template_kwargs: KWARGS },
    extensions: {
      simulated_engine: false,
      dialect: "llama.cpp",
      dialect_evidence: "build_info",
      reasoning_budget_tokens_sent: -1,
      reasoning_budget_why: "unrestricted",
    },
  };
}
function config(): Editable {
  return {
    command: "strata-bench run --url http://127.0.0.1:8080",
    base_url: "http://127.0.0.1:8080",
    optional_concurrency: false,
    track: "default",
    track_notes: null,
    declared: {
      model_id: "Qwen/Qwen3.8",
      model_revision: null,
      source_revision: null,
      tokenizer_revision: null,
      quantization: "Q4_K_M",
      custom_pack: null,
      background: [],
      build_options: null,
      engine_commit: null,
      engine_source: null,
      engine_args: null,
    },
    pack_dir: null,
    check_template: true,
    simulated: false,
    dialect: "llama.cpp",
    dialect_evidence: "build_info",
    reasoning_budget_tokens_sent: -1,
    reasoning_budget_why: "unrestricted",
    sampling: SAMPLING,
    chat_template_kwargs: KWARGS,
    request_settings_example: { ...SAMPLING, chat_template_kwargs: KWARGS, reasoning_budget_tokens: -1 },
  };
}

/** Parsed the way check_result.js parses an artifact. */
function check(c: unknown, r = result()) {
  const parsed = parseStrictJson(JSON.stringify(c));
  const json = parsed.ok ? [{ path: "config.json", json: parsed.value }] : [];
  return configProblems(r, [{ kind: "config", path: "config.json" }], json);
}

Deno.test("site: config.json as written agrees, every fact compared", () => {
  const { problems, checked } = check(config());
  assert.deepEqual(problems, []);
  assert.ok(checked >= 20, `${checked} facts compared`);
});

Deno.test("site: an edited declared fact, an added or removed key and a stricter budget are each named", () => {
  const cases: [(c: Editable) => void, RegExp][] = [
    [(c) => (c.declared.model_id = "Qwen/Other"), /declared\.model_id is "Qwen\/Other", but results\.json model\.id/],
    [(c) => (c.declared.quantization = "Q8_0"), /declared\.quantization is "Q8_0"/],
    [(c) => (c.command = "strata-bench run --profile x"), /command is .* run\.command/],
    [(c) => (c.declared.engine_commit = "cd".repeat(20)), /engine_commit/],
    [(c) => (c.simulated = true), /simulated is true/],
    [(c) => (c.request_settings_example.reasoning_budget_tokens = 0), /reasoning_budget_tokens is 0/],
    [(c) => (c.extra = 1), /extra is no key the runner writes/],
    [(c) => delete c.declared.background, /lacks declared\.background/],
    [(c) => (c.declared.engine_args = "llama-server -m q.gguf"), /declares engine_args, but results\.json records no/],
  ];
  for (const [edit, message] of cases) {
    const c = config();
    edit(c);
    const { problems } = check(c);
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0]!, message);
  }
});

Deno.test("site: redaction by placeholder or by hand agrees; other words around it do not", () => {
  const c = config();
  c.command = "strata-bench run --url <redacted>";
  c.declared.model_id = "Qwen/<user>";
  assert.deepEqual(check(c).problems, []);
  c.command = "strata-bench load --url <redacted>";
  assert.equal(check(c).problems.length, 1);
  const notJson = configProblems(result(), [{ kind: "config", path: "config.json" }], []);
  assert.match(notJson.problems[0]!, /not a strict JSON object/);
});
