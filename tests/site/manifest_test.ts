/** The approved manifest contract: the file's shape, each entry's fields, and the rules across entries. */
import assert from "node:assert/strict";
import { isUtcTimestamp, manifestText, readManifest } from "../../site/web/manifest.js";

const entry = (change: Record<string, unknown> = {}) => ({
  run_id: "20260501T120000Z-abc123",
  protocol_id: "strata-qwen38-thinking-v1-draft.1",
  results_path: "bench/results/2026-05-01-standard-rtx-3060-20260501T120000Z-abc123/results.json",
  results_sha256: "a".repeat(64),
  evidence_commit: "b".repeat(40),
  review_pr: "https://github.com/example/results/pull/12",
  reviewed_by: "maintainer-one",
  reviewed_at: "2026-05-02T09:00:00Z",
  verification: "evidence-reviewed",
  reproduction_run_ids: [],
  ...change,
});
const file = (entries: unknown[]) =>
  JSON.stringify({ format: "strata-approved-benchmarks", schema_version: 1, entries });

Deno.test("a well-formed manifest reads with every entry usable, and manifestText round-trips it", () => {
  const read = readManifest(file([entry()]));
  assert.ok(read.ok);
  assert.deepEqual(read.entries[0]?.problems, []);
  const again = readManifest(manifestText([read.entries[0]!.entry!]));
  assert.ok(again.ok);
  assert.deepEqual({ ...again.entries[0]?.entry }, entry());
});

Deno.test("the file itself must be strict JSON of the known format and schema version", () => {
  const cases: [string, RegExp][] = [
    ["{", /not strict JSON/],
    ['{"format":"strata-approved-benchmarks","schema_version":1,"entries":[],"entries":[]}', /duplicate key "entries"/],
    [JSON.stringify({ format: "other", schema_version: 1, entries: [] }), /format is "other"/],
    [
      JSON.stringify({ format: "strata-approved-benchmarks", schema_version: 2, entries: [] }),
      /schema_version 2 is unknown/,
    ],
    [
      JSON.stringify({ format: "strata-approved-benchmarks", schema_version: 1, entries: {} }),
      /entries is not an array/,
    ],
    [
      JSON.stringify({ format: "strata-approved-benchmarks", schema_version: 1, entries: [], approved: true }),
      /unknown top-level field\(s\) approved/,
    ],
  ];
  for (const [text, reason] of cases) {
    const read = readManifest(text);
    assert.equal(read.ok, false, text);
    if (!read.ok) assert.match(read.problem, reason);
  }
});

Deno.test("each malformed entry is named with its problem while the others stay usable", () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ evidence_commit: "abc123" }, /evidence_commit: expected a full commit id/],
    [{ evidence_commit: "B".repeat(40) }, /evidence_commit: expected a full commit id/],
    [{ results_sha256: "A".repeat(64) }, /results_sha256: expected a lowercase 64-digit SHA-256/],
    [{ results_path: "/abs/results.json" }, /results_path: expected a repository-relative path/],
    [{ results_path: "bench/results/../x/results.json" }, /results_path/],
    [{ results_path: "bench/results/x/README.md" }, /results_path/],
    [{ review_pr: "http://github.com/x/y/pull/1" }, /review_pr: expected an https URL/],
    [{ review_pr: "javascript:alert(1)" }, /review_pr/],
    [{ reviewed_by: "-bad-" }, /reviewed_by: expected a GitHub handle/],
    [{ reviewed_at: "2026-05-02 09:00:00" }, /reviewed_at: expected a UTC ISO 8601 time/],
    [{ reviewed_at: "2026-02-30T09:00:00Z" }, /reviewed_at/],
    [{ verification: "approved" }, /verification: expected evidence-reviewed or independently-reproduced/],
    [{ verification: "independently-reproduced" }, /needs the reproduction run ids/],
    [{ reproduction_run_ids: ["x"] }, /must be empty for evidence-reviewed/],
    [{ approved: true }, /approved: unknown field/],
    [{ run_id: "" }, /run_id: expected a nonempty run id/],
  ];
  for (const [change, reason] of bad) {
    const read = readManifest(file([entry(change), entry({ run_id: "good" })]));
    assert.ok(read.ok);
    assert.equal(read.entries[0]?.entry, null, JSON.stringify(change));
    assert.ok(
      read.entries[0]?.problems.some((p) => reason.test(p)),
      `${JSON.stringify(change)}: ${read.entries[0]?.problems}`,
    );
    assert.deepEqual(read.entries[1]?.problems, [], "the other entry is unaffected");
  }
  const missing = readManifest(file([{ run_id: "x" }]));
  assert.ok(missing.ok);
  assert.match(missing.entries[0]!.problems.join("\n"), /protocol_id: missing/);
  assert.equal(missing.entries[0]!.label, "x");
});

