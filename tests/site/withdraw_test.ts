/** `approved withdraw`: the run's entries move to `withdrawn` with the reason; a refusal changes nothing. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ApprovedAddError, withdrawApproved } from "../../site/mod.ts";
import { manifestText, readManifest } from "../../site/web/manifest.js";
import { main } from "../../cli/approved.ts";

const PR = "https://github.com/example/results/pull/";
const entry = (runId: string, sha: string, change: Record<string, unknown> = {}) => ({
  run_id: runId,
  protocol_id: "strata-qwen38-thinking-v1-draft.1",
  results_path: `bench/results/${runId}/results.json`,
  results_sha256: sha.repeat(64),
  evidence_commit: "b".repeat(40),
  review_pr: `${PR}1`,
  reviewed_by: "maintainer-one",
  reviewed_at: "2026-05-02T09:00:00Z",
  verification: "evidence-reviewed",
  reproduction_run_ids: [] as string[],
  ...change,
});

/** A superseded and a current entry of run-a, and run-b which reproduces it. */
const MANIFEST = manifestText([
  entry("run-a", "1", {
    superseded_by: { results_sha256: "2".repeat(64), review_pr: `${PR}2`, reviewed_at: "2026-05-03T09:00:00Z" },
  }),
  entry("run-a", "2", { verification: "independently-reproduced", reproduction_run_ids: ["run-b"] }),
  entry("run-b", "3", { verification: "independently-reproduced", reproduction_run_ids: ["run-a"] }),
]);

function memory(text: string | null) {
  const files = { text, writes: 0 };
  return {
    files,
    io: {
      readManifest: () => Promise.resolve(files.text),
      writeManifest: (t: string) => Promise.resolve(void (files.writes++, files.text = t)),
    },
  };
}

const options = {
  runId: "run-a",
  reason: "the GPU was throttling",
  reviewPr: `${PR}9`,
  now: new Date("2026-06-01T12:00:00.5Z"),
};

Deno.test("withdraw moves every entry of the run into withdrawn with its reason and unlinks its reproductions", async () => {
  const { files, io } = memory(MANIFEST);
  const record = await withdrawApproved(io, options);
  assert.deepEqual(record, {
    run_id: "run-a",
    results_sha256: "2".repeat(64),
    reason: "the GPU was throttling",
    review_pr: `${PR}9`,
    withdrawn_at: "2026-06-01T12:00:00Z",
  });
  const read = readManifest(files.text!);
  assert.ok(read.ok);
  assert.deepEqual(read.entries.map((e) => [e.entry?.run_id, e.entry?.verification, e.entry?.reproduction_run_ids]), [
    ["run-b", "evidence-reviewed", []],
  ]);
  assert.deepEqual(read.withdrawn.map((w) => ({ ...w })), [record]);
  assert.equal(files.writes, 1);
});

Deno.test("withdraw refuses an unknown or already withdrawn run id, a blank reason or a bad review, writing nothing", async () => {
  const { files, io } = memory(MANIFEST);
  await withdrawApproved(io, options);
  const after = files.text;
  const refusals: [Partial<typeof options>, RegExp][] = [
    [{}, /Cannot withdraw run-a: it was withdrawn already/],
    [{ runId: "run-z" }, /Cannot withdraw run-z: no entry of the manifest has that run id/],
    [{ runId: "run-b", reason: "  " }, /--reason needs the reason in words/],
    [
      { runId: "run-b", reviewPr: "http://example.com/1" },
      /--review-pr "http:\/\/example\.com\/1" is not an https URL/,
    ],
  ];
  for (const [change, reason] of refusals) {
    await assert.rejects(
      withdrawApproved(io, { ...options, ...change }),
      (e) => e instanceof ApprovedAddError && reason.test(e.message),
    );
  }
  assert.equal(files.text, after);
  assert.equal(files.writes, 1);
  await assert.rejects(withdrawApproved(memory(null).io, options), /there is no bench\/approved\.json/);
});

Deno.test("approved withdraw on the command line: exit 0 and the manifest rewritten; a refusal is exit 1, a usage error 2", async () => {
  const repo = await Deno.makeTempDir({ prefix: "strata-withdraw-" });
  try {
    const path = join(repo, "bench/approved.json");
    await Deno.mkdir(join(repo, "bench"));
    await Deno.writeTextFile(path, MANIFEST);
    const args = ["withdraw", "run-b", "--repo", repo, "--reason", "reran on a cooler GPU", "--review-pr", `${PR}10`];
    assert.equal(await main(args), 0);
    const read = readManifest(await Deno.readTextFile(path));
    assert.ok(read.ok);
    assert.deepEqual(read.withdrawn.map((w) => [w.run_id, w.reason]), [["run-b", "reran on a cooler GPU"]]);
    assert.deepEqual(read.entries.map((e) => e.entry?.reproduction_run_ids), [[], []]);
    const written = await Deno.readTextFile(path);
    assert.equal(await main(args), 1);
    assert.equal(await main(["withdraw", "run-a", "--repo", repo, "--review-pr", `${PR}10`]), 2);
    assert.equal(
      await main([...args.slice(0, 4), "--reviewed-by", "someone", "--reason", "x", "--review-pr", `${PR}1`]),
      2,
    );
    assert.equal(await Deno.readTextFile(path), written);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});
