import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sealResult } from "../../../report/seal.ts";
import { validateResultText } from "../../../report/validate.ts";
import { buildRealisticResult, type RealisticResult } from "./_realistic_result.ts";

function deps(r: RealisticResult) {
  const options = {
    maxSharedPrefixTokens: r.maxSharedPrefixTokens,
    fixtures: r.fixtures,
    readArtifact: r.readArtifact,
  };
  return {
    read: r.readArtifact,
    validate: (text: string) => validateResultText(text, options),
    now: () => new Date("2026-12-01T10:00:00.000Z"),
  };
}

async function withFolder(body: (r: RealisticResult) => Promise<void>): Promise<void> {
  const r = await buildRealisticResult({ asWritten: true });
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
    assert.deepEqual(await sealResult(r.text, deps(r)), { ok: true, rehashed: [], text: null });
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

Deno.test("seal refuses a redaction made on one side only: the record no longer follows from its evidence", async () => {
  await withFolder(async (r) => {
    // A verdict reason is redactable text (the digest allows it), but the validator rebuilds it from the answer.
    const value = JSON.parse(r.text);
    const record = value.requests.find((x: { id: string }) => x.id === "sanity-R3");
    record.evaluation.reason = "<redacted>";
    const sealed = await sealResult(JSON.stringify(value, null, 2), deps(r));
    assert.equal(sealed.ok, false);
    assert.match(sealed.ok ? "" : sealed.reasons.join("\n"), /\/requests\/\d+\/evaluation\/reason/);
  });
});
