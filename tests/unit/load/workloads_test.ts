import assert from "node:assert/strict";
import {
  buildLoadBody,
  checkPromptVariety,
  parsePromptJsonl,
  parseShareGpt,
  PROFILES,
  selectionSha256,
  selectPrompts,
  syntheticProfile,
} from "../../../load/workloads.ts";
import { sha256Hex } from "../../../contract/mod.ts";

Deno.test("JSONL prompt sets accept prompt or messages lines and record the file's SHA-256", () => {
  const text = '{"prompt":"hi there"}\n\n{"messages":[{"role":"user","content":"yo"}],"max_tokens":7}\r\n';
  const set = parsePromptJsonl(text, "a.jsonl");
  assert.equal(set.entries.length, 2);
  assert.deepEqual(set.entries[0]!.messages, [{ role: "user", content: "hi there" }]);
  assert.equal(set.entries[1]!.max_tokens, 7);
  assert.equal(set.sha256, sha256Hex(text));
});

Deno.test("a bad JSONL line is a SyntaxError that names the line", () => {
  assert.throws(() => parsePromptJsonl('{"prompt":"a"}\nnot json\n', "x"), /line 2 is not JSON/);
  assert.throws(() => parsePromptJsonl('{"nope":1}\n', "x"), /line 1 has neither/);
  assert.throws(() => parsePromptJsonl('{"prompt":"a","max_tokens":0}\n', "x"), /max_tokens/);
  assert.throws(() => parsePromptJsonl("\n\n", "x"), /no request/);
});

Deno.test("ShareGPT conversations give their first human turn; ones without are skipped and counted", () => {
  const text = JSON.stringify([
    { conversations: [{ from: "human", value: "Q1" }, { from: "gpt", value: "A1" }] },
    { conversations: [{ from: "gpt", value: "only" }] },
    { conversations: [{ from: "system", value: "s" }, { from: "human", value: "Q3" }] },
  ]);
  const set = parseShareGpt(text, "sg.json");
  assert.deepEqual(set.entries.map((e) => e.messages[0]!.content), ["Q1", "Q3"]);
  assert.equal(set.skipped, 1);
  assert.throws(() => parseShareGpt("{}", "x"), /not an array/);
});

Deno.test("synthetic profiles are deterministic from the seed, distinct per request, near their ISL", () => {
  const a = syntheticProfile("chat-medium", { seed: 3, count: 20 });
  const b = syntheticProfile("chat-medium", { seed: 3, count: 20 });
  const c = syntheticProfile("chat-medium", { seed: 4, count: 20 });
  assert.deepEqual(a, b);
  assert.notEqual(a.sha256, c.sha256);
  assert.equal(new Set(a.entries.map((e) => e.messages[0]!.content)).size, 20);
  assert.deepEqual(a.profile, { name: "chat-medium", version: "2", isl_target: 512, osl_target: 128 });
  for (const e of a.entries) {
    assert.equal(e.max_tokens, 128);
    const approxTokens = e.messages[0]!.content.length / 4;
    assert.ok(approxTokens > 512 * 0.85 && approxTokens < 512 * 1.15, `about ${approxTokens} tokens`);
  }
  for (const name of Object.keys(PROFILES)) {
    assert.equal(syntheticProfile(name, { seed: 1, count: 2 }).entries.length, 2);
  }
  assert.throws(() => syntheticProfile("chat-huge", { seed: 1, count: 2 }), /unknown/);
});

Deno.test("seeded selection reproduces the same set and changes with the seed", () => {
  const set = syntheticProfile("chat-short", { seed: 1, count: 50 });
  const one = selectPrompts(set, { seed: 11, count: 10 });
  assert.deepEqual(one, selectPrompts(set, { seed: 11, count: 10 }));
  assert.notDeepEqual(one, selectPrompts(set, { seed: 12, count: 10 }));
  assert.equal(new Set(one).size, 10);
  assert.equal(selectionSha256(set, one), selectionSha256(set, selectPrompts(set, { seed: 11, count: 10 })));
  assert.deepEqual(
    [...selectPrompts(set, { seed: 1, count: 500 })].sort((x, y) => x - y),
    set.entries.map((_, i) => i),
  );
});

Deno.test("one literal prompt repeated is refused as a workload unless forced", () => {
  const set = parsePromptJsonl('{"prompt":"same"}\n{"prompt":"same"}\n', "rep");
  assert.throws(() => checkPromptVariety(set, [0, 1], 10, false), /--allow-repeated-prompt/);
  assert.throws(() => checkPromptVariety(parsePromptJsonl('{"prompt":"one"}\n', "one"), [0], 10, false), RangeError);
  checkPromptVariety(set, [0, 1], 10, true);
  checkPromptVariety(set, [0], 1, false);
});

Deno.test("the request body streams, asks for usage, and takes the entry's own cap first", () => {
  const set = parsePromptJsonl('{"prompt":"a","max_tokens":5}\n{"prompt":"b"}\n', "x");
  const first = buildLoadBody(set.entries[0]!, { maxTokens: 99, ignoreEos: true, model: "m" });
  assert.equal(first.max_tokens, 5);
  assert.equal(first.stream, true);
  assert.deepEqual(first.stream_options, { include_usage: true });
  assert.equal(first.ignore_eos, true);
  assert.equal(first.model, "m");
  assert.equal(buildLoadBody(set.entries[1]!, { maxTokens: 99 }).max_tokens, 99);
  assert.equal("max_tokens" in buildLoadBody(set.entries[1]!, { maxTokens: null }), false);
});
