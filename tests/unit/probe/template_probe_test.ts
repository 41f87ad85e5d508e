/**
 * The template check is bounded: a server whose POST /apply-template never answers costs one deadline (the rest are
 * not asked, each saying why), and a cancelled run ends the check at once.
 */
import assert from "node:assert/strict";
import { renderAndCount } from "../../../probe/template_probe.ts";

const REQUESTS = ["warmup", "performance-short-r1", "performance-short-r2"].map((id) => ({ id, body: {} }));

/** A fetch that never answers; it ends only when its signal aborts, as a real one does. */
function silentFetch(calls: string[]): typeof fetch {
  return (input, init) => {
    calls.push(String(input));
    return new Promise((_, reject) => {
      const signal = init?.signal;
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  };
}

Deno.test("a server that never answers the template check is asked once; the rest are not asked, with why", async () => {
  const calls: string[] = [];
  const probe = await renderAndCount("http://127.0.0.1:9", REQUESTS, { fetch: silentFetch(calls), timeoutMs: 50 });
  assert.equal(calls.length, 1);
  assert.equal(probe.supported, true);
  assert.deepEqual(probe.requests.map((r) => r.tokens), [null, null, null]);
  assert.equal(probe.requests[0]!.reason, "POST /apply-template did not answer within 50 ms");
  assert.equal(
    probe.requests[2]!.reason,
    "not asked: warmup's POST /apply-template did not answer within 50 ms",
  );
});

Deno.test("a cancelled run ends the template check at once, well before the per-call deadline", async () => {
  const calls: string[] = [];
  const stop = new AbortController();
  setTimeout(() => stop.abort("SIGTERM"), 20);
  const probe = await renderAndCount("http://127.0.0.1:9", REQUESTS, {
    fetch: silentFetch(calls),
    timeoutMs: 600_000,
    signal: stop.signal,
  });
  assert.equal(calls.length, 1);
  assert.equal(probe.requests[0]!.reason, "POST /apply-template was cancelled");
  assert.match(probe.requests[1]!.reason ?? "", /^not asked: warmup's POST \/apply-template was cancelled/);
});
