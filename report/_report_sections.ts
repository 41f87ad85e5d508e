/**
 * The facts a person reads about one result, gathered once as neutral sections (labelled values, tables, lists,
 * pictures) so the README and the console summary say the same things, in reading order: the first screen
 * (`_report_head.ts`), the per-case table, the pictures, the optional rounds, sanity, failures, the status in
 * full, the run's details, and the long tail (limitations and every value not measured, one line per reason),
 * then the evidence files. Values are formatted as stored; the per-case numbers are score/'s case readouts.
 */
import { METRICS, type Result, SANITY_IDS } from "../contract/mod.ts";
import { type CaseReadout, LEFT_OUT_NOTE, leftOutOfReadout, readCases } from "../score/mod.ts";
import * as f from "./_format.ts";
import { findSummary, isSimulated, nonconformingReasons, SIMULATED_LABEL } from "./_report_head.ts";
import { PICTURE_FILES } from "./pictures.ts";
import { MISSING_GROUPS, missingLabel } from "./_missing_groups.ts";
import { roundsSection } from "./_rounds_section.ts";

export { isSimulated, nonconformingReasons, reportHead, SIMULATED_LABEL } from "./_report_head.ts";
export type { ReportHead } from "./_report_head.ts";

import type { Section } from "./_section.ts";
export type { Cell, Section } from "./_section.ts";

const STATUS_MEANING = {
  complete: "every required request was attempted and its outcome recorded (it does not mean every check passed)",
  partial: "required work was skipped or interrupted; this is not a full-suite result",
  nonconforming: "the run departs from the protocol; it is not comparable with standard results",
} as const;

const METRIC_HEADINGS = {
  prompt_tps: "Prompt tok/s",
  decode_tps: "Decode tok/s",
  ttft_s: "TTFT s",
  first_answer_s: "First answer s",
  total_s: "Total s",
} as const;

/** The note on the short prompt's rate, wherever it is left out (score/'s one wording). */
export const SHORT_PROMPT_NOTE = LEFT_OUT_NOTE;

/** `extensions.server_prior_requests` as the run recorded it (the server probe's reading), or null. */
interface PriorRequestsReading {
  served: number | null;
  atLeast: number;
  freshlyLoaded: boolean | null;
  evidence: string[];
  reason: string | null;
}

function priorRequests(result: Result): PriorRequestsReading | null {
  const raw = result.extensions?.["server_prior_requests"];
  if (typeof raw !== "object" || raw === null) return null;
  const r = raw as Record<string, unknown>;
  return {
    served: typeof r["served"] === "number" ? r["served"] : null,
    atLeast: typeof r["at_least"] === "number" ? r["at_least"] : 0,
    freshlyLoaded: typeof r["freshly_loaded"] === "boolean" ? r["freshly_loaded"] : null,
    evidence: Array.isArray(r["evidence"]) ? r["evidence"].filter((e): e is string => typeof e === "string") : [],
    reason: typeof r["reason"] === "string" ? r["reason"] : null,
  };
}

/**
 * "not freshly loaded: the server had already answered at least 1 request(s) before this run (evidence: ...)",
 * "not known to be freshly loaded: ...", or null for a freshly loaded server. The protocol asks for a newly loaded engine
 * and, when the server was already serving, for the report to say how many requests it had answered.
 */
function priorRequestsLine(result: Result): string | null {
  const prior = priorRequests(result);
  if (prior === null || prior.freshlyLoaded === true) return null;
  const evidence = prior.evidence.length > 0 ? ` (evidence: ${prior.evidence.map(f.oneLine).join("; ")})` : "";
  if (prior.freshlyLoaded === null) {
    return `not known to be freshly loaded: the runner could not tell whether the server had answered requests ` +
      `before this run${prior.reason === null ? "" : ` (${f.oneLine(prior.reason)})`}${evidence}`;
  }
  const count = prior.served !== null ? `${prior.served}` : `at least ${prior.atLeast}`;
  return `not freshly loaded: the server had already answered ${count} request(s) before this run${evidence}; ` +
    "restart the engine before a run to measure a newly loaded one";
}

