/**
 * The site's independent check on real result folders written by `mod.ts demo`: the genuine folder verifies, and
 * every kind of change after the run is caught with a reason that names it. Also `site verify` as a person runs it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { folderReader, KNOWN_PROTOCOLS, verifyFolder } from "../../site/mod.ts";
import { copyFolder, demoFolder, type Editable, relabel, sha256File, strataBench } from "./_fixture_repo.ts";
import { SITE_BUNDLE } from "./_bundle.ts";

const root = await Deno.makeTempDir({ prefix: "strata-site-check-" });
const demo = await demoFolder(join(root, "demo"));
const demo34 = await demoFolder(join(root, "demo34"), true);
let copies = 0;

/** A copy of a demo folder with `change` applied. */
async function changed(from: string, change: (folder: string) => Promise<void>): Promise<string> {
  const folder = join(root, `copy-${copies++}`);
  await copyFolder(from, folder);
  await change(folder);
  return folder;
}

/** Edits outputs.jsonl lines and re-hashes it in results.json (the edit a forger would make). */
async function editOutputs(folder: string, edit: (line: Editable) => void): Promise<void> {
  const path = join(folder, "outputs.jsonl");
  const lines = (await Deno.readTextFile(path)).split("\n").map((l) => {
    if (l === "") return l;
    const line = JSON.parse(l);
    edit(line);
    return JSON.stringify(line);
  });
  await Deno.writeTextFile(path, lines.join("\n"));
  const sha = await sha256File(path);
  await relabel(folder, {
    edit: (r) => r.artifacts.forEach((a: Editable) => a.path === "outputs.jsonl" && (a.sha256 = sha)),
  });
}

function check(folder: string, expectedSha256?: string) {
  return verifyFolder(folderReader(folder), {
    protocols: KNOWN_PROTOCOLS,
    ...SITE_BUNDLE,
    ...(expectedSha256 === undefined ? {} : { expectedSha256 }),
  });
}

async function expectState(folder: string, state: string, reason: RegExp) {
  const outcome = await check(folder);
  assert.equal(outcome.state, state, outcome.reasons.join("\n"));
  assert.ok(outcome.reasons.some((r) => reason.test(r)), `no reason matches ${reason}:\n${outcome.reasons.join("\n")}`);
  assert.equal(outcome.facts, null, "no numbers for an entry that did not verify");
}

Deno.test("a genuine demo folder verifies: draft protocol, nonconforming, 12/12, three cases", async () => {
  const outcome = await check(demo);
  assert.equal(outcome.state, "verified", outcome.reasons.join("\n"));
  assert.equal(outcome.facts?.stage, "draft");
  assert.equal(outcome.facts?.status, "nonconforming");
  assert.equal(outcome.facts?.simulated, true);
  assert.equal(outcome.facts?.quality.passed, 12);
  assert.deepEqual(outcome.facts?.cases.map((c) => c.caseId), ["short", "prompt-4k", "prompt-16k"]);
  // Every request went by reference, and the check says it rebuilt each from the bundle.
  assert.ok(
    outcome.checks.includes(
      "22 requests sent by reference rebuilt from the frozen bundle standard-v1 (its manifest against the pinned " +
        "corpus, each fixture file and each body sent against its SHA-256)",
    ),
    outcome.checks.join("\n"),
  );
});

Deno.test("a genuine demo folder with the optional stage verifies its 34 requests and 3 rounds", async () => {
  const outcome = await check(demo34);
  assert.equal(outcome.state, "verified", outcome.reasons.join("\n"));
  assert.equal(outcome.facts?.rounds.length, 3);
  assert.equal(outcome.facts?.cases.at(-1)?.caseId, "short-burst");
  assert.equal(outcome.facts?.cases.at(-1)?.aggregateTps?.n, 3);
});

Deno.test("one byte of outputs.jsonl changed: the artifact hash fails", async () => {
  const folder = await changed(demo, async (f) => {
    const bytes = await Deno.readFile(join(f, "outputs.jsonl"));
    bytes[100] = bytes[100] === 0x61 ? 0x62 : 0x61;
    await Deno.writeFile(join(f, "outputs.jsonl"), bytes);
  });
  await expectState(folder, "failed", /artifact outputs\.jsonl has SHA-256 [0-9a-f]{64}, but results\.json records/);
});

Deno.test("a reviewed hash that differs from results.json fails before anything else is read", async () => {
  const outcome = await check(demo, "0".repeat(64));
  assert.equal(outcome.state, "failed");
  assert.match(outcome.reasons[0] ?? "", /not the expected 0000/);
});

