import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sealResult } from "../../../report/seal/seal.ts";
import { validateResultText } from "../../../report/validate.ts";
import { renderReadme } from "../../../report/render.ts";
import { buildRealisticResult, FAULT_MESSAGE, type RealisticResult, SKIP_REASON } from "./_realistic_result.ts";

function deps(r: RealisticResult) {
  const options = {
    maxSharedPrefixTokens: r.maxSharedPrefixTokens,
    fixtures: r.fixtures,
    readArtifact: r.readArtifact,
  };
  return {
    read: r.readArtifact,
    validate: (text: string) => validateResultText(text, options),
    fixtures: r.fixtures,
    renderReadme,
    now: () => new Date("2026-12-01T10:00:00.000Z"),
  };
}

async function withFolder(body: (r: RealisticResult) => Promise<void>, faults = false): Promise<void> {
  const r = await buildRealisticResult({ asWritten: true, faults });
  try {
    await body(r);
  } finally {
    await r.cleanup();
  }
}

async function rewrite(r: RealisticResult, file: string, edit: (text: string) => string): Promise<void> {
  const path = join(r.dir, file);
  await writeFile(path, edit(new TextDecoder().decode(await readFile(path))));
}

Deno.test("seal: nothing to do on a folder as the run wrote it", async () => {
  await withFolder(async (r) => {
    assert.deepEqual(await sealResult(r.text, deps(r)), {
      ok: true,
      rehashed: [],
      rederived: [],
      text: null,
      readme: { kind: "unchanged" },
    });
  });
});

