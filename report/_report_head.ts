/**
 * The first screen of a report: what a reviewer needs before anything else. A title that names only what is known
 * (machine, model, quantization, protocol), the simulated label, status and why, sanity x/12, machine, model,
 * engine and configuration, the durations the protocol keeps apart (model hashing, model load), and the headline
 * numbers (prompt tok/s at 4K and 16K, decode tok/s, TTFT) with their ranges. Values are formatted as stored.
 */
import { PERFORMANCE_CASES, type Result, type Summary } from "../contract/mod.ts";
import { leftOutOfReadout } from "../score/mod.ts";
import * as f from "./_format.ts";
import { missingGroup, missingLabel } from "./_missing_groups.ts";

/** What a null of the first screen is: "not given (pass --model-id)", "not measurable here" or "failed". */
function absent(result: Result, pointer: string): string {
  const reason = result.missing[pointer];
  if (reason === undefined) return f.NOT_MEASURED;
  const label = missingLabel(reason, pointer);
  return label.startsWith("not given") ? label : missingGroup(reason, pointer);
}

/** Label shown when `extensions.simulated_engine` is true. */
export const SIMULATED_LABEL =
  "SIMULATED ENGINE: these numbers come from the scripted test engine, not from a real inference engine; " +
  "they say nothing about any hardware.";

/** Whether the result says it was measured against the scripted engine. */
export function isSimulated(result: Result): boolean {
  return result.extensions?.["simulated_engine"] === true;
}

/** Reasons listed in `extensions.nonconforming_reasons`, when it is an array of strings. */
export function nonconformingReasons(result: Result): string[] {
  const reasons = result.extensions?.["nonconforming_reasons"];
  return Array.isArray(reasons) ? reasons.filter((r): r is string => typeof r === "string") : [];
}

/** GPU names counted ("2x NVIDIA RTX A4000"); null when the GPUs are unknown, "" when the machine has none. */
export function gpuNames(result: Result): string | null {
  const gpus = result.hardware.gpus;
  if (gpus === null) return null;
  const counted = new Map<string, number>();
  for (const gpu of gpus) counted.set(gpu.name, (counted.get(gpu.name) ?? 0) + 1);
  return [...counted].map(([name, n]) => (n > 1 ? `${n}x ${name}` : name)).join(" + ");
}

/** The machine as a title names it: its GPUs; the CPU of a machine known to have none; null when unknown. */
function machineTitle(result: Result): string | null {
  const names = gpuNames(result);
  if (names === null) return null;
  if (names !== "") return names;
  return result.hardware.cpu === null ? "no GPU" : `${result.hardware.cpu} (no GPU)`;
}

/** The model as a title names it: its id, else its first file's name; null when neither is known. */
export function modelTitle(result: Result): string | null {
  return result.model.id ?? result.model.files?.[0]?.path ?? null;
}

/** Known parts only: machine / model / quantization / protocol id (the protocol is always known). */
export function reportTitle(result: Result): string {
  const parts = [machineTitle(result), modelTitle(result), result.model.quantization, result.protocol.id];
  return parts.filter((p): p is string => p !== null && p !== "").map(f.oneLine).join(" / ");
}

const STATUS_WHY_SHOWN = 2;

/** "nonconforming: reason; reason; and 2 more (see Status)", "complete", "partial: 13 of 22 ... skipped". */
function statusLine(result: Result, skipped: readonly string[]): string {
  // A reason that names the status itself ("partial: 5 of 22 ...") is not prefixed with it a second time.
  const own = `${result.run.status}: `;
  const why = [...nonconformingReasons(result).map(f.oneLine), ...skipped].map((w) =>
    w.startsWith(own) ? w.slice(own.length) : w
  );
  if (why.length === 0) return result.run.status;
  const shown = why.slice(0, STATUS_WHY_SHOWN).join("; ");
  const more = why.length > STATUS_WHY_SHOWN ? `; and ${why.length - STATUS_WHY_SHOWN} more (see Status)` : "";
  return `${result.run.status}: ${shown}${more}`;
}

function machineLine(result: Result): string {
  const { hardware, software } = result;
  const gpus = hardware.gpus === null
    ? `GPU ${absent(result, "/hardware/gpus")}`
    : hardware.gpus.length === 0
    ? "no GPU"
    : hardware.gpus.map((g) => `${g.name} (${f.bytes(g.memory_bytes, false)} ${f.text(g.memory_kind)})`).join(", ");
  return [
    gpus,
    `CPU ${f.text(hardware.cpu)}`,
    `RAM ${f.bytes(hardware.ram_bytes, false)}`,
    `OS ${f.nameVersions(software.os)}`,
  ].join("; ");
}

function modelLine(result: Result): string {
  const m = result.model;
  const files = m.files === null
    ? `files ${f.NOT_MEASURED}`
    : m.files.length === 0
    ? "no model file"
    : `${m.files.length === 1 ? "file" : `${m.files.length} files:`} ${
      m.files.map((file, i) =>
        `${file.path} (sha256 ${file.sha256 === null ? absent(result, `/model/files/${i}/sha256`) : file.sha256})`
      ).join(", ")
    }`;
  const quantization = m.quantization === null ? absent(result, "/model/quantization") : f.oneLine(m.quantization);
  return `${
    m.id === null ? `id ${absent(result, "/model/id")}` : f.oneLine(m.id)
  }; quantization ${quantization}; ${files}`;
}

