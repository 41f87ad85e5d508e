import assert from "node:assert/strict";
import { startMockEngine } from "../../../mock/mod.ts";
import { chatBody, postChat, type SseResult } from "./_client.ts";

interface Timings {
  cache_n: number;
  prompt_n: number;
}

function timingsOf(result: SseResult): Timings {
  return result.events.at(-1)!.timings as Timings;
}

function metricValue(text: string, name: string): number {
  const match = new RegExp(`^llamacpp:${name} (\\S+)$`, "m").exec(text);
  assert.ok(match, `metric ${name} present`);
  return Number(match[1]);
}

Deno.test("one slot and four concurrent requests: one runs, three wait FIFO and start in arrival order", async () => {
  const engine = await startMockEngine({
    timeScale: 0,
    slots: 1,
    script: { "c1": { fault: { kind: "stall", afterTokens: 1 } } },
  });
  try {
    const controller = new AbortController();
    const first = postChat(engine.url, chatBody("c1"), controller.signal).catch(() => null);
    await engine.waitFor((e) => e.requests[0]?.completionTokens === 1);
    const rest: Promise<SseResult>[] = [];
    for (const [i, id] of ["c2", "c3", "c4"].entries()) {
      rest.push(postChat(engine.url, chatBody(id)));
      await engine.waitFor((e) => e.stats().deferred === i + 1);
    }
    assert.equal(engine.stats().processing, 1);
    const metrics = await (await fetch(`${engine.url}/metrics`)).text();
    assert.equal(metricValue(metrics, "requests_deferred"), 3);
    assert.equal(metricValue(metrics, "requests_processing"), 1);
    assert.ok(engine.requests.slice(1).every((r) => r.startedAtEpochUs === null), "no headers while queued");
    controller.abort();
    await first;
    const results = await Promise.all(rest);
    assert.ok(results.every((result) => result.done));
    const started = [...engine.requests].slice(1).sort((a, b) => a.startedAtEpochUs! - b.startedAtEpochUs!);
    assert.deepEqual(started.map((r) => r.requestId), ["c2", "c3", "c4"]);
    assert.ok(started.every((r) => r.slot === 0 && r.queuedMs! > 0));
    assert.equal(engine.requests[0]!.outcome, "client_disconnected");
    assert.equal(engine.stats().deferred, 0);
  } finally {
    await engine.close();
  }
});

Deno.test("a client that leaves while queued is dropped from the queue", async () => {
  const engine = await startMockEngine({ timeScale: 0, slots: 1, script: { "busy": { fault: { kind: "stall" } } } });
  try {
    const busy = new AbortController();
    const waiting = new AbortController();
    const first = postChat(engine.url, chatBody("busy"), busy.signal).catch(() => null);
    await engine.waitFor((e) => e.stats().processing === 1);
    const second = postChat(engine.url, chatBody("leaves"), waiting.signal).catch(() => null);
    await engine.waitFor((e) => e.stats().deferred === 1);
    waiting.abort();
    await engine.waitFor((e) => e.stats().deferred === 0 && e.requests[1]?.outcome === "client_disconnected");
    assert.equal(engine.requests[1]!.startedAtEpochUs, null);
    busy.abort();
    await Promise.all([first, second]);
  } finally {
    await engine.close();
  }
});

Deno.test("an exact repeat of a prompt is a full cache hit: prompt_n 1, cache_n = prompt_tokens - 1", async () => {
  const engine = await startMockEngine({ timeScale: 0, tokenCounts: { "performance-prompt-4k-r1": 4089 } });
  try {
    const body = chatBody("performance-prompt-4k-r1", { max_tokens: 4 });
    const cold = timingsOf(await postChat(engine.url, body));
    const warm = await postChat(engine.url, body);
    assert.equal(cold.cache_n, 0);
    assert.equal(cold.prompt_n, 4089);
    assert.equal(timingsOf(warm).cache_n, 4088);
    assert.equal(timingsOf(warm).prompt_n, 1);
    const usage = warm.events.at(-1)!.usage as { prompt_tokens_details: { cached_tokens: number } };
    assert.equal(usage.prompt_tokens_details.cached_tokens, 4088);
    assert.deepEqual(engine.requests.map((r) => r.slot), [0, 0], "the slot holding the prompt is chosen again");
  } finally {
    await engine.close();
  }
});

