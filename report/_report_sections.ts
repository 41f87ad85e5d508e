/**
 * The facts a person reads about one result, gathered once as neutral sections (labelled values, tables, lists,
 * pictures) so the README and the console summary say the same things, in reading order: the first screen
 * (`_report_head.ts`), the per-case table, the pictures, the optional rounds, sanity, failures, the status in
 * full, the run's details, the long tail (`_limitations_section.ts`), then the evidence files. Values are
 * formatted as stored; the per-case numbers are score/'s case readouts.
 */
import { METRICS, type Result, SANITY_IDS } from "../contract/mod.ts";
import { type CaseReadout, LEFT_OUT_NOTE, leftOutOfReadout, readCadence, readCases } from "../score/mod.ts";
import * as f from "./_format.ts";
import { findSummary, isSimulated, nonconformingReasons, SIMULATED_LABEL } from "./_report_head.ts";
import { PICTURE_FILES } from "./pictures.ts";
import { roundsSection } from "./_rounds_section.ts";
import { limitationsSection, priorRequestsLine } from "./_limitations_section.ts";
import { missingLabel } from "./_missing_groups.ts";
import type { Section } from "./_section.ts";

/**
 * The pairs with each "not measured" that results.json says was only not given replaced by "not given (pass
 * --flag)": `pointers` names the result field behind a label. What could not be measured stays "not measured".
 */
function absentAsStated(
  result: Result,
  pairs: [string, string][],
  pointers: Record<string, string>,
): [string, string][] {
  return pairs.map(([label, value]) => {
    const pointer = pointers[label];
    const reason = pointer === undefined ? undefined : result.missing[pointer];
    if (value !== f.NOT_MEASURED || reason === undefined) return [label, value];
    const said = missingLabel(f.oneLine(reason), pointer!);
    return [label, said.startsWith("not given") ? said : value];
  });
}

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
    pairs: absentAsStated(result, [
      ["Protocol", `${protocol.id} (draft), profile ${protocol.profile}`],
      ["Result format", `${result.format}, schema version ${result.schema_version}`],
      ["Protocol commit", f.text(protocol.git_commit)],
      ["Corpus SHA-256", protocol.corpus_sha256],
      ["Model card revision", protocol.model_card_revision ?? "not pinned (a draft protocol pins it at activation)"],
      ["Run id", run.id],
      ["Started at", run.started_at],
      ["Required stages took", f.duration(run.required_duration_s)],
      ["Optional concurrency", run.optional_concurrency ? f.duration(run.optional_duration_s) : "not selected"],
      ["Command", f.oneLine(run.command)],
    ], { "Protocol commit": "/protocol/git_commit" }),
  };
}

/** "nvme Samsung 990 on pcie"; the parts a probe could not read are left out ("a device on virtio"). */
function storageText(s: { kind: string | null; model: string | null; bus: string | null }): string {
  const what = [s.kind, s.model].filter((part) => part !== null && part !== "").join(" ") || "a device";
  return s.bus === null || s.bus === "" ? `${what} (kind, model and bus not measured)` : `${what} on ${s.bus}`;
}

function hardwareSection(result: Result): Section {
  const { hardware } = result;
  const gpus = hardware.gpus === null
    ? [f.NOT_MEASURED]
    : hardware.gpus.map((gpu) =>
      `#${gpu.device_index} ${gpu.name}, ${f.bytes(gpu.memory_bytes)} ${f.text(gpu.memory_kind)} memory, ` +
      `power limit ${gpu.power_limit_w === null ? f.NOT_MEASURED : `${gpu.power_limit_w} W`}`
    );
  const storage = hardware.storage === null ? f.NOT_MEASURED : hardware.storage.map(storageText).join("; ") || "none";
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
    pairs: absentAsStated(result, [
      ["OS", f.nameVersions(s.os)],
      ["Drivers", f.nameVersions(s.drivers)],
      ["Runtime", f.nameVersions(s.runtime)],
      ["Engine version", f.text(s.engine_version)],
      ["Engine commit", f.text(s.strata_commit)],
      ["Build kind", f.text(s.build_kind)],
      ["Build options", f.list(s.build_options)],
      ["Runner commit", f.text(s.runner_commit)],
    ], { "Engine commit": "/software/strata_commit", "Build options": "/software/build_options" }),
  };
}

const MODEL_POINTERS: Record<string, string> = {
  Model: "/model/id",
  Quantization: "/model/quantization",
  Revision: "/model/revision",
  "Source revision": "/model/source_revision",
  "Tokenizer revision": "/model/tokenizer_revision",
  "Custom pack": "/model/custom_pack",
};

const CONFIGURATION_POINTERS: Record<string, string> = {
  "Track notes": "/configuration/track_notes",
  "KV cache": "/configuration/kv_cache",
  "Expert cache": "/configuration/expert_cache",
  Offloading: "/configuration/offloading",
  Prefill: "/configuration/prefill",
  MTP: "/configuration/mtp",
  Calibration: "/configuration/calibration",
  "Experimental options": "/configuration/experimental_options",
};

function modelSection(result: Result): Section {
  const m = result.model;
  const files = m.files === null
    ? f.NOT_MEASURED
    : m.files.map((file) => `${file.path} (sha256 ${f.text(file.sha256)})`).join("; ") || "none";
  return {
    title: "Model",
    pairs: absentAsStated(result, [
      ["Model", f.text(m.id)],
      ["Quantization", f.text(m.quantization)],
      ["Revision", f.text(m.revision)],
      ["Source revision", f.text(m.source_revision)],
      ["Tokenizer revision", f.text(m.tokenizer_revision)],
      ["Custom pack", f.text(m.custom_pack)],
      ["Files", files],
    ], MODEL_POINTERS),
  };
}

function configurationSection(result: Result): Section {
  const c = result.configuration;
  const s = c.sampling;
  return {
    title: "Configuration",
    pairs: absentAsStated(result, [
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
    ], CONFIGURATION_POINTERS),
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

/**
 * One line per case where any measured request streamed reasoning, after the words that say what each value is
 * (none when no request reasoned).
 */
function cadenceNotes(result: Result, cases: readonly CaseReadout[]): string[] {
  const ms = (range: Parameters<typeof f.scaledRange>[0]) => f.scaledRange(range, 1000, 2, "ms");
  const lines = cases.flatMap((c) => {
    const k = readCadence(result, c.phase, c.caseId);
    if (k === null) return [];
    return [
      `Reasoning cadence, ${caseLabel(c)} (${k.reasoned} of ${k.measured} measured requests reasoned): thinking ` +
      `${f.scaledRange(k.thinkingS, 1, 3, "s")}; reasoning TPOT ${ms(k.reasoningTpotS)}, ITL ${
        ms(k.reasoningItlS)
      }; answer TPOT ${ms(k.answerTpotS)}, ITL ${ms(k.answerItlS)}.`,
    ];
  });
  if (lines.length === 0) return [];
  return [
    "Reasoning cadence, of the requests that streamed reasoning (client stamps of every chunk): thinking is the " +
    "first reasoning delta to the first answer delta; TPOT is the mean gap per chunk, first to last; ITL is every " +
    "gap between successive chunks. Median [min-max] n over the requests; ITL over every gap of them.",
    ...lines,
  ];
}

function perCaseSection(result: Result): Section {
  const cases = readCases(result);
  const rows = cases.map((c) => {
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
    notes: [LEFT_OUT_NOTE, ...cadenceNotes(result, cases)],
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
  return [
    perCaseSection(result),
    ...[picturesSection(result), roundsSection(result)].filter((s): s is Section => s !== null),
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
