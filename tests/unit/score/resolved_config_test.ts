import assert from "node:assert/strict";
import { checkResolvedConfig } from "../../../score/resolved_config.ts";
import type { SlotReading } from "../../../contract/mod.ts";

const BODY = {
  temperature: 1.0,
  top_p: 0.95,
  top_k: 20,
  min_p: 0.0,
  presence_penalty: 0.0,
  repetition_penalty: 1.0,
  repeat_penalty: 1.0,
  seed: 3,
  max_tokens: 16,
};

/** llama-server's /slots params for a request it ran as sent: float32 values widened to double. */
function params(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    seed: 3,
    temperature: 1,
    top_k: 20,
    top_p: 0.949999988079071,
    min_p: 0,
    repeat_penalty: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    dry_multiplier: 0,
    xtc_probability: 0,
    mirostat: 0,
    typical_p: 1,
    top_n_sigma: -1,
    dynatemp_range: 0,
    n_predict: 16,
    reasoning_format: "deepseek",
    chat_format: "Hermes 2 Pro",
    ...overrides,
  };
}

function reading(p: unknown): SlotReading {
  return { kind: "slot", source: "GET /slots", matched_by: "the only task", slot_id: 0, id_task: 5, params: p };
}

Deno.test("a request run as sent verifies, top_p 0.95 against llama.cpp's float32 0.949999988", () => {
  const check = checkResolvedConfig(BODY, reading(params()));
  assert.equal(check.verified, true);
  assert.equal(check.reason, null);
  assert.deepEqual(check.compared.map((c) => c.field), [
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "presence_penalty",
    "repeat_penalty",
    "seed",
    "n_predict",
  ]);
  assert.deepEqual(check.reported, { reasoning_format: "deepseek", chat_format: "Hermes 2 Pro" });
});

Deno.test("a differing sampling value, seed or cap fails the check and names each with both values", () => {
  const check = checkResolvedConfig(
    BODY,
    reading(params({ temperature: 0.30000001192092896, seed: 7, n_predict: 64 })),
  );
  assert.equal(check.verified, false);
  assert.deepEqual(check.differing, ["temperature", "seed", "n_predict"]);
  assert.match(
    check.reason ?? "",
    /temperature 0\.30000001192092896 \(sent 1\), seed 7 \(sent 3\), n_predict 64 \(sent 16\)/,
  );
});

Deno.test("a sampler the profile keeps off that the engine turned on fails the check", () => {
  const check = checkResolvedConfig(BODY, reading(params({ dry_multiplier: 0.8, typical_p: 0.9 })));
  assert.equal(check.verified, false);
  assert.deepEqual(check.differing, ["dry_multiplier", "typical_p"]);
  assert.match(check.reason ?? "", /dry_multiplier 0\.8 \(the profile keeps it at 0, the request left it unset\)/);
});

Deno.test("float32 rounding hides no real difference: 0.951 is not 0.95", () => {
  assert.equal(checkResolvedConfig(BODY, reading(params({ top_p: Math.fround(0.951) }))).verified, false);
});

Deno.test("settings the engine does not report leave the check null with their names; no reading keeps its reason", () => {
  const partial = checkResolvedConfig(BODY, reading({ temperature: 1, top_k: 20 }));
  assert.equal(partial.verified, null);
  assert.match(partial.reason ?? "", /does not report top_p, min_p, presence_penalty, repeat_penalty, seed, n_predict/);
  const none = checkResolvedConfig(BODY, {
    kind: "none",
    reason: "GET /slots answered HTTP 501 (llama-server started with --no-slots)",
  });
  assert.equal(none.verified, null);
  assert.match(none.reason ?? "", /--no-slots/);
  const noParams = checkResolvedConfig(BODY, reading("yes"));
  assert.equal(noParams.verified, null);
  assert.match(noParams.reason ?? "", /no params object/);
});

Deno.test("stop strings and a reasoning budget are reported where the engine prints them", () => {
  const check = checkResolvedConfig(BODY, reading(params({ stop: ["<|im_end|>"], reasoning_budget_tokens: -1 })));
  assert.deepEqual(check.reported.stop, ["<|im_end|>"]);
  assert.equal(check.reported.reasoning_budget_tokens, -1);
  assert.equal(check.verified, true, "an unrestricted budget (-1) is the profile's");
});

Deno.test("a reasoning budget other than -1 that the engine prints makes the check false", () => {
  for (const name of ["reasoning_budget", "reasoning_budget_tokens"]) {
    const check = checkResolvedConfig(BODY, reading(params({ [name]: 0 })));
    assert.equal(check.verified, false, name);
    assert.deepEqual(check.differing, [name]);
    assert.match(check.reason ?? "", new RegExp(`${name} 0 \\(the profile leaves thinking unrestricted, -1\\)`));
  }
});