Deno.test("requests sharing only the template prefix reuse a few tokens; cache_prompt false reuses none", async () => {
  const engine = await startMockEngine({ timeScale: 0, slots: 1 });
  try {
    await postChat(engine.url, chatBody("sanity-I1", { max_tokens: 4 }));
    const other = timingsOf(await postChat(engine.url, chatBody("warmup", { max_tokens: 4 })));
    assert.ok(other.cache_n > 0 && other.cache_n <= 8, `small template-prefix reuse: ${other.cache_n}`);
    assert.equal(other.cache_n + other.prompt_n, engine.requests[1]!.promptTokens);
    const off = timingsOf(await postChat(engine.url, chatBody("warmup", { max_tokens: 4, cache_prompt: false })));
    assert.equal(off.cache_n, 0);
  } finally {
    await engine.close();
  }
});

Deno.test("while loading every route answers 503 Loading model; setLoading(false) makes it ready", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    engine.setLoading(true);
    for (const path of ["/health", "/props", "/v1/models", "/nowhere"]) {
      const response = await fetch(`${engine.url}${path}`);
      assert.equal(response.status, 503, path);
      assert.deepEqual(await response.json(), {
        error: { code: 503, message: "Loading model", type: "unavailable_error" },
      });
    }
    const chat = await postChat(engine.url, chatBody("sanity-I1"));
    assert.equal(chat.status, 503);
    engine.setLoading(false);
    const health = await fetch(`${engine.url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
  } finally {
    await engine.close();
  }
});

Deno.test("loadingMs reports loading until the delay passes", async () => {
  const engine = await startMockEngine({ timeScale: 0, loadingMs: 40 });
  try {
    assert.equal(engine.stats().loading, true);
    assert.equal(await fetch(`${engine.url}/health`).then(async (r) => (await r.body?.cancel(), r.status)), 503);
    await engine.waitFor((e) => !e.stats().loading);
    assert.equal(await fetch(`${engine.url}/health`).then(async (r) => (await r.body?.cancel(), r.status)), 200);
  } finally {
    await engine.close();
  }
});

Deno.test("/props, /slots and /v1/models describe the engine like llama-server", async () => {
  const engine = await startMockEngine({ timeScale: 0, slots: 2, nCtx: 8192, modelAlias: "m1" });
  try {
    const props = await (await fetch(`${engine.url}/props`)).json();
    assert.equal(props.build_info, "b7000-80fb11a");
    assert.equal(props.total_slots, 2);
    assert.equal(props.model_alias, "m1");
    assert.equal(typeof props.model_path, "string");
    assert.equal(typeof props.chat_template, "string");
    assert.equal(props.default_generation_settings.n_ctx, 8192);
    assert.equal(typeof props.default_generation_settings.params.temperature, "number");
    assert.equal(props.n_ctx, undefined, "no top-level n_ctx");
    const slots = await (await fetch(`${engine.url}/slots`)).json();
    assert.deepEqual(slots.map((s: { id: number; is_processing: boolean }) => [s.id, s.is_processing]), [
      [0, false],
      [1, false],
    ]);
    const models = await (await fetch(`${engine.url}/v1/models`)).json();
    assert.equal(models.object, "list");
    assert.equal(models.data[0].id, "m1");
    assert.equal(typeof models.data[0].meta.n_ctx_train, "number");
    const missing = await fetch(`${engine.url}/nowhere`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 404);
  } finally {
    await engine.close();
  }
});

Deno.test("/metrics counts answered requests, so a caller can tell the server is not fresh", async () => {
  const engine = await startMockEngine({ timeScale: 0 });
  try {
    const fresh = await (await fetch(`${engine.url}/metrics`)).text();
    assert.equal(metricValue(fresh, "n_decode_total"), 0);
    assert.equal(metricValue(fresh, "prompt_tokens_total"), 0);
    const result = await postChat(engine.url, chatBody("performance-short-r1", { max_tokens: 10 }));
    const used = await (await fetch(`${engine.url}/metrics`)).text();
    assert.equal(metricValue(used, "tokens_predicted_total"), 10);
    assert.equal(metricValue(used, "prompt_tokens_total"), timingsOf(result).prompt_n);
    assert.ok(metricValue(used, "n_decode_total") >= 11);
    assert.match(used, /^# TYPE llamacpp:requests_deferred gauge$/m);
  } finally {
    await engine.close();
  }
});

Deno.test("metrics and slots endpoints can be switched off (501), like --no-slots or no --metrics", async () => {
  const engine = await startMockEngine({ timeScale: 0, metrics: false, slotsEndpoint: false });
  try {
    for (const path of ["/metrics", "/slots"]) {
      const response = await fetch(`${engine.url}${path}`);
      assert.equal(response.status, 501);
      assert.equal((await response.json()).error.type, "not_supported_error");
    }
  } finally {
    await engine.close();
  }
});
