import assert from "node:assert/strict";
import { type Problem, validateResult, validateResultText } from "../../../report/validate.ts";
import { buildRealisticResult, type RealisticResult } from "./_realistic_result.ts";
import { CORRUPTIONS, type Mutable } from "./_corruptions.ts";

function show(problems: Problem[]): string {
  return problems.map((p) => `${p.pointer || "(root)"}: ${p.message}`).join("\n");
}

async function withResults(body: (required: RealisticResult, optional: RealisticResult) => Promise<void>) {
  const required = await buildRealisticResult();
  const optional = await buildRealisticResult({ optionalConcurrency: true });
  try {
    await body(required, optional);
  } finally {
    await required.cleanup();
    await optional.cleanup();
  }
}

Deno.test("the realistic results (22 and 34 records) validate with zero problems, artifacts included", async () => {
  await withResults(async (required, optional) => {
    for (const r of [required, optional]) {
      const problems = await validateResultText(r.text, {
        maxSharedPrefixTokens: r.maxSharedPrefixTokens,
        readArtifact: r.readArtifact,
        fixtures: r.fixtures,
      });
      assert.deepEqual(problems, [], show(problems));
    }
    assert.equal(required.result.requests.length, 22);
    assert.equal(optional.result.requests.length, 34);
    assert.ok(required.result.requests.some((r) => r.status === "truncated"), "some requests are capped");
    assert.equal(required.result.quality.passed, 11, "R3 is answered wrongly");
  });
});

