import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { measuredChanges, recordedDigest } from "../../../report/measured.ts";
import { buildRealisticResult, type RealisticResult } from "./_realistic_result.ts";

async function folder(): Promise<RealisticResult> {
  return await buildRealisticResult({ asWritten: true });
}

async function outputs(r: RealisticResult): Promise<string> {
  return new TextDecoder().decode(await readFile(join(r.dir, "outputs.jsonl")));
}

/** outputs.jsonl with one line's object changed by `edit`. */
function editLine(text: string, id: string, edit: (line: Record<string, unknown>) => void): string {
  return text.split("\n").map((line) => {
    if (!line.includes(`"request_id":"${id}"`)) return line;
    const value = JSON.parse(line);
    edit(value);
    return JSON.stringify(value);
  }).join("\n");
}

Deno.test("the digest the run records matches the folder as written", async () => {
  const r = await folder();
  try {
    const value = JSON.parse(r.text);
    const recorded = recordedDigest(value);
    assert.ok(recorded, "results.json carries a measured digest");
    assert.equal(recorded.outputs.lines.length, 22);
    assert.deepEqual(measuredChanges(recorded, value, await outputs(r)), []);
  } finally {
    await r.cleanup();
  }
});

Deno.test("redacting evidence text changes no measured digest", async () => {
  const r = await folder();
  try {
    const value = JSON.parse(r.text);
    const recorded = recordedDigest(value)!;
    value.hardware.cpu = "<redacted>";
    value.run.command = "strata-bench run <redacted>";
    value.configuration.track_notes = "[redacted]";
    value.missing["/hardware/storage"] = "redacted reason";
    value.extensions.status_reasons = value.extensions.status_reasons.map(() => "<redacted>");
    value.artifacts[0].sha256 = "0".repeat(64);
    let text = await outputs(r);
    text = editLine(text, "performance-short-r1", (line) => (line.reasoning_text = "[redacted]"));
    assert.deepEqual(measuredChanges(recorded, value, text), []);
  } finally {
    await r.cleanup();
  }
});

Deno.test("a changed timing, count, answer or status is named, in results.json or in its outputs line", async () => {
  const r = await folder();
  try {
    const value = JSON.parse(r.text);
    const recorded = recordedDigest(value)!;
    const text = await outputs(r);
    const slower = editLine(text, "performance-prompt-4k-r2", (line) => {
      // The counts and timers are read from the exact chunk text the evidence keeps.
      const chunk = JSON.parse(line.timings_chunk as string) as { timings: Record<string, number> };
      chunk.timings.predicted_ms = chunk.timings.predicted_ms! * 2;
      line.timings_chunk = JSON.stringify(chunk);
    });
    const changes = measuredChanges(recorded, value, slower);
    assert.equal(changes.length, 1, changes.join("\n"));
    assert.match(changes[0]!, /outputs\.jsonl line \d+ \(performance-prompt-4k-r2\) differs in a measured value/);

    const answer = editLine(text, "sanity-R3", (line) => (line.final_answer = "DELTA-906"));
    assert.match(measuredChanges(recorded, value, answer).join("\n"), /\(sanity-R3\) differs/);

    // Edited consistently in results.json too: the record, its summary and the quality still disagree with the run.
    const edited = structuredClone(value);
    edited.requests[0].tokens.output_tokens = 100;
    edited.quality.passed = 12;
    const both = measuredChanges(recorded, edited, text);
    assert.ok(both.some((c) => /"requests" differs/.test(c)), both.join("\n"));
    assert.ok(both.some((c) => /"quality" differs/.test(c)), both.join("\n"));

    const relabelled = structuredClone(value);
    relabelled.extensions.simulated_engine = true;
    assert.match(measuredChanges(recorded, relabelled, text).join("\n"), /"extensions" differs/);

    assert.match(measuredChanges(recorded, value, null).join("\n"), /outputs\.jsonl is not in the folder/);
    const dropped = text.split("\n").slice(1).join("\n");
    assert.match(measuredChanges(recorded, value, dropped).join("\n"), /has 21 lines; the run wrote 22/);
  } finally {
    await r.cleanup();
  }
});

Deno.test("report's validator flags a measured edit after the run and accepts a redaction", async () => {
  const { validateResultText } = await import("../../../report/validate.ts");
  const r = await folder();
  try {
    const options = {
      maxSharedPrefixTokens: r.maxSharedPrefixTokens,
      fixtures: r.fixtures,
      readArtifact: r.readArtifact,
    };
    assert.deepEqual(await validateResultText(r.text, options), []);
    const value = JSON.parse(r.text);
    value.hardware.cpu = "<redacted>";
    assert.deepEqual(await validateResultText(JSON.stringify(value), options), []);
    value.hardware.ram_bytes = 1;
    const problems = await validateResultText(JSON.stringify(value), options);
    assert.deepEqual(problems.map((p) => p.pointer), ["/extensions/measured_digest"]);
    assert.match(problems[0]!.message, /changed after the run: results\.json "hardware" differs/);
    await writeFile(join(r.dir, "unused"), "");
  } finally {
    await r.cleanup();
  }
});