Deno.test("run ids are unique, and reproduction ids must be entries, never the entry itself", () => {
  const duplicate = readManifest(file([entry(), entry()]));
  assert.ok(duplicate.ok);
  assert.match(duplicate.entries[1]!.problems.join(), /appears more than once/);
  const dangling = readManifest(
    file([entry({ verification: "independently-reproduced", reproduction_run_ids: ["nope"] })]),
  );
  assert.ok(dangling.ok);
  assert.match(dangling.entries[0]!.problems.join(), /nope is not an entry of this manifest/);
  const self = readManifest(
    file([entry({ verification: "independently-reproduced", reproduction_run_ids: [entry().run_id] })]),
  );
  assert.ok(self.ok);
  assert.match(self.entries[0]!.problems.join(), /cannot reproduce itself/);
  const pair = readManifest(file([
    entry({ verification: "independently-reproduced", reproduction_run_ids: ["second"] }),
    entry({ run_id: "second", verification: "independently-reproduced", reproduction_run_ids: [entry().run_id] }),
  ]));
  assert.ok(pair.ok);
  assert.deepEqual(pair.entries.map((e) => e.problems), [[], []]);
});

Deno.test("UTC timestamps: seconds and Z required, real calendar dates only", () => {
  assert.ok(isUtcTimestamp("2026-05-01T12:00:00Z"));
  assert.ok(isUtcTimestamp("2026-05-01T12:00:00.123Z"));
  assert.ok(!isUtcTimestamp("2026-05-01T12:00:00+02:00"));
  assert.ok(!isUtcTimestamp("2026-13-01T12:00:00Z"));
  assert.ok(!isUtcTimestamp("2026-05-01T12:00Z"));
});

Deno.test("a superseded entry stays beside its replacement; a withdrawn run keeps its reason in the manifest", () => {
  const by = {
    results_sha256: "c".repeat(64),
    review_pr: "https://github.com/example/results/pull/13",
    reviewed_at: "2026-05-03T09:00:00Z",
  };
  const kept = readManifest(file([entry({ superseded_by: by }), entry({ results_sha256: "c".repeat(64) })]));
  assert.ok(kept.ok);
  assert.deepEqual(kept.entries.map((e) => e.problems), [[], []]);
  const text = manifestText(kept.entries.map((e) => e.entry!));
  assert.deepEqual(JSON.parse(text).entries[0].superseded_by, by);
  // The replacement must be there with the hash the old entry names; two current entries of one run are refused.
  const orphan = readManifest(file([entry({ superseded_by: by })]));
  assert.ok(orphan.ok);
  assert.match(orphan.entries[0]!.problems.join(), /superseded_by: no current entry of .* has results_sha256 c{64}/);
  const twice = readManifest(file([entry(), entry()]));
  assert.ok(twice.ok);
  assert.match(twice.entries[0]!.problems.join(), /appears more than once/);
  const bad = readManifest(file([entry({ superseded_by: { results_sha256: "x" } })]));
  assert.ok(bad.ok);
  assert.match(bad.entries[0]!.problems.join(), /superseded_by: expected/);

  const withdrawn = {
    run_id: "20260401T000000Z-old",
    results_sha256: "d".repeat(64),
    reason: "the engine log showed a second workload on the GPU",
    review_pr: "https://github.com/example/results/pull/14",
    withdrawn_at: "2026-05-04T09:00:00Z",
  };
  const withReason = readManifest(JSON.stringify({ ...JSON.parse(file([entry()])), withdrawn: [withdrawn] }));
  assert.ok(withReason.ok);
  assert.deepEqual(withReason.withdrawn.map((w) => ({ ...w })), [withdrawn]);
  assert.deepEqual(JSON.parse(manifestText([entry()], [withdrawn])).withdrawn, [withdrawn]);
  const back = readManifest(
    JSON.stringify({ ...JSON.parse(file([entry({ run_id: withdrawn.run_id })])), withdrawn: [withdrawn] }),
  );
  assert.ok(back.ok);
  assert.match(back.entries[0]!.problems.join(), /is listed as withdrawn/);
  const noReason = readManifest(
    JSON.stringify({ ...JSON.parse(file([])), withdrawn: [{ ...withdrawn, reason: " " }] }),
  );
  assert.equal(noReason.ok, false);
});