/** "partial: 13 of 22 required requests were skipped (warmup 0, performance 1, sanity 12)", from request_counts. */
export function skippedLines(result: Result): string[] {
  const counts = result.request_counts;
  const phases = ["warmup", "performance", "sanity"] as const;
  const skipped = phases.reduce((sum, phase) => sum + counts[phase].skipped, 0);
  const planned = phases.reduce((sum, phase) => sum + counts[phase].planned, 0);
  const lines: string[] = [];
  if (skipped > 0) {
    lines.push(
      `partial: ${skipped} of ${planned} required requests were skipped (` +
        `${phases.map((phase) => `${phase} ${counts[phase].skipped}`).join(", ")}); this is not a full-suite result`,
    );
  }
  if (counts.concurrency.skipped > 0) {
    lines.push(
      `optional stage incomplete: ${counts.concurrency.skipped} of ${counts.concurrency.planned} concurrency ` +
        "requests were skipped",
    );
  }
  return lines;
}

function statusSection(result: Result): Section {
  const items = [
    ...nonconformingReasons(result).map((r) => `nonconforming: ${f.oneLine(r)}`),
    // Also under nonconforming: a run that stopped early must not read like a full suite with a rule broken.
    ...skippedLines(result),
    ...[priorRequestsLine(result)].filter((line): line is string => line !== null),
  ];
  return {
    title: "Status",
    paragraphs: [`${result.run.status}: ${STATUS_MEANING[result.run.status]}.`],
    ...(isSimulated(result) ? { notes: [SIMULATED_LABEL] } : {}),
    ...(items.length > 0 ? { items } : {}),
  };
}

function runSection(result: Result): Section {
  const { protocol, run } = result;
  return {
    title: "Protocol and run",
    pairs: [
      ["Protocol", `${protocol.id} (draft), profile ${protocol.profile}`],
      ["Result format", `${result.format}, schema version ${result.schema_version}`],
      ["Protocol commit", f.text(protocol.git_commit)],
      ["Corpus SHA-256", protocol.corpus_sha256],
      ["Model card revision", f.text(protocol.model_card_revision)],
      ["Run id", run.id],
      ["Started at", run.started_at],
      ["Required stages took", f.duration(run.required_duration_s)],
      ["Optional concurrency", run.optional_concurrency ? f.duration(run.optional_duration_s) : "not selected"],
      ["Command", f.oneLine(run.command)],
    ],
  };
}

function hardwareSection(result: Result): Section {
  const { hardware } = result;
  const gpus = hardware.gpus === null
    ? [f.NOT_MEASURED]
    : hardware.gpus.map((gpu) =>
      `#${gpu.device_index} ${gpu.name}, ${f.bytes(gpu.memory_bytes)} ${f.text(gpu.memory_kind)} memory, ` +
      `power limit ${gpu.power_limit_w === null ? f.NOT_MEASURED : `${gpu.power_limit_w} W`}`
    );
  const storage = hardware.storage === null
    ? f.NOT_MEASURED
    : hardware.storage.map((s) => `${f.text(s.kind)} ${f.text(s.model)} on ${f.text(s.bus)}`).join("; ") || "none";
  return {
    title: "Hardware",
    pairs: [
      ...gpus.map((gpu, i): [string, string] => [gpus.length > 1 ? `GPU ${i + 1}` : "GPU", gpu]),
      ["CPU", f.text(hardware.cpu)],
      ["RAM", f.bytes(hardware.ram_bytes)],
      ["Storage", storage],
      ["Background workloads", f.list(hardware.background_workloads)],
    ],
  };
}

function softwareSection(result: Result): Section {
  const s = result.software;
  return {
    title: "Software",
    pairs: [
      ["OS", f.nameVersions(s.os)],
      ["Drivers", f.nameVersions(s.drivers)],
      ["Runtime", f.nameVersions(s.runtime)],
      ["Engine version", f.text(s.engine_version)],
      ["Engine commit", f.text(s.strata_commit)],
      ["Build kind", f.text(s.build_kind)],
      ["Build options", f.list(s.build_options)],
      ["Runner commit", f.text(s.runner_commit)],
    ],
  };
}

