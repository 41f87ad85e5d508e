// @ts-check
/**
 * What the pages show of a verified result: its identity (the comparison dimensions: protocol, GPU, model, quant,
 * track, engine) read from the reviewed results.json, and its numbers taken from the site's own recomputation.
 * Built only after every check passed.
 */
import { isObject } from "./evidence.js";
import { BURST_CASE, PERFORMANCE_CASES } from "./protocol.js";
import { statOf } from "./check_derived.js";
import { SIMULATED_WORDS } from "./check_status.js";

/** @typedef {import("./check_records.js").CheckedRequest} CheckedRequest */
/** @typedef {import("./check_derived.js").Summary} Summary */
/** @typedef {import("./check_derived.js").Round} Round */
/** @typedef {import("./protocol.js").KnownProtocol} KnownProtocol */

/** @typedef {{ median: number | null, min: number | null, max: number | null, n: number, values: number[] }} Stat */
/** @typedef {{ min: number, max: number } | null} Range */

/**
 * One comparison row: a case of a run.
 * @typedef {{ phase: string, caseId: string, concurrency: number, requests: number, capped: number,
 *   inputTokens: Range, cachedTokens: Range, outputTokens: Range,
 *   metrics: Record<string, Stat>, aggregateTps: Stat | null }} CaseRow
 */

/**
 * @typedef {{
 *   runId: string, status: string, protocolId: string, stage: string, simulated: boolean,
 *   identity: { gpu: string, model: string, quant: string, track: string, engine: string },
 *   requiredDurationS: number | null,
 *   counts: Record<string, Record<string, number>>,
 *   quality: { passed: number, total: number, categories: Record<string, { passed: number, total: number }> },
 *   verdicts: { id: string, caseId: string, category: string, passed: boolean, reason: string, stated: boolean }[],
 *   statedValues: { id: string, pointers: string[] }[],
 *   cases: CaseRow[],
 *   rounds: Round[],
 *   failures: { id: string, status: string, reason: string }[],
 *   nonconformities: string[],
 *   statusReasons: string[],
 *   artifacts: { kind: string, path: string, sha256: string, size: number }[],
 * }} ResultFacts
 */

const NOT_MEASURED = "not measured";

/** @param {unknown} value */
function text(value) {
  return typeof value === "string" && value !== "" ? value : NOT_MEASURED;
}

/** @param {Record<string, unknown>} result */
function gpuName(result) {
  const hardware = isObject(result.hardware) ? result.hardware : {};
  if (!Array.isArray(hardware.gpus) || hardware.gpus.length === 0) return NOT_MEASURED;
  /** @type {Map<string, number>} */
  const names = new Map();
  for (const gpu of hardware.gpus) {
    const name = isObject(gpu) ? text(gpu.name) : NOT_MEASURED;
    names.set(name, (names.get(name) ?? 0) + 1);
  }
  return [...names].map(([name, n]) => (n > 1 ? `${n}x ${name}` : name)).join(" + ");
}

/** @param {readonly (number | null)[]} values @returns {Range} */
function range(values) {
  const known = /** @type {number[]} */ (values.filter((v) => v !== null));
  return known.length === 0 ? null : { min: Math.min(...known), max: Math.max(...known) };
}

/**
 * @param {{ result: Record<string, unknown>, protocol: KnownProtocol, checked: readonly CheckedRequest[],
 *   counts: Record<string, Record<string, number>>, quality: ResultFacts["quality"], summaries: readonly Summary[],
 *   rounds: Round[], nonconformities: string[], artifacts: ResultFacts["artifacts"] }} input
 * @returns {ResultFacts}
 */
export function resultFacts(input) {
  const { result, checked, summaries } = input;
  const run = isObject(result.run) ? result.run : {};
  const software = isObject(result.software) ? result.software : {};
  const model = isObject(result.model) ? result.model : {};
  const configuration = isObject(result.configuration) ? result.configuration : {};
  const extensions = isObject(result.extensions) ? result.extensions : {};
  const optional = run.optional_concurrency === true;

  /** @type {CaseRow[]} */
  const cases = [];
  const groups = PERFORMANCE_CASES.map((c) => ({ phase: "performance", caseId: c, concurrency: 1 }));
  if (optional) groups.push({ phase: "concurrency", caseId: BURST_CASE, concurrency: 4 });
  for (const group of groups) {
    const members = checked.filter((r) => r.scheduled.phase === group.phase && r.scheduled.case_id === group.caseId);
    /** @type {Record<string, Stat>} */
    const metrics = {};
    for (const s of summaries) {
      if (s.phase === group.phase && s.case_id === group.caseId) {
        metrics[s.metric] = { median: s.median, min: s.min, max: s.max, n: s.n, values: s.values };
      }
    }
    const aggregates = /** @type {number[]} */ (input.rounds.map((r) => r.aggregate_tps).filter((v) => v !== null));
    cases.push({
      ...group,
      requests: members.length,
      capped: members.filter((r) => r.rebuilt.status === "truncated").length,
      inputTokens: range(members.map((r) => r.rebuilt.tokens.input_tokens)),
      cachedTokens: range(members.map((r) => r.rebuilt.tokens.cached_tokens)),
      outputTokens: range(members.map((r) => r.rebuilt.tokens.output_tokens)),
      metrics,
      aggregateTps: group.phase === "concurrency" ? statOf(aggregates) : null,
    });
  }
  const reasons = Array.isArray(extensions.status_reasons) ? extensions.status_reasons : [];
  return {
    runId: String(run.id),
    status: String(run.status),
    protocolId: input.protocol.id,
    stage: input.protocol.stage,
    simulated: extensions.simulated_engine === true || input.nonconformities.some((n) => n.includes(SIMULATED_WORDS)),
    identity: {
      gpu: gpuName(result),
      model: text(model.id),
      quant: text(model.quantization),
      track: text(configuration.track),
      engine: text(software.engine_version),
    },
    requiredDurationS: typeof run.required_duration_s === "number" ? run.required_duration_s : null,
    counts: input.counts,
    quality: input.quality,
    verdicts: checked.flatMap((r) =>
      r.verdict === null ? [] : [{
        id: r.scheduled.id,
        caseId: r.verdict.caseId,
        category: r.verdict.category,
        passed: r.verdict.passed,
        reason: r.verdict.reason,
        stated: r.stated.some((p) => p === "" || p === "/evaluation" || p.startsWith("/evaluation/")),
      }]
    ),
    statedValues: checked.filter((r) => r.stated.length > 0).map((r) => ({ id: r.scheduled.id, pointers: r.stated })),
    cases,
    rounds: input.rounds,
    failures: checked.flatMap((r) => {
      if (r.rebuilt.status === "completed" || r.rebuilt.status === "truncated") return [];
      const error = isObject(r.record.error) ? r.record.error : {};
      return [{ id: r.scheduled.id, status: r.rebuilt.status, reason: text(error.message) }];
    }),
    nonconformities: input.nonconformities,
    statusReasons: reasons.filter((r) => typeof r === "string"),
    artifacts: input.artifacts,
  };
}