Deno.test("each single-field corruption is reported at its JSON Pointer", async (t) => {
  await withResults(async (required, optional) => {
    for (const corruption of CORRUPTIONS) {
      await t.step(`${corruption.name} -> ${corruption.pointer || "(root)"}`, async () => {
        const base = corruption.optional ? optional : required;
        let text = base.text;
        if (corruption.value) {
          const value = JSON.parse(text) as Mutable;
          corruption.value(value);
          text = JSON.stringify(value, null, 2);
        }
        if (corruption.text) text = corruption.text(text);
        if (!corruption.read) assert.notEqual(text, base.text, "the corruption changed nothing");
        const read = corruption.read;
        const problems = await validateResultText(text, {
          maxSharedPrefixTokens: base.maxSharedPrefixTokens,
          fixtures: base.fixtures,
          readArtifact: read ? async (path) => read(path, await base.readArtifact(path)) : base.readArtifact,
        });
        const hit = problems.find((p) => p.pointer === corruption.pointer);
        assert.ok(hit, `no problem at ${corruption.pointer}; got:\n${show(problems)}`);
        if (corruption.says) {
          assert.match(hit.message, new RegExp(corruption.says.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
        }
      });
    }
  });
});

Deno.test("the table holds at least 25 corruptions with distinct names", () => {
  assert.ok(CORRUPTIONS.length >= 25);
  assert.equal(new Set(CORRUPTIONS.map((c) => c.name)).size, CORRUPTIONS.length);
});

Deno.test("every problem is collected: three unrelated faults give three pointers", async () => {
  await withResults(async (required) => {
    const value = JSON.parse(required.text) as Mutable;
    value.run.started_at = "yesterday";
    value.artifacts[0]!.sha256 = "abc";
    value.quality.total = 11;
    const problems = await validateResult(value, { maxSharedPrefixTokens: required.maxSharedPrefixTokens });
    const pointers = problems.map((p) => p.pointer);
    for (const pointer of ["/run/started_at", "/artifacts/0/sha256", "/quality/total"]) {
      assert.ok(pointers.includes(pointer), `missing ${pointer} in:\n${show(problems)}`);
    }
  });
});

Deno.test("a __proto__ key stays data: it is reported, and no object prototype changes", async () => {
  await withResults(async (required) => {
    const text = required.text.replace('"format":', '"__proto__": {"polluted": true},\n  "format":');
    const problems = await validateResultText(text, { maxSharedPrefixTokens: required.maxSharedPrefixTokens });
    assert.ok(problems.some((p) => p.pointer === "/__proto__"), show(problems));
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });
});

Deno.test("a non-object results.json gives one problem at the root", async () => {
  await withResults(async (required) => {
    const problems = await validateResultText("[1, 2]", { maxSharedPrefixTokens: required.maxSharedPrefixTokens });
    assert.deepEqual(problems.map((p) => p.pointer), [""]);
  });
});

Deno.test("a skipped required request makes a run partial; calling it complete is a problem at /run/status", async () => {
  await withResults(async (required) => {
    const value = JSON.parse(required.text) as Mutable;
    const index = value.requests.findIndex((r) => r.id === "sanity-T4");
    const record = value.requests[index]!;
    Object.assign(record, {
      status: "skipped",
      finish_reason: null,
      error: { kind: "skipped", message: "the engine stopped answering /health" },
      first_delta_kind: null,
      evaluation: { category: "tool_call", passed: false, reason: "skipped: the engine stopped answering" },
    });
    for (const group of ["tokens", "timings", "metrics", "sources"] as const) {
      for (const key of Object.keys(record[group])) (record[group] as unknown as Record<string, unknown>)[key] = null;
    }
    // Explain every null so only the status and derived-value checks speak.
    for (const key of Object.keys(value.missing)) if (key.startsWith(`/requests/${index}/`)) delete value.missing[key];
    const walk = (v: unknown, p: string) => {
      if (v === null) value.missing[p] = "skipped";
      else if (typeof v === "object") { for (const [k, c] of Object.entries(v as object)) walk(c, `${p}/${k}`); }
    };
    walk(record, `/requests/${index}`);
    const problems = await validateResult(value, { maxSharedPrefixTokens: required.maxSharedPrefixTokens });
    const status = problems.find((p) => p.pointer === "/run/status");
    assert.ok(status, show(problems));
    assert.match(status.message, /"partial"/);
  });
});

Deno.test("validating without a complete maxSharedPrefixTokens map is a TypeError naming the request", async () => {
  await withResults(async (required) => {
    const facts = { ...required.maxSharedPrefixTokens };
    delete facts["sanity-R2"];
    await assert.rejects(
      validateResultText(required.text, { maxSharedPrefixTokens: facts }),
      (error: unknown) => error instanceof TypeError && /sanity-R2/.test(error.message),
    );
  });
});

Deno.test("unknown fields are accepted under extensions and inside engine option objects", async () => {
  await withResults(async (required) => {
    const value = JSON.parse(required.text) as Mutable;
    value.extensions = { ...value.extensions, vendor: { anything: [1, "two", { three: true }] } };
    value.configuration.offloading = { n_gpu_layers: 99, tensor_split: [0.5, 0.5], override_kv: "x=1" };
    const problems = await validateResult(value, {
      maxSharedPrefixTokens: required.maxSharedPrefixTokens,
      readArtifact: required.readArtifact,
    });
    assert.deepEqual(problems, [], show(problems));
  });
});

Deno.test("a problem at a parent makes its children unsound, and problems past the cap are counted, not kept", async () => {
  const { ProblemCollector } = await import("../../../report/_pointer.ts");
  const collector = new ProblemCollector(2);
  collector.tracking = true;
  collector.push({ pointer: "/protocol", message: "required field is absent" });
  collector.push({ pointer: "/requests/3/tokens/input_tokens", message: "x" });
  collector.push({ pointer: "/summaries/0", message: "y" });
  assert.equal(collector.total, 3);
  assert.equal(collector.kept.length, 2);
  assert.equal(collector.clean("/protocol/corpus_sha256"), false);
  assert.equal(collector.clean("/requests"), false);
  assert.equal(collector.clean("/requests/3"), false);
  assert.equal(collector.clean("/requests/4"), true);
  assert.equal(collector.clean("/summaries"), false);
  assert.equal(collector.clean("/quality"), true);
  assert.throws(() => collector.clean("/a/b/c"), RangeError);
});