function modelSection(result: Result): Section {
  const m = result.model;
  const files = m.files === null
    ? f.NOT_MEASURED
    : m.files.map((file) => `${file.path} (sha256 ${f.text(file.sha256)})`).join("; ") || "none";
  return {
    title: "Model",
    pairs: [
      ["Model", f.text(m.id)],
      ["Quantization", f.text(m.quantization)],
      ["Revision", f.text(m.revision)],
      ["Source revision", f.text(m.source_revision)],
      ["Tokenizer revision", f.text(m.tokenizer_revision)],
      ["Custom pack", f.text(m.custom_pack)],
      ["Files", files],
    ],
  };
}

function configurationSection(result: Result): Section {
  const c = result.configuration;
  const s = c.sampling;
  return {
    title: "Configuration",
    pairs: [
      ["Track", c.track],
      ["Track notes", f.text(c.track_notes)],
      ["Context", c.context_tokens === null ? f.NOT_MEASURED : `${c.context_tokens} tokens`],
      ["Server capacity", c.server_capacity === null ? f.NOT_MEASURED : `${c.server_capacity} slot(s)`],
      ["KV cache", f.options(c.kv_cache)],
      ["Expert cache", f.options(c.expert_cache)],
      ["Offloading", f.options(c.offloading)],
      ["Prefill", f.options(c.prefill)],
      ["MTP", f.options(c.mtp)],
      ["Calibration", f.options(c.calibration)],
      ["Experimental options", f.options(c.experimental_options)],
      ["Template", c.template === null ? f.NOT_MEASURED : `${c.template.path} (sha256 ${c.template.sha256})`],
      [
        "Sampling",
        `temperature ${s.temperature}, top_p ${s.top_p}, top_k ${s.top_k}, min_p ${s.min_p}, presence_penalty ` +
        `${s.presence_penalty}, repetition_penalty ${s.repetition_penalty}, reasoning_effort ${s.reasoning_effort}`,
      ],
      [
        "Chat template kwargs",
        `enable_thinking ${c.chat_template_kwargs.enable_thinking}, ` +
        `preserve_thinking ${c.chat_template_kwargs.preserve_thinking}`,
      ],
    ],
  };
}

function countsSection(result: Result): Section {
  const fields = ["planned", "attempted", "completed", "truncated", "failed", "skipped"] as const;
  return {
    title: "Requests",
    table: {
      head: ["Phase", ...fields],
      rows: (["warmup", "performance", "sanity", "concurrency"] as const).map((phase) => [
        phase,
        ...fields.map((field) => String(result.request_counts[phase][field])),
      ]),
    },
  };
}

function caseLabel(c: CaseReadout): string {
  return c.phase === "concurrency" ? `${c.caseId} x${c.concurrency}` : c.caseId;
}

function perCaseSection(result: Result): Section {
  const rows = readCases(result).map((c) => {
    const cells = METRICS.map((metric) =>
      leftOutOfReadout(metric, c.caseId)
        ? "left out (*)"
        : f.rangeCell(findSummary(result, c.phase, c.caseId, metric) ?? null, metric)
    );
    return [
      caseLabel(c),
      `${c.capped}/${c.records}`,
      f.tokenRange(c.inputTokens),
      f.tokenRange(c.cachedTokens),
      f.tokenRange(c.outputTokens),
      ...cells,
    ];
  });
  return {
    title: "Per case",
    paragraphs: [
      "Token counts are the engine's own (input includes cached; cached is prompt reuse the protocol allows), as " +
      "median [min-max] over the case's measured requests. Rates and latencies are median [min-max] n over the " +
      "valid requests. Capped counts the requests that stopped at the output cap: their total time is the time " +
      "to the cap, and they have no first-answer time. Requests left out of a summary are listed under " +
      "Limitations.",
    ],
    table: {
      head: [
        "Case",
        "Capped",
        "Input tokens",
        "Cached tokens",
        "Output tokens",
        ...METRICS.map((m) => METRIC_HEADINGS[m]),
      ],
      rows,
    },
    notes: [SHORT_PROMPT_NOTE],
  };
}

