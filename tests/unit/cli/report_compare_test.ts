import assert from "node:assert/strict";
import { comparisonEnding, verdictCounts } from "../../../cli/_report_compare.ts";
import { renderEnding } from "../../../cli/_ending.ts";
import type { Comparison } from "../../../report/mod.ts";

type Delta = Comparison["groups"][number]["sections"][number]["deltas"][number];

function delta(candidate: string, verdict: Delta["verdict"]): Delta {
  return {
    caseId: "short",
    concurrency: 1,
    metric: "decode_tps",
    baseline: "A",
    candidate,
    baselineMedian: 40,
    candidateMedian: 44,
    delta: { estimate: 0.1, lower: 0.05, upper: 0.15 },
    verdict,
    why: verdict === "not resolved" ? "the interval includes 0" : null,
    disagreeing: [],
  };
}

function comparison(deltas: Delta[]): Comparison {
  const config = (label: string) =>
    ({ label, differs: [], runs: [], simulated: false }) as unknown as Comparison[
      "groups"
    ][number]["configurations"][number];
  return {
    notes: [],
    groups: [{
      label: "g",
      shared: [],
      configurations: [config("A"), config("B"), config("C")],
      sections: [{ status: "complete", rows: [], deltas }],
    }],
  } as Comparison;
}

Deno.test("the verdicts are counted per candidate, better, worse and not resolved", () => {
  const counted = verdictCounts(comparison([
    delta("B", "better"),
    delta("B", "better"),
    delta("B", "not resolved"),
    delta("C", "worse"),
  ]));
  assert.deepEqual(counted, [
    "B against A: 2 better, 0 worse, 1 not resolved",
    "C against A: 0 better, 1 worse, 0 not resolved",
  ]);
});

Deno.test("the comparison ending names its exit code and each command that shows the rest, one a line", () => {
  const ending = comparisonEnding(comparison([delta("B", "worse")]), 1, ["a", "b"], 1);
  const text = renderEnding(ending);
  const lines = text.trimEnd().split("\n");
  assert.equal(lines[0], "report: 3 configuration(s) in 1 group(s) compared, 1 folder(s) refused (exit 1)");
  assert.equal(lines[1], "  B against A: 0 better, 1 worse, 0 not resolved");
  assert.match(text, /next: strata-bench report a b > comparison\.md \(every metric\)\n/);
  assert.match(text, /\n {6}strata-bench report a b --format csv/);
  assert.match(text, /\n {6}strata-bench report a b --svg/);
  for (const line of lines) assert.ok(line.length <= 100, line);
  // Long folder paths are not spelled out in each command.
  const long = renderEnding(comparisonEnding(comparison([]), 0, ["x".repeat(30), "y".repeat(30)], 0));
  assert.match(long, /strata-bench report FOLDER \.\.\. > comparison\.md/);
  // Nothing compared: no command that would compare nothing again.
  const none = renderEnding(comparisonEnding({ notes: [], groups: [] }, 2, ["a", "b"], 3));
  assert.match(none, /^report: 0 configuration\(s\) in 0 group\(s\) compared, 2 folder\(s\) refused \(exit 3\)\n/);
  assert.match(none, /next: pass the result folders a run wrote/);
  assert.doesNotMatch(none, /--svg/);
});
