import assert from "node:assert/strict";
import { startMockEngine } from "../../../mock/mod.ts";
import { parseLoadArgs } from "../../../cli/load.ts";
import { compareLoad, realLoadDeps, renderCompareHtml, renderLoadHtml, runLoadTest } from "../../../load/mod.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** A closed-loop load of two scripted engines, 16 measured requests. */
async function twoEndpointRun() {
  const script = {
    "*": { answer: { kind: "text" as const, text: "alpha beta gamma delta epsilon" }, reasoningTokens: 3 },
  };
  const a = await startMockEngine({ timeScale: 0, script });
  const b = await startMockEngine({ timeScale: 0, script });
  try {
    const load = parseLoadArgs(["--url", a.url, "--url", b.url, "--concurrency", "4", "--requests", "16"]);
    return await runLoadTest(load, realLoadDeps());
  } finally {
    await a.close();
    await b.close();
  }
}

Deno.test(
  "the load page is one offline HTML file with CDFs, bins and in-flight per endpoint and pooled",
  options,
  async () => {
    const outcome = await twoEndpointRun();
    const html = await renderLoadHtml(outcome.runs, "Load test <of> two engines");
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /<script|https?:\/\/(?!127\.0\.0\.1|www\.w3\.org)/i, "no script, no external reference");
    assert.ok(html.includes("Load test &#60;of&#62; two engines"), "text is escaped");
    const sections = html.match(/<section>/g) ?? [];
    assert.equal(sections.length, 3, "two endpoints and the pooled mixture");
    assert.ok(html.includes("pooled_mixture"));
    for (const title of ["E2E latency CDF", "TTFT CDF", "TPOT CDF", "ITL CDF", "Coordinated-omission latency CDF"]) {
      assert.ok(html.includes(title), title);
    }
    assert.ok(html.includes("Requests in flight") && html.includes("Output tokens/s per 1 s bin"));
    const pooled = outcome.runs[0]!.summary.overall;
    assert.ok(html.includes(`${pooled.counts.succeeded} of ${pooled.counts.attempted} measured requests succeeded`));
    assert.match(html, /E2E latency CDF \(n=16\)/);
  },
);

Deno.test(
  "the compare page shows each point's baseline, candidate and gate band, and the verdict",
  options,
  async () => {
    const outcome = await twoEndpointRun();
    const [first, second] = outcome.runs[0]!.summary.endpoints;
    const result = compareLoad([{ concurrency: 4, baseline: [first!], candidate: [second!] }, {
      concurrency: 8,
      baseline: [],
      candidate: [],
    }], { seed: 1, expectedConcurrency: [4, 8] });
    const html = await renderCompareHtml(result, "gate");
    assert.ok(html.includes('<span class="fail">the gate fails</span>'), "a missing point fails the gate");
    assert.match(html, /<tr><td>8<\/td><td>output_tokens_per_s<\/td><td>not measured<\/td>/);
    assert.ok(html.includes("gate band around the baseline"));
    assert.equal((html.match(/<svg /g) ?? []).length, 1);
  },
);