function picturesSection(result: Result): Section | null {
  const drawn = new Set(result.artifacts.filter((a) => a.kind === "provenance").map((a) => a.path));
  const captions: [string, string][] = [
    [PICTURE_FILES.rates, "Prompt and decode tokens/s per case, median and min-max"],
    [PICTURE_FILES.latency, "TTFT and first-answer latency per case, median and min-max"],
    [PICTURE_FILES.caps, "Requests per case that reached the output cap"],
    [PICTURE_FILES.rounds, "Optional stage: aggregate output tokens/s per round"],
  ];
  const images = captions.filter(([file]) => drawn.has(file)).map(([file, caption]) => ({ file, caption }));
  const problem = result.extensions?.["pictures_problem"];
  if (images.length === 0 && typeof problem !== "string") return null;
  return {
    title: "Pictures",
    images,
    ...(typeof problem === "string" ? { notes: [f.oneLine(problem)] } : {}),
  };
}

function sanitySection(result: Result): Section {
  const q = result.quality;
  const failing = SANITY_IDS.flatMap((id) => {
    const record = result.requests.find((r) => r.id === `sanity-${id}`);
    const evaluation = record?.evaluation;
    if (!record) return [`${id}: no record`];
    if (!evaluation) return [`${id}: ${f.NOT_MEASURED}`];
    return evaluation.passed
      ? []
      : [`${id} (${evaluation.category}, ${record.status}): ${f.oneLine(evaluation.reason)}`];
  });
  return {
    title: `Sanity checks: ${q.passed}/${q.total} passed`,
    paragraphs: [
      `instruction ${q.categories.instruction.passed}/${q.categories.instruction.total}, retrieval ` +
      `${q.categories.retrieval.passed}/${q.categories.retrieval.total}, tool_call ` +
      `${q.categories.tool_call.passed}/${q.categories.tool_call.total}. Sanity outcomes: ` +
      `${result.request_counts.sanity.completed} completed, ${result.request_counts.sanity.truncated} truncated, ` +
      `${result.request_counts.sanity.failed} failed, ${result.request_counts.sanity.skipped} skipped.`,
    ],
    items: failing.length > 0 ? failing : ["every case passed"],
  };
}

function failuresSection(result: Result): Section {
  // "sanity-I1: skipped: <reason>" (the error kind of a skip is "skipped" again), "x: failed, timeout: <message>".
  const failures = result.requests.filter((r) => r.status === "failed" || r.status === "skipped").map((r) => {
    if (!r.error) return `${r.id}: ${r.status}`;
    const kind = r.error.kind === r.status ? "" : `, ${f.oneLine(r.error.kind)}`;
    return `${r.id}: ${r.status}${kind}: ${f.oneLine(r.error.message)}`;
  });
  return {
    title: "Failures",
    items: failures.length > 0 ? failures : ["none: every scheduled request completed or reached its cap"],
  };
}

/** Request fields whose null is a missing measurement (the others are null because they do not apply). */
const MEASURED_GROUPS = ["tokens", "timings", "metrics"];

/**
 * Where a null of `missing` is shown: run-level pointers as they are, request measurements as "<request id>
 * <field>", summary statistics as "<case> <metric> summary", and not-applicable request fields (error of a
 * completed request, round outside the optional stage...) not at all; they stay in results.json.
 */
function limitationPlace(result: Result, pointer: string): string | null {
  const summary = /^\/summaries\/(\d+)\/(?:median|min|max)$/.exec(pointer);
  if (summary) {
    const s = result.summaries[Number(summary[1])];
    return s === undefined ? pointer : `${s.case_id} ${s.metric} summary`;
  }
  const match = /^\/requests\/(\d+)\/([a-z_]+)(?:\/([a-z_]+))?$/.exec(pointer);
  if (!match) return pointer;
  const [, index, group = "", field] = match;
  if (!MEASURED_GROUPS.includes(group) || field === undefined) return null;
  return `${result.requests[Number(index)]?.id ?? `request ${index}`} ${field}`;
}

