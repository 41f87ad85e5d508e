import assert from "node:assert/strict";
import { type CurvePoint, latencyCurveSpec } from "../../../report/curve_picture.ts";
import { renderChartSvg } from "../../../report/charts.ts";

/** A sweep of one server whose throughput falls at its last level: load order is not throughput order. */
const SWEEP: CurvePoint[] = [[1, 200, 0.16], [4, 900, 0.17], [8, 800, 0.47]].map(([c, tps, ttft]) => ({
  series: "http://127.0.0.1:8080",
  load: `c=${c}`,
  outputTokensPerS: tps!,
  ttftS: { p50: ttft!, p90: ttft! * 1.1, p99: ttft! * 1.2 },
  tpotS: { p50: 0.02, p90: 0.022, p99: 0.025 },
}));

Deno.test("the curve's percentile legend draws each line style with a visible stroke, under the series legend", async () => {
  const svg = await renderChartSvg(latencyCurveSpec("Sweep", SWEEP)!);
  assert.match(svg, />percentile<\/text>/);
  assert.match(svg, />series<\/text>/);
  const symbols = [...svg.matchAll(/class="mark-symbol role-legend-symbol"[^>]*><path ([^>]*)\/>/g)].map((m) => m[1]!);
  for (const [dash, label] of [["1,0", "p50"], ["6,3", "p90"], ["2,2", "p99"]]) {
    const symbol = symbols.find((s) => s.includes(`stroke-dasharray="${dash}"`));
    assert.ok(symbol !== undefined, `the ${label} symbol is drawn`);
    // vega-lite gives a filled mark's legend symbols a transparent stroke: the SVG then has no stroke at all.
    assert.match(symbol, /stroke="#333"/, `the ${label} symbol has a stroke: ${symbol}`);
    assert.match(svg, new RegExp(`>${label}</text>`));
  }
  assert.match(svg, />http:\/\/127\.0\.0\.1:8080<\/text>/, "the series label is whole");
});

Deno.test("each line runs through the load levels in the order given, not by throughput", () => {
  const spec = latencyCurveSpec("Sweep", SWEEP) as unknown as {
    hconcat: { data: { values: { load: string; step: number; percentile: string }[] }; layer: unknown[] }[];
  };
  const ttft = spec.hconcat[0]!;
  const p50 = ttft.data.values.filter((v) => v.percentile === "p50");
  assert.deepEqual(p50.map((v) => [v.load, v.step]), [["c=1", 0], ["c=4", 1], ["c=8", 2]]);
  assert.deepEqual((ttft.layer[0] as { encoding: { order: unknown } }).encoding.order, { field: "step" });
  assert.equal(latencyCurveSpec("One", SWEEP.slice(0, 1)), null, "one level is a point, not a curve");
});

Deno.test("each load level is labelled once, over its highest point, whatever the series and percentiles", async () => {
  // Two servers with nearly the same curve: their p50 labels used to be drawn on top of each other.
  const other = SWEEP.map((p) => ({
    ...p,
    series: "http://127.0.0.1:8081",
    outputTokensPerS: p.outputTokensPerS! + 5,
  }));
  const svg = await renderChartSvg(latencyCurveSpec("Two servers", [...SWEEP, ...other])!);
  assert.ok(Number(/^<svg [^>]*width="(\d+)"/.exec(svg)![1]) <= 1280, "it fits a 1280 px screen");
  for (const label of ["c=1", "c=4", "c=8"]) {
    assert.equal(svg.match(new RegExp(`>${label}</text>`, "g"))?.length, 2, `${label}: once in each of two panels`);
  }
  // The label stands over the highest point of its level: p99 of the slower server, not a p50.
  const spec = latencyCurveSpec("Two servers", [...SWEEP, ...other]) as unknown as {
    hconcat: { data: { values: { load: string; percentile: string; ms: number; labelled: boolean }[] } }[];
  };
  const ttft = spec.hconcat[0]!.data.values;
  for (const level of ["c=1", "c=4", "c=8"]) {
    const at = ttft.filter((v) => v.load === level);
    const highest = Math.max(...at.map((v) => v.ms));
    assert.deepEqual(at.filter((v) => v.labelled).map((v) => [v.percentile, v.ms]), [["p99", highest]]);
  }
});
