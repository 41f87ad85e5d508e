/**
 * `report DIR --pr`: the suggested pull request for a result, as the protocol's "Submit and review" asks: the title
 * `benchmark: <GPU> / <model> / <quant> / <protocol-id>` and a body that links the report, names the required and
 * optional stages with their counts, and lists every failed, skipped, missing or nonconforming measurement.
 * Every fact is read from the validated result; nothing is computed here but the lists.
 */
import { type Result, sha256Hex } from "../contract/mod.ts";
import { DIGEST_KEYS } from "./measured.ts";
import { gpuNames, isSimulated, modelTitle, nonconformingReasons, reportHead } from "./_report_head.ts";
import { notMeasuredLines } from "./_limitations_section.ts";
import { skippedLines } from "./_report_sections.ts";
import { NOT_MEASURED, oneLine } from "./_format.ts";
import { markdownText } from "./_markdown.ts";

/**
 * README.md against the hash the run (or the last seal) recorded: as written, edited by hand, missing from the
 * folder, or not comparable (the run recorded no hash).
 */
export type ReadmeState = "as-written" | "edited" | "missing" | "unrecorded";

/** The state of README.md, from its bytes (null when the folder has none) and the hash the result recorded. */
export function readmeState(result: Result, readme: Uint8Array | null): ReadmeState {
  if (readme === null) return "missing";
  const recorded = result.extensions?.[DIGEST_KEYS.readme];
  if (typeof recorded !== "string") return "unrecorded";
  return sha256Hex(readme) === recorded ? "as-written" : "edited";
}

/** What the body says about the folder besides the result. */
export interface SubmissionFacts {
  /** The result folder's name (its place in the results repository is bench/results/<name>/). */
  folderName: string;
  readme: ReadmeState;
}

const README_LINES: Readonly<Record<ReadmeState, string>> = {
  "as-written": "as the run wrote it",
  edited: "edited after the run (results.json and the evidence are what count)",
  missing: "missing from the folder: restore it before you submit, the pull request links it",
  unrecorded: "not compared (the run recorded no hash of it)",
};

/**
 * The seals recorded in extensions.sealed, as "<time>: <files>" (empty when the folder was never sealed), as
 * Markdown text: the record is the folder's own words, so nothing in it may become markup.
 */
function seals(result: Result): string[] {
  const recorded = result.extensions?.[DIGEST_KEYS.seal];
  if (!Array.isArray(recorded)) return [];
  return recorded.map((seal: { sealed_at?: unknown; rehashed?: { path?: unknown }[] }) => {
    const files = Array.isArray(seal?.rehashed) ? seal.rehashed.map((r) => String(r?.path)).join(", ") : "";
    return markdownText(`${String(seal?.sealed_at)}: ${files === "" ? "no file re-hashed" : `re-hashed ${files}`}`);
  });
}

/**
 * The closing sentence: what results.json records about the folder since the run, and nothing the tool cannot
 * know (whether a person read the folder, or why a file changed).
 */
function checkedLine(result: Result): string {
  const sealed = seals(result);
  const listed = markdownText(result.artifacts.map((a) => a.path).join(", "));
  const hashes = `every file results.json lists (${listed}) matched its recorded SHA-256 and config.json's facts ` +
    "agreed with results.json when `strata-bench report DIR` validated the folder";
  if (sealed.length === 0) {
    return `results.json records no seal, so by its own record no file was re-hashed after the run; ${hashes}. ` +
      "Read it for private data before you submit; after a redaction, `strata-bench report DIR --seal` carries it " +
      "into results.json.";
  }
  return "After the run, these files differed from the run's own digests and a person re-hashed them with " +
    `\`strata-bench report DIR --seal\`, which found nothing measured changed (${sealed.join("; ")}); ${hashes}.`;
}

/** A folder path as a Markdown link target: every segment percent-encoded, parentheses included. */
function linkTarget(path: string): string {
  return path.split("/").map((s) => encodeURIComponent(s).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16)}`))
    .join("/");
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
  const folder = `bench/results/${facts.folderName}/`;
  const report = `${folder}README.md`;
  const link = (path: string) => `[${markdownText(path)}](${linkTarget(path)})`;
  const reportLine = facts.readme === "missing"
    ? `- Report: README.md is missing from ${link(folder)}; restore it before you submit (results.json, ` +
      "outputs.jsonl and every artifact are there)"
    : `- Report: ${link(report)}, with results.json, outputs.jsonl and every artifact beside it`;
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
    reportLine,
    ...head.facts.map(([label, value]) => `- ${label}: ${markdownText(value)}`),
    `- README.md: ${README_LINES[facts.readme]}`,
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
    ...notMeasuredLines(result),
  ];
  out.push(...(items.length > 0 ? items.map((i) => `- ${markdownText(i)}`) : ["- none"]), "");
  out.push(checkedLine(result));
  return `${out.join("\n")}\n`;
}