/** "sanity-I3 (/evaluation/passed, /evaluation/reason)" for each request whose values the evidence states. */
function redactionOverrideItems(result: Result): string[] {
  const raw = result.extensions?.["record_overrides"];
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [];
  const entries = Object.entries(raw as Record<string, unknown>).filter(([, p]) => Array.isArray(p) && p.length > 0);
  if (entries.length === 0) return [];
  const listed = entries.map(([id, pointers]) =>
    `${f.oneLine(id)} (${(pointers as unknown[]).map(String).join(", ")})`
  );
  return [
    `scored before redaction: ${listed.join("; ")}. Redaction changed the published text these values were ` +
    "computed from; they are the values scored on the text as the engine sent it, stated in outputs.jsonl " +
    "(record_overrides) and applied by report.",
  ];
}

const PLACES_SHOWN = 6;

/**
 * One line per reason: every null of `missing` and every request a summary left out, grouped by what a person can
 * do about it ("not given (pass --flag)", "not measurable here (why)", "failed (why)"; an exclusion's
 * "<metric> null: " prefix is dropped, so it joins the null it comes from), with its places, in that group order.
 */
export function notMeasuredLines(result: Result): string[] {
  const byLabel = new Map<string, Set<string>>();
  const add = (reason: string, pointer: string | null, place: string) => {
    const key = missingLabel(f.oneLine(reason), pointer);
    const places = byLabel.get(key) ?? new Set<string>();
    places.add(place);
    byLabel.set(key, places);
  };
  const entries = Object.entries(result.missing).sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }));
  for (const [pointer, reason] of entries) {
    const place = limitationPlace(result, pointer);
    if (place !== null) add(reason, pointer, place);
  }
  for (const s of result.summaries) {
    for (const e of s.excluded) {
      const reason = e.reason.startsWith(`${s.metric} null: `) ? e.reason.slice(s.metric.length + 7) : e.reason;
      add(reason, null, `${e.request_id} ${s.metric}`);
    }
  }
  const rank = (label: string) => MISSING_GROUPS.findIndex((g) => label.startsWith(g));
  return [...byLabel].sort(([a], [b]) => rank(a) - rank(b)).map(([label, set]) => {
    const places = [...set];
    const shown = places.slice(0, PLACES_SHOWN).join(", ");
    const more = places.length > PLACES_SHOWN ? ` and ${places.length - PLACES_SHOWN} more` : "";
    return `${label}: ${places.length === 1 ? "" : `${places.length}: `}${shown}${more}`;
  });
}

function limitationsSection(result: Result): Section {
  return {
    title: "Limitations and missing values",
    paragraphs: [
      `Each line is one reason, with the places it applies to; results.json has every null with its JSON ` +
      `Pointer in "missing" and every left-out request in its summary's "excluded".`,
    ],
    items: [
      `Protocol ${result.protocol.id} is a draft; its results are pilot data, not approved standard results.`,
      "A fixed seed does not make outputs identical across hardware or engine versions.",
      ...(result.run.optional_concurrency
        ? ["Three concurrency rounds are too few for a stable p95; per-round aggregates are reported instead."]
        : []),
      ...[priorRequestsLine(result)].filter((line): line is string => line !== null),
      ...redactionOverrideItems(result),
      ...notMeasuredLines(result),
    ],
  };
}

function evidenceSection(result: Result): Section {
  return {
    title: "Evidence",
    table: {
      head: ["Kind", "File", "SHA-256"],
      rows: result.artifacts.map((a) => [a.kind, { text: a.path, href: a.path }, a.sha256]),
    },
    notes: ["Every number above is in results.json; the files above hold the raw evidence by request id."],
  };
}

/** Every section after the first screen, in reading order. */
export function reportSections(result: Result): Section[] {
  const optional = [roundsSection(result)];
  const pictures = picturesSection(result);
  return [
    perCaseSection(result),
    ...(pictures ? [pictures] : []),
    ...optional.filter((s): s is Section => s !== null),
    sanitySection(result),
    failuresSection(result),
    statusSection(result),
    runSection(result),
    hardwareSection(result),
    softwareSection(result),
    modelSection(result),
    configurationSection(result),
    countsSection(result),
    limitationsSection(result),
    evidenceSection(result),
  ];
}
