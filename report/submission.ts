/**
 * `report DIR --pr`: the suggested pull request for a result, as the protocol's "Submit and review" asks: the title
 * `benchmark: <GPU> / <model> / <quant> / <protocol-id>` and a body that links the report, names the required and
 * optional stages with their counts, and lists every failed, skipped, missing or nonconforming measurement.
 * Every fact is read from the validated result; nothing is computed here but the lists.
 */
import type { Result } from "../contract/mod.ts";
import { gpuNames, isSimulated, modelTitle, nonconformingReasons, reportHead } from "./_report_head.ts";
import { notMeasuredLines, skippedLines } from "./_report_sections.ts";
import { markdownText, NOT_MEASURED, oneLine } from "./_format.ts";

/** What the body says about the folder besides the result. */
export interface SubmissionFacts {
  /** The result folder's name (its place in the results repository is bench/results/<name>/). */
  folderName: string;
  /** Whether README.md differs from what the run wrote (null: the run recorded no hash, or no README). */
  readmeEdited: boolean | null;
}

/** The suggested title; an unknown part reads "not measured", as the protocol's prose does. */
export function prTitle(result: Result): string {
  const gpus = gpuNames(result);
  const machine = gpus === null
    ? `GPU ${NOT_MEASURED}`
    : gpus === ""
    ? `${result.hardware.cpu ?? "CPU"} (no GPU)`
    : gpus;
  const model = modelTitle(result) ?? `model ${NOT_MEASURED}`;
  const quant = result.model.quantization ?? `quantization ${NOT_MEASURED}`;
  return oneLine(`benchmark: ${machine} / ${model} / ${quant} / ${result.protocol.id}`);
}

function stageLine(result: Result, phase: "warmup" | "performance" | "sanity" | "concurrency"): string {
  const c = result.request_counts[phase];
  return `${c.planned} planned, ${c.completed} completed, ${c.truncated} reached the cap, ${c.failed} failed, ` +
    `${c.skipped} skipped`;
}

/** The suggested body (Markdown). */
export function prBody(result: Result, facts: SubmissionFacts): string {
  const report = `bench/results/${facts.folderName}/README.md`;
  const head = reportHead(result, skippedLines(result));
  const out: string[] = [];
  if (isSimulated(result)) {
    out.push(
      "> **Do not submit: this result is a simulation (the scripted engine). It measures no hardware.**",
      "",
    );
  }
  out.push(
    `Results only: one run of protocol \`${result.protocol.id}\`, a draft protocol (pilot data, not an approved ` +
      "standard result). No engine change is part of this pull request.",
    "",
    `- Report: [${report}](${report}), with results.json, outputs.jsonl and every artifact beside it`,
    ...head.facts.map(([label, value]) => `- ${label}: ${markdownText(value)}`),
    `- README.md edited after the run: ${
      facts.readmeEdited === null ? "unknown (no hash recorded)" : facts.readmeEdited ? "yes" : "no"
    }`,
    "",
    "## Stages",
    "",
    "Required (all of them make the score; a skipped one makes the run partial):",
    `- warm-up (not scored): ${stageLine(result, "warmup")}`,
    `- performance (short, 4K, 16K x 3): ${stageLine(result, "performance")}`,
    `- sanity (12 checks): ${stageLine(result, "sanity")}; passed ${result.quality.passed}/${result.quality.total}`,
    "",
    result.run.optional_concurrency
      ? `Optional, selected: concurrency (3 rounds of 4): ${stageLine(result, "concurrency")}`
      : "Optional, not selected: concurrency (3 rounds of 4).",
    "",
    "## Failed, skipped, missing or nonconforming measurements",
    "",
  );
  const items: string[] = [
    ...nonconformingReasons(result).map((r) => `nonconforming: ${oneLine(r)}`),
    ...skippedLines(result),
    ...result.requests.filter((r) => r.status === "failed" || r.status === "skipped").map((r) =>
      `${r.status}: ${r.id}${r.error ? ` (${oneLine(r.error.kind)}: ${oneLine(r.error.message)})` : ""}`
    ),
    ...result.requests.filter((r) => r.evaluation !== null && !r.evaluation.passed).map((r) =>
      `sanity check failed: ${r.case_id} (${r.status}): ${oneLine(r.evaluation!.reason)}`
    ),
    ...notMeasuredLines(result).map((line) => `${NOT_MEASURED}: ${line}`),
  ];
  out.push(...(items.length > 0 ? items.map((i) => `- ${markdownText(i)}`) : ["- none"]), "");
  out.push(
    "Checked before opening this pull request: the folder was read for private data and redacted by hand where " +
      "needed, then `strata-bench report DIR --seal` re-hashed the artifacts and `strata-bench report DIR` " +
      "validated it.",
  );
  return `${out.join("\n")}\n`;
}