Deno.test("seal: redacted reasoning text, engine log and config are re-hashed, recorded and the result validates", async () => {
  await withFolder(async (r) => {
    await rewrite(r, "outputs.jsonl", (t) => t.replace(/"reasoning_text":"[^"]*"/, '"reasoning_text":"[redacted]"'));
    await rewrite(r, "engine.log", (t) => t.replace("127.0.0.1", "<redacted>"));
    await rewrite(r, "config.json", (t) => t.replace("custom", "<redacted>"));
    // Before the seal, report says the bytes changed after hashing.
    assert.ok((await deps(r).validate(r.text)).some((p) => /changed after hashing/.test(p.message)));
    const sealed = await sealResult(r.text, deps(r));
    assert.ok(sealed.ok, JSON.stringify(sealed));
    assert.deepEqual(sealed.rehashed.map((x) => x.path).sort(), ["config.json", "engine.log", "outputs.jsonl"]);
    assert.ok(sealed.text !== null);
    assert.deepEqual(await deps(r).validate(sealed.text), []);
    const value = JSON.parse(sealed.text);
    assert.equal(value.extensions.sealed.length, 1);
    assert.equal(value.extensions.sealed[0].sealed_at, "2026-12-01T10:00:00.000Z");
    const before = JSON.parse(r.text).artifacts.find((a: { path: string }) => a.path === "engine.log").sha256;
    assert.equal(
      value.extensions.sealed[0].rehashed.find((x: { path: string }) => x.path === "engine.log").sha256_before,
      before,
    );
  });
});

Deno.test("seal refuses an edited final answer that a verdict reads, and names the line", async () => {
  await withFolder(async (r) => {
    await rewrite(r, "outputs.jsonl", (t) => t.replace('"final_answer":"DELTA-609"', '"final_answer":"DELTA-906"'));
    const sealed = await sealResult(r.text, deps(r));
    assert.equal(sealed.ok, false);
    assert.match(sealed.ok ? "" : sealed.reasons.join("\n"), /\(sanity-R3\) differs in a measured value/);
  });
});

Deno.test("seal refuses a consistent edit of a measured number in both results.json and outputs.jsonl", async () => {
  await withFolder(async (r) => {
    const value = JSON.parse(r.text);
    value.hardware.ram_bytes = 2 ** 40;
    const sealed = await sealResult(JSON.stringify(value, null, 2), deps(r));
    assert.equal(sealed.ok, false);
    assert.match(sealed.ok ? "" : sealed.reasons.join("\n"), /"hardware" differs/);
  });
});

Deno.test("seal refuses a changed chat template or picture, a missing artifact, and a folder without a digest", async () => {
  await withFolder(async (r) => {
    await rewrite(r, "chat_template.jinja", (t) => `${t} `);
    const sealed = await sealResult(r.text, deps(r));
    assert.match(
      sealed.ok ? "" : sealed.reasons.join("\n"),
      /chat_template\.jinja \(provenance\) changed after the run/,
    );
  });
  await withFolder(async (r) => {
    await Deno.remove(join(r.dir, "engine.log"));
    const sealed = await sealResult(r.text, deps(r));
    assert.match(sealed.ok ? "" : sealed.reasons.join("\n"), /engine\.log is not in the folder/);
  });
  const plain = await buildRealisticResult();
  try {
    const sealed = await sealResult(plain.text, deps(plain));
    assert.match(sealed.ok ? "" : sealed.reasons.join("\n"), /has no measured digest/);
  } finally {
    await plain.cleanup();
  }
  await withFolder(async (r) => {
    const sealed = await sealResult("{not json", deps(r));
    assert.equal(sealed.ok, false);
  });
});

/** outputs.jsonl with the private error text and skip reason replaced, as a person redacts them by hand. */
function redactEvidence(text: string): string {
  return text.replaceAll(FAULT_MESSAGE, "[redacted path]").replaceAll(SKIP_REASON, "[redacted host]");
}

Deno.test("seal carries an error text and skip reasons redacted in outputs.jsonl into results.json and README", async () => {
  await withFolder(async (r) => {
    assert.ok(r.text.includes(FAULT_MESSAGE) && r.text.includes(SKIP_REASON));
    await rewrite(r, "outputs.jsonl", redactEvidence);
    const sealed = await sealResult(r.text, deps(r));
    assert.ok(sealed.ok, JSON.stringify(sealed));
    assert.ok(sealed.text !== null);
    // No copy of either private text is left anywhere in results.json: messages, verdicts, exclusions, missing
    // reasons and the status reasons were derived again from the redacted evidence.
    assert.ok(!sealed.text.includes(FAULT_MESSAGE), "the error text is gone");
    assert.ok(!sealed.text.includes(SKIP_REASON), "the skip reason is gone");
    const value = JSON.parse(sealed.text);
    const failed = value.requests.find((x: { id: string }) => x.id === "sanity-I3");
    assert.match(failed.error.message, /\(HTTP 500\): \[redacted path\]$/);
    assert.match(failed.evaluation.reason, /\[redacted path\]/);
    const pointers = sealed.rederived.map((t) => t.pointer);
    for (const wanted of ["/error/message", "/evaluation/reason"]) {
      assert.ok(pointers.some((p) => p.endsWith(wanted)), `${wanted} among ${pointers.join(", ")}`);
    }
    assert.ok(pointers.some((p) => /^\/extensions\/status_reasons\/\d+$/.test(p)), pointers.join(", "));
    assert.deepEqual(value.extensions.sealed[0].rederived, pointers);
    // README.md was as the run wrote it, so it is drawn again, without the private texts.
    assert.equal(sealed.readme.kind, "rendered");
    const readme = sealed.readme.kind === "rendered" ? sealed.readme.text : "";
    assert.ok(!readme.includes(FAULT_MESSAGE) && !readme.includes(SKIP_REASON));
    await writeFile(join(r.dir, "README.md"), readme);
    assert.deepEqual(await deps(r).validate(sealed.text), []);
  }, true);
});

Deno.test("seal accepts a redaction made in outputs.jsonl and by hand in results.json too", async () => {
  await withFolder(async (r) => {
    await rewrite(r, "outputs.jsonl", redactEvidence);
    // In results.json the person blanks whole fields, not the derived string with its prefix.
    const value = JSON.parse(r.text);
    for (const record of value.requests) {
      if (record.error?.message.includes(FAULT_MESSAGE) || record.error?.message.includes(SKIP_REASON)) {
        record.error.message = "[redacted]";
        record.evaluation.reason = "[redacted]";
      }
    }
    const sealed = await sealResult(redactEvidence(JSON.stringify(value, null, 2)), deps(r));
    assert.ok(sealed.ok, JSON.stringify(sealed));
    assert.ok(sealed.text !== null && !sealed.text.includes(FAULT_MESSAGE) && !sealed.text.includes(SKIP_REASON));
    assert.deepEqual(await deps(r).validate(sealed.text), []);
  }, true);
});

Deno.test("seal refuses a derived text redacted in results.json only, naming the field and where to redact", async () => {
  await withFolder(async (r) => {
    const value = JSON.parse(r.text);
    const index = value.requests.findIndex((x: { id: string }) => x.id === "sanity-I3");
    value.requests[index].error.message = "<redacted>";
    const sealed = await sealResult(JSON.stringify(value, null, 2), deps(r));
    assert.equal(sealed.ok, false);
    const reasons = sealed.ok ? "" : sealed.reasons.join("\n");
    assert.match(reasons, new RegExp(`/requests/${index}/error/message was edited in results\\.json`));
    assert.match(reasons, /derived from outputs\.jsonl line \d+: error\.message/);
    assert.match(reasons, /redact the text in outputs\.jsonl instead and seal again/);
  }, true);
  await withFolder(async (r) => {
    // A verdict reason the answer gives (not a redactable text): rebuilt from the final answer, never edited.
    const value = JSON.parse(r.text);
    const record = value.requests.find((x: { id: string }) => x.id === "sanity-R3");
    record.evaluation.reason = "<redacted>";
    const sealed = await sealResult(JSON.stringify(value, null, 2), deps(r));
    assert.equal(sealed.ok, false);
    assert.match(sealed.ok ? "" : sealed.reasons.join("\n"), /\/requests\/\d+\/evaluation\/reason was edited/);
  });
});

Deno.test("seal leaves a README.md a person corrected and says so", async () => {
  await withFolder(async (r) => {
    await rewrite(r, "outputs.jsonl", redactEvidence);
    await rewrite(r, "README.md", (t) => redactEvidence(t).replace("# Standard", "# Corrected standard"));
    const sealed = await sealResult(r.text, deps(r));
    assert.ok(sealed.ok, JSON.stringify(sealed));
    assert.deepEqual(sealed.readme, { kind: "edited" });
  }, true);
});

Deno.test("sealFolder refuses an artifact past a result file's cap with its reason, and changes nothing", async () => {
  const { sealFolder } = await import("../../../report/seal/folder.ts");
  const { loadBundle } = await import("../../../fixtures/mod.ts");
  await withFolder(async (r) => {
    const before = await readFile(join(r.dir, "results.json"), "utf8");
    // A config.json past 64 MiB: a redaction cannot make it that large, a damaged folder can (it threw before).
    await writeFile(join(r.dir, "config.json"), `${"x".repeat(64 * 1024 * 1024 + 1)}\n`);
    const sealed = await sealFolder(r.dir, await loadBundle());
    assert.equal(sealed.kind, "refused");
    assert.match(sealed.kind === "refused" ? sealed.reasons.join("\n") : "", /bytes/);
    assert.equal(await readFile(join(r.dir, "results.json"), "utf8"), before);
  });
});
