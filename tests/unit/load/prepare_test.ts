import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { checkTargetsFeasible, prepareWorkload, type WorkloadOptions, WorkloadRefusal } from "../../../load/prepare.ts";
import { PROFILES } from "../../../load/workloads.ts";

const readText = (path: string) => readFile(path, "utf8");

function options(source: WorkloadOptions["source"], extra: Partial<WorkloadOptions> = {}): WorkloadOptions {
  return {
    source,
    sample: 16,
    seed: 3,
    maxTokens: null,
    ignoreEos: false,
    model: undefined,
    allowRepeatedPrompt: false,
    requestTimeoutS: 60,
    ...extra,
  };
}

Deno.test("named profiles are real text, reproducible from the seed, sized near their ISL and labelled with provenance", async () => {
  for (const name of Object.keys(PROFILES) as (keyof typeof PROFILES)[]) {
    const a = await prepareWorkload(options({ kind: "profile", name }), 16, readText);
    const b = await prepareWorkload(options({ kind: "profile", name }), 16, readText);
    assert.equal(a.set.sha256, b.set.sha256);
    assert.equal(a.set.source, `profile:${name}`);
    const p = a.set.provenance as { kind: string; corpus: string; text_license: string; files_used: string[] };
    assert.equal(p.kind, "real-text");
    // code-medium is real source code (MIT JavaScript an installed package ships); the others real prose.
    assert.equal(p.corpus, name === "code-medium" ? "code-v1" : "sotu-v1");
    assert.match(p.text_license, name === "code-medium" ? /^MIT/ : /public domain/);
    assert.ok(p.files_used.length > 0);
    const chars = a.selected.map((i) => a.set.entries[i]!.messages[0]!.content.length);
    const estimate = chars.reduce((s, c) => s + c, 0) / chars.length / 4 + 12;
    const isl = PROFILES[name].isl;
    assert.ok(Math.abs(estimate - isl) / isl < 0.05, `${name}: estimated ${estimate} tokens for ISL ${isl}`);
    assert.ok(a.set.entries.every((e) => e.max_tokens === PROFILES[name].osl));
  }
  const other = await prepareWorkload(options({ kind: "profile", name: "chat-short" }, { seed: 4 }), 16, readText);
  const same = await prepareWorkload(options({ kind: "profile", name: "chat-short" }), 16, readText);
  assert.notEqual(other.set.sha256, same.set.sha256);
  const synthetic = await prepareWorkload(options({ kind: "synthetic", name: "chat-short" }), 16, readText);
  assert.equal(synthetic.set.source, "synthetic:chat-short");
  assert.equal((synthetic.set.provenance as { kind: string }).kind, "synthetic");
});

Deno.test("a workload whose SHA-256 is not its pin is refused, and the stamp records the pin", async () => {
  const w = await prepareWorkload(options({ kind: "synthetic", name: "chat-short" }), 16, readText);
  await assert.rejects(
    prepareWorkload(options({ kind: "synthetic", name: "chat-short" }, { pinSha256: "0".repeat(64) }), 16, readText),
    WorkloadRefusal,
  );
  const pinned = await prepareWorkload(
    options({ kind: "synthetic", name: "chat-short" }, { pinSha256: w.set.sha256 }),
    16,
    readText,
  );
  assert.equal(pinned.stamp.pinned_sha256, w.set.sha256);
});

Deno.test("targets no run of the workload can meet are refused before any traffic", async () => {
  const w = await prepareWorkload(options({ kind: "synthetic", name: "chat-short" }), 16, readText);
  const osl = { target: 128, tolerance: 0.1, stat: "mean" as const };
  assert.throws(
    () => checkTargetsFeasible(w, options({ kind: "synthetic", name: "chat-short" }), { osl }),
    /max_tokens/,
  );
  assert.throws(
    () =>
      checkTargetsFeasible(w, options({ kind: "synthetic", name: "chat-short" }, { minTokens: 80 }), {
        osl: { target: 64, tolerance: 0.1, stat: "mean" },
      }),
    /--min-tokens/,
  );
  assert.throws(
    () =>
      checkTargetsFeasible(w, options({ kind: "synthetic", name: "chat-short" }), {
        isl: { target: 4096, tolerance: 0.1, stat: "mean" },
      }),
    /ISL target 4096/,
  );
  checkTargetsFeasible(w, options({ kind: "synthetic", name: "chat-short" }), {
    isl: { target: 256, tolerance: 0.1, stat: "mean" },
    osl: { target: 64, tolerance: 0.1, stat: "mean" },
  });
});

Deno.test("request parameters reach every body: temperature, seed, min_tokens, stream false", async () => {
  const w = await prepareWorkload(
    options({ kind: "synthetic", name: "chat-short" }, {
      temperature: 0.7,
      requestSeed: 42,
      minTokens: 8,
      stream: false,
    }),
    16,
    readText,
  );
  const body = w.requestFor("measure", 3).body;
  assert.equal(body.temperature, 0.7);
  assert.equal(body.seed, 42);
  assert.equal(body.min_tokens, 8);
  assert.equal(body.stream, false);
  assert.equal(body.stream_options, undefined);
});

Deno.test("the OSL feasibility check holds for a million requests (no argument spread of the caps)", async () => {
  const w = await prepareWorkload(options({ kind: "synthetic", name: "chat-short" }), 16, readText);
  const many = { ...w, selected: Array.from({ length: 1_000_000 }, (_, i) => w.selected[i % w.selected.length]!) };
  assert.throws(
    () =>
      checkTargetsFeasible(many, options({ kind: "synthetic", name: "chat-short" }), {
        osl: { target: 128, tolerance: 0.1, stat: "mean" },
      }),
    (error: unknown) => error instanceof WorkloadRefusal && /every request's max_tokens is at most/.test(error.message),
  );
});

Deno.test("a run is stamped full or sample; --publishable refuses an unpinned, synthetic or sampled workload", async () => {
  const profile = { kind: "profile", name: "chat-short" } as const;
  const full = await prepareWorkload(options(profile, { sample: undefined }), 16, readText);
  assert.equal(full.stamp.coverage, "full");
  assert.equal((await prepareWorkload(options(profile), 16, readText)).stamp.coverage, "sample");
  await assert.rejects(
    prepareWorkload(options({ kind: "synthetic", name: "chat-short" }, { publishable: true }), 16, readText),
    (e: Error) =>
      e instanceof WorkloadRefusal && /not pinned/.test(e.message) && /synthetic/.test(e.message) &&
      /sample/.test(e.message),
  );
  const pinned = options(profile, { sample: undefined, publishable: true, pinSha256: full.set.sha256 });
  const published = await prepareWorkload(pinned, 16, readText);
  assert.deepEqual([published.stamp.coverage, published.stamp.publishable], ["full", true]);
});
