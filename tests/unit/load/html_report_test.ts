import assert from "node:assert/strict";
import { startMockEngine } from "../../../mock/mod.ts";
import { parseLoadCommand } from "../../../cli/load.ts";
import { realLoadDeps, renderCompareHtml, renderLoadHtml, runLoadTest } from "../../../load/mod.ts";
import { compareLoad } from "../../../load/gate/gate.ts";
import { buildLoadRow } from "../../../load/metrics.ts";
import { RowStore } from "../../../load/row_store.ts";
import { summarizeStore } from "../../../load/summary.ts";
import { outcome, sample } from "./_fakes.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

/** A closed-loop load of two scripted engines, 16 measured requests. */
async function twoEndpointRun() {
  const script = {
    "*": { answer: { kind: "text" as const, text: "alpha beta gamma delta epsilon" }, reasoningTokens: 3 },
  };
  const a = await startMockEngine({ timeScale: 0, script });
  const b = await startMockEngine({ timeScale: 0, script });
  try {
    const load = parseLoadCommand(["--url", a.url, "--url", b.url, "--concurrency", "4", "--requests", "16"]).options;
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
    for (const title of ["E2E latency CDF", "TTFT CDF", "TPOT CDF", "ITL CDF"]) assert.ok(html.includes(title), title);
    // A closed loop measures no coordinated-omission latency: its table row says so, and no empty frame is drawn.
    assert.ok(!html.includes("Coordinated-omission latency CDF"), "no empty CO latency picture");
    assert.match(html, /<td>Coordinated-omission latency<\/td><td>0<\/td><td>not measured<\/td>/);
    assert.match(html, /goodput not measured \(no SLO configured/);
    assert.match(html, /errors: 0 failed, 0 dropped \(error rate 0\.00%\)/);
    assert.ok(html.includes("Requests in flight"));
    assert.match(html, /Output tokens\/s \(by completion, [\d.e-]+ s bins\)/);
    const pooled = outcome.runs[0]!.summary.overall;
    assert.ok(html.includes(`${pooled.counts.succeeded} of ${pooled.counts.attempted} measured requests succeeded`));
    assert.match(html, /E2E latency CDF \(n=16\)/);
    // A run of a few milliseconds is drawn over its few milliseconds, not as a dot at 0 on a 1 s axis.
    const ends = [
      ...html.matchAll(
        /X-axis titled 's since the first measured send' for a linear scale with values from [\d.]+ to ([\d.]+)/g,
      ),
    ];
    assert.ok(ends.length > 0 && ends.every((m) => Number(m[1]) < 0.5), ends.map((m) => m[1]).join());
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
    assert.match(html, /<tr><td>W1 c=8<\/td><td>Output tok\/s<\/td><td>not measured<\/td>/);
    assert.match(html, /<td>TPOT p50 \(ms\)<\/td>/, "metric names and units as on the console");
    assert.doesNotMatch(html, /tpot_p50_s|output_tokens_per_s/, "no raw keys");
    assert.ok(html.includes("candidate against the gate band"));
    assert.equal((html.match(/<svg /g) ?? []).length, 1);
    // Every panel's value axis starts at zero, the informational TTFT one too: none is zoomed onto its two values.
    const axes = [
      ...html.matchAll(/aria-label="Y-axis titled '([^']+)' for a linear scale with values from ([\d.]+) to/g),
    ];
    assert.deepEqual(axes.map((m) => m[1]), ["Output tok/s", "TPOT p50 (ms)", "TTFT p50 (ms)"]);
    assert.deepEqual(axes.map((m) => Number(m[2])), [0, 0, 0]);
  },
);

Deno.test("the load page draws 200,000 measured rows (no argument spread of a column)", options, async () => {
  const { RowStore } = await import("../../../load/row_store.ts");
  const a = await startMockEngine({ timeScale: 0, script: { "*": { answer: { kind: "text", text: "alpha beta" } } } });
  let run;
  try {
    run = (await runLoadTest(
      parseLoadCommand(["--url", a.url, "--concurrency", "2", "--requests", "4"]).options,
      realLoadDeps(),
    ))
      .runs[0]!;
  } finally {
    await a.close();
  }
  const store = new RowStore();
  const rows = 200_000;
  for (let i = 0; i < rows; i++) {
    const t = i * 0.001;
    const latency = 0.5 + i * 1e-9;
    store.add({
      format: "strata-load-request",
      version: 3,
      phase: "measure",
      index: i,
      endpoint: a.url,
      endpoint_index: 0,
      prompt_index: 0,
      status: "success",
      answer: "answered",
      finish_reason: "stop",
      error: null,
      scheduled_offset_s: t,
      send_offset_s: t,
      lateness_s: 0,
      late: false,
      end_offset_s: t + latency,
      latency_s: latency,
      co_latency_s: latency,
      ttft_s: 0.1 + i * 1e-9,
      ttft_source: "stream",
      first_byte_s: 0.05,
      connect_s: 0.001,
      prefill_s: 0.1,
      first_reasoning_s: null,
      first_answer_s: 0.1,
      tpot_s: 0.01 + i * 1e-10,
      itl_s: [0.01, 0.011 + (i % 1000) * 1e-6],
      input_tokens: 10,
      output_tokens: 20,
      token_source: "usage",
      in_flight_at_send: 1,
      missing: {},
    }, 2);
  }
  const html = await renderLoadHtml([{ ...run, store }], "200,000 rows");
  assert.match(html, new RegExp(`E2E latency CDF \\(n=${rows}\\)`));
  assert.match(html, /Requests in flight/);
});

Deno.test("a sweep's page heads each point's section by its level; repeats stay runs", options, async () => {
  const engine = await startMockEngine({ timeScale: 0, script: { "*": { answer: { kind: "text", text: "a b c" } } } });
  const page = async (...flags: string[]) => {
    const load = parseLoadCommand(["--url", engine.url, "--requests", "4", "--warmup-requests", "0", ...flags]);
    const outcome = await runLoadTest(load.options, realLoadDeps());
    return [...(await renderLoadHtml(outcome.runs, "sweep")).matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]);
  };
  try {
    assert.deepEqual(await page("--concurrency", "1,2"), [
      `Point 1 of 2: concurrency 1, ${engine.url} (closed loop)`,
      `Point 2 of 2: concurrency 2, ${engine.url} (closed loop)`,
    ]);
    assert.deepEqual(await page("--rate", "200,400", "--max-concurrency", "4"), [
      `Point 1 of 2: rate 200/s, ${engine.url} (open loop)`,
      `Point 2 of 2: rate 400/s, ${engine.url} (open loop)`,
    ]);
    assert.deepEqual(await page("--concurrency", "2", "--repeat", "2"), [
      `Run 1 of 2: ${engine.url} (closed loop)`,
      `Run 2 of 2: ${engine.url} (closed loop)`,
    ]);
  } finally {
    await engine.close();
  }
});

/** The (t, value) points a page's over-time chart of `yTitle` draws, read back from the SVG marks' labels. */
function drawn(html: string, yTitle: string): [number, number][] {
  const labels = html.matchAll(
    new RegExp(`aria-label="s since the first measured send: ([\\d.e-]+); ${yTitle}: ([\\d.e-]+)"`, "g"),
  );
  // The line itself carries its first point's label too: each point is counted once.
  const points = new Map([...labels].map((m) => [Number(m[1]), Number(m[2])]));
  return [...points.entries()];
}

Deno.test("the throughput picture is binned by completion over the whole window, read back from the drawing", async () => {
  // A closed loop at concurrency 1: 13 requests of 1.9 s sent every 2 s, 40 output tokens each.
  const rows = Array.from(
    { length: 13 },
    (_, i) =>
      buildLoadRow(sample(outcome({ endS: 1.9, headersS: 0.01, firstDeltaS: 0.1, completionTokens: 40 }), {
        index: i,
        send_offset_s: 2 * i + 0.1,
      })),
  );
  const store = RowStore.of(rows);
  const summary = summarizeStore(store, { mode: "closed", effectiveMaxConcurrency: 1 });
  const html = await renderLoadHtml([{ store, summary }], "one slow stream");
  const rps = drawn(html, "requests/s"), tps = drawn(html, "tokens/s");
  assert.ok(rps.length > 1 && tps.length === rps.length, `${rps.length} points drawn`);
  // Bins are equal and at least the 1.9 s a request takes (no 0/1 saw-tooth), and the last one ends where the last
  // request ended (the methodology's send-time bins would stop at the last send, 24.1 s).
  const width = 2 * rps[0]![0];
  assert.ok(width >= 1.9, `bins of ${width} s`);
  assert.match(html, new RegExp(`Completed requests/s \\(by completion, ${Number(width.toPrecision(3))} s bins\\)`));
  const windowS = rows.at(-1)!.end_offset_s! - rows[0]!.send_offset_s!;
  assert.ok(Math.abs(rps.at(-1)![0] + width / 2 - windowS) < 1e-6, "to the end of the window");
  // Each drawn rate is the completions (and their tokens) whose end falls in that bin, over its width.
  for (const [i, [mid, rate]] of rps.entries()) {
    const inBin = rows.filter((r) => {
      const t = r.end_offset_s! - rows[0]!.send_offset_s!;
      return t >= mid - width / 2 && (t < mid + width / 2 || i === rps.length - 1);
    });
    assert.ok(Math.abs(rate - inBin.length / width) < 1e-6, `bin ${i}: drawn ${rate}, measured ${inBin.length}`);
    assert.ok(Math.abs(tps[i]![1] - 40 * inBin.length / width) < 1e-6, `bin ${i} tokens`);
    assert.ok(inBin.length >= 1, `bin ${i} is not empty`);
  }
  assert.ok(Math.abs(rps.reduce((n, [, v]) => n + v * width, 0) - summary.overall.counts.succeeded) < 1e-6);
  // Each over-time axis spans the window, no more (a fixed 1 s axis left a short run's one bin a lone dot).
  const ends = [
    ...html.matchAll(
      /X-axis titled 's since the first measured send' for a linear scale with values from 0\.?0* to ([\d.]+)/g,
    ),
  ]
    .map((m) => Number(m[1]));
  assert.equal(ends.length, 3);
  assert.ok(ends.every((e) => Math.abs(e - windowS) < 0.5), `${ends} for a window of ${windowS} s`);
  // The rate axes start at zero.
  assert.match(html, /Y-axis titled 'requests\/s' for a linear scale with values from 0\.0 to/);
  assert.match(html, /Y-axis titled 'tokens\/s' for a linear scale with values from 0 to/);
});

Deno.test("a latency CDF draws its SLO as a rule at the SLO's value; without an SLO there is none", async () => {
  const rows = Array.from(
    { length: 20 },
    (_, i) =>
      buildLoadRow(sample(outcome({ endS: 0.5 + i / 100, headersS: 0.01, firstDeltaS: 0.1, completionTokens: 40 }), {
        index: i,
        send_offset_s: i,
      })),
  );
  const store = RowStore.of(rows);
  const slo = { ttftS: 0.25, e2eS: 0.6 };
  const summary = summarizeStore(store, { mode: "closed", effectiveMaxConcurrency: 1, slo });
  const html = await renderLoadHtml([{ store, summary }], "with an SLO");
  assert.match(html, /TTFT CDF \(n=20\), SLO 250 ms/);
  assert.match(html, /E2E latency CDF \(n=20\), SLO 600 ms/);
  assert.doesNotMatch(html, /TPOT CDF \(n=20\), SLO/, "no TPOT SLO was set");
  // The rules are drawn at the SLO values, inside their charts' x domains.
  const rules = [...html.matchAll(/aria-label="ms: ([\d.]+)"/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
  assert.deepEqual(rules, [250, 600]);
  const none = await renderLoadHtml([{ store, summary: { ...summary, slo: {} } }], "no SLO");
  assert.doesNotMatch(none, /CDF \(n=20\), SLO|aria-label="ms: [\d.]+"/);
});
