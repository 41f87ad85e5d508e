import assert from "node:assert/strict";
import { pictureSpecs, renderResultPictures } from "../../../report/pictures.ts";
import type { Result } from "../../../contract/mod.ts";
import { buildRealisticResult } from "./_realistic_result.ts";

async function realistic(optionalConcurrency: boolean): Promise<Result> {
  const built = await buildRealisticResult({ optionalConcurrency });
  await built.cleanup();
  return structuredClone(built.result);
}

Deno.test("a result has rates, latency and caps pictures, and rounds only with the optional stage", async () => {
  assert.deepEqual(pictureSpecs(await realistic(false)).map((p) => p.file), ["rates.svg", "latency.svg", "caps.svg"]);
  assert.deepEqual(pictureSpecs(await realistic(true)).map((p) => p.file), [
    "rates.svg",
    "latency.svg",
    "caps.svg",
    "rounds.svg",
  ]);
});

Deno.test("pictures are SVG drawn from the stored numbers, the same bytes every time", async () => {
  const result = await realistic(true);
  const first = await renderResultPictures(result);
  const again = await renderResultPictures(result);
  assert.deepEqual(first.map((p) => p.svg), again.map((p) => p.svg));
  const rates = first.find((p) => p.file === "rates.svg")!.svg;
  assert.match(rates, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.doesNotMatch(rates, /<script|<foreignObject|href="http/i);
  const decode = result.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "decode_tps")!;
  assert.ok(rates.includes(`${decode.median!.toFixed(1)} [${decode.min!.toFixed(1)}-${decode.max!.toFixed(1)}] n=3`));
  const latency = first.find((p) => p.file === "latency.svg")!.svg;
  assert.ok(latency.includes("not measured (n=0)"), "16K has no first-answer sample");
  assert.doesNotMatch(rates + latency, /SIMULATED/);
});

Deno.test("each row's label carries its numbers; equal values everywhere still get a readable axis", async () => {
  const result = await realistic(false);
  for (const s of result.summaries) {
    if (s.metric === "prompt_tps") Object.assign(s, { median: 1500, min: 1500, max: 1500 });
  }
  const rates = (await renderResultPictures(result)).find((p) => p.file === "rates.svg")!.svg;
  assert.match(rates, />prompt-4k: 1500\.0 \[1500\.0-1500\.0\] n=3</, "the numbers are in the row label");
  assert.doesNotMatch(rates, />[0-9,]+\.000000</, "no zero-width domain labelled to six decimals");
  assert.match(rates, />prompt tokens\/s</, "the axis is titled with its unit");
});

Deno.test("a simulated result says so in every picture's title", async () => {
  const result = await realistic(false);
  result.extensions = { ...result.extensions, simulated_engine: true };
  for (const picture of await renderResultPictures(result)) {
    assert.match(picture.svg, /SIMULATED: /, picture.file);
    assert.match(picture.svg, /SIMULATED ENGINE: scripted test engine/, picture.file);
  }
});

Deno.test("report draws the pictures again: a forged, re-hashed picture is a problem; another renderer is a note", async () => {
  const { validateResultText } = await import("../../../report/validate.ts");
  const { picturesNote } = await import("../../../report/checks/_pictures.ts");
  const { createHash } = await import("node:crypto");
  const r = await buildRealisticResult({ pictures: true });
  try {
    const options = {
      maxSharedPrefixTokens: r.maxSharedPrefixTokens,
      fixtures: r.fixtures,
      readArtifact: r.readArtifact,
    };
    assert.deepEqual(await validateResultText(r.text, options), []);
    assert.equal(await picturesNote(r.result), null);
    // Edit a number in rates.svg and record the edited file's hash, as a forger would.
    const path = `${r.dir}/rates.svg`;
    const svg = await Deno.readTextFile(path);
    const decode = r.result.summaries.find((s) => s.case_id === "prompt-4k" && s.metric === "decode_tps")!;
    const shown = decode.median!.toFixed(1);
    assert.ok(svg.includes(shown));
    const forged = svg.replace(shown, (decode.median! * 2).toFixed(1));
    await Deno.writeTextFile(path, forged);
    const value = JSON.parse(r.text);
    const index = value.artifacts.findIndex((a: { path: string }) => a.path === "rates.svg");
    value.artifacts[index].sha256 = createHash("sha256").update(forged).digest("hex");
    const problems = await validateResultText(JSON.stringify(value), options);
    assert.deepEqual(problems.map((p) => p.pointer), [`/artifacts/${index}/path`]);
    assert.match(problems[0]!.message, /"rates\.svg" is not the picture results\.json gives/);
    // Under another renderer the bytes are not compared, and report says so instead.
    value.extensions.pictures_renderer = "vega 5.0.0, vega-lite 5.0.0";
    assert.deepEqual(await validateResultText(JSON.stringify(value), options), []);
    assert.match(String(await picturesNote(value)), /drawn by vega 5\.0\.0.*were not compared/);
  } finally {
    await r.cleanup();
  }
});
