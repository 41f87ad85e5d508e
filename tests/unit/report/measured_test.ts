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
    value.run.command = "strata-bench run <redacted>";
    value.hardware.background_workloads = ["<redacted>"];
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
      // The timings are in the usage chunk (llama-server's last), which the line writes once.
      const chunk = JSON.parse(line.usage_chunk as string) as { timings: Record<string, number> };
      chunk.timings.predicted_ms = chunk.timings.predicted_ms! * 2;
      line.usage_chunk = JSON.stringify(chunk);
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

Deno.test("facts that group, label or configure a result are measured: an edit of any of them is named", async () => {
  const r = await folder();
  try {
    const value = JSON.parse(r.text);
    value.extensions.dialect = "llama.cpp";
    value.extensions.other_engine_options = { flash_attn: true };
    value.extensions.kernel = "6.8.0";
    value.extensions.dialect_evidence = "/props build_info has llama.cpp's form";
    value.extensions.status_reasons = ["a reason"];
    const recorded = recordedDigest(value)!;
    // deno-lint-ignore no-explicit-any -- the edits reach into a parsed results.json
    const edits: [string, (v: Record<string, any>) => void][] = [
      ["hardware", (v) => (v.hardware.cpu = "<redacted>")],
      ["hardware", (v) => (v.hardware.storage = [{ model: "<redacted>" }])],
      ["model", (v) => (v.model.files[0].path = "other-model.gguf")],
      ["model", (v) => (v.model.custom_pack = "a custom pack")],
      ["requests", (v) => (v.requests[1].token_accounting_note = "<redacted>")],
      ["extensions", (v) => (v.extensions.dialect = "vllm")],
      ["extensions", (v) => (v.extensions.other_engine_options.flash_attn = false)],
      ["extensions", (v) => (v.extensions.kernel = "<redacted>")],
    ];
    const text = await outputs(r);
    // The digest the run would record for this value, then each edit alone.
    const { measuredDigest } = await import("../../../report/measured.ts");
    const digest = measuredDigest(value, recorded.outputs.path, text);
    for (const [section, edit] of edits) {
      const edited = structuredClone(value);
      edit(edited);
      const changes = measuredChanges(digest, edited, text);
      assert.ok(changes.some((c) => c.includes(`"${section}" differs`)), `${edit}: ${changes.join("; ")}`);
    }
    // Explanations in extensions stay redactable.
    const explained = structuredClone(value);
    explained.extensions.dialect_evidence = "<redacted>";
    explained.extensions.status_reasons = ["<redacted>"];
    assert.deepEqual(measuredChanges(digest, explained, text), []);
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
    value.run.command = "<redacted>";
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