function engineLine(result: Result): string {
  const s = result.software;
  const c = result.configuration;
  const dialect = result.extensions?.["dialect"];
  return [
    `${f.text(s.engine_version)}${typeof dialect === "string" ? ` (${f.oneLine(dialect)} dialect)` : ""}`,
    `commit ${s.strata_commit === null ? absent(result, "/software/strata_commit") : f.oneLine(s.strata_commit)}`,
    `track ${c.track}`,
    `context ${c.context_tokens === null ? f.NOT_MEASURED : `${c.context_tokens} tokens`}`,
    `${c.server_capacity === null ? `capacity ${f.NOT_MEASURED}` : `${c.server_capacity} slot(s)`}`,
  ].join("; ");
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
}

/**
 * "model hashing 41.2 s (44.0 GiB read)", "model hashing 0.0 s (every file from the hash cache)", or not measured:
 * the runner hashes model files before the run; the protocol keeps that time out of it and asks for it apart.
 */
export function hashingText(result: Result): string {
  const hashing = record(result.extensions?.["model_hashing"]);
  const seconds = hashing?.["hash_seconds"];
  const bytes = hashing?.["hashed_bytes"];
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return `model hashing ${f.NOT_MEASURED}`;
  const read = typeof bytes === "number" && bytes > 0
    ? ` (${f.bytes(bytes, false)} read)`
    : (result.model.files?.length ?? 0) > 0
    ? " (nothing read: cached hashes or no readable file)"
    : "";
  return `model hashing ${seconds.toFixed(seconds < 10 ? 2 : 1)} s${read}`;
}

/** "model load 12.3 s (engine started from its profile)", or not measured with the reason. */
export function loadText(result: Result): string {
  const load = record(result.extensions?.["engine_load"]);
  const seconds = load?.["load_seconds"];
  if (typeof seconds === "number" && Number.isFinite(seconds)) {
    return `model load ${seconds.toFixed(1)} s (the runner started the engine from its profile)`;
  }
  const reason = load?.["reason"];
  return `model load ${f.NOT_MEASURED}${typeof reason === "string" ? ` (${f.oneLine(reason)})` : ""}`;
}

function timeLine(result: Result): string {
  const run = result.run;
  return [
    `required stages ${f.duration(run.required_duration_s)}`,
    run.optional_concurrency ? `optional stage ${f.duration(run.optional_duration_s)}` : "optional stage not selected",
    `apart from the run: ${hashingText(result)}`,
    loadText(result),
  ].join("; ");
}

/** A summary of the result, or undefined. */
export function findSummary(result: Result, phase: string, caseId: string, metric: string): Summary | undefined {
  return result.summaries.find((s) => s.phase === phase && s.case_id === caseId && s.metric === metric);
}

/** The headline table: prompt tok/s (4K, 16K), decode tok/s and TTFT for the three performance cases. */
function headline(result: Result): { head: string[]; rows: string[][] } {
  const metrics = [["prompt_tps", "Prompt tok/s"], ["decode_tps", "Decode tok/s"], ["ttft_s", "TTFT s"]] as const;
  return {
    head: ["median [min-max] n", ...PERFORMANCE_CASES],
    rows: metrics.map(([metric, label]) => [
      label,
      ...PERFORMANCE_CASES.map((caseId) =>
        leftOutOfReadout(metric, caseId)
          ? "left out (*)"
          : f.rangeCell(findSummary(result, "performance", caseId, metric) ?? null, metric)
      ),
    ]),
  };
}

/** The first screen of a report, as plain values for both renderers. */
export interface ReportHead {
  title: string;
  simulated: boolean;
  facts: [string, string][];
  headline: { head: string[]; rows: string[][] };
}

/**
 * " (11 verdicts recomputed from the evidence, 1 stated by the runner)" when results.json lists stated verdicts
 * (/extensions/record_overrides), else "": a verdict the evidence cannot recompute is never shown as if it were.
 */
export function sanityTally(result: Result): string {
  const raw = result.extensions?.["record_overrides"];
  const listed = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? Object.values(raw) : [];
  const stated = listed.filter((pointers) =>
    Array.isArray(pointers) &&
    pointers.some((p) => p === "" || p === "/evaluation" || String(p).startsWith("/evaluation/"))
  ).length;
  if (stated === 0) return "";
  return ` (${result.quality.total - stated} verdicts recomputed from the evidence, ${stated} stated by the runner)`;
}

/** The first screen; `skipped` are the partial-run lines of the Status section (they explain the status too). */
export function reportHead(result: Result, skipped: readonly string[]): ReportHead {
  return {
    title: reportTitle(result),
    simulated: isSimulated(result),
    facts: [
      [
        "Status",
        `${statusLine(result, skipped)}; sanity ${result.quality.passed}/${result.quality.total}${sanityTally(result)}`,
      ],
      ["Machine", machineLine(result)],
      ["Model", modelLine(result)],
      ["Engine", engineLine(result)],
      ["Time", timeLine(result)],
    ],
    headline: headline(result),
  };
}