Deno.test("a missing artifact fails and names the file", async () => {
  const folder = await changed(demo, (f) => Deno.remove(join(f, "config.json")));
  await expectState(folder, "failed", /artifact config\.json is missing from the evidence/);
});

Deno.test("an artifact path leaving the folder is refused", async () => {
  const folder = await changed(demo, (f) => relabel(f, { edit: (r) => (r.artifacts[1].path = "../config.json") }));
  await expectState(folder, "failed", /"\.\.\/config\.json" is not a relative path inside the report folder/);
});

Deno.test("a sanity answer the verdict does not support fails, although every hash matches", async () => {
  const folder = await changed(demo, (f) =>
    editOutputs(f, (line) => {
      if (line.request_id === "sanity-I2") line.final_answer = "[9,2,1]";
    }));
  await expectState(folder, "failed", /sanity-I2: results\.json says passed, the saved output fails/);
  await expectState(folder, "failed", /quality\.passed is 12; the saved outputs pass 11 of 12/);
});

Deno.test("a changed quality score, count, token count, summary or round fails with the recomputed value", async () => {
  const edits: [string, (r: Editable) => void, RegExp][] = [
    ["quality", (r) => (r.quality.categories.retrieval.passed = 3), /quality\.categories\.retrieval .* give 4\/4/],
    [
      "counts",
      (r) => (r.request_counts.sanity.completed = 11),
      /request_counts\.sanity\.completed is 11; the records give 12/,
    ],
    [
      "tokens",
      (r) => (r.requests[3].tokens.decode_tokens = 511),
      /performance-prompt-16k-r1: tokens\.decode_tokens is 511/,
    ],
    ["rate", (r) => (r.requests[2].metrics.prompt_tps *= 1.01), /performance-prompt-4k-r1: metrics\.prompt_tps/],
    ["ttft", (r) => (r.requests[1].timings.ttft_s = 0.5), /performance-short-r1: timings\.ttft_s is 0\.5/],
    [
      "thinking time",
      (r) => (r.extensions.reasoning_cadence["performance-short-r1"].thinking_s = 7),
      /performance-short-r1: extensions\.reasoning_cadence\.thinking_s is 7 in results\.json, the raw evidence gives/,
    ],
    [
      "reasoning ITL",
      (r) => (r.extensions.reasoning_itl[1].reasoning_itl_s.max += 0.25),
      /extensions\.reasoning_itl\[1\] \(performance prompt-4k\): reasoning_itl_s\.max is [0-9.]+ in results\.json, the chunk stamps give/,
    ],
    [
      "a gap list kept per request",
      (r) => (r.extensions.reasoning_cadence["performance-prompt-4k-r1"].reasoning_itl_s = [0.01]),
      /performance-prompt-4k-r1: extensions\.reasoning_cadence has unknown fields \["reasoning_itl_s"\]/,
    ],
    [
      "a pooled case left out",
      (r) => r.extensions.reasoning_itl.pop(),
      /extensions\/reasoning_itl lists 2 cases; the evidence has 3 with a measured request that reasoned/,
    ],
    [
      "no cadence",
      (r) => (r.extensions.reasoning_cadence["performance-prompt-16k-r1"] = null),
      /performance-prompt-16k-r1: extensions\.reasoning_cadence lists null for it in results\.json, the raw evidence gives \{/,
    ],
    ["median", (r) => (r.summaries[1].median = 99), /summary short decode_tps: median is 99/],
    ["n", (r) => (r.summaries[6].n = 2), /summary prompt-4k decode_tps: n is 2; the records give 3/],
    [
      "status",
      (r) => (r.requests[12].status = "truncated"),
      /sanity-I3: results\.json says "truncated", the evidence says completed/,
    ],
    [
      "order",
      (r) => r.requests.splice(1, 2, r.requests[2], r.requests[1]),
      /\/requests\/1 \(performance-short-r1\): id is "performance-prompt-4k-r1"/,
    ],
    ["seed", (r) => (r.requests[4].seed = 9), /performance-short-r2\): seed is 9, the protocol's is 2/],
  ];
  for (const [name, edit, reason] of edits) {
    const folder = await changed(demo, (f) => relabel(f, { edit }));
    await expectState(folder, "failed", reason).catch((error) => {
      throw new Error(`edit ${name}: ${error.message}`);
    });
  }
  const rounds = await changed(demo34, (f) => relabel(f, { edit: (r) => (r.concurrency_rounds[1].wall_s += 0.5) }));
  await expectState(rounds, "failed", /concurrency round 2: wall_s .* the evidence's stamps give/);
});

Deno.test("the request's own body must be the scheduled request: marker and seed", async () => {
  // A forger who writes the messages out (no reference, which the line may do) states any body it likes.
  const messages = new Map(
    await Promise.all(["sanity-T1", "sanity-T2"].map(async (id) => {
      const fixture = JSON.parse(
        await Deno.readTextFile(new URL(`../../fixtures/standard-v1/${id}.json`, import.meta.url)),
      );
      return [id, fixture.messages] as const;
    })),
  );
  const spelled = (line: Editable) => {
    delete line.request_ref;
    line.request = { messages: messages.get(line.request_id), ...line.request };
  };
  const folder = await changed(demo, (f) =>
    editOutputs(f, (line) => {
      if (line.request_id === "sanity-T1") spelled(line), line.request.seed = 7;
      if (line.request_id === "sanity-T2") spelled(line), line.request.messages[0].content = "[case sanity-T9]\nUse it";
      // Under the reference, a changed seed no longer hashes to the body sent.
      if (line.request_id === "sanity-T3") line.request.seed = 7;
    }));
  await expectState(folder, "failed", /sanity-T1: the request sent seed 7, the protocol's is 1/);
  await expectState(folder, "failed", /sanity-T2: the request's user message does not start with \[case sanity-T2\]/);
  await expectState(folder, "failed", /line 21: request_ref's body_sha256 is not that of the body rebuilt/);
});

Deno.test("a conforming status is refused when the evidence shows changed settings or a simulated engine", async () => {
  const simulated = await changed(demo, (f) => relabel(f, { edit: (r) => (r.run.status = "complete") }));
  await expectState(
    simulated,
    "failed",
    /run\.status says complete, but the status rules give nonconforming: .*simulated/,
  );
  const greedy = await changed(demo, async (f) => {
    await relabel(f, { status: "complete" });
    await editOutputs(f, (line) => {
      if (line.request_id === "performance-short-r1") line.request.temperature = 0;
    });
  });
  await expectState(greedy, "failed", /performance-short-r1 sent temperature 0, the profile requires 1/);
});

Deno.test("an unknown schema version, protocol id or a legacy report is unverifiable, not failed", async () => {
  const v2 = await changed(demo, (f) => relabel(f, { edit: (r) => (r.schema_version = 2) }));
  await expectState(v2, "unverifiable", /schema_version 2; this site reads only 1/);
  const other = await changed(demo, (f) => relabel(f, { protocolId: "strata-other-v9" }));
  await expectState(other, "unverifiable", /protocol id "strata-other-v9", which this site does not know/);
  const legacy = await changed(demo, (f) => Deno.writeTextFile(join(f, "results.json"), '{"schema":1,"tps":40}'));
  await expectState(legacy, "unverifiable", /format null, not "strata-standard-benchmark": a legacy or other report/);
  const duplicate = await changed(demo, async (f) => {
    const text = await Deno.readTextFile(join(f, "results.json"));
    await Deno.writeTextFile(
      join(f, "results.json"),
      text.replace('"schema_version":1,', '"schema_version":1, "schema_version":1,'),
    );
  });
  await expectState(duplicate, "unverifiable", /not strict JSON \(duplicate key "schema_version"/);
});

Deno.test("site verify prints every check and exits 0 on a genuine folder, 1 with reasons on a changed one", async () => {
  const ok = await strataBench(["site", "verify", demo], ["-P=report"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(
    ok.stdout,
    /ok {2}7 artifacts match their SHA-256 \(outputs\.jsonl, config\.json, template_check\.json, template\.jinja, rates\.svg, latency\.svg, caps\.svg\)/,
  );
  assert.match(ok.stdout, /ok {2}sanity 12\/12 recomputed from the saved outputs equals quality/);
  assert.match(ok.stdout, /verified: every recomputed value equals results\.json/);
  const tampered = await changed(demo, (f) => relabel(f, { edit: (r) => (r.quality.passed = 11) }));
  const bad = await strataBench(["site", "verify", tampered], ["-P=report"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /verification failed:\n {2}- quality\.passed is 11; the saved outputs pass 12 of 12/);
  const missing = await strataBench(["site", "verify", join(root, "nowhere")], ["-P=report"]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /no results\.json there/);
});

Deno.test("site verify reads no symbolic link: a results.json that is a link is not read", async () => {
  const folder = await changed(demo, async (f) => {
    await Deno.rename(join(f, "results.json"), join(root, "elsewhere.json"));
    await Deno.symlink(join(root, "elsewhere.json"), join(f, "results.json"));
  });
  const outcome = await check(folder);
  assert.equal(outcome.state, "failed");
  assert.match(outcome.reasons[0] ?? "", /no results\.json/);
});

globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
